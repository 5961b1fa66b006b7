"""Figures and widgets: data in, figure out; clear errors; the book renderer ships no plotly.js."""

import json
import os
import subprocess
import sys

import ipywidgets as widgets
import matplotlib
import numpy as np
import plotly.graph_objects as go
import pytest

from seqviz import viz
from seqviz.viz import BookRenderer


def test_slider_figure_precomputes_every_step():
    frames = {f"{k}": viz.lines_figure({"a": ([0, 1], [k, k]), "b": ([0, 1], [0, k])}, title=f"scale {k}")
              for k in range(3)}
    fig = viz.slider_figure(frames, slider_label="k", active=1)
    assert len(fig.data) == 6 and [t.visible for t in fig.data] == [False, False, True, True, False, False]
    steps = fig.layout.sliders[0].steps
    assert [s.label for s in steps] == ["0", "1", "2"]
    assert steps[2].args[0]["visible"] == [False] * 4 + [True] * 2 and steps[2].args[1] == {"title.text": "scale 2"}
    with pytest.raises(ValueError, match="same number of traces"):
        viz.slider_figure({"a": frames["0"], "b": go.Figure()})
    # steps named by whole sentences are cut to their share of a phone's width, at a word, titles kept whole
    sentences = ["three one four one five nine two six", "seven seven zero", "two seven one eight two eight",
                 "nine nine nine", "eight six"]
    fig = viz.slider_figure({s: viz.lines_figure({"a": ([0, 1], [0, 1])}, title=s) for s in sentences})
    steps = fig.layout.sliders[0].steps
    assert [s.label for s in steps] == ["three one…", "seven seven…", "two seven…", "nine nine…", "eight six"]
    assert [s.args[1]["title.text"] for s in steps] == sentences and len({s.value for s in steps}) == 5


def test_slider_frames_of_different_sizes_keep_their_own_axes_and_the_tallest_fits():
    # beam trees of beam sizes 1 and 5 differ in depth and width: each step must show its frame in its own window
    small = viz.lines_figure({"a": ([0, 1], [0, 1])}, title="small", height=300)
    small.update_layout(yaxis_range=[2, -1], xaxis_range=[-0.5, 1.5])
    big = viz.lines_figure({"a": ([0, 3], [0, 9])}, title="big", height=700)
    big.update_layout(yaxis_range=[10, -1], xaxis_range=[-0.5, 3.5])
    fig = viz.slider_figure({"1": small, "5": big}, slider_label="k")
    steps = fig.layout.sliders[0].steps
    assert list(steps[1].args[1]["yaxis.range"]) == [10, -1] and list(steps[0].args[1]["yaxis.range"]) == [2, -1]
    assert list(steps[1].args[1]["xaxis.range"]) == [-0.5, 3.5]
    assert fig.layout.height == 700 + viz.basic.SLIDER_GAP + 20   # the tallest frame, and room for the slider
    # frames that share their axes change nothing but the title, as before
    same = viz.slider_figure({"a": small, "b": small}, slider_label="k")
    assert same.layout.sliders[0].steps[1].args[1] == {"title.text": "small"}


def test_slider_figure_as_a_menu_names_every_step():
    sentences = ["the dog bites the man", "the man who the dog saw near the old red barn bites the dog"]
    frames = {s: viz.lines_figure({"a": ([0, 1], [k, k])}, title=f"answer {k}") for k, s in enumerate(sentences)}
    fig = viz.slider_figure(frames, menu=True, active=1)
    assert not fig.layout.sliders
    buttons = fig.layout.updatemenus[0].buttons
    assert buttons[0].label == sentences[0] and buttons[1].label.endswith("…") and len(buttons[1].label) <= 44
    assert [t.visible for t in fig.data] == [False, True] and buttons[0].args[1] == {"title.text": "answer 0"}


def test_readable_layout_wraps_long_titles_and_keeps_the_legend_off_the_plot():
    title = "Each copy's share of dL/dW_hh (the loss reads the last note), before and after training"
    fig = viz.lines_figure({"before": ([1, 2], [1, 2]), "after": ([1, 2], [2, 1])}, title=title)
    lines = fig.layout.title.text.split("<br>")
    assert len(lines) > 1 and max(map(len, lines)) <= viz.basic.TITLE_CHARS and " ".join(lines) == title
    assert lines[0] == "Each copy's share of dL/dW_hh"  # broken at the pause (the parenthesis), not mid-phrase
    assert fig.layout.legend.orientation == "h" and fig.layout.legend.yref == "container"
    assert fig.layout.margin.t >= 22 * len(lines)
    for title, first in (("Which inputs can move the answer? Blank: none at all, dark: the most", None),
                         ("Recall accuracy: truncation cannot learn past its window, whatever its length",
                          "Recall accuracy:"),
                         ("a title of many short words " * 4, None)):
        lines = viz.basic.wrap_title(title.strip()).split("<br>")
        assert " ".join(lines) == title.strip() and max(map(len, lines)) <= viz.basic.TITLE_CHARS
        assert first is None or lines[0] == first
        assert len(lines) == 1 or min(map(len, lines)) > 12, lines  # no word left alone on a line
    short = viz.lines_figure({"one": ([1, 2], [1, 2])}, title="Short title")
    assert short.layout.title.text == "Short title" and short.layout.showlegend is not True


def test_log_axes_are_labelled_by_decades():
    fig = viz.lines_figure({"a": ([1, 10, 100], [1e-12, 1e-6, 1.0])}, logx=True, logy=True)
    assert fig.layout.xaxis.dtick == 1 and fig.layout.yaxis.dtick == 2  # 12 decades: every second one
    assert fig.layout.yaxis.exponentformat == "power"


def test_heatmap_figure_keeps_repeated_tokens_apart():
    fig = viz.heatmap_figure(np.ones((2, 3)), ["the", "cat", "the"], ["u0", "u1"])
    assert len(set(fig.data[0].x)) == 3 and list(fig.layout.xaxis.ticktext) == ["the", "cat", "the"]
    with pytest.raises(ValueError, match="do not match"):
        viz.heatmap_figure(np.ones((2, 3)), ["a", "b"])


def test_book_renderer_emits_html_without_plotly_js():
    bundle = BookRenderer().to_mimebundle(viz.lines_figure({"a": ([0, 1], [1, 2])}).to_dict())
    assert set(bundle) == {"text/html"}
    html = bundle["text/html"]
    assert "Plotly.newPlot" in html and len(html) < 50_000  # plotly.js itself is 4.8 MB


def test_importing_viz_changes_neither_the_plotly_renderer_nor_the_matplotlib_backend():
    """Even during a book build (SEQVIZ_BOOK=1), importing every viz module leaves global state alone."""
    probe = """
import importlib, json, pkgutil, matplotlib, plotly.io as pio
def state():
    return [pio.renderers.default, repr(dict.__getitem__(matplotlib.rcParams, "backend")), sorted(pio.renderers)]
before = state()
import seqviz.viz
for module in pkgutil.walk_packages(seqviz.viz.__path__, "seqviz.viz."):
    importlib.import_module(module.name)
print(json.dumps([before, state()]))
"""
    env = {k: v for k, v in os.environ.items() if k != "MPLBACKEND"} | {"SEQVIZ_BOOK": "1"}
    out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True).stdout
    before, after = json.loads(out.splitlines()[-1])
    assert after == before, f"importing seqviz.viz changed (renderer, backend, renderers) from {before} to {after}"


def test_use_book_renderer_switches_plotly_only_in_a_book_build(monkeypatch):
    import plotly.io as pio

    from seqviz import config

    monkeypatch.setattr(pio.renderers, "default", pio.renderers.default)  # restored after the test
    default = pio.renderers.default
    monkeypatch.setattr(config, "BOOK", False)
    assert viz.use_book_renderer() is False and pio.renderers.default == default
    monkeypatch.setattr(config, "BOOK", True)
    assert viz.use_book_renderer() is True and pio.renderers.default == "seqviz_book"
    bundle = pio.renderers["seqviz_book"].to_mimebundle(viz.lines_figure({"a": ([0, 1], [1, 2])}).to_dict())
    assert set(bundle) == {"text/html"} and "Plotly.newPlot" in bundle["text/html"]


def test_every_chapter_switches_on_the_book_renderer_in_its_imports_cell():
    """Importing seqviz.viz no longer does it, so a chapter without the call would lose its plotly figures
    in the book (myst-nb drops plotly's own mime type)."""
    from pathlib import Path

    chapters = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("[0-9][0-9]*_*.ipynb"))
    assert chapters
    for path in chapters:
        code = [c for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "code"]
        imports = "".join(code[1]["source"])  # the first code cell is the Colab install
        assert "import seqviz as sv" in imports and "\nsv.viz.use_book_renderer()" in imports, path.name


def test_static_figures_and_errors():
    fig = viz.heatmap_plot(np.random.randn(3, 4), ["a", "b", "c", "d"], ["x", "y", "z"], highlight_column=1)
    assert isinstance(fig, matplotlib.figure.Figure)
    with pytest.raises(ValueError, match="x_labels has 2 labels for 4 columns"):
        viz.heatmap_plot(np.random.randn(3, 4), ["a", "b"])
    with pytest.raises(ValueError, match="2-D"):
        viz.heatmap_plot(np.zeros(3))
    with pytest.raises(ValueError, match="x has 2 points but y has 3"):
        viz.lines_plot({"a": ([0, 1], [1, 2, 3])})


def test_live_view_redraws_times_and_shows_errors_as_messages():
    calls = []

    def render(n):
        calls.append(n)
        if n > 5:
            raise ValueError("n is too big")
        return viz.lines_plot({"n": (list(range(n)), list(range(n)))})

    slider = widgets.IntSlider(value=2, min=1, max=10)
    view = viz.live(render, n=slider)
    assert calls == [2] and view.last_update_ms > 0
    slider.value = 3
    assert calls == [2, 3]
    slider.value = 7  # no exception escapes
    assert calls[-1] == 7
    with pytest.raises(ValueError, match="at least one control"):
        viz.live(render)


def test_a_live_view_answers_a_very_long_text_with_a_message_without_rendering():
    calls = []
    view = viz.live(lambda text: calls.append(text) or "ok", text=widgets.Text(value="a b c"))
    view.controls["text"].value = " ".join(["word"] * 500)
    assert len(calls) == 1 and "500 words" in view.output.outputs[0]["data"]["text/plain"]
    view.controls["text"].value = " ".join(["word"] * 100)  # at the limit: drawn
    assert len(calls) == 2


def test_in_the_book_a_live_view_shows_a_still_with_a_note(monkeypatch):
    from seqviz import config

    monkeypatch.setattr(config, "BOOK", True)
    view = viz.live(lambda n: viz.lines_plot({"n": (list(range(n)), list(range(n)))}), n=widgets.IntSlider(value=3))
    bundle = view._repr_mimebundle_()
    assert "data:image/png;base64," in bundle["text/html"] and "Colab" in bundle["text/html"]
    assert "(n 3)" in bundle["text/html"] and "application/vnd.jupyter.widget-view+json" not in bundle
    # the settings in words, not Python reprs: "ρ 1, activation: tanh, sentence: “we saw”"
    words = viz.live(lambda **v: viz.lines_plot({"n": ([0, 1], [0, 1])}),
                     radius=widgets.FloatSlider(value=1.0, description="ρ"),
                     activation=widgets.Dropdown(options=["tanh", "relu"], value="tanh", description="activation"),
                     sentence=widgets.Text(value="we saw"))._repr_mimebundle_()["text/html"]
    assert "(ρ 1, activation: tanh, sentence: “we saw”)" in words and "=" not in words.split("</em>")[-1], words
    monkeypatch.setattr(config, "BOOK", False)
    assert "application/vnd.jupyter.widget-view+json" in viz.live(lambda n: "x", n=widgets.IntSlider())._repr_mimebundle_()


def test_progress_bars_are_silent_in_the_book(monkeypatch):
    from seqviz import config

    monkeypatch.setattr(config, "BOOK", True)
    assert config.progress(range(3)).disable is True
    monkeypatch.setattr(config, "BOOK", False)
    assert config.progress(range(3)).disable is False


def test_char_heat_figure_lays_text_out_like_the_page():
    fig = viz.char_heat_figure("ab\ncde", [1, 2, 3, 4, 5, 6], width=2)
    z, text = np.array(fig.data[0].z, dtype=float), np.array(fig.data[0].text)
    # rows: "ab" (wrapped at width 2), "↵" (the break ends its row), "cd", "e"
    assert z.shape == (4, 2)
    assert text.tolist() == [["a", "b"], ["↵", ""], ["c", "d"], ["e", ""]]
    assert z[0].tolist() == [1, 2] and z[1, 0] == 3 and np.isnan(z[1, 1]) and z[3, 0] == 6
    words = viz.char_heat_figure(["the", "<unk>", "\n", "sea"], [0.1, 0.2, 0.3, 0.4], row_labels=["one", "two"])
    assert np.array(words.data[0].text).tolist() == [["the", "<unk>", "↵"], ["sea", "", ""]]
    with pytest.raises(ValueError, match="values has 2 entries for 3 tokens"):
        viz.char_heat_figure("abc", [1, 2])
    with pytest.raises(ValueError, match="row_labels has 1 labels for 2 rows"):
        viz.char_heat_figure("a\nb", [1, 2, 3], row_labels=["x"])
