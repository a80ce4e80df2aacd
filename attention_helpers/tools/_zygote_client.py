"""pytest's side of `kernel_zygote`: start the zygote on the first notebook, and point nbval's kernel at it."""

from __future__ import annotations

import atexit
import os
import subprocess
import sys
import tempfile
from types import ModuleType

from attention_helpers.tools.kernel_zygote import LAUNCHER

__all__ = ["install"]

_zygote: tuple[subprocess.Popen, str] | None = None


def _address() -> str:
    global _zygote
    if _zygote is None or _zygote[0].poll() is not None:
        address = os.path.join(tempfile.mkdtemp(prefix="ah-zygote-"), "socket")
        process = subprocess.Popen(
            [sys.executable, "-m", "attention_helpers.tools.kernel_zygote", address],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            cwd=os.getcwd(),
        )
        if process.stdout.readline() != b"ready\n":  # imports done, listening
            raise RuntimeError(
                "attention_helpers.tools.kernel_zygote did not start; AH_PLAIN_KERNELS=1 runs without it"
            )
        atexit.register(process.stdin.close)  # its end of stdin closes: it removes the socket and exits
        _zygote = (process, address)
    return _zygote[1]


def install(kernel: ModuleType) -> None:
    """Make nbval's kernel for the current environment (`--nbval-current-env`) a fork of the zygote."""
    manager = kernel.NbvalKernelspecManager
    plain = manager.__dict__.get("plain_get_kernel_spec", manager.get_kernel_spec)
    manager.plain_get_kernel_spec = plain  # kept for the tests' comparison with a plain kernel

    def get_kernel_spec(self, kernel_name):  # noqa: ANN001, ANN202
        spec = plain(self, kernel_name)
        if kernel_name == kernel.CURRENT_ENV_KERNEL_NAME:
            spec.argv = [sys.executable, LAUNCHER, _address(), "-f", "{connection_file}"]
        return spec

    manager.get_kernel_spec = get_kernel_spec
