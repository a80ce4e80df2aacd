"""Notebook 0's SVG pictures: theme-following text, the data drawn, and clear errors."""

import html
import itertools
import re

import pytest
import torch

from attention_helpers.explore.pictures import (
    alignment_svg,
    chosen_row_svg,
    curve_svg,
    grouped_heads_svg,
    online_softmax_svg,
    pair_arrows_svg,
    query_svg,
    rotation_svg,
    side_by_side,
)
from attention_helpers.plotting import heatmap_cell_colours


def test_query_svg_discs_follow_weights_and_text_follows_theme():
    keys = torch.tensor([[2.0, 1.0], [0.0, 2.0], [-1.0, 1.0]])
    svg = query_svg(torch.tensor([1.0, 0.5]), keys, torch.tensor([0.7, 0.2, 0.1]))
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    assert "black" not in svg and "#000" not in svg and 'fill="currentColor"' in svg
    radii = [float(r) for r in re.findall(r'r="([\d.]+)" fill="#d62728" fill-opacity', svg)]
    assert len(radii) == 3 and radii[0] > radii[1] > radii[2]  # area grows with the weight
    assert "k1 0.70" in svg and "k3 0.10" in svg


def test_curve_svg_draws_points_and_curves():
    x = torch.linspace(0, 1, 5)
    svg = curve_svg(x, x**2, x, {"fit": x, "truth": x**2}, title="σ = 1")
    assert svg.count("<circle") == 5 and svg.count("<polyline") == 2 and "σ = 1" in svg
    assert "black" not in svg


def test_side_by_side_adds_widths():
    a = '<svg xmlns="http://www.w3.org/2000/svg" width="100" height="50"></svg>'
    b = '<svg xmlns="http://www.w3.org/2000/svg" width="30" height="80"></svg>'
    both = side_by_side(a, b, gap=10)
    assert both.startswith('<svg xmlns="http://www.w3.org/2000/svg" width="140" height="80"')
    assert '<svg x="110" y="0"' in both


def test_rotation_svg_one_chord_per_point():
    angles = torch.linspace(0, 3, 5)
    before = torch.stack([angles.sin(), angles.cos()], -1)[None].expand(2, 5, 2)  # (C, n, 2)
    after = torch.stack([(angles + 1).sin(), (angles + 1).cos()], -1)[None].expand(2, 5, 2)
    svg = rotation_svg(before, after, ["fast", "slow"])
    assert svg.count("<line") == 10 and svg.count("<circle") == 2 + 2 * 10 and "fast" in svg and "black" not in svg
    with pytest.raises(ValueError, match="one title per circle"):
        rotation_svg(before, after, ["one"])
    with pytest.raises(ValueError, match="after must have the shape"):
        rotation_svg(before, after[:, :3], ["fast", "slow"])


def test_rotation_svg_zoom_tells_a_small_turn_apart():
    angles = torch.arange(4) * 0.001  # four points a thousandth of a radian apart: one spot at zoom 1
    before = torch.stack([angles.sin(), angles.cos()], -1)[None]  # (1, n, 2)
    after = torch.stack([(angles + 0.002).sin(), (angles + 0.002).cos()], -1)[None]

    def centres(svg, radius):  # the drawn points (x, y) of the given radius
        return [
            (float(x), float(y)) for x, y in re.findall(rf'<circle cx="([-\d.]+)" cy="([-\d.]+)" r="{radius}"', svg)
        ]

    for zoom, apart in ((None, False), ([100], True)):
        svg = rotation_svg(before, after, ["slow"], zoom=zoom)
        hollow = centres(svg, "3.5")
        gaps = [abs(a[0] - b[0]) for a, b in itertools.pairwise(hollow)]
        assert (min(gaps) > 5) == apart  # zoomed: the points lie over 5 px apart
    zoomed = rotation_svg(before, after, ["slow"], zoom=[100])
    assert '<svg x="0" y="18" width="150" height="150">' in zoomed  # the window is clipped to its panel
    assert all(0 <= x <= 150 and 0 <= y <= 150 for x, y in centres(zoomed, "3.5"))  # and centred on the points
    arc = [float(v) for v in re.search(r'<polyline points="([^"]+)"', zoomed).group(1).replace(",", " ").split()]
    assert len(arc) > 20 and all(0 <= v <= 150 for v in arc)  # the circle's arc, only inside the window
    assert rotation_svg(before, after, ["slow"], zoom=[1]) == rotation_svg(before, after, ["slow"])


def test_alignment_svg_one_row_per_output_character_one_column_per_input_character():
    weights = torch.zeros(3, 6)  # (T, L): the last two input positions are padding
    weights[0, 0] = weights[1, 2] = weights[2, 3] = 1.0  # output character t looks at one input character
    weights[:, 4:] = 1.0  # padding beyond the text: must not be drawn
    before = weights.clone()
    svg = alignment_svg(weights, "a bc", "xyz", "a bc → xyz")
    assert torch.equal(weights, before)  # not modified
    (colours,) = heatmap_cell_colours(svg)  # one panel
    assert len(colours) == 3 * 4  # T rows × len(text) columns, padding left out
    hot = {i for i, colour in enumerate(colours) if colour == colours[0]}  # the cells of weight 1
    assert hot == {0 * 4 + 0, 1 * 4 + 2, 2 * 4 + 3}
    assert ">␣<" in svg and ">a bc → xyz<" in svg  # a space is drawn as ␣; the title is kept
    for label in "xyz":
        assert f">{label}<" in svg


def test_alignment_svg_a_last_bit_cannot_change_a_colour():
    weights = torch.tensor([[0.7, 0.3]])
    nudged = weights + torch.tensor([[1e-7, -1e-7]])  # a last-bit difference, as between processors
    assert not torch.equal(weights, nudged)
    assert alignment_svg(weights, "ab", "x") == alignment_svg(nudged, "ab", "x")
    assert alignment_svg(weights, "ab", "x") != alignment_svg(torch.tensor([[0.3, 0.7]]), "ab", "x")


@pytest.mark.parametrize("groups", [4, 2, 1])
def test_grouped_heads_svg_circles_above_their_panels_squares_per_group(groups):
    weights = torch.softmax(torch.randn(4, 5, 5, generator=torch.Generator().manual_seed(0)), -1)  # (H, L, L)
    keys = torch.randn(4, 5, 3, generator=torch.Generator().manual_seed(1))  # (H, L, d)
    svg = grouped_heads_svg(weights, keys, groups)
    circles = [float(x) for x in re.findall(r'<circle cx="([\d.]+)" cy="12"', svg)]  # the query heads
    titles = re.findall(r'<text x="([\d.]+)"[^>]*text-anchor="middle">(q \d → K/V \d)', svg)  # the panel titles
    assert len(circles) == len(titles) == 4 and all(
        abs(c - float(x)) < 1 for c, (x, _) in zip(circles, titles, strict=True)
    )
    assert [t for _, t in titles] == [f"q {h} → K/V {h // (4 // groups)}" for h in range(4)]  # neighbours share
    assert len(re.findall(r"<rect x=\"[-\d.]+\" y=\"46\"", svg)) == groups  # one square per key/value head
    assert svg.count(">keys of q") == 4


def test_online_softmax_svg_draws_the_blocks_read_on_scales_that_stay_put():
    weights = torch.tensor([[0.5, 0.5, float("nan")], [0.2, 0.8, float("nan")]])  # (Q, K): key 2 not read yet
    history = {"running max m": torch.tensor([[1.0, 2.0], [3.0, 4.0], [3.0, 5.0]])}  # (N, Q): 3 blocks
    before = {k: v.clone() for k, v in history.items()}
    frames = {n: online_softmax_svg(weights, history, n) for n in (1, 2, 3)}
    label = re.search(r'aria-label="([^"]*)"', frames[2])[1]
    assert "weights after 2 of 3 blocks" in label and "row 0: 0.50 0.50 masked" in label  # unread keys: masked
    assert "query 1: 2 at 1 to 4 at 2" in label and "5" not in label.split("running max m")[1]  # block 3 not drawn
    y_ticks = {n: re.findall(r'<text x="53" y="([\d.]+)" text-anchor="end">([^<]+)<', svg) for n, svg in frames.items()}
    assert y_ticks[1] == y_ticks[2] == y_ticks[3] and y_ticks[1]  # one scale for every frame, fit to all 3 blocks
    assert frames[1].count("<circle") < frames[2].count("<circle") < frames[3].count("<circle")  # a marker per block
    assert all(torch.equal(history[k], before[k]) for k in history)  # inputs unchanged


def test_pair_arrows_svg_draws_each_vector_from_its_panels_centre():
    q, k = torch.tensor([1.0, 0.0]), torch.tensor([0.0, -2.0])  # one pair each: q along x, k down
    svg = pair_arrows_svg([("first", q, k), ("<second>", k, q)])
    assert svg.startswith('<svg xmlns="http://www.w3.org/2000/svg" width="370" height="205"')  # two 180 px panels
    ends = re.findall(r'<line x1="(\d+)" y1="110" x2="([-\d.]+)" y2="([-\d.]+)" stroke="#', svg)  # the arrows
    assert ends == [
        ("90", "125.0", "110.0"),
        ("90", "90.0", "180.0"),
        ("280", "280.0", "180.0"),
        ("280", "315.0", "110.0"),
    ]
    assert ">first</text>" in svg and "&lt;second&gt;" in svg  # titles, escaped
    assert "currentColor" in svg  # axes and circle follow the theme


@pytest.mark.parametrize(
    "call, error, words",
    [
        (lambda: query_svg([1.0, 0.5], torch.zeros(3, 2), torch.zeros(3)), TypeError, "query must be a torch.Tensor"),
        (
            lambda: query_svg(torch.zeros(2), torch.zeros(3), torch.zeros(3)),
            ValueError,
            r"keys must be a tensor of shape \(K, 2\)",
        ),
        (
            lambda: query_svg(torch.zeros(2), torch.zeros(3, 2), torch.zeros(2)),
            ValueError,
            r"weights must have shape \(3,\)",
        ),
        (lambda: curve_svg(torch.zeros(2), torch.zeros(2), torch.zeros(3), {}), ValueError, "curves must name"),
        (lambda: side_by_side("<p>"), ValueError, r"svgs\[0\] must be an <svg"),
    ],
)
def test_bad_input(call, error, words):
    with pytest.raises(error, match=words):
        call()


def test_chosen_row_svg_shows_the_row_alone_and_masks_the_future():
    weights = torch.softmax(torch.randn(4, 4, generator=torch.Generator().manual_seed(0)), -1)  # (n, n)
    causal = weights.tril() / weights.tril().sum(-1, keepdim=True)  # (n, n): keys after each output get 0
    tokens = ["a", "b", "c", "d"]
    svg = chosen_row_svg(causal, 1, tokens, causal=True, titles=["all rows", "row b"])
    left, right = heatmap_cell_colours(svg)
    masked = right[2]  # output 1 may not see key 2: the masked colour
    assert len(left) == 16 and len(right) == 4 and right == left[4:8]  # the right panel is the left one's row 1
    assert right[2:] == [masked, masked] and masked not in right[:2]  # keys 2, 3 masked, keys 0, 1 not
    assert left.count(masked) == 6  # above the diagonal: 4 · 3 / 2 keys masked
    assert "all rows" in svg and "row b" in svg and f"{causal[1, 0]:.2f}" in svg  # the chosen row's numbers
    unmasked = heatmap_cell_colours(chosen_row_svg(weights, 1, tokens))
    assert masked not in unmasked[0] + unmasked[1]  # without the causal mask nothing is masked
    assert unmasked[1] == unmasked[0][4:8] and unmasked[1] != right  # and the row shows the unmasked weights
    before = causal.clone()
    chosen_row_svg(causal, 3, tokens, causal=True)
    assert torch.equal(causal, before)  # its input unchanged


def test_pair_arrows_svg_says_its_vectors_and_their_dot_product():
    svg = pair_arrows_svg([("rotated", torch.tensor([1.0, 0.0]), torch.tensor([0.5, 0.5]))])
    label = re.search(r'^<svg[^>]*role="img" aria-label="([^"]*)"', svg).group(1)
    assert "rotated: q (1.00, 0.00), k (0.50, 0.50), q·k 0.50" in html.unescape(label)
