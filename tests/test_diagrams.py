"""The recurrent diagrams (seqviz.viz.diagrams): they name what the chapters' prose names, reject unknown
parts, and every text stands clear of the others and inside the figure, fits inside its round node and is not
crossed by a wire (chapters 2 and 4)."""

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.patches import Circle, FancyArrowPatch
from matplotlib.path import Path
from matplotlib.text import Text

from seqviz.viz import gru_cell_diagram, io_patterns_diagram, loop_diagram, lstm_cell_diagram


def texts(fig):
    return [t.get_text() for t in fig.findobj(Text) if t.get_text().strip()]


def clashes(fig):
    """Pairs of drawn texts whose boxes overlap, and drawn texts that leave the figure."""
    boxes, draw = [], Text.draw

    def record(text, renderer):
        draw(text, renderer)
        if text.get_visible() and text.get_text().strip():
            boxes.append((text.get_text(), text.get_window_extent(renderer)))

    FigureCanvasAgg(fig)
    Text.draw = record
    try:
        fig.canvas.draw()
    finally:
        Text.draw = draw
    width, height = fig.bbox.width, fig.bbox.height
    found = [f"outside: {a!r}" for a, b in boxes if b.x0 < -1 or b.y0 < -1 or b.x1 > width + 1 or b.y1 > height + 1]
    for i, (a, box_a) in enumerate(boxes):
        for b, box_b in boxes[i + 1:]:
            if box_a.overlaps(box_b):
                found.append(f"overlap: {a!r} / {b!r}")
    return found


def drawn(fig):
    """The figure drawn once: its axes, the renderer and every visible, non-empty text."""
    FigureCanvasAgg(fig)
    fig.canvas.draw()
    ax = fig.axes[0]
    return ax, fig.canvas.get_renderer(), [t for t in ax.texts if t.get_visible() and t.get_text().strip()]


def node_glyphs(ax, texts_):
    """(text, the radius of its node in pixels) for every text centred on a round node."""
    found = []
    for circle in (p for p in ax.patches if isinstance(p, Circle)):
        x0, y0 = circle.center
        (cx, cy), (rx, _) = ax.transData.transform([(x0, y0), (x0 + circle.radius, y0)])
        for t in texts_:
            x, y = ax.transData.transform(t.get_position())
            if abs(x - cx) < 1 and abs(y - cy) < 1:
                found.append((t, rx - cx))
    return found


def crowded_nodes(fig):
    """Round nodes whose glyph is wider than the node: the text runs over its own ring and the wires at its sides."""
    ax, renderer, texts_ = drawn(fig)
    return [t.get_text() for t, r in node_glyphs(ax, texts_) if t.get_window_extent(renderer).width / 2 > r]


def wires_through_texts(fig):
    """Texts that a wire runs through: points along every wire (1 px apart) inside a text's box, less 1 px. A node
    is drawn over the wires it joins (the belt runs through its × and +), so its glyph does not count."""
    ax, renderer, texts_ = drawn(fig)
    glyphs = {id(t) for t, _ in node_glyphs(ax, texts_)}
    boxes = [(t.get_text(), t.get_window_extent(renderer).padded(-1)) for t in texts_ if id(t) not in glyphs]
    found = set()
    for wire in (p for p in ax.patches if isinstance(p, FancyArrowPatch)):
        points = wire.get_transform().transform_path(wire._path_original).vertices   # display pixels
        for a, b in zip(points[:-1], points[1:]):
            n = max(2, int(np.hypot(*(b - a))))
            for px, py in np.linspace(a, b, n):
                found.update(name for name, box in boxes if box.contains(px, py))
    return sorted(found)


DRAWINGS = {
    "loop": lambda: loop_diagram(["the", "keys", "near"]),
    "patterns": io_patterns_diagram,
    **{f"lstm {h}": (lambda h=h: lstm_cell_diagram(h)) for h in (None, "forget", "input", "cell", "output")},
    "lstm peephole": lambda: lstm_cell_diagram(variant="peephole"),
    "lstm coupled": lambda: lstm_cell_diagram(variant="coupled"),
    **{f"gru {h}": (lambda h=h: gru_cell_diagram(h)) for h in (None, "reset", "update")},
}


@pytest.mark.parametrize("name", DRAWINGS)
def test_every_text_stands_clear_and_inside(name):
    assert clashes(DRAWINGS[name]()) == []


@pytest.mark.parametrize("name", DRAWINGS)
def test_every_node_holds_its_glyph_and_no_wire_crosses_a_text(name):
    assert crowded_nodes(DRAWINGS[name]()) == []
    assert wires_through_texts(DRAWINGS[name]()) == []


def test_the_node_and_wire_checks_can_fail():
    fig = gru_cell_diagram()
    ax = fig.axes[0]
    ax.add_patch(Circle((2.0, 5.0), 0.1))
    ax.text(2.0, 5.0, "1−", ha="center", va="center", fontsize=14)       # "1−" in a node too small for it
    ax.add_patch(FancyArrowPatch(path=Path([(-0.8, 3.2), (0.4, 3.2)], [Path.MOVETO, Path.LINETO]), arrowstyle="-|>"))
    ax.text(-0.2, 3.2, "crossed", ha="center", va="center")              # a wire through a label
    assert crowded_nodes(fig) == ["1−"] and wires_through_texts(fig) == ["crossed"]


def test_the_clash_check_can_fail():
    fig = loop_diagram(["the"])
    fig.axes[0].text(0.6, 1.0, "an overprint")  # on top of the folded cell's weights
    fig.axes[0].text(-5, 1.0, "off the page")
    assert any(c.startswith("overlap") for c in clashes(fig)) and any(c.startswith("outside") for c in clashes(fig))


def test_the_lstm_names_its_belt_its_gates_and_the_joined_input():
    names = texts(lstm_cell_diagram())
    for expected in ("$c_{t-1}$", "$c_t$", "$h_{t-1}$", "$x_t$", "$[h_{t-1}, x_t]$", "$f_t$", "$i_t$", "$g_t$", "$o_t$"):
        assert expected in names
    coupled = texts(lstm_cell_diagram(variant="coupled"))
    assert "$i_t$" not in coupled and "$1 - f_t$" in coupled  # the input gate is replaced by 1 - f
    assert "peepholes" in texts(lstm_cell_diagram(variant="peephole"))


def test_the_gru_names_both_gates_and_the_candidate():
    names = texts(gru_cell_diagram())
    for expected in ("$r_t$", "$z_t$", "$n_t$", "1−", "$h_{t-1}$", "$h_t$"):
        assert expected in names


def test_the_patterns_name_the_five_shapes():
    names = texts(io_patterns_diagram())
    assert names.count("many to many") == 2 and {"one to one", "one to many", "many to one"} <= set(names)


def test_unknown_parts_and_variants_are_refused():
    with pytest.raises(ValueError, match="highlight"):
        lstm_cell_diagram("belt")
    with pytest.raises(ValueError, match="variant"):
        lstm_cell_diagram(variant="mirror")
    with pytest.raises(ValueError, match="highlight"):
        gru_cell_diagram("forget")


# -- the Chinese edition: every label in Chinese, still clear of the others ----------------------------------------

import re  # noqa: E402

import seqviz as sv  # noqa: E402
from seqviz.viz import attention_diagrams  # noqa: E402

ALL_DRAWINGS = {
    **DRAWINGS,
    "encoder-decoder": lambda: attention_diagrams.encoder_decoder_diagram(cell="GRU"),
    "encoder-decoder, attention": lambda: attention_diagrams.encoder_decoder_diagram(attention=True, cell="GRU"),
    "encoder-decoder, both ways": lambda: attention_diagrams.encoder_decoder_diagram(cell="GRU", bidirectional=True),
    "encoder-decoder, both ways, attention": lambda: attention_diagrams.encoder_decoder_diagram(
        attention=True, bidirectional=True, cell="GRU"),
    "attention": attention_diagrams.attention_diagram,
    "transformer block": attention_diagrams.transformer_block_diagram,
    "transformer block, pre-norm": lambda: attention_diagrams.transformer_block_diagram(norm_first=True),
    "bert inputs": attention_diagrams.bert_inputs_diagram,
}
# the data a diagram draws (its tokens, a cell's name, a function) stays as it is in both editions
DATA = {"the", "keys", "near", "cabinet", "seven", "two", "nine", "cat", "sat", "on", "mat", "my", "dog", "is", "cute",
        "he", "likes", "play", "ing", "CLS", "SEP", "GRU", "LSTM", "RNN", "tanh", "softmax", "bos", "eos"}


def english_labels(fig) -> list[str]:
    """Texts that still hold an English word (math, quoted tokens and the drawn data aside)."""
    left = []
    for text in texts(fig):
        words = re.findall(r"[A-Za-z]{2,}", re.sub(r"\$[^$]*\$|'[^']*'", "", text))
        if any(w not in DATA for w in words):
            left.append(text)
    return left


@pytest.mark.parametrize("name", ALL_DRAWINGS)
def test_in_chinese_every_label_is_chinese_and_stands_clear(zh, name):
    # the diagram comes back in Chinese by itself: IPython's PNG formatter, which would translate it, is replaced
    # by the inline backend's when pyplot is first imported (the built Chinese pages showed English diagrams)
    fig = ALL_DRAWINGS[name]()
    assert english_labels(fig) == [], "add these labels to seqviz/i18n/zh/viz.json"
    # mathtext draws a whole label that holds a formula, in a font with no Chinese glyphs: boxes on the page
    assert [t for t in texts(fig) if "$" in t and re.search(r"[\u3400-\u9fff]", t)] == []
    assert clashes(fig) == []
    if name in DRAWINGS:   # the recurrent cells: their nodes and wires too
        assert crowded_nodes(fig) == [] and wires_through_texts(fig) == []


def test_the_english_label_check_can_fail():
    assert english_labels(attention_diagrams.encoder_decoder_diagram()) == [
        "context\nvector", "encoder: reads the source", "decoder: fed the token written before"]


def test_the_encoder_decoder_diagram_draws_what_its_chapter_says():
    # chapter 5: a bidirectional encoder (its caption says so) whose summary is the context vector c
    both = texts(attention_diagrams.encoder_decoder_diagram(bidirectional=True))
    assert "encoder: reads both ways" in both and "$c$" in both and "context\nvector" in both
    # chapter 7: "context vector" is each step's c_u there, so the yellow box is the summary that starts the decoder
    looking = texts(attention_diagrams.encoder_decoder_diagram(attention=True, bidirectional=True))
    assert "$s_0$" in looking and "summary:\nstart state" in looking and "context\nvector" not in looking
    with pytest.raises(ValueError, match="bidirectional"):
        attention_diagrams.encoder_decoder_diagram(bidirectional="yes")
