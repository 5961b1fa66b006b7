"""The recurrent diagrams (seqviz.viz.diagrams): they name what the chapters' prose names, reject unknown
parts, and every text stands clear of the others and inside the figure (chapters 2 and 4)."""

import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
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
