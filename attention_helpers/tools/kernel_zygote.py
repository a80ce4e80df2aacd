"""Notebook kernels for `pytest` that start without importing torch again: each is forked from one process that
already has (a "zygote", as Android starts its apps).

Every notebook under nbval gets a fresh kernel, and each spent about 2.4 s of a core importing torch, matplotlib,
ipykernel and this package before its first cell ran: 12 kernels, about 29 s of the two cores' 94 s. The zygote
imports them once per pytest-xdist worker; each kernel is then a `fork()` of it, with the launch's own environment,
working directory and arguments, running exactly what `python -m ipykernel_launcher -f FILE` runs. The notebooks'
cells run as before (a fork shares the imported modules, not any name a cell defines), and nbval still compares
every output.

How a launch goes: jupyter_client starts `python _kernel_launch.py -f FILE` (standard library only, about 20 ms),
which sends its arguments, environment and directory to the zygote over a Unix socket and waits. The zygote forks;
the child becomes the kernel and holds the launcher's socket: when the launcher dies (jupyter_client's kill), the
kernel exits; when the kernel exits, the launcher does. The launcher passes on SIGINT and SIGTERM.

A fork is refused, and the child `exec`s the plain `python -m ipykernel_launcher` instead, whenever it could change a
result: an environment variable read at import time differs from the zygote's (`ATEN_CPU_CAPABILITY`,
`OMP_NUM_THREADS`, ...), or the zygote had more than one thread when it forked (a library's thread pool).
`AH_PLAIN_KERNELS=1` turns the whole thing off (`pytest_plugin`).
"""

from __future__ import annotations

import json
import os
import select
import signal
import socket
import sys
import threading

__all__ = ["LAUNCHER", "PRELOAD", "serve"]

LAUNCHER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_kernel_launch.py")
# what every notebook's kernel imports before its first cell (`python -X importtime`): about 2 s of a core
PRELOAD = (
    "torch",
    "torch.nn.functional",
    "numpy",
    "matplotlib",
    "matplotlib.figure",
    "matplotlib_inline.backend_inline",
    "ipykernel.kernelapp",
    "ipywidgets",
    "attention_helpers",
    "torch.distributed.tensor",  # the first torch.testing.assert_close imports it (and sympy): 0.66 s, in 10 notebooks
)
# read once, at import, by torch, MKL, OpenMP, matplotlib or Python itself: a launch that differs here gets a plain kernel
_IMPORT_TIME_ENV = (
    "ATEN_",
    "OMP_",
    "MKL_",
    "KMP_",
    "GOMP_",
    "OPENBLAS_",
    "TORCH",
    "PYTORCH",
    "PYTHON",
    "MPL",
    "LD_",
    "CUDA",
    "JUPYTER",
    "IPYTHON",
)


def _import_time_env(env: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in env.items() if k.startswith(_IMPORT_TIME_ENV)}


def _threads() -> int:
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:  # not Linux: count Python's threads only
        return threading.active_count()


def _plain(argv: list[str], env: dict[str, str]) -> None:
    os.execve(sys.executable, [sys.executable, "-m", "ipykernel_launcher", *argv], env)


def _become_kernel(
    conn: socket.socket, request: dict, zygote_env: dict[str, str], base_path: list[str], single_thread: bool
) -> None:
    """In the forked child: take on the launch's environment and run ipykernel (never returns)."""
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # the zygote ignores it; a kernel's subprocess.run must not
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    argv, env, cwd = request["argv"], request["env"], request["cwd"]
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.chdir(cwd)
    if not single_thread or _import_time_env(env) != _import_time_env(zygote_env):
        _plain(argv, env)
    os.environ.clear()
    os.environ.update(env)

    def watch_launcher() -> None:  # the launcher is the process jupyter_client knows: when it goes, so do we
        try:
            conn.recv(1)
        finally:
            os._exit(0)

    threading.Thread(target=watch_launcher, daemon=True, name="launcher-watch").start()
    # as `python -m ipykernel_launcher` leaves them: the working directory off the path (InteractiveShellApp adds
    # it back), argv[0] the launcher module's file
    import importlib.util

    sys.path[:] = base_path
    sys.argv[:] = [importlib.util.find_spec("ipykernel_launcher").origin, *argv]
    from ipykernel import kernelapp

    try:
        kernelapp.launch_new_instance()
    finally:
        os._exit(0)


def serve(address: str) -> None:
    """Import PRELOAD, then fork one kernel per connection on `address` until stdin closes (the worker is gone)."""
    import importlib

    base_path = sys.path[1:]  # sys.path[0] is the directory `python -m` ran in, which a kernel does not get
    for name in PRELOAD:
        importlib.import_module(name)
    zygote_env = dict(os.environ)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped by the system
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(address)
    listener.listen(16)
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    while True:
        readable, _, _ = select.select([listener, sys.stdin], [], [])
        if sys.stdin in readable and not os.read(sys.stdin.fileno(), 1):
            break
        if listener not in readable:
            continue
        conn, _ = listener.accept()
        data = b""
        while not data.endswith(b"\n"):
            chunk = conn.recv(65536)
            if not chunk:
                break
            data += chunk
        if not data.endswith(b"\n"):
            conn.close()
            continue
        request = json.loads(data)
        single_thread = _threads() == 1
        pid = os.fork()
        if pid == 0:
            listener.close()
            try:
                _become_kernel(conn, request, zygote_env, base_path, single_thread)
            finally:
                os._exit(1)
        conn.sendall(f"{pid}\n".encode())
        conn.close()  # the child keeps its copy
    listener.close()
    os.unlink(address)
    os.rmdir(os.path.dirname(address))  # made for it by _zygote_client


if __name__ == "__main__":
    serve(sys.argv[1])
