"""Figures and widgets. Plotting takes tensors and labels, never models.

- :mod:`.static`: matplotlib figures (for print and for widgets' output);
- :mod:`.interactive`: plotly figures that stay interactive in the static book
  (slider steps are precomputed);
- :mod:`.widgets`: ipywidgets views that recompute live in a kernel;
- :mod:`.sticky_note`: chapter 2's views of a hidden state rewritten token by token;
- :mod:`.beam_tree`: chapter 6's beam search drawn as a tree;
- :mod:`.gates`, :mod:`.gates_live`: chapter 4's gates over a sentence and the conveyor belt;
- :mod:`.heads`, :mod:`.heads_live`: chapter 8's head view (figure and live widget), positional encodings and
  cost plots;
- :mod:`.bertviz_bridge`: bertviz's head and model views with every script served locally (chapters 8, 9).

Under ``SEQVIZ_BOOK=1`` (set by ``make book``) plotly figures render as HTML that
expects one site-wide copy of plotly.js, which the book serves itself.
"""

from .beam_tree import BeamTreePicture, beam_tree, beam_tree_figure, beam_tree_slider
from .bertviz_bridge import bertviz_head_view, bertviz_model_view
from .gates import (
    accuracy_spread_figure,
    conveyor_belt_figure,
    forget_survival,
    gate_heatmaps_figure,
    gate_slider_figure,
)
from .gates_live import gates_picture, gates_widget, lstm_cell_diagram
from .heads import (cost_figure, head_view_figure, position_similarity_figure, positional_encoding_figure,
                    to_bertviz)
from .heads_live import head_view_widget
from .interactive import (
    accuracy_vs_distance_figure,
    decay_figure,
    heatmap_figure,
    lines_figure,
    prediction_bars_figure,
    slider_figure,
    use_book_renderer,
)
from .static import DecayPicture, HeatmapPicture, PredictionBars, decay, heatmap, lines, prediction_bars
from .sticky_note import reading_figure, sentences_figure, sticky_note_widget
from .widgets import live, sentence_view

use_book_renderer(only_if_env=True)

__all__ = [
    # general
    "HeatmapPicture", "heatmap", "heatmap_figure", "lines", "lines_figure", "live", "sentence_view", "slider_figure",
    "use_book_renderer",
    # chapters 1-3
    "DecayPicture", "PredictionBars", "accuracy_vs_distance_figure", "decay", "decay_figure", "prediction_bars",
    "prediction_bars_figure",
    "reading_figure", "sentences_figure", "sticky_note_widget",
    # chapter 4
    "accuracy_spread_figure", "conveyor_belt_figure", "forget_survival", "gate_heatmaps_figure",
    "gate_slider_figure", "gates_picture", "gates_widget", "lstm_cell_diagram",
    # chapter 6
    "BeamTreePicture", "beam_tree", "beam_tree_figure", "beam_tree_slider",
    # chapters 8 and 9
    "bertviz_head_view", "bertviz_model_view", "cost_figure", "head_view_figure", "head_view_widget",
    "position_similarity_figure", "positional_encoding_figure", "to_bertviz",
]
