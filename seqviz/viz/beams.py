"""The beam as a tree (chapter 6), drawn from a beam search's record.

- :func:`beam_tree_figure`: plotly, the tree up to a step; :func:`beam_tree_slider_figure`: the same
  with a slider over the steps (precomputed, works without a kernel);
- :func:`beam_tree_plot`: matplotlib, the finished tree in the same layout and colours;
- :class:`BeamTreePicture`: the same picture, its axes drawn once per number of steps (chapter 6 draws the
  still of its live view, ``seqviz.web.beam_view``, with it).

The functions take the ``nodes`` of a :class:`seqviz.decode.SearchRecord` (dicts with
``id``, ``parent``, ``token``, ``step``, ``log_prob``, ``score``, ``status``), the ids of
the returned hypotheses (``record.best``) and token labels. They never see a model.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from ._plumbing import Blitter
from .basic import slider_figure, wrap_title

SHORT = {"kept": "in the beam", "finished": "finished", "pruned": "pruned"}  # plotly's legend: two rows on a phone
LABEL_LEAVES = 2.0  # the least distance, in leaves, between two labelled nodes of one step (plotly tree)
LABEL_CLEAR = 1.5  # the least room, in leaves, between a labelled node and the next node above it (plotly tree)
LEAF_PX = 16  # pixels between two leaves of the plotly tree: an 8-point label's height and a little air
LABEL_GAP = 13.0  # points between two labelled nodes of one step: a TEXT_PT label's height and a little air
TEXT_PT = 10  # points: every text of the matplotlib tree; at SIZE[0] inches it shows >= 8 px on a 390 px phone
CHAR_EM = 0.62  # a label's width per character, in ems (DejaVu Sans, with room for "<" and "w")
SIZE = (6.0, 3.8)  # inches: the matplotlib tree, narrow enough that a phone scales it down little
STYLE = {  # status -> (legend name, colour, symbol)
    "kept": ("kept in the beam", "#1f77b4", "circle"),
    "finished": ("finished (eos) or cut at max_len", "#2ca02c", "square"),
    "pruned": ("pruned (best runners-up)", "#bbbbbb", "x"),
}


def _layout(nodes: list[dict]) -> dict[int, float]:
    """y position of every node: leaves one apart in depth-first order, a parent in the middle of its children."""
    children: dict = {}
    for node in nodes:
        children.setdefault(node["parent"], []).append(node)
    for kids in children.values():
        kids.sort(key=lambda n: -n["log_prob"])
    y, next_leaf = {}, [0.0]

    def place(node):
        kids = children.get(node["id"], [])
        if not kids:
            y[node["id"]] = next_leaf[0]
            next_leaf[0] += 1.0
        else:
            for kid in kids:
                place(kid)
            y[node["id"]] = sum(y[k["id"]] for k in kids) / len(kids)

    for root in children.get(None, []):
        place(root)
    return y


def _check(nodes, labels):
    if not nodes or not isinstance(nodes[0], dict) or nodes[0].get("parent", 0) is not None:
        raise ValueError("nodes must be a SearchRecord's nodes (dicts, the root first with parent None); "
                         "run beam_search(..., return_record=True)")
    top = max(n["token"] for n in nodes)
    if len(labels) <= top:
        raise ValueError(f"labels has {len(labels)} entries but the search used token id {top}")


def beam_tree_figure(nodes: Sequence[dict], labels: Sequence[str], best: Sequence[int] = (), *, upto_step=None,
                     title: str = "", height: int = 420) -> go.Figure:
    """The search tree up to ``upto_step`` (all steps by default): one column per step, the root (bos) on the left.

    Blue circles stay in the beam, green squares are finished hypotheses, grey crosses
    the best pruned candidates; the orange line is the returned best hypothesis (shown
    once the last step is drawn). Hover shows the prefix, its log-probability and score.
    Always five traces, so frames of one search can share a slider.
    """
    nodes = list(nodes)
    _check(nodes, labels)
    last = max(n["step"] for n in nodes)
    upto = last if upto_step is None else upto_step
    y = _layout(nodes)
    by_id = {n["id"]: n for n in nodes}
    shown = [n for n in nodes if n["step"] <= upto]

    def prefix(node):
        out = []
        while node is not None:
            out.append(str(labels[node["token"]]))
            node = by_id.get(node["parent"])
        return " ".join(out[::-1])

    # a label sits above its node; where two labelled nodes of one step lie closer than LABEL_LEAVES leaves, only
    # the upper one (the better hypothesis) is labelled, so that no two labels overprint, and a node with another
    # node of its step (pruned ones too) less than LABEL_CLEAR leaves above it goes unlabelled, so that no label
    # covers a marker (hover shows every node)
    column = {}
    for n in shown:
        column.setdefault(n["step"], []).append(y[n["id"]])
    labelled, last_at = set(), {}
    for n in sorted((n for n in shown if n["status"] != "pruned"), key=lambda n: (n["step"], y[n["id"]])):
        here = y[n["id"]]
        covered = any(here - LABEL_CLEAR < other < here for other in column[n["step"]])
        if here - last_at.get(n["step"], -1e9) >= LABEL_LEAVES and not covered:
            labelled.add(n["id"])
            last_at[n["step"]] = here
    fig = go.Figure()
    ex, ey = [], []
    for n in shown:
        if n["parent"] is not None:
            p = by_id[n["parent"]]
            ex += [p["step"], n["step"], None]
            ey += [y[p["id"]], y[n["id"]], None]
    fig.add_trace(go.Scatter(x=ex, y=ey, mode="lines", line=dict(color="#cccccc", width=1), hoverinfo="skip",
                             showlegend=False))
    for status, (_, colour, symbol) in STYLE.items():
        group = [n for n in shown if (n["status"] in ("finished", "cut") if status == "finished"
                                      else n["status"] == status or (status == "kept" and n["status"] == "root"))]
        fig.add_trace(go.Scatter(
            x=[n["step"] for n in group], y=[y[n["id"]] for n in group], mode="markers+text", name=SHORT[status],
            text=[str(labels[n["token"]]) if n["id"] in labelled else "" for n in group], textposition="top center",
            cliponaxis=False,  # a label above the top branch stays whole
            marker=dict(color=colour, symbol=symbol, size=11 if status != "pruned" else 8),
            customdata=[[prefix(n), n["log_prob"], n["score"], n["status"]] for n in group],
            hovertemplate="%{customdata[0]}<br>log p %{customdata[1]:.3f}<br>score %{customdata[2]:.3f}"
                          "<br>%{customdata[3]}<extra></extra>"))
    bx, by = [], []
    if best and upto >= last:
        path = []
        node = by_id.get(best[0])
        while node is not None:
            path.append(node)
            node = by_id.get(node["parent"])
        bx, by = [n["step"] for n in path[::-1]], [y[n["id"]] for n in path[::-1]]
    fig.add_trace(go.Scatter(x=bx, y=by, mode="lines", line=dict(color="#ff7f0e", width=3), name="best hypothesis",
                             hoverinfo="skip"))
    span = max(y.values()) if y else 1.0
    # The title (wrapped for a phone), then the legend, sit above the tree: below it, the slider of
    # beam_tree_slider_figure would run through the legend. Room for two legend rows (a 390-pixel phone);
    # leaves at least LEAF_PX apart, so that two labels of one step never stack; room above the top branch for
    # its label.
    text = wrap_title(title)
    lines = text.count("<br>") + 1 if text else 0
    top = 22 * lines + 18 + 46
    height = max(height, int(top + 60 + LEAF_PX * (span + 2.4)))
    fig.update_layout(title=dict(text=text, font=dict(size=14), x=0.01, xanchor="left", y=1.0, yref="container",
                                 yanchor="top", pad=dict(t=14)), height=height,
                      margin=dict(l=30, r=20, t=top, b=50),
                      xaxis=dict(title="step (generated tokens)", range=[-0.5, last + 0.5], dtick=1),
                      yaxis=dict(visible=False, range=[span + 0.8, -1.6]),
                      legend=dict(orientation="h", x=0, xanchor="left", y=1.0, yanchor="bottom", font=dict(size=11)))
    return fig


def beam_tree_slider_figure(nodes: Sequence[dict], labels: Sequence[str], best: Sequence[int] = (), *, title: str = "",
                            height: int = 420) -> go.Figure:
    """The same tree with a slider over steps (precomputed: works without a kernel)."""
    nodes = list(nodes)
    _check(nodes, labels)
    last = max(n["step"] for n in nodes)
    frames = {str(s): beam_tree_figure(nodes, labels, best, upto_step=s, title=f"{title} (step {s} of {last})",
                                       height=height) for s in range(1, last + 1)}
    return slider_figure(frames, title=title, slider_label="step", active=last - 1)


_MARKERS = {"circle": "o", "square": "s", "x": "x"}


def _tree_axes(fig, steps: int):
    """The tree's axes, drawn the same for every search of ``steps`` steps: columns, legend, no y ticks.

    Node heights are scaled into [0, 1] (:func:`_tree_artists`), so the axes do not depend
    on the tree and a live view can draw them once (blitting).
    """
    from matplotlib.lines import Line2D

    ax = fig.add_subplot()
    fig.subplots_adjust(left=0.03, right=0.98, top=0.9, bottom=0.14)  # fixed margins: faster than a layout engine
    ax.set_xlim(-0.4, steps + 0.4)
    ax.set_ylim(1.38, -0.12)  # the best child on top; the bottom fifth left free for the legend
    ax.set_yticks([])
    ax.set_xticks(range(0, steps + 1))
    ax.tick_params(labelsize=TEXT_PT)
    ax.set_xlabel("step (generated tokens)", fontsize=TEXT_PT)
    handles = [Line2D([], [], color="#ff7f0e", lw=3, label="best hypothesis")]
    handles += [Line2D([], [], color=colour, marker=_MARKERS[symbol], ls="", label=name)
                for name, colour, symbol in STYLE.values()]
    ax.legend(handles=handles, fontsize=TEXT_PT, frameon=False, loc="lower left", ncol=2, columnspacing=1.0,
              handlelength=1.5, borderaxespad=0.2)
    return ax


def _tree_artists(ax, nodes, labels, best) -> list:
    """Add the tree's edges, best path, nodes and labels to ``ax``; return them."""
    from matplotlib.collections import LineCollection
    from matplotlib.transforms import offset_copy

    raw, by_id = _layout(nodes), {n["id"]: n for n in nodes}
    top = max(raw.values()) or 1.0
    y = {k: v / top for k, v in raw.items()}
    artists = [LineCollection([[(by_id[n["parent"]]["step"], y[n["parent"]]), (n["step"], y[n["id"]])]
                               for n in nodes if n["parent"] is not None], colors="#cccccc", linewidths=1, zorder=1)]
    ax.add_collection(artists[0], autolim=False)
    path, node = [], by_id.get(best[0]) if best else None
    while node is not None:
        path.append(node)
        node = by_id.get(node["parent"])
    if path:
        artists += ax.plot([n["step"] for n in path], [y[n["id"]] for n in path], color="#ff7f0e", lw=3, zorder=2,
                           scalex=False, scaley=False)
    above = offset_copy(ax.transData, fig=ax.figure, y=6, units="points")
    labelled = []
    for status, (_, colour, symbol) in STYLE.items():
        group = [n for n in nodes if (n["status"] in ("finished", "cut") if status == "finished"
                                      else n["status"] == status or (status == "kept" and n["status"] == "root"))]
        if not group:
            continue
        artists.append(ax.scatter([n["step"] for n in group], [y[n["id"]] for n in group], c=colour,
                                  marker=_MARKERS[symbol], zorder=3, s=40 if status != "pruned" else 25))
        labelled += [] if status == "pruned" else group  # pruned candidates unlabelled: faster, less clutter
    # a label sits above its node; where two nodes of a step lie closer than a line of text, only the upper
    # one (the better hypothesis) is labelled, so no two labels overprint (hovering the plotly tree shows all)
    # and a label that would run into one already placed (a long word beside the next step's) goes unlabelled too
    to_points = ax.transData.transform
    scale = 72 / ax.figure.dpi
    placed: list[tuple[float, float, float, float]] = []  # label boxes in points: (left, right, bottom, top)
    last_at: dict[int, float] = {}
    for n in sorted(labelled, key=lambda n: (n["step"], y[n["id"]])):
        cx, cy = to_points((n["step"], y[n["id"]])) * scale
        if last_at.get(n["step"], np.inf) - cy < LABEL_GAP:  # display y grows upwards: the upper node came first
            continue
        text = str(labels[n["token"]])
        half = CHAR_EM * TEXT_PT * len(text) / 2 + 1.5  # and a little air between two words
        box = (cx - half, cx + half, cy + 6, cy + 6 + TEXT_PT * 1.2)
        if any(box[0] < b[1] and b[0] < box[1] and box[2] < b[3] and b[2] < box[3] for b in placed):
            continue
        placed.append(box)
        last_at[n["step"]] = cy
        artists.append(ax.text(n["step"], y[n["id"]], text, transform=above, ha="center", va="bottom",
                               fontsize=TEXT_PT))
    return artists


def beam_tree_plot(nodes: Sequence[dict], labels: Sequence[str], best: Sequence[int] = (), *, title: str = "",
                   size=SIZE, steps: int | None = None):
    """The finished search tree as a matplotlib Figure (same layout and colours as :func:`beam_tree_figure`).

    ``steps`` fixes the x-axis to that many steps (default: the deepest node's). A live view
    that redraws the tree on every change uses :class:`BeamTreePicture` (the same picture,
    its axes drawn once).
    """
    from matplotlib.figure import Figure

    nodes = list(nodes)
    _check(nodes, labels)
    fig = Figure(figsize=size)  # outside pyplot: a live view draws it once and drops it
    ax = _tree_axes(fig, steps if steps is not None else max(n["step"] for n in nodes))
    _tree_artists(ax, nodes, labels, best)
    ax.set_title(title, fontsize=TEXT_PT + 1)
    return fig


class BeamTreePicture:
    """:func:`beam_tree_plot` for a live view (chapter 6): the axes are drawn once per number of steps.

    ``picture.show(nodes, labels, best, title=..., steps=...)`` returns a PNG ``Image``;
    only the tree and the title are drawn per call, over the saved axes (blitting). Give
    ``steps`` (the search's ``max_len``) so that a new beam size reuses the same axes.
    """

    def __init__(self, size=SIZE, keep: int = 4):
        self.size, self.keep = size, keep
        self._drawn: dict = {}

    def show(self, nodes: Sequence[dict], labels: Sequence[str], best: Sequence[int] = (), *, title: str = "",
             steps: int | None = None):
        from matplotlib.figure import Figure

        nodes = list(nodes)
        _check(nodes, labels)
        steps = max(steps if steps is not None else 0, max(n["step"] for n in nodes))
        if steps not in self._drawn:
            if len(self._drawn) >= self.keep:
                self._drawn.pop(next(iter(self._drawn)))
            fig = Figure(figsize=self.size)
            ax = _tree_axes(fig, steps)
            heading = ax.set_title(" ", fontsize=TEXT_PT + 1)
            self._drawn[steps] = (Blitter(fig, [heading]), ax, heading)
        blitter, ax, heading = self._drawn[steps]
        heading.set_text(title)
        artists = _tree_artists(ax, nodes, labels, best)
        try:
            return blitter.frame(*artists)
        finally:
            for artist in artists:
                artist.remove()
