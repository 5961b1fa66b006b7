"""Schematics of the models, drawn once with matplotlib: no data, no live view.

- :func:`loop_diagram`: the recurrent cell folded (a loop) and unrolled (one copy per token, the
  same weights): chapter 2's one picture of "the same weights";
- :func:`lstm_cell_diagram`: one LSTM step, the cell state drawn as a conveyor belt (chapter 4).
"""

from __future__ import annotations

from collections.abc import Sequence


def loop_diagram(tokens: Sequence[str] = ("the", "keys", "near", "the", "cabinet"), size=(10, 3.0)):
    """The recurrent cell drawn folded (a loop) and unrolled (one copy per token, the same weights)."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

    tokens = [str(t) for t in tokens]
    if not tokens:
        raise ValueError("loop_diagram needs at least one token")
    fig = plt.figure(figsize=size)
    plt.close(fig)  # not left open in pyplot: a notebook shows it once, as the cell's value
    ax = fig.subplots()
    ax.set_axis_off()
    cell = "#fde9a9"  # the colour of a sticky note: every copy is the same cell

    def box(x, y, text, w=1.0, h=0.62, color=cell):
        ax.add_patch(FancyBboxPatch((x - w / 2, y - h / 2), w, h, boxstyle="round,pad=0.04", fc=color, ec="#7a6a1a"))
        ax.text(x, y, text, ha="center", va="center", fontsize=9)

    def arrow(a, b, **kw):
        ax.add_patch(FancyArrowPatch(a, b, arrowstyle="-|>", mutation_scale=11, lw=1.2, color="#333", **kw))

    # folded: one cell with a loop on itself
    box(0.6, 1.0, "$W_{xh}, W_{hh}, b$", w=1.25)
    arrow((0.6, 0.0), (0.6, 0.67))
    ax.text(0.6, -0.12, "$x_t$", ha="center", va="top", fontsize=10)
    arrow((0.6, 1.33), (0.6, 1.85))
    ax.text(0.6, 1.95, "$y_t$", ha="center", va="bottom", fontsize=10)
    arrow((1.24, 1.18), (1.24, 0.82), connectionstyle="arc3,rad=-1.9")  # the loop: h goes back in
    ax.text(1.68, 1.0, "$h$", ha="left", va="center", fontsize=10)
    ax.text(2.15, 1.0, "=", ha="center", va="center", fontsize=20)
    ax.text(0.6, 2.45, "folded: one cell, a loop", ha="center", fontsize=9, style="italic")
    # unrolled: one copy per token
    x0, dx = 3.5, 1.55
    ax.text(2.62, 1.0, "$h_0$", ha="center", va="center", fontsize=10)
    for t, token in enumerate(tokens):
        x = x0 + t * dx
        box(x, 1.0, "same\n$W_{xh}, W_{hh}, b$", w=1.05, h=0.7)
        arrow((x - dx + 0.55 if t else 2.85, 1.0), (x - 0.55, 1.0))
        ax.text(x - dx / 2 - 0.02, 1.12, f"$h_{t}$" if t else "", ha="center", fontsize=9)
        arrow((x, 0.05), (x, 0.63))
        ax.text(x, -0.05, f"$x_{t + 1}$\n'{token}'", ha="center", va="top", fontsize=9)
        arrow((x, 1.37), (x, 1.85))
        ax.text(x, 1.95, f"$y_{t + 1}$", ha="center", va="bottom", fontsize=9)
    last = x0 + (len(tokens) - 1) * dx
    arrow((last + 0.55, 1.0), (last + 1.05, 1.0))
    ax.text(last + 1.1, 1.0, f"$h_{len(tokens)}$", ha="left", va="center", fontsize=10)
    ax.text((x0 + last) / 2, 2.45, "unrolled: one copy per token, all sharing the same weights",
            ha="center", fontsize=9, style="italic")
    ax.set_xlim(-0.4, last + 1.5)
    ax.set_ylim(-0.75, 2.7)
    fig.tight_layout()
    return fig


def lstm_cell_diagram(size=(9.5, 4.2)):
    """Matplotlib: one LSTM step, the cell state drawn as a conveyor belt across the top (chapter 4)."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Circle, FancyBboxPatch

    fig, ax = plt.subplots(figsize=size, layout="constrained")
    ax.set(xlim=(0, 10.6), ylim=(-0.55, 4.3), aspect="equal")
    ax.axis("off")
    belt, bottom = 3.4, 0.15
    arrow = dict(arrowstyle="-|>", color="#444", lw=1.3, shrinkA=0, shrinkB=0, mutation_scale=12)

    def line(x0, y0, x1, y1, **kw):
        ax.annotate("", (x1, y1), (x0, y0), arrowprops={**arrow, **kw})

    def box(x, y, text, color):
        ax.add_patch(FancyBboxPatch((x - 0.42, y - 0.27), 0.84, 0.54, boxstyle="round,pad=0.04", fc=color,
                                    ec="#333", lw=1))
        ax.text(x, y, text, ha="center", va="center", fontsize=11)

    def node(x, y, text):
        ax.add_patch(Circle((x, y), 0.22, fc="white", ec="#333", lw=1.2, zorder=3))
        ax.text(x, y, text, ha="center", va="center", fontsize=12, zorder=4)

    # the belt
    ax.annotate("", (10.3, belt), (0.2, belt), arrowprops=dict(arrowstyle="-|>", lw=5, color="#e6a23c",
                                                              mutation_scale=22))
    ax.text(0.2, belt + 0.32, "$c_{t-1}$", fontsize=12)
    ax.text(10.0, belt + 0.32, "$c_t$", fontsize=12)
    ax.text(4.4, belt + 0.55, "cell state: the conveyor belt", fontsize=10, color="#a0661a", ha="center")
    gates = {"f": (2.6, "$\\sigma$", "#cfe2f3", "forget $f_t$"), "i": (4.4, "$\\sigma$", "#cfe2f3", "input $i_t$"),
             "g": (5.9, "tanh", "#f4cccc", "candidate $g_t$"), "o": (7.5, "$\\sigma$", "#cfe2f3", "output $o_t$")}
    gate_y = 1.3
    for x, text, color, label in gates.values():
        box(x, gate_y, text, color)
        ax.text(x, gate_y - 0.5, label, ha="center", va="top", fontsize=9)
        line(x, bottom, x, gate_y - 0.3)
    # input rail: [h_{t-1}, x_t] feeds every gate
    ax.plot([0.2, 7.5], [bottom, bottom], color="#444", lw=1.3)
    ax.text(0.2, bottom - 0.35, "$h_{t-1}$ and $x_t$", fontsize=11)
    # forget: multiply the belt
    node(2.6, belt, "×")
    line(2.6, gate_y + 0.3, 2.6, belt - 0.22)
    # input and candidate: multiply, then add onto the belt
    node(5.15, 2.45, "×")
    line(4.4, gate_y + 0.3, 5.0, 2.3)
    line(5.9, gate_y + 0.3, 5.3, 2.3)
    node(5.15, belt, "+")
    line(5.15, 2.67, 5.15, belt - 0.22)
    # output: tanh of the belt, times the output gate, is h_t
    box(8.7, 2.45, "tanh", "#f4cccc")
    line(8.7, belt, 8.7, 2.75)
    node(8.7, 1.3, "×")
    line(8.7, 2.18, 8.7, 1.52)
    line(7.92, gate_y, 8.48, 1.3)
    line(8.92, 1.3, 10.3, 1.3)
    ax.text(9.75, 1.45, "$h_t$", fontsize=12)
    ax.text(3.4, 2.55, "keep", fontsize=9, color="#555", ha="center")
    ax.text(6.05, 2.9, "write", fontsize=9, color="#555", ha="center")
    ax.text(9.3, 2.0, "show", fontsize=9, color="#555", ha="left")
    return fig
