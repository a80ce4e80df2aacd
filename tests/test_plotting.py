"""show_heatmaps, heatmaps_svg and lecture_mode."""

import re

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

from attention_helpers import Heatmaps, heatmaps_svg, lecture_mode, show_heatmaps  # noqa: E402
from attention_helpers.plotting import SVG_MASKED, heatmap_cell_colours  # noqa: E402


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


def test_svg_text_and_lines_follow_the_theme():
    svg = heatmaps_svg(torch.rand(2, 2, 3, 3), "Keys", "Queries", ["a", "b"], rowlabels=["sequence 0", "sequence 1"])
    assert re.match(r'<svg [^>]*fill="currentColor"', svg)  # text inherits the page's text colour
    outside_cells = re.sub(r'<g class="values".*?</g>', "", svg)  # cell numbers
    texts = re.findall(r"<text[^>]*>", outside_cells)
    assert texts and not any("fill=" in t for t in texts)
    strokes = set(re.findall(r'stroke="([^"]+)"', svg)) - {"#fff"}  # the hatch is drawn on grey cells only
    assert strokes == {"currentColor"}
    assert svg.count('class="rowlabel"') == 2 and ">sequence 1</text>" in svg


@pytest.mark.parametrize("how", ["mask", "nan"])
def test_svg_masked_cells_are_grey_hatched_and_unnumbered(how):
    weights = torch.tensor([[[[0.25, 0.75, 0.0], [1.0, 0.0, 0.0]]]])  # (1, 1, Q=2, K=3)
    keep = torch.tensor([[True, True, False], [True, False, False]])  # True = may attend, as show_heatmaps
    if how == "mask":
        svg = heatmaps_svg(weights, "k", "q", mask=keep, cell=30)
    else:
        svg = heatmaps_svg(torch.where(keep, weights, float("nan")), "k", "q", cell=30)
    cells = re.findall(r'fill="(#[0-9a-f]+)"', re.search(r'<g class="panel".*?</g>', svg).group(0))
    assert [c == SVG_MASKED for c in cells] == (~keep).flatten().tolist()
    assert re.findall(r">(\d\.\d\d)</text>", svg) == ["0.25", "0.75", "1.00"]  # no number on a masked cell
    assert re.search(r'<path class="masked" d="([^"]*)"', svg).group(1).count("M") == 3
    assert "0.00" not in svg  # a masked 0 is not a small weight
    plain = heatmaps_svg(weights, "k", "q", cell=30)
    assert SVG_MASKED not in plain and 'class="masked"' not in plain and plain.count("0.00") == 3


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"vmin": 1, "vmax": 0}, ValueError, "vmin must be smaller than vmax"),
        ({"vmin": 0.5, "vmax": 0.5}, ValueError, "vmin must be smaller than vmax"),
        ({"vmin": None}, TypeError, "vmin must be a finite real number"),
        ({"vmax": float("inf")}, TypeError, "vmax must be a finite real number"),
        ({"cell": 0}, ValueError, "cell must be a positive int"),
        ({"cell": -5}, ValueError, "cell must be a positive int"),
        ({"cell": True}, ValueError, "cell must be a positive int"),
        ({"cmap": "nope"}, ValueError, "cmap must be a matplotlib colour map name"),
        ({"cmap": ["Reds"]}, TypeError, "cmap must be a matplotlib colour map name"),
        ({"xlabel": None}, TypeError, "xlabel must be a str"),
        ({"ylabel": 3}, TypeError, "ylabel must be a str"),
        ({"xticklabels": 4}, TypeError, "xticklabels must be a sequence of 3 labels"),
        ({"xticklabels": ["a"]}, ValueError, "xticklabels must be a sequence of 3 labels, got 1"),
        ({"yticklabels": "ab"}, TypeError, "yticklabels must be a sequence of 2 labels"),
        ({"titles": ["a", "b"]}, ValueError, "titles must be a sequence of 1 titles"),
        ({"rowlabels": ["a", "b"]}, ValueError, "rowlabels must be a sequence of 1 labels"),
        (
            {"mask": torch.ones(2, 3)},
            TypeError,
            "mask must be a boolean tensor or array, True where a query may attend",
        ),
        ({"mask": torch.ones(4, dtype=torch.bool)}, ValueError, r"mask of shape \(4,\) does not broadcast"),
        ({"show_values": "yes"}, TypeError, "show_values must be True or False"),
    ],
)
def test_svg_bad_input_names_the_argument(kwargs, error, match):
    args = {"xlabel": "k", "ylabel": "q", **kwargs}
    with pytest.raises(error, match=match):
        heatmaps_svg(torch.rand(1, 1, 2, 3), **args)


def test_svg_is_fast_enough_to_predraw_many_frames():
    # Not a timing assertion (the benchmark measures); the work per frame must stay linear in the cells.
    svg = heatmaps_svg(torch.rand(1, 1, 4, 8), "Keys", "Queries", ["sequence 0"], colorbar=False)
    assert svg.count("<rect") == 4 * 8 + 1 and len(svg) < 4500  # cells + the frame; a few KB per frame
    image = heatmaps_svg(torch.rand(1, 1, 4, 8), "Keys", "Queries", ["sequence 0"], colorbar=False, cells="image")
    assert len(image) < 2700  # what explorers store, once per frame


def test_svg_image_cells_show_the_same_colours_in_fewer_bytes():
    weights = torch.rand(2, 3, 4, 8)
    keep = torch.arange(8) < 5
    rects = heatmaps_svg(weights, "k", "q", mask=keep, rowlabels=["sequence 0", "sequence 1"])
    image = heatmaps_svg(weights, "k", "q", mask=keep, rowlabels=["sequence 0", "sequence 1"], cells="image")
    assert heatmap_cell_colours(image) == heatmap_cell_colours(rects)
    assert len(heatmap_cell_colours(image)) == 6 and len(heatmap_cell_colours(image)[0]) == 32
    assert image.count("<image") == 6 and "image-rendering:pixelated" in image and '<rect x="0"' not in image
    assert len(image) < 0.7 * len(rects)
    assert re.findall(r">(\d\.\d\d)</text>", image) == re.findall(r">(\d\.\d\d)</text>", rects)
    with pytest.raises(ValueError, match="cells must be 'rects' or 'image'"):
        heatmaps_svg(weights, "k", "q", cells="png")
