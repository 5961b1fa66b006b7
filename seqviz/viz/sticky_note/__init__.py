"""Chapter 2's "sticky note": a recurrent network's hidden state, rewritten token by token.

One family, three modules: :mod:`.data` (a reading checked, the step changes), :mod:`.figures`
(plotly, for the static book) and :mod:`.pictures` (matplotlib, for the live view). Everything
takes data, never a model (Elman, 1990, for the network being watched). The picture of the loop
itself is :func:`seqviz.viz.diagrams.loop_diagram`.
"""

from .data import step_changes
from .figures import reading_figure, sentences_figure
from .pictures import NoteCanvas, sticky_note_widget

__all__ = ["NoteCanvas", "reading_figure", "sentences_figure", "step_changes", "sticky_note_widget"]
