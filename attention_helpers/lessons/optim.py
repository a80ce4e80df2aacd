"""`Adam`, the optimizer the notebooks' training loops use (06's date translator, 10's induction heads)."""

from __future__ import annotations

import torch

from .. import _validate as check

__all__ = ["Adam"]


class Adam:
    """The textbook Adam update (Kingma & Ba, 2015), as `torch.optim.Adam` does it with its default settings.

    Why not `torch.optim.Adam` itself: creating any `torch.optim` optimizer imports `torch._dynamo` the first time,
    2 to 3 s on a laptop, longer than a whole training run of the notebook.
    """

    def __init__(self, params: object, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8):
        if isinstance(params, torch.Tensor) or not hasattr(params, "__iter__"):
            raise TypeError(
                f"params must be an iterable of tensors, e.g. model.parameters(), got {check.describe(params)}"
            )
        params = list(params)
        for i, p in enumerate(params):
            check.floating_tensor(f"params[{i}]", p)
        lr = check.real(
            "lr", lr, low=0.0, low_open=True, high=1e6
        )  # above: steps of a million per parameter, or overflow
        if not isinstance(betas, (tuple, list)) or len(betas) != 2:
            raise TypeError(f"betas must be a pair (beta1, beta2), got {check.describe(betas)}")
        betas = tuple(check.real(f"betas[{i}]", b, low=0.0, high=1.0, high_open=True) for i, b in enumerate(betas))
        eps = check.real("eps", eps, low=0.0, low_open=True)
        self.params = [p for p in params if p.requires_grad]
        self.lr, self.betas, self.eps = lr, betas, eps
        self.m = [torch.zeros_like(p) for p in self.params]  # running mean of the gradients
        self.v = [torch.zeros_like(p) for p in self.params]  # running mean of their squares
        self.t = 0

    def zero_grad(self) -> None:
        for p in self.params:
            p.grad = None

    @torch.no_grad()
    def step(self) -> None:
        self.t += 1
        beta1, beta2 = self.betas
        for p, m, v in zip(self.params, self.m, self.v, strict=True):
            if p.grad is None:
                continue
            m.lerp_(p.grad, 1 - beta1)
            v.mul_(beta2).addcmul_(p.grad, p.grad, value=1 - beta2)
            denominator = (v / (1 - beta2**self.t)).sqrt_().add_(self.eps)
            p.addcdiv_(m, denominator, value=-self.lr / (1 - beta1**self.t))
