"""PictureExplorer and the explorer machinery, driven without a browser: set a control's value, read the picture."""

import gc
import re
import weakref

import ipywidgets as widgets
import pytest

from attention_helpers import PictureExplorer
from attention_helpers.explore import MAX_FRAMES, Explorer, instrument
from attention_helpers.explore.svg import bar_chart_svg, line_chart_svg, scatter_svg
from attention_helpers.explore.view import scalable


def circle(r, colour="#0072b2", **_):
    return f'<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><circle r="{r}" fill="{colour}"/></svg>'


def stacks_under(widget):
    """Every Stack below widget, depth first."""
    found = []
    for child in getattr(widget, "children", ()):
        if isinstance(child, widgets.Stack):
            found.append(child)
        found.extend(stacks_under(child))
    return found


def css_classes(widget):
    """The CSS classes the browser gets for widget: its synced state (ipywidgets has add_class but no public reader)."""
    return set(widget.get_state()["_dom_classes"])


def links_of(explorer):
    return [w for w in explorer._made if isinstance(w, widgets.widget_link.DirectionalLink)]


def test_every_combination_is_drawn_once_in_advance():
    calls = []

    def draw(r, colour):
        calls.append((r, colour))
        return circle(r, colour)

    r = widgets.IntSlider(value=2, min=0, max=4, step=2)
    colour = widgets.ToggleButtons(options=[("blue", "#0072b2"), ("orange", "#e69f00")])
    explorer = PictureExplorer(draw, {"r": r, "colour": colour})
    assert sorted(calls) == sorted((v, c) for v in (0, 2, 4) for c in ("#0072b2", "#e69f00"))
    assert explorer.svg == circle(2, "#0072b2")
    calls.clear()
    r.value, colour.value = 4, "#e69f00"  # no kernel redraw: the picture was drawn in advance
    assert calls == [] and explorer.svg == circle(4, "#e69f00")
    assert explorer.values() == {"r": 4, "colour": "#e69f00"}


def test_browser_switches_frames_with_links_alone():
    r = widgets.IntSlider(value=1, min=0, max=3)
    mode = widgets.Dropdown(options=["a", "b"], value="b")
    explorer = PictureExplorer(lambda r, mode: circle(r + (mode == "b")), {"r": r, "mode": mode})
    links = links_of(explorer)
    # mode (2 options) outermost: one stack linked to mode's index, then one per mode linked to r's value
    assert sorted((link.source[0] is mode, link.source[1]) for link in links) == [
        (False, "value"),
        (False, "value"),
        (True, "index"),
    ]
    outer = next(link.target[0] for link in links if link.source[0] is mode)
    assert outer.selected_index == 1 and all(isinstance(c, widgets.Stack) for c in outer.children)
    inner = outer.children[1]
    assert inner.selected_index == 1 and inner.children[3].value == scalable(circle(4))
    assert {"ah-view", "ah-region-all"} <= css_classes(inner.children[3])


def test_int_slider_children_are_indexed_by_value():
    step = widgets.IntSlider(value=9, min=1, max=9, step=2)  # 1, 3, 5, 7, 9: 10 children, 5 placeholders
    explorer = PictureExplorer(lambda step: circle(step), {"step": step})
    (stack,) = stacks_under(explorer.picture)
    assert len(stack.children) == 10 and stack.selected_index == 9 and explorer.axes["step"].proxy is None
    assert [stack.children[i].value for i in (1, 5, 9)] == [scalable(circle(r)) for r in (1, 5, 9)]
    placeholder = stack.children[0]
    assert all(stack.children[i] is placeholder for i in (0, 2, 4, 6, 8))
    with pytest.raises(ValueError, match="'step' starts at 4, which its slider cannot reach"):
        PictureExplorer(circle, {"step": widgets.IntSlider(4, min=2, max=10, step=4)})


def test_sparse_int_slider_is_shown_through_a_stand_in():
    angle = widgets.IntSlider(value=90, min=0, max=315, step=45, description="angle")  # 8 positions, not 316 children
    explorer = PictureExplorer(lambda angle: circle(angle // 45 + 1), {"angle": angle})
    (stack,) = stacks_under(explorer.picture)
    proxy = explorer.axes["angle"].proxy
    assert isinstance(proxy, widgets.SelectionSlider) and proxy.description == "angle" and len(stack.children) == 8
    assert stack.selected_index == 2 and proxy.index == 2
    proxy.value = 315  # the learner moves the stand-in: the caller's slider follows
    assert angle.value == 315 and explorer.svg == circle(8)
    angle.value = 45  # and the other way
    assert proxy.index == 1 and explorer.svg == circle(2)


@pytest.mark.parametrize(
    ("control", "values"),
    [
        (widgets.FloatSlider(value=0.5, min=0.0, max=1.0, step=0.25), [0.0, 0.25, 0.5, 0.75, 1.0]),
        (widgets.Checkbox(value=True, description="big"), [False, True]),
        (widgets.IntSlider(value=0, min=-2, max=2), [-2, -1, 0, 1, 2]),
        (widgets.FloatLogSlider(value=10, base=10, min=0, max=2, step=1), [1.0, 10.0, 100.0]),
    ],
)
def test_controls_that_cannot_index_a_stack_get_a_stand_in(control, values):
    explorer = PictureExplorer(lambda x: circle(float(x) + 1), {"x": control})
    axis = explorer.axes["x"]
    assert axis.values == values and axis.proxy is not None and axis.source == (axis.proxy, "index")
    assert axis.proxy in explorer.controls_box.children and control not in explorer.controls_box.children
    assert explorer.controls["x"] is control  # the caller's widget, kept in step with the stand-in
    control.value = values[1]
    assert axis.proxy.value == values[1] and explorer.svg == circle(float(values[1]) + 1)
    axis.proxy.value = values[-1]  # what a move in the browser does
    assert control.value == values[-1] and explorer.svg == circle(float(values[-1]) + 1)


def test_float_slider_between_positions_snaps_to_the_nearest():
    x = widgets.FloatSlider(value=0.2, min=0.0, max=1.0, step=0.5)
    explorer = PictureExplorer(lambda x: circle(x), {"x": x})
    assert explorer.axes["x"].proxy.value == 0.0 and explorer.svg == circle(0.0)
    x.value = 0.7
    assert explorer.svg == circle(0.5) and x.value == 0.5


def test_caption_is_drawn_with_the_picture():
    r = widgets.IntSlider(value=1, min=0, max=2)
    explorer = PictureExplorer(circle, {"r": r}, caption=lambda r: f"radius {r} <px>")
    assert explorer.caption_text == "radius 1 <px>"
    r.value = 2
    assert explorer.caption_text == "radius 2 <px>" and explorer.svg == circle(2)
    (stack,) = stacks_under(explorer.picture)
    assert "radius 2 &lt;px&gt;" in stack.children[2].value and 'class="ah-caption"' in stack.children[2].value


def test_frame_budget_names_the_controls_and_the_count():
    controls = {
        "a": widgets.IntSlider(min=0, max=99),
        "b": widgets.Dropdown(options=list(range(11))),
    }
    with pytest.raises(ValueError, match=r"\['b', 'a'\] make 1100 pictures .*max_frames=1024"):
        PictureExplorer(circle, controls)
    assert MAX_FRAMES == 1024
    explorer = PictureExplorer(lambda a, b: circle(a + b), controls, max_frames=1100)
    assert len({id(w) for w in explorer._made if isinstance(w, widgets.HTML)}) > 100
    explorer.close()
    kernel = PictureExplorer(lambda a, b: circle(a + b), controls, kernel_controls=["b"])
    assert list(kernel.axes) == ["a"]


def test_kernel_controls_redraw_in_the_kernel_and_are_disabled_without_one():
    calls = []

    def draw(r, text):
        calls.append((r, text))
        return circle(r + len(text))

    text = widgets.Text(value="ab")
    r = widgets.IntSlider(value=1, min=0, max=2)
    with pytest.raises(ValueError, match="'text' is a Text.*kernel_controls=\\['text'\\]"):
        PictureExplorer(draw, {"r": r, "text": text})
    explorer = PictureExplorer(draw, {"r": r, "text": text}, kernel_controls=["text"])
    assert text.disabled and "text: moves only with a running kernel" in explorer.note.note.value
    assert explorer.note.note in explorer.widget.children
    assert len(calls) == 3
    text.value = "abcd"  # the kernel redraws every frame for the new text
    assert len(calls) == 6 and explorer.svg == circle(5)
    # a live page's link copies the marker into the note's placeholder; only a live kernel receives it
    explorer.note.note.set_state({"placeholder": "kernel"})
    assert not text.disabled and explorer.note.note.layout.display == "none"


def test_a_failing_draw_shows_its_error_in_its_frame():
    def draw(n):
        if n == 2:
            raise ValueError("n must be < 2")
        return circle(n)

    n = widgets.IntSlider(value=0, min=0, max=3)
    explorer = PictureExplorer(draw, {"n": n})
    assert isinstance(explorer.last_error, ValueError)  # met while drawing in advance, not silent
    assert explorer.svg == circle(0)
    n.value = 2
    assert "n must be &lt; 2" in explorer.svg and "n=2" in explorer.svg and 'class="ah-error"' in explorer.svg
    n.value = 3
    assert explorer.svg == circle(3)  # drawing went on after the error
    bad = PictureExplorer(lambda n: "not svg", {"n": n})
    assert isinstance(bad.last_error, TypeError) and "draw must return an SVG string" in bad.svg


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "match"),
    [
        ((None, {}), {}, TypeError, "draw must be a function"),
        ((circle, None), {}, TypeError, "controls must be a dict"),
        ((circle, {"r": 5}), {}, TypeError, r"controls\['r'\] must be an ipywidgets value widget"),
        ((circle, {"r": widgets.HTML()}), {}, ValueError, "'r' is a HTML"),
        ((circle, {}), {"max_frames": 0}, ValueError, "max_frames must be >= 1"),
        ((circle, {}), {"max_frames": True}, TypeError, "max_frames must be an int >= 1"),
        ((circle, {}), {"caption": "x"}, TypeError, "caption must be a function"),
        ((circle, {}), {"kernel_controls": ["nope"]}, ValueError, "kernel_controls must list names"),
        ((circle, {}), {"layout": "row"}, TypeError, "layout must be an ipywidgets widget"),
    ],
)
def test_bad_input(args, kwargs, error, match):
    with pytest.raises(error, match=match):
        PictureExplorer(*args, **kwargs)


def test_no_controls_draws_one_picture():
    explorer = PictureExplorer(lambda: circle(3), {})
    assert explorer.svg == circle(3) and explorer.picture.children[0].value == scalable(circle(3))


def test_layout_is_kept_and_stand_ins_swapped_in():
    x, n = widgets.FloatSlider(value=0.0, min=0.0, max=1.0, step=0.5), widgets.IntSlider(value=0, max=2)
    layout = widgets.VBox([widgets.HBox([x]), n])
    explorer = PictureExplorer(lambda x, n: circle(x + n), {"x": x, "n": n}, layout=layout)
    assert explorer.controls_box is layout and layout.children[0].children[0] is explorer.axes["x"].proxy


def test_rows_wrap_and_sliders_keep_a_usable_width():
    r = widgets.IntSlider(value=0, max=2, description="radius")
    explorer = PictureExplorer(circle, {"r": r})
    assert explorer.controls_box.layout.flex_flow == "row wrap"
    assert explorer.picture.layout.flex_flow == "row wrap"
    assert int(r.layout.width.removesuffix("px")) >= 300 and r.style.description_width == "initial"


def test_close_closes_every_widget_and_dropped_explorers_are_collected():
    r = widgets.IntSlider(value=0, max=2)
    text = widgets.Text("a")
    refs = []
    for _ in range(3):
        explorer = PictureExplorer(lambda r, text: circle(r), {"r": r, "text": text}, kernel_controls=["text"])
        refs.append(weakref.ref(explorer))
    made = list(explorer._made)
    del explorer
    gc.collect()
    assert all(ref() is None for ref in refs)
    explorer = PictureExplorer(lambda r, text: circle(r), {"r": r, "text": text}, kernel_controls=["text"])
    made = list(explorer._made)
    explorer.close()
    assert all(w.comm is None for w in made) and r.comm is not None  # the caller's controls stay open
    text.value = "b"  # no longer observed: nothing is redrawn, nothing raises
    assert made[0].comm is None


def test_instrumentation_is_opt_in():
    r = widgets.IntSlider(value=0, max=2)
    plain = PictureExplorer(circle, {"r": r})
    assert not hasattr(plain, "render_seconds")
    assert not any(re.fullmatch(r"ah-explorer-\d+", c) for c in css_classes(plain.widget))
    instrument(True)
    try:
        watched = PictureExplorer(circle, {"r": r})
    finally:
        instrument(False)
    assert any(ref() is watched for ref in Explorer.instances)
    drawn = list(watched.render_seconds)
    assert drawn and all(isinstance(s, float) and s >= 0 for s in drawn)  # the drawing in advance was timed
    assert sum(bool(re.fullmatch(r"ah-explorer-\d+", c)) for c in css_classes(watched.widget)) == 1
    r.value = 2
    assert watched.expected_svgs() == {"all": scalable(circle(2))}
    assert watched.render_seconds == drawn  # a control drawn in advance redraws nothing in the kernel
    instrument(True)
    try:
        text = widgets.Text("a")
        kernel = PictureExplorer(lambda r, text: circle(r), {"r": r, "text": text}, kernel_controls=["text"])
    finally:
        instrument(False)
    before = list(kernel.render_seconds)
    text.value = "b"  # a kernel-driven control: every frame is drawn again, and timed
    assert len(kernel.render_seconds) > len(before) and kernel.render_seconds[: len(before)] == before
    with pytest.raises(TypeError, match="on must be True or False"):
        instrument("yes")


def test_mimebundle_has_widget_svg_and_stable_text():
    explorer = PictureExplorer(circle, {"r": widgets.IntSlider(value=1, max=2)})
    bundle = explorer._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert bundle["image/svg+xml"] == circle(1)
    assert bundle["text/plain"] == "PictureExplorer(controls: r); run the notebook to move them"


# --- attention_helpers.explore.svg -------------------------------------------------------------------------------------


def no_hard_black(svg):
    return not re.search(r'(fill|stroke)="(#000|#000000|black|#222|#444)"', svg)


def test_line_chart_draws_each_series_with_theme_text():
    svg = line_chart_svg([1, 2, 4], {"a": [1.0, 2.0, 3.0], "b": [3.0, float("nan"), 1.0]}, xlabel="d", title="t")
    assert svg.startswith("<svg") and svg.endswith("</svg>") and 'fill="currentColor"' in svg
    assert 'stroke="currentColor"' in svg and no_hard_black(svg)
    paths = re.findall(r'<path d="(M[^"]*)" fill="none" stroke="#', svg)
    assert len(paths) == 2 and paths[0].count("L") == 2 and paths[1].count("M") == 2  # NaN breaks the line
    assert ">a</text>" in svg and ">b</text>" in svg and ">d</text>" in svg
    log = line_chart_svg([1, 10, 100], [1, 10, 100], logx=True, logy=True, highlight=10)
    assert 'stroke-dasharray="4 3"' in log and ">100</text>" in log
    with pytest.raises(ValueError, match="series 'ys' has 2 values but x has 3"):
        line_chart_svg([1, 2, 3], [1, 2])
    with pytest.raises(TypeError, match="x must be a sequence of real numbers"):
        line_chart_svg(None, [1])
    with pytest.raises(TypeError, match="width must be an int >= 60"):
        line_chart_svg([1], [1], width=True)


def test_scatter_and_bars():
    svg = scatter_svg([0, 1, 2], [2, 1, 0], labels=["a", "b", "<c>"], groups=[0, 1, 1], group_names=["x", "y"])
    assert svg.count("<circle") == 3 + 2 and "&lt;c&gt;" in svg and no_hard_black(svg)
    bars = bar_chart_svg([0.1, 0.7, 0.2], ["k0", "k1", "k2"], highlight=1, ylim=(0, 1))
    rects = re.findall(r'<rect [^>]*height="([0-9.]+)" fill="(#[0-9a-f]+)"', bars)
    heights = [float(h) for h, _ in rects]
    assert heights[1] == pytest.approx(7 * heights[0], rel=0.02) and heights[2] == pytest.approx(
        2 * heights[0], rel=0.02
    )
    assert [c for _, c in rects].count("#d55e00") == 1 and ">k1</text>" in bars and ">0.7</text>" in bars
    with pytest.raises(ValueError, match="labels must hold 3 labels"):
        bar_chart_svg([1, 2, 3], ["a"])
    with pytest.raises(ValueError, match="x and y must have the same length"):
        scatter_svg([1], [1, 2])
    for huge in (1e30, -1e300):  # one value, so large that widening it by 0.5 is lost to rounding
        assert "nan" not in scatter_svg([huge, huge], [1, 2]) and "nan" not in bar_chart_svg([huge])


def test_picture_explorer_stores_its_picture_for_renderers_without_widgets():
    import base64

    explorer = PictureExplorer(
        lambda r: circle(r), {"r": widgets.IntSlider(2, min=1, max=4)}, caption=lambda r: f"r = {r}"
    )
    bundle = explorer._repr_mimebundle_()
    labelled = '<svg role="img" aria-label="r = 2"' + circle(2)[4:]  # the caption is its text alternative
    assert explorer.svg == circle(2) and bundle["image/svg+xml"] == labelled
    html_img = bundle["text/html"]  # what JupyterLab shows in an untrusted notebook
    assert html_img.startswith('<img alt="r = 2" src="data:image/svg+xml;base64,')
    # the <img> cannot follow the theme's currentColor: it gets a white background of its own
    on_white = '<svg style="background-color:#fff" role="img" aria-label="r = 2"' + circle(2)[4:]
    assert base64.b64decode(html_img.split("base64,")[1].rstrip('">')).decode() == on_white


def test_labelled_svg_shows_one_picture_with_its_text_alternative_everywhere():
    import base64

    import torch

    from attention_helpers import LabelledSVG, heatmaps_svg

    weights = torch.tensor([[[[0.25, 0.75], [1.0, 0.0]]]])
    drawn = heatmaps_svg(weights, "Keys", "Queries")
    picture = LabelledSVG(drawn, "Outlined: the <old> block.")
    own = "heatmap, 2 Queries × 2 Keys. row 0: 0.25 0.75; row 1: 1.00 0.00, colour scale 0 to 1"
    assert picture.alt == f"Outlined: the <old> block. {own}" and repr(picture) == picture.alt
    bundle = picture._repr_mimebundle_()
    assert set(bundle) == {"image/svg+xml", "text/html", "text/plain"} and bundle["text/plain"] == picture.alt
    # the description goes before the SVG's own label, escaped, in the one aria-label it had; nothing else changes
    assert bundle["image/svg+xml"] == drawn.replace(own, "Outlined: the &lt;old&gt; block. " + own)
    assert bundle["image/svg+xml"].count("aria-label=") == 1 and drawn.count("role=") == 1
    html_img = bundle["text/html"]  # what JupyterLab shows untrusted (it renders no raw SVG there)
    assert html_img.startswith('<img alt="Outlined: the &lt;old&gt; block. heatmap, 2 Queries')
    assert (
        base64.b64decode(html_img.split("base64,")[1].rstrip('">'))
        .decode()
        .startswith('<svg style="background-color:#fff" xmlns=')
    )
    # an SVG with no label of its own gets role="img" and the description as its label
    bare = LabelledSVG('<svg width="4" height="4"><circle r="1"/></svg>', "a circle of radius 1")
    assert bare.svg == '<svg role="img" aria-label="a circle of radius 1" width="4" height="4"><circle r="1"/></svg>'
    assert LabelledSVG(drawn).alt == own  # no description: the SVG's own label
    with pytest.raises(ValueError, match="needs a text alternative"):
        LabelledSVG('<svg width="4" height="4"></svg>')


def test_heatmaps_svg_outlines_a_block_of_every_panel_and_says_so():
    import torch

    from attention_helpers import heatmaps_svg

    weights = torch.rand(1, 2, 3, 4, generator=torch.Generator().manual_seed(0))
    plain = heatmaps_svg(weights, "Keys", "Queries", cell=30, colorbar=False)
    drawn = heatmaps_svg(
        weights,
        "Keys",
        "Queries",
        cell=30,
        colorbar=False,
        outlines=[(range(2), range(2), "dashed"), ([2], range(4), "solid")],
    )
    boxes = re.findall(
        r'<rect class="outline" x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)"[^>]*?( stroke-dasharray="6 4")?/>',
        drawn,
    )
    assert len(boxes) == 4  # two outlines in each of the two panels
    panels = re.findall(r'<svg x="([\d.]+)" y="([\d.]+)" width="120" height="90" viewBox="0 0 4 3">', drawn)
    (x0, y0), (x1, _) = [(float(x), float(y)) for x, y in panels]
    assert [tuple(map(float, b[:4])) for b in boxes[:2]] == [(x0, y0, 60, 60), (x0, y0 + 60, 120, 30)]
    assert float(boxes[2][0]) == x1 and [bool(b[4]) for b in boxes] == [True, False, True, False]
    label = re.search(r'aria-label="([^"]*)"', drawn).group(1)
    assert label.endswith(
        "; outlined (dashed) in every panel: Queries 0 to 1 × Keys 0 to 1; outlined (solid) in every panel: Queries 2 × Keys 0 to 3"
    )
    assert (
        drawn.replace(label, "").count("<rect")
        - plain.replace(re.search(r'aria-label="([^"]*)"', plain).group(1), "").count("<rect")
        == 4
    )


def test_labelled_gives_an_svg_its_text_alternative_once():
    from attention_helpers.explore import view

    svg = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><circle r="1"/></svg>'
    out = view.labelled(svg, 'weights 0.25 & 0.75 "now"')
    assert out.startswith('<svg role="img" aria-label="weights 0.25 &amp; 0.75 &quot;now&quot;" xmlns=')
    assert view.labelled(out, "another") == out  # a label of its own is kept
    assert view.labelled(svg, " ") == svg  # nothing to say: unchanged
    assert view.labelled('<svg width="1"><title>t</title></svg>', "x") == '<svg width="1"><title>t</title></svg>'


def test_explorer_style_hides_disconnected_icons_and_carries_the_accessibility_script():
    from attention_helpers.explore import view

    style = view.style_widget()
    try:
        assert ".ah-explorer .jupyter-widgets-disconnected::before{content:none!important" in style.value
        assert 'onerror="(function (img)' in style.value and "aria-live" in style.value and "<script" not in style.value
    finally:
        style.close()
