"""Notebook 0's SVG pictures: theme-following text, the data drawn, and clear errors."""

import itertools
import re

import pytest
import torch

from attention_helpers.explore.pictures import curve_svg, query_svg, rotation_svg, side_by_side


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
