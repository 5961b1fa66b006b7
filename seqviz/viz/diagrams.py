"""Schematics of the recurrent models, drawn once with matplotlib: no data, no live view.

- :func:`loop_diagram`: the recurrent cell folded (a loop) and unrolled (one copy per token, the
  same weights): chapter 2's picture of "the same weights";
- :func:`io_patterns_diagram`: what goes in and what comes out, one to many, many to one, many to many
  (the patterns of Karpathy's "The Unreasonable Effectiveness of Recurrent Neural Networks"; chapter 2);
- :func:`lstm_cell_diagram`: one LSTM step, the cell state drawn as a conveyor belt across the top and the
  note with the input along the bottom (after Olah's "Understanding LSTM Networks"); ``highlight`` picks
  the part a walk-through is at, ``variant`` draws the peephole and coupled-gate variants (chapter 4);
- :func:`gru_cell_diagram`: one GRU step in PyTorch's convention, ``h_t = (1 - z) * n + z * h_{t-1}``
  (chapter 4).

Every text sits in its own space: the book's test draws each figure and fails on overlapping or clipped text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ._language import in_book_language

GATE, SQUASH, NOTE = "#cfe2f3", "#f4cccc", "#fde9a9"  # sigmoid boxes, tanh boxes, the recurrent cell
INK, FADED, BELT = "#333333", "#c8c8c8", "#e6a23c"
# A book page shows a figure at most 358 px wide on a 390 px phone: a figure W inches wide keeps text of f points
# at least 8 px there when f / W >= 1.6 (tests/test_figures.py). Hence narrow figures with 10-point text and up.
CELL_SIZE, CELL_FONT = (6.0, 3.1), 1.12   # the LSTM and GRU cells; fonts scale with the width given
ONE_MINUS_R = 0.3   # the radius of a "1−" node, whose glyph is twice as wide as "×"


class _Sketch:
    """A figure in data units with boxes, round nodes and wires; parts outside ``lit`` are drawn faded."""

    def __init__(self, size, xlim, ylim, lit=None, k=1.0):
        import matplotlib.pyplot as plt

        # Made by pyplot, so that a notebook's inline backend knows how to show it, then closed at once: the
        # notebook shows it once, as the cell's value, and nothing is left open.
        self.fig = plt.figure(figsize=size)
        plt.close(self.fig)
        self.ax = self.fig.add_axes((0, 0, 1, 1))
        self.ax.set(xlim=xlim, ylim=ylim)
        self.ax.set_axis_off()
        self.lit = lit
        self.k = k  # every font size is multiplied by k: a narrow figure keeps its text readable on a phone

    def on(self, part):
        return self.lit is None or part in self.lit

    def box(self, x, y, text, color, part=None, w=0.9, h=0.56, size=12):
        from matplotlib.patches import FancyBboxPatch

        on = self.on(part)
        self.ax.add_patch(FancyBboxPatch((x - w / 2, y - h / 2), w, h, boxstyle="round,pad=0.03",
                                         fc=color if on else "#f4f4f4", ec=INK if on else FADED,
                                         lw=1.6 if on and self.lit else 1.0, zorder=3))
        self.ax.text(x, y, text, ha="center", va="center", fontsize=size * self.k, color=INK if on else FADED,
                     zorder=4)

    def node(self, x, y, text, part=None, r=0.21, size=12):
        """A round operation node; a wider glyph ("1−") needs a larger ``r`` or a smaller ``size`` to fit."""
        from matplotlib.patches import Circle

        on = self.on(part)
        self.ax.add_patch(Circle((x, y), r, fc="white", ec=INK if on else FADED, lw=1.3, zorder=3))
        self.ax.text(x, y, text, ha="center", va="center", fontsize=size * self.k, color=INK if on else FADED,
                     zorder=4)

    def wire(self, points, part=None, arrow=True, dashed=False, lw=1.4, color=None, zorder=2, bridge=False):
        """A polyline through ``points``; ``bridge`` draws it over the wires it crosses, with a white margin."""
        from matplotlib import patheffects
        from matplotlib.patches import FancyArrowPatch
        from matplotlib.path import Path

        on = self.on(part)
        color = (color or INK) if on else FADED
        path = Path(points, [Path.MOVETO] + [Path.LINETO] * (len(points) - 1))
        self.ax.add_patch(FancyArrowPatch(path=path, arrowstyle="-|>" if arrow else "-", mutation_scale=12,
                                          lw=lw, color=color, ls="--" if dashed else "-",
                                          zorder=zorder + bridge * 0.2, shrinkA=0, shrinkB=0,
                                          path_effects=[patheffects.withStroke(linewidth=lw + 4, foreground="white"),
                                                        patheffects.Normal()] if bridge else None))

    def text(self, x, y, text, part=None, size=11, color=None, **kw):
        kw.setdefault("ha", "center")
        kw.setdefault("va", "center")
        self.ax.text(x, y, text, fontsize=size * self.k, color=(color or INK) if self.on(part) else FADED, zorder=5,
                     **kw)


def _char_width(text: str, size: float) -> float:
    """A generous width in inches of ``text`` at ``size`` points (mathtext counted by its visible letters)."""
    return 0.0078 * size * max(len(re.sub(r"\\[a-zA-Z]+|[$_{}\\]", "", line)) for line in text.split("\n"))


@in_book_language
def loop_diagram(tokens: Sequence[str] = ("the", "keys", "near", "the", "cabinet"), size=None):
    """The recurrent cell drawn folded (a loop, above) and unrolled (one copy per token, the same weights, below).

    Two rows, so that five tokens fit a phone's column with their text readable (``CELL_SIZE``'s rule); the width
    follows the tokens (``size``, inches, overrides it and scales the fonts with it)."""
    tokens = [str(t) for t in tokens]
    if not tokens:
        raise ValueError("loop_diagram needs at least one token")
    f = 11  # the smallest text, in points
    labels = [f"$x_{{{t + 1}}}$\n'{token}'" for t, token in enumerate(tokens)]
    dx = max(1.0, max(_char_width(label, f) for label in labels) + 0.25)   # inches per unrolled copy
    bw = dx - 0.3
    x0 = 0.75 + bw / 2
    last = x0 + (len(tokens) - 1) * dx
    width, height = max(last + bw / 2 + 0.85, 5.2), 4.1
    k = 1.0 if size is None else size[0] / width
    s = _Sketch((width * k, height * k), (0, width), (0, height), k=k)
    # folded: one cell with a loop on itself
    fx, fy = 1.05, 3.175
    s.box(fx, fy, "$W_{ih}, W_{hh}, b$", NOTE, w=1.4, h=0.55, size=f)
    s.wire([(fx, 2.6), (fx, fy - 0.29)])
    s.text(fx, 2.55, "$x_t$", size=f, va="top")
    s.wire([(fx, fy + 0.29), (fx, 3.75)])
    s.text(fx, 3.8, "$y_t$", size=f, va="bottom")
    s.wire([(fx + 0.73, fy + 0.12), (fx + 0.98, fy + 0.12), (fx + 0.98, fy - 0.12), (fx + 0.73, fy - 0.12)])
    s.text(fx + 1.06, fy, "$h$", size=f, ha="left")
    s.text(fx + 1.5, fy, "folded: one cell, a loop", size=f, style="italic", ha="left")
    # unrolled: one copy per token
    y = 1.1
    s.text(0.3, y, "$h_0$", size=f)
    for t, label in enumerate(labels):
        x = x0 + t * dx
        s.box(x, y, "same\nweights", NOTE, w=bw, h=0.62, size=f)
        s.wire([(x - dx + bw / 2 + 0.02 if t else 0.48, y), (x - bw / 2 - 0.02, y)])
        if t:
            s.text(x - dx / 2, y + 0.17, f"$h_{t}$", size=f)
        s.wire([(x, 0.5), (x, y - 0.33)])
        s.text(x, 0.45, label, size=f, va="top")
        s.wire([(x, y + 0.33), (x, 1.7)])
        s.text(x, 1.75, f"$y_{{{t + 1}}}$", size=f, va="bottom")
    s.wire([(last + bw / 2 + 0.02, y), (last + bw / 2 + 0.4, y)])
    s.text(last + bw / 2 + 0.45, y, f"$h_{{{len(tokens)}}}$", size=f, ha="left")
    s.text(0.15, 2.25, "unrolled: one copy per token, all sharing the same weights", size=f, style="italic",
           ha="left")
    return s.fig


@in_book_language
def io_patterns_diagram(size=None):
    """Karpathy's input/output patterns: red inputs, green recurrent cells, blue outputs, one panel each.

    Three panels above two, with the legend below, so that the panels' words stay readable in a phone's column."""
    patterns = [  # (title, example, inputs at step t?, outputs at step t?, steps)
        ("one to one", "a fixed input:\nno recurrence", [1], [1], 1),
        ("one to many", "one image in,\na caption out", [1, 0, 0], [1, 1, 1], 3),
        ("many to one", "a sentence in,\none label out", [1, 1, 1], [0, 0, 1], 3),
        ("many to many", "read all, then\nwrite: translation", [1, 1, 0, 0], [0, 0, 1, 1], 4),
        ("many to many", "one output per\ninput: tagging", [1, 1, 1], [1, 1, 1], 3),
    ]
    f, step, row_h = 11, 0.55, 2.3
    slots = [max(1.75, step * steps + 0.55) for *_, steps in patterns]
    rows = [(0, 3), (3, 5)]
    width = max(sum(slots[a:b]) for a, b in rows) + 0.2
    height = 2 * row_h + 0.45
    k = 1.0 if size is None else size[0] / width
    s = _Sketch((width * k, height * k), (0, width), (0, height), k=k)
    for r, (a, b) in enumerate(rows):
        left = 0.1 + (width - 0.2 - sum(slots[a:b])) / 2
        base = height - (r + 1) * row_h   # the bottom of this row
        for p in range(a, b):
            title, example, ins, outs, steps = patterns[p]
            centre = left + sum(slots[a:p]) + slots[p] / 2
            s.text(centre, base + 2.1, title, size=f + 0.5, weight="bold")
            for j in range(steps):
                x = centre + step * (j - (steps - 1) / 2)
                s.box(x, base + 1.15, "", "#c9e7c0", w=0.36, h=0.36)
                if ins[j]:
                    s.box(x, base + 0.62, "", "#f7c6c0", w=0.36, h=0.28)
                    s.wire([(x, base + 0.78), (x, base + 0.96)])
                if outs[j]:
                    s.box(x, base + 1.68, "", "#c6d9f1", w=0.36, h=0.28)
                    s.wire([(x, base + 1.34), (x, base + 1.53)])
                if j:
                    s.wire([(x - step + 0.19, base + 1.15), (x - 0.19, base + 1.15)])
            s.text(centre, base + 0.22, example, size=f, linespacing=1.2)
    for j, (name, color) in enumerate((("input", "#f7c6c0"), ("recurrent cell", "#c9e7c0"), ("output", "#c6d9f1"))):
        x = 0.6 + (width - 1.2) / 3 * j
        s.box(x, 0.22, "", color, w=0.3, h=0.22)
        s.text(x + 0.25, 0.22, name, size=f, ha="left")
    return s.fig


_LSTM_PARTS = {  # which parts each step of the walk-through lights up
    "forget": {"forget", "rail", "belt_in"},
    "input": {"input", "candidate", "rail"},
    "cell": {"belt", "belt_in", "forget_mul", "add", "input_mul"},
    "output": {"output", "show", "rail", "h_out"},
}


@in_book_language
def lstm_cell_diagram(highlight: str | None = None, variant: str = "standard", size=CELL_SIZE):
    """One LSTM step (after Olah's "Understanding LSTM Networks").

    The cell state runs along the top like a conveyor belt; the previous note $h_{t-1}$ and the input $x_t$
    are joined, $[h_{t-1}, x_t]$, along the bottom and read by all four boxes. ``highlight`` is one of
    ``"forget"``, ``"input"``, ``"cell"``, ``"output"`` (the steps of a walk-through: the rest is drawn faded)
    or None. ``variant``: ``"standard"``, ``"peephole"`` (the gates also read the cell state; Gers and
    Schmidhuber, 2000) or ``"coupled"`` (the input gate is $1 - f_t$: write exactly what is forgotten).
    """
    if highlight is not None and highlight not in _LSTM_PARTS:
        raise ValueError(f"highlight must be one of {sorted(_LSTM_PARTS)} or None, got {highlight!r}")
    if variant not in ("standard", "peephole", "coupled"):
        raise ValueError(f"variant must be 'standard', 'peephole' or 'coupled', got {variant!r}")
    s = _Sketch(size, (-0.9, 11.2), (-0.95, 5.35), lit=None if highlight is None else _LSTM_PARTS[highlight],
                k=CELL_FONT * CELL_SIZE[0] / size[0])
    from matplotlib.patches import FancyBboxPatch

    s.ax.add_patch(FancyBboxPatch((0.7, 0.35), 9.0, 4.35, boxstyle="round,pad=0.05", fc="#f7f7f7", ec="#999999",
                                  lw=1, zorder=0))
    belt, gate_y, rail = 4.05, 2.0, 0.95
    xf, xi, xg, xo, xs = 2.3, 3.9, 5.3, 6.9, 8.3  # forget, input, candidate, output boxes; the "show" column
    lit = s.on("belt")
    s.wire([(-0.6, belt), (10.8, belt)], part="belt", lw=5 if lit and s.lit else 4, color=BELT, zorder=2.5)
    s.text(-0.6, belt + 0.35, "$c_{t-1}$", ha="left", size=13, part="belt_in")
    s.text(10.8, belt + 0.35, "$c_t$", ha="right", size=13, part="belt")
    s.text(5.2, belt + 0.5, "cell state: the conveyor belt", part="belt", size=10, color="#a0661a")
    # the bottom: h_{t-1} from the left, x_t from below, joined and read by every box
    s.wire([(-0.6, rail), (xo, rail)], part="rail", arrow=False)
    s.text(-0.6, rail - 0.35, "$h_{t-1}$", ha="left", size=13, part="rail")
    s.wire([(1.4, -0.75), (1.4, rail)], part="rail", arrow=False)
    s.text(1.25, -0.6, "$x_t$", ha="right", size=13, part="rail")
    s.text(0.05, rail + 0.38, "$[h_{t-1}, x_t]$", ha="left", size=10, part="rail")
    gates = [("forget", xf, "$\\sigma$", GATE, "$f_t$"), ("input", xi, "$\\sigma$", GATE, "$i_t$"),
             ("candidate", xg, "tanh", SQUASH, "$g_t$"), ("output", xo, "$\\sigma$", GATE, "$o_t$")]
    if variant == "coupled":
        gates.pop(1)
    for part, x, text, color, name in gates:
        s.wire([(x, rail), (x, gate_y - 0.3)], part=part)
        s.box(x, gate_y, text, color, part=part)
        s.text(x + 0.12, gate_y + 0.5, name, ha="left", size=11, part=part)
    names = {"forget": "forget\ngate", "input": "input\ngate", "candidate": "candidate",
             "output": "output\ngate"}
    for part, x, *_ in gates:
        s.text(x, -0.45, names[part], size=9, part=part, linespacing=1.0)
    # keep: f times the belt
    s.wire([(xf, gate_y + 0.3), (xf, belt - 0.22)], part="forget")
    s.node(xf, belt, "×", part="forget_mul" if highlight == "cell" else "forget")
    # write: i times g, added onto the belt
    xm = (xi + xg) / 2 if variant != "coupled" else xg - 0.6
    s.node(xm, 3.1, "×", part="input_mul" if highlight == "cell" else "input")
    x1 = xi - 0.2   # the coupled variant's "1−" node, clear of the arrows on either side
    if variant == "coupled":
        s.node(x1, 3.1, "1−", part="forget", r=ONE_MINUS_R, size=10)
        s.wire([(xf, 3.1), (x1 - ONE_MINUS_R, 3.1)], part="forget")
        s.wire([(x1 + ONE_MINUS_R, 3.1), (xm - 0.22, 3.1)], part="forget")
    else:
        s.wire([(xi, gate_y + 0.3), (xi, 3.1), (xm - 0.22, 3.1)], part="input")
    s.wire([(xg, gate_y + 0.3), (xg, 3.1), (xm + 0.22, 3.1)], part="candidate")
    s.wire([(xm, 3.32), (xm, belt - 0.22)], part="input")
    s.node(xm, belt, "+", part="add" if highlight == "cell" else "input")
    # show: tanh of the belt, times o, is the new note h_t
    s.wire([(xs, belt), (xs, 3.25)], part="show")
    s.box(xs, 2.95, "tanh", SQUASH, part="show", w=0.8, h=0.5, size=11)
    s.wire([(xs, 2.7), (xs, gate_y + 0.22)], part="show")
    s.node(xs, gate_y, "×", part="show")
    s.wire([(xo + 0.45, gate_y), (xs - 0.22, gate_y)], part="output")
    s.wire([(xs, gate_y - 0.22), (xs, rail), (10.8, rail)], part="h_out")
    s.text(10.8, rail - 0.35, "$h_t$", ha="right", size=13, part="h_out")
    s.wire([(9.3, rail), (9.3, 5.2)], part="h_out")
    s.text(9.45, 5.05, "$h_t$", ha="left", size=13, part="h_out")
    if variant == "peephole":
        peep = dict(dashed=True, color="#a0661a", bridge=True)  # f and i read c_{t-1}; o reads c_t
        s.wire([(1.3, belt), (1.3, 3.5), (xf - 0.3, 3.5), (xf - 0.3, gate_y + 0.3)], **peep)
        s.wire([(1.3, 3.5), (1.3, 3.5), (xi - 0.3, 3.5), (xi - 0.3, gate_y + 0.3)], **peep)
        s.wire([(xo - 0.3, belt), (xo - 0.3, gate_y + 0.3)], **peep)
        # right of the output gate's peephole, above the tanh: clear of every wire (between g and o it was not)
        s.text(xo - 0.2, 3.55, "peepholes", size=9, color="#a0661a", ha="left")
    if variant == "coupled":
        s.text(x1, 2.45, "$1 - f_t$", size=10, part="forget")
    return s.fig


_GRU_PARTS = {"reset": {"reset", "rail", "reset_mul", "candidate"}, "update": {"update", "keep", "take", "rail"}}


@in_book_language
def gru_cell_diagram(highlight: str | None = None, size=CELL_SIZE):
    """One GRU step in PyTorch's convention: $h_t = (1 - z_t) \\odot n_t + z_t \\odot h_{t-1}$.

    The note runs along the top (there is no separate belt); the reset gate $r_t$ decides how much of the
    past the candidate $n_t$ sees, the update gate $z_t$ mixes the old note and the candidate. The reset is
    drawn in Cho et al.'s form, on $h_{t-1}$ before the candidate's weights (PyTorch applies it after the
    product; chapter 4 says so). ``highlight``: ``"reset"``, ``"update"`` or None.
    """
    if highlight is not None and highlight not in _GRU_PARTS:
        raise ValueError(f"highlight must be one of {sorted(_GRU_PARTS)} or None, got {highlight!r}")
    s = _Sketch(size, (-0.9, 11.2), (-0.95, 5.35), lit=None if highlight is None else _GRU_PARTS[highlight],
                k=CELL_FONT * CELL_SIZE[0] / size[0])
    from matplotlib.patches import FancyBboxPatch

    s.ax.add_patch(FancyBboxPatch((0.7, 0.35), 9.0, 4.35, boxstyle="round,pad=0.05", fc="#f7f7f7", ec="#999999",
                                  lw=1, zorder=0))
    top, gate_y, rail = 4.05, 2.0, 0.95
    xr, xz, xn, xk, xa = 2.6, 4.2, 7.2, 5.6, 8.4  # reset, update, candidate; the keep and add columns
    s.wire([(-0.6, top), (10.8, top)], part="keep", lw=2.2)
    s.text(-0.6, top + 0.35, "$h_{t-1}$", ha="left", size=13, part="keep")
    s.text(10.8, top + 0.35, "$h_t$", ha="right", size=13, part="take")
    s.text(5.2, top + 0.5, "the note: memory and output in one", size=10, color="#555555")
    # h_{t-1} comes down to join x_t on the rail that every box reads
    s.wire([(1.0, top), (1.0, rail), (xz, rail)], part="rail", arrow=False)
    s.wire([(1.4, -0.75), (1.4, rail)], part="rail", arrow=False)
    s.text(1.55, -0.6, "$x_t$", ha="left", size=13, part="rail")
    for part, x, name, label in (("reset", xr, "$r_t$", "reset\ngate"), ("update", xz, "$z_t$", "update\ngate")):
        s.wire([(x, rail), (x, gate_y - 0.3)], part=part)
        s.box(x, gate_y, "$\\sigma$", GATE, part=part)
        s.text(x - 0.12, gate_y + 0.5, name, ha="right", size=11, part=part)
        s.text(x, -0.45, label, size=9, part=part, linespacing=1.0)
    # reset: r scales what the candidate sees of the past
    s.wire([(xr, gate_y + 0.3), (xr, 2.98)], part="reset")
    s.node(xr, 3.2, "×", part="reset_mul")
    s.wire([(xr, top), (xr, 3.42)], part="reset_mul")
    s.wire([(xr + 0.22, 3.2), (6.6, 3.2), (6.6, gate_y + 0.1), (xn - 0.45, gate_y + 0.1)], part="reset_mul",
           bridge=True)
    s.wire([(1.4, rail), (1.4, 0.62), (6.6, 0.62), (6.6, gate_y - 0.1), (xn - 0.45, gate_y - 0.1)],
           part="candidate")
    s.box(xn, gate_y, "tanh", SQUASH, part="candidate")
    s.text(xn, gate_y - 0.52, "$n_t$", size=11, part="candidate")
    s.text(xn, -0.45, "candidate", size=9, part="candidate")
    # update: z keeps the old note, 1 - z takes the candidate
    s.wire([(xz, gate_y + 0.3), (xz, 2.75), (xk, 2.75), (xk, top - 0.22)], part="keep")
    s.node(xk, top, "×", part="keep")
    x1 = xa - 0.95   # the "1−" node, with room for an arrow between it and the product
    s.wire([(xk, 2.75), (x1 - ONE_MINUS_R, 2.75)], part="take")
    s.node(x1, 2.75, "1−", part="take", r=ONE_MINUS_R, size=10)
    s.wire([(x1 + ONE_MINUS_R, 2.75), (xa - 0.22, 2.75)], part="take")
    s.node(xa, 2.75, "×", part="take")
    s.wire([(xn + 0.45, gate_y), (xa, gate_y), (xa, 2.53)], part="candidate")
    s.wire([(xa, 2.97), (xa, top - 0.22)], part="take")
    s.node(xa, top, "+", part="take")
    s.wire([(9.3, top), (9.3, 5.2)], part="keep")
    s.text(9.45, 5.05, "$h_t$", ha="left", size=13, part="keep")
    return s.fig
