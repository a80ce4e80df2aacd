"""The process jupyter_client starts for a kernel forked by `kernel_zygote` (standard library only: it starts in
about 20 ms). Usage: `python _kernel_launch.py ADDRESS -f CONNECTION_FILE`.

Sends its arguments, environment and working directory to the zygote at ADDRESS, which forks the kernel, then stays
until the kernel exits, passing on SIGINT (interrupt) and SIGTERM. If this process is killed, the kernel sees its
socket close and exits too.
"""

import json
import os
import signal
import socket
import sys

__all__ = ["main"]


def main() -> None:
    address, argv = sys.argv[1], sys.argv[2:]
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.connect(address)
    conn.sendall(json.dumps({"argv": argv, "env": dict(os.environ), "cwd": os.getcwd()}).encode() + b"\n")
    reply = b""
    while not reply.endswith(b"\n"):
        chunk = conn.recv(64)
        if not chunk:
            sys.exit("kernel_zygote: no kernel was forked")
        reply += chunk
    pid = int(reply)

    def forward(signum: int, frame: object) -> None:
        try:
            os.kill(pid, signum)
        except ProcessLookupError:
            pass
        if signum == signal.SIGTERM:
            sys.exit(0)

    signal.signal(signal.SIGINT, forward)
    signal.signal(signal.SIGTERM, forward)
    while True:  # until the kernel closes its end (it exited)
        try:
            if not conn.recv(64):
                break
        except InterruptedError:
            continue


if __name__ == "__main__":
    main()
