"""The README picture is computed, not drawn by hand: check what it shows."""

import torch

from attention_helpers.gallery import TOKENS, gallery_weights


def test_gallery_weights_show_what_the_titles_say():
    w = gallery_weights()
    n = len(TOKENS)
    assert w.shape == (1, 4, n, n)
    padded, causal, head0, head1 = w[0]
    assert (padded[:, 6:] == 0).all()  # the two <pad> keys get nothing
    assert (torch.triu(causal, diagonal=1) == 0).all()  # no query sees a later key
    assert (causal[:, 6:] == 0).all()  # ... nor the padding
    torch.testing.assert_close(causal.sum(-1), torch.ones(n))
    assert (head0[:, 6:] == 0).all() and (head1[:, 6:] == 0).all()
    assert not torch.allclose(head0, head1, atol=0.05)  # the heads attend differently


def test_gallery_is_reproducible():
    torch.testing.assert_close(gallery_weights(), gallery_weights(), rtol=0, atol=0)
