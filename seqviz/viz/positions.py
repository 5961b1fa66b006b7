"""Positional encodings (chapter 8): the sinusoid table and how alike the codes of two positions are.

- :func:`positional_encoding_figure`: plotly, the (positions, d_model) table as a heatmap;
- :func:`position_similarity_figure`: plotly, the cosine similarity of every two positions' codes.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ._plumbing import as_array


def positional_encoding_figure(pe, *, title: str = "", height: int = 360) -> go.Figure:
    """The (positions, d_model) table as a heatmap: position down, dimension across."""
    z = as_array(pe)
    if z.ndim != 2:
        raise ValueError(f"pe must be (positions, d_model), got shape {z.shape}")
    fig = go.Figure(go.Heatmap(z=np.round(z, 3), colorscale="RdBu", zmid=0, zmin=-1, zmax=1,
                               hovertemplate="position %{y}, dim %{x}<br>%{z:.3f}<extra></extra>"))
    fig.update_layout(title=title, height=height, xaxis_title="dimension i", yaxis_title="position",
                      yaxis_autorange="reversed", margin=dict(l=60, r=20, t=50 if title else 20, b=50))
    return fig


def position_similarity_figure(pe, *, title: str = "", height: int = 380) -> go.Figure:
    """Cosine similarity between the codes of every two positions (positions x positions)."""
    z = as_array(pe)
    if z.ndim != 2:
        raise ValueError(f"pe must be (positions, d_model), got shape {z.shape}")
    unit = z / np.linalg.norm(z, axis=1, keepdims=True).clip(1e-12)
    sim = unit @ unit.T
    fig = go.Figure(go.Heatmap(z=np.round(sim, 3), colorscale="Viridis",
                               hovertemplate="positions %{y} and %{x}<br>cosine %{z:.3f}<extra></extra>"))
    fig.update_layout(title=title, height=height, xaxis_title="position", yaxis_title="position",
                      yaxis_autorange="reversed", margin=dict(l=60, r=20, t=50 if title else 20, b=50))
    return fig
