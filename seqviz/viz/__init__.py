"""Figures and widgets, one module per view family. Plotting takes tensors and labels, never models.

Each family offers, over the same data-in API, what its chapter needs of: a plotly figure for the
static book, a matplotlib plot, and a live widget with its fast picture.

- :mod:`.basic`: heatmaps, lines and the slider figure (every chapter);
- :mod:`.predictions`: a model's probabilities over the classes as bars (chapters 1 and 5);
- :mod:`.distance`: accuracy against distance (chapters 1, 3 and 4);
- :mod:`.sticky_note`: a hidden state rewritten token by token (chapter 2);
- :mod:`.gradients`: gradient norms and Jacobian products decaying with the step (chapters 3 and 4);
- :mod:`.gates`: the gates over a sentence and the conveyor belt (chapter 4);
- :mod:`.text`: text coloured character by character, a value per character (chapter 4b);
- :mod:`.diagrams`: the recurrent loop, the input/output patterns, the LSTM and GRU cells, drawn once
  (chapters 2 and 4);
- :mod:`.attention_diagrams`: the encoder-decoder, one query's attention step by step, the Transformer's
  blocks and BERT's input embeddings, drawn once (chapters 5, 7, 8 and 9);
- :mod:`.beams`: beam search drawn as a tree (chapter 6);
- :mod:`.heads`: attention heads, figure and still picture (chapters 8 and 9); :mod:`.bertviz_bridge`:
  bertviz's head and model views with every script served locally (chapters 8 and 9);
- :mod:`.positions`: positional encodings (chapter 8); :mod:`.costs`: cost against length (chapter 8);
- :mod:`.scaling`: repeated timings with their spread, loss by position, loss against compute (chapter 9b);
- :mod:`.guide`: chapter 10's decision guide as HTML;
- :mod:`.live_view`: the kernel-side live-view machinery (:func:`live`, :class:`LiveView`);
- :mod:`.book`: the book's plotly renderer (:func:`use_book_renderer`);
- ``_plumbing``: private plumbing shared by all of them (arrays in, labels, PNG, blitting).

Names follow one scheme:

- ``X_figure``: a plotly ``Figure``; slider steps are precomputed, so it stays interactive in the
  static book, without a kernel;
- ``X_plot``: a matplotlib ``Figure`` drawn from data;
- ``X_diagram``: a matplotlib schematic of a model, drawn once (no data);
- ``live(render, **controls)``: a kernel-side live view (a :class:`LiveView`: ipywidgets controls over any
  ``render``), which recomputes in a kernel; a view that runs in the page is ``seqviz.web``'s ``X_view``;
- ``XPicture``: a fast, redrawable matplotlib picture for a live view: ``picture.show(data)`` returns
  a PNG ``Image``; the axes are drawn once and only what changes is redrawn (blitting);
- ``XCanvas``: one sentence's picture, drawn once; ``canvas.show(position)`` moves through it
  (a step, a start token, a layer and head);
- ``X_html`` and ``bertviz_X_view``: an HTML view (ours, or bertviz's);
- any other name is a computation or a check the views share (:func:`step_changes`,
  :func:`forget_survival`, :func:`to_bertviz`, :func:`require_known_words`) or live-view machinery.

Importing ``seqviz.viz`` changes no global state: neither plotly's default renderer nor matplotlib's
backend. Every label is drawn in the book's language (``_language``: one walk over a finished figure, through
:func:`seqviz.book.translate`); ``sv.book.set_language("zh")`` is what switches plotly's renderer and matplotlib's
font, and only then. The book build switches plotly to its renderer explicitly: every chapter's imports cell
calls :func:`use_book_renderer`, which does so only while the book is built (``SEQVIZ_BOOK=1``).
"""

from .attention_diagrams import (attention_diagram, bert_inputs_diagram, encoder_decoder_diagram,
                                 transformer_block_diagram)
from .basic import (HeatmapPicture, heatmap_figure, heatmap_plot, lines_figure, lines_plot, readable_layout,
                    slider_figure)
from .beams import BeamTreePicture, beam_tree_figure, beam_tree_plot, beam_tree_slider_figure
from .bertviz_bridge import bertviz_head_view, bertviz_model_view
from .book import BookRenderer, use_book_renderer
from .costs import cost_figure
from .diagrams import gru_cell_diagram, io_patterns_diagram, loop_diagram, lstm_cell_diagram
from .distance import accuracy_spread_figure, accuracy_vs_distance_figure
from .gates import (GatesCanvas, conveyor_belt_figure, forget_survival, gate_heatmaps_figure, gate_slider_figure,
                    gates_plot)
from .gradients import DecayPicture, decay_figure, decay_plot
from .guide import guide_html
from .heads import HeadsCanvas, head_view_figure, to_bertviz
from .live_view import LiveView, live, require_known_words
from .positions import position_similarity_figure, positional_encoding_figure
from .predictions import PredictionBarsPicture, prediction_bars_figure, prediction_bars_plot
from .scaling import frontier_figure, position_loss_figure, spread_figure
from .sticky_note import NoteCanvas, reading_figure, sentences_figure, step_changes
from .text import char_heat_figure

from .. import book as _book  # noqa: E402 - after the families: the listener reaches into them
from ._language import apply_language as _apply_language  # noqa: E402

_book.on_language(_apply_language)  # in English it changes nothing; set_language("zh") draws labels in Chinese

__all__ = [
    # general: building blocks, live views, the book's renderer
    "BookRenderer", "HeatmapPicture", "LiveView", "heatmap_figure", "heatmap_plot", "lines_figure", "lines_plot",
    "live", "readable_layout", "require_known_words", "slider_figure", "use_book_renderer",
    # chapters 1-3
    "DecayPicture", "PredictionBarsPicture", "accuracy_vs_distance_figure", "decay_figure", "decay_plot",
    "prediction_bars_figure", "prediction_bars_plot",
    "NoteCanvas", "io_patterns_diagram", "loop_diagram", "reading_figure", "sentences_figure", "step_changes",
    # chapter 4
    "GatesCanvas", "accuracy_spread_figure", "conveyor_belt_figure", "forget_survival", "gate_heatmaps_figure",
    "gate_slider_figure", "gates_plot", "gru_cell_diagram", "lstm_cell_diagram",
    # chapter 4b
    "char_heat_figure",
    # chapter 6
    "BeamTreePicture", "beam_tree_figure", "beam_tree_plot", "beam_tree_slider_figure",
    # chapters 5 and 7 to 9: the attention models' diagrams
    "attention_diagram", "bert_inputs_diagram", "encoder_decoder_diagram", "transformer_block_diagram",
    # chapters 8 and 9
    "HeadsCanvas", "bertviz_head_view", "bertviz_model_view", "cost_figure", "head_view_figure",
    "position_similarity_figure", "positional_encoding_figure", "to_bertviz",
    # chapter 9b
    "frontier_figure", "position_loss_figure", "spread_figure",
    # chapter 10
    "guide_html",
]
