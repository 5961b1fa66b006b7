"""Chapter 2's "sticky note": a recurrent network's hidden state, rewritten token by token.

One family, three modules: :mod:`.data` (a reading checked, the step changes), :mod:`.figures`
(plotly, for the static book) and :mod:`.pictures` (matplotlib, the still of the live view in
:mod:`seqviz.web`). Everything
takes data, never a model (Elman, 1990, for the network being watched). The picture of the loop
itself is :func:`seqviz.viz.diagrams.loop_diagram`.
"""

from .data import step_changes
from .figures import reading_figure, sentences_figure
from .pictures import NoteCanvas

__all__ = ["NoteCanvas", "reading_figure", "sentences_figure", "step_changes"]
