"""show_heatmaps, heatmaps_svg and lecture_mode."""

import re

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

from attention_helpers import Heatmaps, heatmaps_svg, lecture_mode, show_heatmaps  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")
    lecture_mode(False)


@pytest.mark.parametrize(("rows", "cols"), [(1, 1), (1, 3), (2, 2), (3, 1)])
def test_grid_shape_and_shared_colour_scale(rows, cols):
    matrices = torch.rand(rows, cols, 2, 5) * torch.arange(1, cols + 1).reshape(1, cols, 1, 1) / cols
    heatmaps = show_heatmaps(matrices, "Keys", "Queries", titles=[f"t{j}" for j in range(cols)])
    assert isinstance(heatmaps, Heatmaps)
    assert heatmaps.axes.shape == (rows, cols)
    assert len(heatmaps.fig.axes) == rows * cols + 1  # one colorbar for all panels
    for image in heatmaps.images.flat:
        assert image.get_clim() == (0.0, 1.0)
        assert image.get_array().shape == (2, 5)
    assert [ax.get_title() for ax in heatmaps.axes[0]] == [f"t{j}" for j in range(cols)]
    assert heatmaps.axes[-1, 0].get_xlabel() == "Keys" and heatmaps.axes[0, 0].get_ylabel() == "Queries"


def test_colour_limits_overridable_and_tick_labels():
    heatmaps = show_heatmaps(
        np.random.rand(1, 1, 2, 3) * 4, "k", "q", vmin=-1, vmax=4, xticklabels=["a", "b", "c"], yticklabels=["x", "y"]
    )
    assert heatmaps.images[0, 0].get_clim() == (-1, 4)
    assert [t.get_text() for t in heatmaps.axes[0, 0].get_xticklabels()] == ["a", "b", "c"]
    assert [t.get_text() for t in heatmaps.axes[0, 0].get_yticklabels()] == ["x", "y"]


def test_accepts_grad_tensor_and_leaves_it_alone():
    matrices = torch.rand(1, 2, 3, 3, requires_grad=True)
    before = matrices.detach().clone()
    heatmaps = show_heatmaps(matrices, "Keys", "Queries")
    assert torch.equal(matrices.detach(), before)
    np.testing.assert_allclose(heatmaps.images[0, 1].get_array(), before[0, 1].numpy(), rtol=1e-6)


@pytest.mark.parametrize(
    ("matrices", "kwargs", "error", "match"),
    [
        (torch.rand(2, 3), {}, ValueError, "matrices must be 4-D"),
        ([[[[0.1]]]], {}, TypeError, "matrices must be a torch.Tensor or numpy array"),
        (torch.rand(1, 2, 2, 2), {"titles": ["only one"]}, ValueError, "titles must be a sequence with one title"),
        (torch.rand(1, 1, 2, 3), {"xticklabels": ["a"]}, ValueError, "xticklabels must be a sequence of 3"),
        (torch.rand(1, 1, 2, 3), {"vmin": 1, "vmax": 0}, ValueError, "vmin must be smaller"),
        (np.array([[[["a"]]]]), {}, TypeError, "real numbers"),
    ],
)
def test_bad_input(matrices, kwargs, error, match):
    with pytest.raises(error, match=match):
        show_heatmaps(matrices, "Keys", "Queries", **kwargs)


def test_d2l_call_style_positional():
    heatmaps = show_heatmaps(torch.eye(10).reshape(1, 1, 10, 10), xlabel="Keys", ylabel="Queries")
    assert heatmaps.fig.get_size_inches().tolist() == [2.5, 2.5]


def test_svg_cells_follow_the_colour_map():
    matrices = torch.tensor([[[[0.0, 1.0], [0.5, 0.0]]]])
    svg = heatmaps_svg(matrices, "Keys", "Queries")
    panel = re.search(r'<g class="panel"[^>]*>(.*?)</g>', svg).group(1)
    fills = re.findall(r'fill="(#[0-9a-f]{6})"', panel)
    cmap = matplotlib.colormaps["Reds"]
    expected = [matplotlib.colors.to_hex(cmap(v)) for v in (0.0, 1.0, 0.5, 0.0)]
    assert fills == expected
    assert svg.count('<g class="panel"') == 1 and "Keys" in svg and "Queries" in svg


def test_svg_escapes_labels():
    svg = heatmaps_svg(torch.rand(1, 1, 1, 2), "Keys", "Queries", xticklabels=["<pad>", "a&b"])
    assert "&lt;pad&gt;" in svg and "a&amp;b" in svg and "<pad>" not in svg


def test_lecture_mode_enlarges_and_switches_colour_map():
    weights = torch.tensor([[[[0.0, 1.0]]]])
    width = re.compile(r'^<svg[^>]* width="(\d+)"')
    cells = re.compile(r'<g class="panel".*?</g>')
    plain_svg, plain_signed = heatmaps_svg(weights, "k", "q"), heatmaps_svg(weights, "k", "q", cmap="RdBu_r", vmin=-1)
    small = show_heatmaps(torch.rand(1, 1, 2, 2), "k", "q")
    lecture_mode()
    big = show_heatmaps(torch.rand(1, 1, 2, 2), "k", "q")
    assert big.fig.get_size_inches()[0] > small.fig.get_size_inches()[0]
    assert big.images[0, 0].get_cmap().name != small.images[0, 0].get_cmap().name
    assert big.axes[0, 0].xaxis.label.get_fontsize() > small.axes[0, 0].xaxis.label.get_fontsize()
    diverging = show_heatmaps(torch.rand(1, 1, 2, 2), "k", "q", cmap="RdBu_r", vmin=-1)
    assert diverging.images[0, 0].get_cmap().name == "RdBu_r"  # a map chosen on purpose keeps its meaning
    svg = heatmaps_svg(weights, "k", "q")  # what the explorers draw
    assert int(width.match(svg).group(1)) > 1.5 * int(width.match(plain_svg).group(1))
    assert re.findall(r'fill="(#[0-9a-f]+)"', cells.search(svg).group(0)) == ["#000004", "#fcffa4"]  # inferno
    signed = heatmaps_svg(weights, "k", "q", cmap="RdBu_r", vmin=-1)
    assert cells.search(signed).group(0) != cells.search(svg).group(0)
    assert re.findall(r'fill="(#[0-9a-f]+)"', cells.search(signed).group(0)) == re.findall(
        r'fill="(#[0-9a-f]+)"', cells.search(plain_signed).group(0)
    )
    lecture_mode(False)
    again = show_heatmaps(torch.rand(1, 1, 2, 2), "k", "q")
    assert again.fig.get_size_inches().tolist() == small.fig.get_size_inches().tolist()
    assert heatmaps_svg(weights, "k", "q") == plain_svg
    with pytest.raises(ValueError, match="cmap"):
        lecture_mode(cmap="no-such-map")
    with pytest.raises(TypeError, match="on must be"):
        lecture_mode("yes")
