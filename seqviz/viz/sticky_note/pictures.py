"""Chapter 2's sticky note as a matplotlib picture: :class:`NoteCanvas`, built once per sentence and
redrawn per step (blitting). The chapter shows it as the still of its live view (:func:`seqviz.web.sticky_note_view`,
which runs in the reader's browser) and anyone can use it in a kernel.
"""

from __future__ import annotations

import html
import numpy as np

from .._plumbing import Blitter, label_columns
from .data import NOTE_COLORSCALE, check_reading, class_name, step_changes, step_title, tracked_class


class NoteCanvas:
    """The matplotlib picture of the live view, built once per sentence and updated per step.

    The axes, ticks and labels are drawn once; moving the slider changes only the data (the
    heatmap, the frame, the bars, the line and the title), redraws just those artists over
    the saved background (blitting) and encodes one PNG, which keeps a redraw fast.
    """

    def __init__(self, tokens, states, probs=None, class_names=None, track=None):
        import matplotlib.pyplot as plt
        from matplotlib.figure import Figure
        from matplotlib.patches import Rectangle

        self.tokens, self.states, self.probs = check_reading(tokens, states, probs, class_names)
        self.class_names, self.track = class_names, tracked_class(self.probs, track)
        T, H = self.states.shape
        self.changes = step_changes(self.states)  # (T,)
        vmax = float(np.abs(self.states).max()) or 1.0
        # a Figure outside pyplot: nothing to close, nothing shown twice by the inline backend
        # at most 6.2 inches wide, so that its 10-point text shows >= 8 px on a 390 px phone
        width = min(2.6 + 0.45 * T, 6.2)
        self.fig = fig = Figure(figsize=(width, 3.9), dpi=100)
        top, bottom = fig.subplots(2, 1, sharex=True, gridspec_kw=dict(height_ratios=[3, 1.2], hspace=0.08))
        cmap = plt.get_cmap(NOTE_COLORSCALE).with_extremes(bad="#f2f2f2")  # grey: tokens not read yet
        self.image = top.imshow(self.states.T, aspect="auto", cmap=cmap, vmin=-vmax, vmax=vmax,
                                interpolation="nearest")
        self.frame = top.add_patch(Rectangle((-0.5, -0.5), 1, H, fill=False, lw=2, ec="black"))
        top.set_ylabel("hidden unit")
        self.title = top.set_title("", fontsize=10)
        self.bars = bottom.bar(range(T), self.changes, color="#7f7f7f", width=0.7)
        bottom.set_xlim(-0.5, T - 0.5)
        bottom.set_ylim(0, float(self.changes.max()) * 1.1 or 1.0)
        bottom.set_ylabel("change")
        top.set_xticks([])
        label_columns(bottom, self.tokens, rotation=40, ha="right", fontsize=10)
        self.line = None
        if self.probs is not None:
            right = bottom.twinx()
            (self.line,) = right.plot([], [], "o-", color="#1f77b4", ms=3)
            right.set_ylim(0, 1.02)
            right.set_ylabel(f"P({class_name(class_names, self.track)})", color="#1f77b4")
        fig.subplots_adjust(left=0.65 / width, right=1 - 0.65 / width, top=0.9, bottom=0.24)
        self.blitter = Blitter(fig, [self.image, self.frame, *self.bars, *([self.line] if self.line else []),
                                     self.title])

    def show(self, step: int):
        """Update the picture to "read up to ``step``" (1-based, clamped) and return it as a PNG Image."""
        T = len(self.tokens)
        step = min(max(int(step), 1), T)
        read = np.arange(T) < step
        self.image.set_data(np.ma.masked_array(self.states.T, mask=~read[None, :].repeat(self.states.shape[1], 0)))
        self.frame.set_x(step - 1.5)
        for i, bar in enumerate(self.bars):
            bar.set_height(self.changes[i] if read[i] else 0.0)
            bar.set_color("#d62728" if i == step - 1 else "#7f7f7f")
        if self.line is not None:
            self.line.set_data(np.arange(step), self.probs[:step, self.track])
        self.title.set_text(html.unescape(step_title(self.tokens, self.states, self.probs, step, self.class_names)))
        return self.blitter.frame()
