"""The forked notebook kernels of `pytest` (attention_helpers.tools.kernel_zygote) are the kernels nbval would have
started: same path, arguments, directory and environment; they exit when jupyter_client kills their launcher; they
take interrupts; and a launch whose import-time environment differs gets a plain kernel, never a fork."""

from __future__ import annotations

import json
import os
import time

import pytest
from nbval import kernel

from attention_helpers.tools import _zygote_client

pytestmark = pytest.mark.slow  # starts a zygote and kernels of its own: run by .ci/run outside the 60 s budget

PROBE = """
import json, os, sys
print(json.dumps({"path": sys.path, "argv0": os.path.basename(sys.argv[0]), "cwd": os.getcwd(),
                  "env": dict(os.environ), "torch_before": "torch" in sys.modules, "pid": os.getpid()}))
"""


class _Patched(kernel.NbvalKernelspecManager):
    pass


class _Plain(kernel.NbvalKernelspecManager):
    """nbval's own, even where this run's pytest plugin has already installed the zygote."""

    def get_kernel_spec(self, kernel_name):
        plain = getattr(
            kernel.NbvalKernelspecManager, "plain_get_kernel_spec", kernel.NbvalKernelspecManager.get_kernel_spec
        )
        return plain(self, kernel_name)


@pytest.fixture(scope="module")
def forked_manager():
    """nbval's kernel spec manager as the pytest plugin leaves it (a subclass, so that the plain one stays plain)."""
    fake = type(
        "nbval_kernel",
        (),
        {"NbvalKernelspecManager": _Patched, "CURRENT_ENV_KERNEL_NAME": kernel.CURRENT_ENV_KERNEL_NAME},
    )
    _zygote_client.install(fake)
    return _Patched


def _start(manager_class, cwd, env=None):
    km = kernel.KernelManager(kernel_name=kernel.CURRENT_ENV_KERNEL_NAME, kernel_spec_manager=manager_class())
    km.start_kernel(cwd=str(cwd), env=env or dict(os.environ))
    kc = km.client()
    kc.start_channels()
    kc.wait_for_ready(timeout=60)
    return km, kc


def _probe(kc) -> dict:
    reply = kc.execute_interactive(PROBE, timeout=30, output_hook=lambda m: out.append(m))
    assert reply["content"]["status"] == "ok"
    return json.loads("".join(m["content"]["text"] for m in out if m["msg_type"] == "stream"))


out: list = []


def _run(manager_class, cwd, env=None):
    out.clear()
    km, kc = _start(manager_class, cwd, env)
    try:
        return km, kc, _probe(kc)
    except BaseException:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
        raise


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as f:  # a zombie has exited
        return f.read().split(")")[-1].split()[0] != "Z"


def test_a_forked_kernel_is_the_kernel_nbval_starts(forked_manager, tmp_path):
    runs = {}
    for name, manager_class in (("plain", _Plain), ("forked", forked_manager)):
        km, kc, runs[name] = _run(manager_class, tmp_path)
        kc.stop_channels()
        km.shutdown_kernel()
    plain, forked = runs["plain"], runs["forked"]
    assert forked["torch_before"] and not plain["torch_before"]  # it is a fork: torch was already there
    for key in ("path", "argv0", "cwd"):
        assert forked[key] == plain[key], key
    per_launch = {"JPY_PARENT_PID", "JPY_SESSION_NAME"}
    assert {k: v for k, v in forked["env"].items() if k not in per_launch} == {
        k: v for k, v in plain["env"].items() if k not in per_launch
    }


def test_killing_the_launcher_ends_the_kernel_and_interrupts_reach_it(forked_manager, tmp_path):
    km, kc, probe = _run(forked_manager, tmp_path)
    try:
        assert probe["pid"] != km.provisioner.pid  # the kernel is the zygote's child, not the launcher
        msg_id = kc.execute(
            "import time\ntry:\n    time.sleep(60)\nexcept KeyboardInterrupt:\n    print('interrupted')"
        )
        time.sleep(1)
        km.interrupt_kernel()
        reply = kc.get_shell_msg(timeout=10)
        assert reply["parent_header"]["msg_id"] == msg_id
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)  # SIGKILL to the launcher's process group
    deadline = time.time() + 10
    while _alive(probe["pid"]) and time.time() < deadline:
        time.sleep(0.1)
    assert not _alive(probe["pid"])


def test_a_launch_with_other_numerics_gets_a_plain_kernel(forked_manager, tmp_path):
    env = dict(os.environ, ATEN_CPU_CAPABILITY="default")
    km, kc, probe = _run(forked_manager, tmp_path, env)
    kc.stop_channels()
    km.shutdown_kernel()
    assert not probe["torch_before"]  # exec'd afresh: torch will read ATEN_CPU_CAPABILITY when it is imported
    assert probe["env"]["ATEN_CPU_CAPABILITY"] == "default"
