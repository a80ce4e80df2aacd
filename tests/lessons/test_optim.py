"""`Adam`: the same steps as torch.optim.Adam."""

import pytest
import torch

from attention_helpers.lessons.optim import Adam


@pytest.mark.parametrize(
    "settings", [{}, dict(lr=0.05, betas=(0.8, 0.99), eps=1e-6)], ids=["defaults", "other lr, betas, eps"]
)
def test_adam_matches_torch_optim_adam(settings):
    # optim.Adam exists only to spare the notebooks torch.optim's first-use import (see its docstring): it must take
    # the very steps that the public torch.optim.Adam takes, from the same start on the same losses.
    g = torch.Generator().manual_seed(0)
    start = [torch.randn(4, 3, generator=g), torch.randn(3, generator=g)]  # a weight and a bias
    ours = [p.clone().requires_grad_() for p in start]
    theirs = [p.clone().requires_grad_() for p in start]
    frozen = torch.ones(2, requires_grad=False)  # skipped by both
    ours_opt = Adam([*ours, frozen], **settings)
    theirs_opt = torch.optim.Adam(theirs, **settings)
    x = torch.randn(5, 4, generator=g)
    for _ in range(25):
        for params, opt in ((ours, ours_opt), (theirs, theirs_opt)):
            opt.zero_grad()
            ((x @ params[0] + params[1]).sin().sum() + (params[1] ** 2).sum()).backward()
            opt.step()
    for a, b in zip(ours, theirs, strict=True):
        torch.testing.assert_close(a.detach(), b.detach(), rtol=0, atol=1e-6)
    assert not torch.equal(ours[0].detach(), start[0])  # it moved: the comparison is not of two untouched tensors
