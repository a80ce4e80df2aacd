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
        (
            torch.rand(1, 2, 2, 2),
            {"titles": ["only one"]},
            ValueError,
            "titles must be a sequence of 2 titles, one per column",
        ),
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
    label = re.search(r' aria-label="([^"]*)"', svg).group(1)  # the text alternative: masked cells said in words
    assert label == "heatmap, 2 q × 3 k. row 0: 0.25 0.75 masked; row 1: 1.00 masked masked, colour scale 0 to 1"
    svg = svg.replace(label, "")  # what is drawn
    cells = re.findall(r'fill="(#[0-9a-f]+)"', re.search(r'<g class="panel".*?</g>', svg).group(0))
    assert [c == SVG_MASKED for c in cells] == (~keep).flatten().tolist()
    assert re.findall(r">(\d\.\d\d)</text>", svg) == ["0.25", "0.75", "1.00"]  # no number on a masked cell
    assert re.search(r'<path class="masked" d="([^"]*)"', svg).group(1).count("M") == 3
    assert "0.00" not in svg  # a masked 0 is not a small weight
    plain = re.sub(r' aria-label="[^"]*"', "", heatmaps_svg(weights, "k", "q", cell=30))
    assert SVG_MASKED not in plain and 'class="masked"' not in plain and plain.count("0.00") == 3


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"vmin": 1, "vmax": 0}, ValueError, "vmin must be smaller than vmax"),
        ({"vmin": 0.5, "vmax": 0.5}, ValueError, "vmin must be smaller than vmax"),
        ({"vmin": None}, TypeError, "vmin must be a real number, got NoneType None"),
        ({"vmax": float("inf")}, ValueError, "vmax must be a finite number, got inf"),
        ({"cell": 0}, ValueError, r"cell \(pixels per cell\) must be >= 1, got 0"),
        ({"cell": -5}, ValueError, r"cell \(pixels per cell\) must be >= 1, got -5"),
        ({"cell": True}, TypeError, r"cell \(pixels per cell\) must be an int >= 1, got bool"),
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
    assert svg.count("<rect") == 4 * 8 + 1 and len(svg) < 4700  # cells + the frame (+ 180 B of text alternative)
    image = heatmaps_svg(torch.rand(1, 1, 4, 8), "Keys", "Queries", ["sequence 0"], colorbar=False, cells="image")
    assert len(image) < 3000  # what explorers store, once per frame


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


# ---------------------------------------------------------------- show_heatmaps never clips silently


@pytest.mark.parametrize(
    ("values", "kwargs", "limits"),
    [
        ([[0.2, 0.7]], {}, (0.0, 1.0)),  # attention weights: always [0, 1], comparable across pictures
        ([[0.0, 1.0]], {}, (0.0, 1.0)),
        ([[-0.5, 0.25]], {}, (-0.5, 0.25)),  # signed values: the data's range
        ([[0.5, 3.0]], {}, (0.5, 3.0)),
        ([[2.0, 2.0]], {}, (1.5, 2.5)),  # a constant outside [0, 1]: half a unit either side
        ([[float("nan"), 0.5]], {}, (0.0, 1.0)),  # NaN is ignored
        ([[0.2, 0.7]], {"vmin": -1}, (-1.0, 1.0)),  # a given end replaces that end only
        ([[-3.0, 2.0]], {"vmax": 5}, (-3.0, 5.0)),
        ([[0.2, 0.7]], {"vmin": 0.1, "vmax": 0.3}, (0.1, 0.3)),  # honoured, even if values fall outside
        ([[0.2, 0.7]], {"vmin": np.float32(0.25), "vmax": torch.tensor(0.5)}, (0.25, 0.5)),
    ],
)
def test_colour_scale_follows_the_data_unless_given(values, kwargs, limits):
    heatmaps = show_heatmaps(torch.tensor(values).reshape(1, 1, 1, -1), "k", "q", **kwargs)
    for image in heatmaps.images.flat:
        assert image.get_clim() == pytest.approx(limits)
    assert heatmaps.colorbar.mappable.get_clim() == pytest.approx(limits)


def test_colour_scale_is_shared_across_panels():
    matrices = torch.stack([torch.full((2, 2), -2.0), torch.full((2, 2), 3.0)]).reshape(1, 2, 2, 2)
    heatmaps = show_heatmaps(matrices, "k", "q")
    assert {image.get_clim() for image in heatmaps.images.flat} == {(-2.0, 3.0)}


def test_positional_encodings_draw_their_negative_values():
    """d2l-en's cell: P in [-1, 1] with cmap='Blues'. Before, the scale was fixed at [0, 1]: every negative was 0."""
    from attention_helpers import positional_encoding

    P = positional_encoding(60, 32).reshape(1, 1, 60, 32)
    heatmaps = show_heatmaps(P, "Column (encoding dimension)", "Row (position)", figsize=(3.5, 4), cmap="Blues")
    image = heatmaps.images[0, 0]
    low, high = image.get_clim()
    assert low == pytest.approx(float(P.min())) and low < -0.99 and high == pytest.approx(1.0)
    colours = image.to_rgba(image.get_array())  # (60, 32, 4)
    negative, zero = P[0, 0] < -0.5, P[0, 0].abs() < 1e-6
    assert negative.any() and zero.any()
    assert not np.allclose(colours[negative.numpy()][0], colours[zero.numpy()][0])  # -0.5 no longer looks like 0
    assert heatmaps.fig.get_size_inches().tolist() == [3.5, 4.0] and image.get_cmap().name == "Blues"


def test_colormap_object_and_figsize_work():
    heatmaps = show_heatmaps(torch.rand(1, 1, 2, 2), "k", "q", figsize=[4, 3], cmap=matplotlib.colormaps["viridis"])
    assert heatmaps.images[0, 0].get_cmap().name == "viridis"
    assert heatmaps.fig.get_size_inches().tolist() == [4.0, 3.0]


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"vmin": 0.5, "vmax": 0.5}, ValueError, "vmin must be smaller than vmax, got vmin=0.5, vmax=0.5"),
        ({"vmin": 2}, ValueError, r"vmin must be smaller than vmax, got vmin=2, vmax=1 \(vmin=2 given"),
        ({"vmax": -1}, ValueError, "vmin must be smaller than vmax, got vmin=0, vmax=-1"),
        ({"vmin": "0"}, TypeError, "vmin must be a real number, got str"),
        ({"vmax": float("nan")}, ValueError, "vmax must be a finite number"),
        ({"figsize": 3}, TypeError, "figsize must be a \\(width, height\\) pair"),
        ({"figsize": (0, 2)}, ValueError, r"figsize\[0\] \(width\) must be > 0.0"),
        ({"cmap": "nope"}, ValueError, "cmap must be a matplotlib colour map name"),
        ({"cmap": ["Reds"]}, TypeError, "cmap must be a matplotlib colour map name"),
        ({"xlabel": None}, TypeError, "xlabel must be a str"),
        ({"xticklabels": 4}, TypeError, "xticklabels must be a sequence of 3 labels"),
        ({"titles": "t"}, TypeError, "titles must be a sequence of 1 titles"),
    ],
)
def test_show_heatmaps_bad_input_names_the_argument(kwargs, error, match):
    args = {"xlabel": "k", "ylabel": "q", **kwargs}
    with pytest.raises(error, match=match):
        show_heatmaps(torch.rand(1, 1, 2, 3), **args)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"scale": float("inf")}, ValueError, "scale must be a finite number, got inf"),
        ({"scale": "2"}, TypeError, "scale must be a real number, got str '2'"),
        ({"scale": 0}, ValueError, "scale must be > 0.0, got 0.0"),
        ({"cmap": ["Reds"]}, TypeError, "cmap must be a matplotlib colour map name such as 'Reds', got list"),
        ({"cmap": "nope"}, ValueError, "cmap must be a matplotlib colour map name"),
        ({"on": 1}, TypeError, "on must be True or False, got int 1"),
    ],
)
def test_lecture_mode_bad_input_names_the_argument(kwargs, error, match):
    with pytest.raises(error, match=match):
        lecture_mode(**kwargs)
    assert heatmaps_svg(torch.rand(1, 1, 1, 2), "k", "q").count('font-size="11"') == 1  # nothing half-applied


# ---------------------------------------------------------------- show_heatmaps draws masked cells grey

GREY = tuple(int(SVG_MASKED[i : i + 2], 16) for i in (1, 3, 5))  # (200, 200, 200)


def _pixels(heatmaps: Heatmaps, i: int, j: int, cells: list[tuple[int, int]]) -> list[tuple[int, int, int]]:
    """The rendered RGB (Agg canvas) of panel (i, j) at each cell (q, k), a quarter cell off its white diagonal."""
    heatmaps.fig.canvas.draw()
    rgba = np.asarray(heatmaps.fig.canvas.buffer_rgba())  # (height, width, 4), row 0 at the top
    found = []
    for q, k in cells:
        x, y = heatmaps.axes[i, j].transData.transform((k + 0.25, q + 0.25))  # display: origin bottom-left
        found.append(tuple(int(c) for c in rgba[rgba.shape[0] - int(round(y)), int(round(x)), :3]))
    return found


WEIGHTS = torch.tensor([[[[0.25, 0.75, 0.0], [1.0, 0.0, 0.0]]], [[[0.5, 0.5, 0.0], [0.2, 0.3, 0.5]]]])  # (2,1,2,3)
KEEP = torch.arange(3) < torch.tensor([[[[2], [1]]], [[[2], [3]]]])  # (2, 1, Q=2, K=3), True = may attend
CELLS = [(q, k) for q in range(2) for k in range(3)]


@pytest.mark.parametrize("how", ["mask", "nan"])
def test_masked_cells_are_drawn_grey_and_the_others_unchanged(how):
    if how == "mask":
        masked = show_heatmaps(WEIGHTS, "k", "q", figsize=(4, 4), mask=KEEP)
    else:
        masked = show_heatmaps(torch.where(KEEP, WEIGHTS, float("nan")), "k", "q", figsize=(4, 4))
    plain = show_heatmaps(WEIGHTS, "k", "q", figsize=(4, 4))
    reds = matplotlib.colormaps["Reds"]
    for i in range(2):
        got, before = _pixels(masked, i, 0, CELLS), _pixels(plain, i, 0, CELLS)
        for (q, k), colour, old in zip(CELLS, got, before, strict=True):
            if KEEP[i, 0, q, k]:
                assert colour == old  # an unmasked cell keeps its colour
                expected = np.round(np.array(reds(float(WEIGHTS[i, 0, q, k]))[:3]) * 255)
                assert np.abs(np.array(colour) - expected).max() <= 1
            else:
                assert colour == GREY and old != GREY  # a masked 0 no longer looks like a weight of 0
    assert len(masked.axes[1, 0].collections) == 1  # the white diagonals, over the 1 masked cell of panel (1, 0)
    assert len(masked.axes[1, 0].collections[0].get_segments()) == 1
    assert len(masked.axes[0, 0].collections[0].get_segments()) == 3
    assert not plain.axes[0, 0].collections  # nothing masked: nothing drawn over the cells


def test_masked_cells_take_no_part_in_the_colour_scale():
    scores = torch.tensor([[[[0.2, 0.7, 5.0]]]])  # the 5.0 is masked: the rest are weights in [0, 1]
    keep = torch.tensor([True, True, False])
    assert show_heatmaps(scores, "k", "q").images[0, 0].get_clim() == pytest.approx((0.2, 5.0))
    assert show_heatmaps(scores, "k", "q", mask=keep).images[0, 0].get_clim() == (0.0, 1.0)
    signed = torch.tensor([[[[-1.0, 2.0, -40.0]]]])  # a masked score does not stretch the scale either
    assert show_heatmaps(signed, "k", "q", mask=keep).images[0, 0].get_clim() == (-1.0, 2.0)
    allmasked = show_heatmaps(scores, "k", "q", mask=torch.zeros(3, dtype=torch.bool))  # no value left: [0, 1]
    assert allmasked.images[0, 0].get_clim() == (0.0, 1.0)


def test_mask_and_matrices_are_left_alone():
    weights = WEIGHTS.clone().requires_grad_()
    keep = KEEP.clone()
    array = WEIGHTS.numpy().copy()
    show_heatmaps(weights, "k", "q", mask=keep)
    show_heatmaps(array, "k", "q", mask=keep.numpy())
    assert torch.equal(weights.detach(), WEIGHTS) and torch.equal(keep, KEEP)
    assert np.array_equal(array, WEIGHTS.numpy())


def test_row_labels_sit_left_of_each_row_and_in_the_picture():
    from attention_helpers.plotting import static_png

    labels = ["sequence 0", "sequence 1"]
    heatmaps = show_heatmaps(WEIGHTS, "Keys", "Queries", figsize=(4, 4), mask=KEEP, rowlabels=labels)
    heatmaps.fig.canvas.draw()
    renderer = heatmaps.fig.canvas.get_renderer()
    for i, label in enumerate(labels):
        ax = heatmaps.axes[i, 0]
        [annotation] = [t for t in ax.texts if t.get_text() == label]
        box, ylabel = annotation.get_window_extent(renderer), ax.yaxis.label.get_window_extent(renderer)
        panel = ax.get_window_extent(renderer)
        assert box.x1 <= ylabel.x0 + 1  # left of the y label, which is left of the panel
        assert panel.y0 < (box.y0 + box.y1) / 2 < panel.y1  # beside its own row
    plain = show_heatmaps(WEIGHTS, "Keys", "Queries", figsize=(4, 4))
    assert not any(ax.texts for ax in plain.axes.flat)
    with_labels = static_png(WEIGHTS, "Keys", "Queries", rowlabels=labels)
    without = static_png(WEIGHTS, "Keys", "Queries")
    assert _png_size(with_labels)[0] > _png_size(without)[0]  # the tight crop keeps the labels


def test_row_labels_run_along_a_tall_row_and_across_a_short_one():
    tall = show_heatmaps(torch.rand(2, 1, 6, 6), "k", "q", figsize=(3, 6), rowlabels=["sequence 0", "sequence 1"])
    short = show_heatmaps(torch.rand(2, 1, 1, 10), "k", "q", figsize=(6, 2), rowlabels=["all-ones keys", "distinct"])
    assert [t.get_rotation() for ax in tall.axes[:, 0] for t in ax.texts] == [90, 90]  # as heatmaps_svg draws them
    assert [t.get_rotation() for ax in short.axes[:, 0] for t in ax.texts] == [0, 0]  # a one-query row is too short
    short.fig.canvas.draw()
    renderer = short.fig.canvas.get_renderer()
    boxes = [ax.texts[0].get_window_extent(renderer) for ax in short.axes[:, 0]]
    assert boxes[0].y0 > boxes[1].y1  # across: the two labels do not overlap


def _png_size(png: bytes) -> tuple[int, int]:
    width, height = np.frombuffer(png[16:24], dtype=">u4")
    return int(width), int(height)


def test_d2l_call_keeps_working_and_new_keywords_are_keyword_only():
    import inspect

    parameters = inspect.signature(show_heatmaps).parameters
    assert list(parameters)[:6] == ["matrices", "xlabel", "ylabel", "titles", "figsize", "cmap"]  # d2l's order
    assert parameters["mask"].kind is parameters["rowlabels"].kind is inspect.Parameter.KEYWORD_ONLY
    heatmaps = show_heatmaps(WEIGHTS, "Keys", "Queries", ["t"], (3, 3), "Blues")  # d2l's call, all positional
    assert heatmaps.images[0, 0].get_cmap().name == "Blues" and heatmaps.fig.get_size_inches().tolist() == [3, 3]


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        (
            {"mask": torch.ones(2, 3)},
            TypeError,
            "mask must be a boolean tensor or array, True where a query may attend",
        ),
        ({"mask": [[True, False, True]]}, TypeError, "mask must be a boolean tensor or array.*got list"),
        ({"mask": torch.ones(4, dtype=torch.bool)}, ValueError, r"mask of shape \(4,\) does not broadcast to the "),
        ({"mask": torch.ones(3, 2, 3, dtype=torch.bool)}, ValueError, r"mask of shape \(3, 2, 3\) does not broadcast"),
        ({"rowlabels": ["sequence 0"]}, ValueError, "rowlabels must be a sequence of 2 labels, one per row, got 1"),
        ({"rowlabels": "sequence"}, TypeError, "rowlabels must be a sequence of 2 labels"),
    ],
)
def test_mask_and_row_labels_bad_input_names_the_argument(kwargs, error, match):
    with pytest.raises(error, match=match):
        show_heatmaps(WEIGHTS, "k", "q", **kwargs)


def test_explorer_fallback_picture_draws_masked_cells_grey():
    """The PNG a page without a kernel shows: the same grey cells and row labels as the live SVG frames."""
    from ipywidgets import IntSlider

    from attention_helpers import HeatmapExplorer, masked_softmax, valid_lens_to_mask
    from attention_helpers.plotting import static_png

    scores = torch.randn(2, 2, 3, 4, generator=torch.Generator().manual_seed(0))  # (B, H, Q, K)

    def compute(length):
        return masked_softmax(scores.reshape(4, 3, 4), torch.tensor([length, 4]).repeat_interleave(2)).reshape(
            2, 2, 3, 4
        )

    def keep(length):
        return valid_lens_to_mask(torch.tensor([length, 4]), 3, 4)  # (B, Q, K)

    explorer = HeatmapExplorer(compute, {"length": IntSlider(value=2, min=0, max=2)}, mask=keep)
    unmasked = HeatmapExplorer(compute, {"length": IntSlider(value=2, min=0, max=2)})
    try:
        weights, labels, titles = compute(2), ["sequence 0", "sequence 1"], ["head 0", "head 1"]
        png = explorer.static_png()
        assert png == static_png(weights, "Keys", "Queries", titles, mask=keep(2)[:, None], rowlabels=labels)
        assert unmasked.static_png() == static_png(weights, "Keys", "Queries", titles, rowlabels=labels)
        assert _grey_pixels(png) > 100 and _grey_pixels(unmasked.static_png()) < 20  # a few anti-aliased text pixels
    finally:
        explorer.close()
        unmasked.close()


def _grey_pixels(png: bytes) -> int:
    import io

    rgb = np.round(plt.imread(io.BytesIO(png))[..., :3] * 255).astype(int)  # (H, W, 3)
    return int((rgb == GREY).all(-1).sum())


def test_figures_are_described_with_their_numbers():
    import matplotlib.pyplot as plt

    from attention_helpers.plotting import _describe_figure

    fig, (left, right) = plt.subplots(1, 2)
    try:
        left.plot([0, 1, 2], [0.5, 0.25, 0.125], label="loss")
        left.set(title="training", xlabel="step")
        right.imshow([[0.0, 1.0], [2.0, 3.0]])
        text = _describe_figure(fig)
        assert text == "training, y against step, loss: 0.125 to 0.5, last 0.125 at 2; image 2×2, 0 to 3"
        assert len(_describe_figure(fig, limit=20)) == 20
    finally:
        plt.close(fig)


def test_show_heatmaps_keeps_its_weights_for_the_text_alternative():
    import matplotlib.pyplot as plt

    shown = show_heatmaps(torch.tensor([[[[0.25, 0.75]]]]), "keys", "queries", mask=torch.tensor([True, True]))
    try:
        assert shown.fig._ah_alt == "heatmap, 1 queries × 2 keys. row 0: 0.25 0.75, colour scale 0 to 1"
    finally:
        plt.close(shown.fig)


def test_a_figure_reports_its_smallest_visible_text_in_png_pixels():
    """The decks and the book scale it to the drawn size (issue 36): the smallest visible text, not a hidden one."""
    from attention_helpers.plotting import _smallest_text_px

    fig, ax = plt.subplots(dpi=100)
    try:
        ax.set_title("title", fontsize=14)
        ax.tick_params(labelsize=9)
        ax.text(0.5, 0.5, "hidden", fontsize=2, visible=False)
        ax.text(0.5, 0.5, "   ", fontsize=3)  # blank: draws nothing
        fig.draw_without_rendering()  # tick labels exist once drawn (as after the PNG is made)
        assert _smallest_text_px(fig) == round(9 * 100 / 72, 2)
        ax.text(0.1, 0.1, "tiny", fontsize=4)
        assert _smallest_text_px(fig) == round(4 * 100 / 72, 2)
        ax.set_visible(False)
        assert _smallest_text_px(fig) is None
    finally:
        plt.close(fig)


def test_a_whole_text_size_is_stored_as_an_int():
    """JupyterLab writes JSON numbers as JavaScript does (25, not 25.0): a float would change the file on save."""
    from attention_helpers.plotting import _smallest_text_px

    fig, ax = plt.subplots(dpi=72)
    try:
        ax.set_title("t", fontsize=25)
        ax.tick_params(labelsize=30)
        fig.draw_without_rendering()
        assert _smallest_text_px(fig) == 25 and isinstance(_smallest_text_px(fig), int)
    finally:
        plt.close(fig)
