"""Text coloured character by character: a value per character (a unit's activation, the probability the
model gave each sampled character) drawn as the background of that character, line by line as the text runs.

Used by chapter 4b (a hidden unit over a passage of Moby-Dick; samples at several temperatures).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import plotly.graph_objects as go

from ._plumbing import as_array

NEWLINE = "↵"


def _layout(tokens: Sequence[str], width: int) -> list[list[int]]:
    """Rows of token positions: a new row after a line break and whenever a row holds ``width`` tokens."""
    rows, row = [], []
    for i, token in enumerate(tokens):
        row.append(i)
        if token == "\n" or len(row) == width:
            rows.append(row)
            row = []
    if row:
        rows.append(row)
    return rows


def char_heat_figure(tokens: Sequence[str] | str, values, *, width: int = 72, title: str = "",
                     colorscale: str = "RdBu", zmid: float | None = 0.0, zmin: float | None = None,
                     zmax: float | None = None, hover: str = "value", row_labels: Sequence[str] | None = None,
                     height: int | None = None) -> go.Figure:
    """A plotly heatmap laid out like the text: one cell per token (character or word), one row per line
    (a line break is drawn as ↵ and starts a new row; rows also wrap after ``width`` tokens), the token written
    in its cell and ``values`` as its colour. Hovering shows the token and its value. ``row_labels`` names the
    rows (as many as the layout makes), e.g. one sample per row."""
    tokens = list(tokens)
    v = as_array(values, "values", 1)
    if len(tokens) != v.shape[0]:
        raise ValueError(f"values has {v.shape[0]} entries for {len(tokens)} tokens; expected one per token")
    if not tokens:
        raise ValueError("char_heat_figure needs at least one token")
    if not isinstance(width, int) or width < 1:
        raise ValueError(f"width must be a positive int, got {width!r}")
    rows = _layout(tokens, width)
    if row_labels is not None and len(row_labels) != len(rows):
        raise ValueError(f"row_labels has {len(row_labels)} labels for {len(rows)} rows of text")
    columns = max(len(r) for r in rows)
    z = np.full((len(rows), columns), np.nan)
    text = np.full((len(rows), columns), "", dtype=object)
    for r, row in enumerate(rows):
        for c, i in enumerate(row):
            z[r, c] = v[i]
            text[r, c] = NEWLINE if tokens[i] == "\n" else tokens[i]
    y = list(row_labels) if row_labels is not None else [str(r + 1) for r in range(len(rows))]
    fig = go.Figure(go.Heatmap(z=z, text=text, texttemplate="%{text}", textfont=dict(family="monospace", size=12),
                               x=list(range(columns)), y=list(range(len(rows))), colorscale=colorscale, zmid=zmid,
                               zmin=zmin, zmax=zmax, xgap=1, ygap=2,
                               hovertemplate=f"“%{{text}}”<br>{hover} %{{z:.3f}}<extra></extra>"))
    fig.update_layout(title=title, height=height or 60 + 24 * len(rows) + (40 if title else 0),
                      margin=dict(l=10 if row_labels is None else 80, r=20, t=50 if title else 10, b=10),
                      plot_bgcolor="white")
    fig.update_xaxes(visible=False)
    fig.update_yaxes(autorange="reversed", tickmode="array", tickvals=list(range(len(rows))), ticktext=y,
                     showticklabels=row_labels is not None, showgrid=False, zeroline=False)
    return fig
