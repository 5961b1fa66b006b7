"""Chapter 4's gated recurrent networks: the gates over a sentence and the cell state as a conveyor belt.

One family, three modules: :mod:`.data` (the gates checked, the survival product), :mod:`.figures`
(plotly, for the static book) and :mod:`.pictures` (matplotlib: the still of the live view, which runs in
the reader's browser as :func:`seqviz.web.gates_view`). Everything takes tensors and token labels, never a
model. The drawing of the LSTM cell itself is
:func:`seqviz.viz.diagrams.lstm_cell_diagram`.
"""

from .data import SIGMOID_GATES, check_gates, forget_survival
from .figures import conveyor_belt_figure, gate_heatmaps_figure, gate_slider_figure
from .pictures import GatesCanvas, gates_plot

__all__ = ["GatesCanvas", "SIGMOID_GATES", "check_gates", "conveyor_belt_figure", "forget_survival",
           "gate_heatmaps_figure", "gate_slider_figure", "gates_plot"]
