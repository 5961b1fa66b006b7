"""The live head view of chapters 8 and 9: type sentences, choose a layer and a head.

- :class:`HeadsCanvas`: the attention of one sentence (every layer and head) as a matplotlib
  heatmap drawn once; :meth:`HeadsCanvas.show` swaps in another layer's or head's weights and
  redraws only the image and the title over the saved background (:class:`._canvas.Blitter`);
- :func:`head_view_widget`: the live view built on it, with one set of controls: a text box per
  sentence, a layer slider and a head slider counted from 1 as the figure's title and the static
  :func:`seqviz.viz.head_view_figure` count them (the head slider's last step is the mean).

Takes tensors and token labels, never a model.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ._canvas import Blitter, label_columns, label_rows
from .heads import _layers


class HeadsCanvas:
    """Every layer and head of one sentence's self-attention, shown one at a time."""

    def __init__(self, attentions, tokens: Sequence[str], dpi: int = 90):
        from matplotlib.figure import Figure

        self.layers = np.stack(_layers(attentions))  # (L, H, T, T)
        L, H, T, T_keys = self.layers.shape
        self.tokens = [str(t) for t in tokens]
        if T != T_keys or len(self.tokens) != T:
            raise ValueError(f"the live head view needs self-attention over the tokens: weights are ({T} queries x "
                             f"{T_keys} keys) for {len(self.tokens)} tokens")
        self.means = self.layers.mean(1)  # (L, T, T)
        side = min(max(3.2, 0.32 * T + 1.6), 9.0)
        self.fig = Figure(figsize=(side + 1.3, side), dpi=dpi)
        ax = self.fig.add_axes((0.2, 0.04, 0.62, 0.74))
        self.image = ax.imshow(self.layers[0, 0], cmap="Blues", vmin=0, vmax=1, interpolation="nearest",
                               aspect="auto")
        size = 9 if T <= 24 else 6
        pad = label_columns(ax, self.tokens, top=True, rotation=60, ha="left", fontsize=size)
        ax.xaxis.set_label_position("top")
        ax.set_xlabel("key (attended to)", fontsize=9, labelpad=pad)
        ax.set_ylabel("query (attending)", fontsize=9, labelpad=label_rows(ax, self.tokens, fontsize=size))
        # the colour bar in fixed axes: a third of the time of fitting it beside the heatmap
        bar = self.fig.colorbar(self.image, cax=self.fig.add_axes((0.85, 0.04, 0.03, 0.74)))
        bar.set_label("weight", fontsize=9)
        self.title = self.fig.suptitle("", fontsize=10, x=0.02, ha="left")
        self.blitter = Blitter(self.fig, [self.image, self.title])

    def show(self, layer: int, head: int | None):
        """The weights of ``layer`` and ``head`` (indices from 0; ``head=None`` for the mean) as a PNG Image."""
        L, H = self.layers.shape[:2]
        if not 0 <= layer < L or (head is not None and not 0 <= head < H):
            raise ValueError(f"layer must be in 0..{L - 1} and head in 0..{H - 1} (or None for the mean), "
                             f"got {layer} and {head}")
        weights = self.means[layer] if head is None else self.layers[layer, head]
        self.image.set_data(weights)
        self.title.set_text(f"layer {layer + 1}, head {'mean' if head is None else head + 1}")
        return self.blitter.frame()


def head_view_widget(attend: Callable, *, num_layers: int, num_heads: int, title: str = "",
                     max_words: int = 64, **sentences: str):
    """The live head view: a text box per sentence, a layer slider and a head slider, one picture.

    ``sentences`` name the text boxes and their first values (``sentence="..."``, or
    ``sentence_a=..., sentence_b=...``); ``attend(**sentences)`` returns ``(tokens, attentions)``,
    the attentions as :func:`seqviz.viz.head_view_figure` takes them (a list over layers of
    (heads, T, T) or (1, heads, T, T)). A ``ValueError`` from it (an unknown word, say) is shown as a
    message, and so are an empty box and a box of more than ``max_words`` words. The sliders count
    layers from 1 to ``num_layers`` and heads from 1 to ``num_heads``, then "mean". Only the latest
    sentences' picture is kept, so moving a slider only redraws. Returns the ``LiveView``.
    """
    import ipywidgets as widgets

    from .widgets import live

    if not callable(attend):
        raise ValueError(f"attend must be a function (**sentences) -> (tokens, attentions), got {type(attend).__name__}")
    if not sentences or not all(isinstance(text, str) for text in sentences.values()):
        raise ValueError(f"head_view_widget() needs sentences as text, e.g. sentence='the cat sat', got {sentences}")
    if num_layers < 1 or num_heads < 1:
        raise ValueError(f"num_layers and num_heads must be at least 1, got {num_layers} and {num_heads}")
    heads = [str(h + 1) for h in range(num_heads)] + ["mean"]
    cache: dict = {}

    def canvas(texts: tuple) -> HeadsCanvas:
        if texts not in cache:
            for name, text in texts:  # (a box over max_words words is answered by the LiveView itself)
                if not text.split():
                    raise ValueError(f"type a sentence in the box '{name}' (words separated by spaces)")
            tokens, attentions = attend(**dict(texts))
            drawn = HeadsCanvas(attentions, tokens)
            L, H = drawn.layers.shape[:2]
            if (L, H) != (num_layers, num_heads):
                raise ValueError(f"attend() returned {L} layers of {H} heads; the view was built for {num_layers} "
                                 f"layers of {num_heads} heads")
            cache.clear()  # one set of sentences at a time: memory stays flat however long the reader types
            cache[texts] = drawn
        return cache[texts]

    def render(layer, head, **texts):
        layer = min(max(int(layer), 1), num_layers)  # a slider at either end stays in range
        index = heads.index(head) if head in heads else num_heads
        return canvas(tuple(texts.items())).show(layer - 1, None if index == num_heads else index)

    boxes = {name: widgets.Text(value=text, description=name.replace("_", " "), continuous_update=False,
                                layout=widgets.Layout(width="360px"))
             for name, text in sentences.items()}
    return live(render, title=title, max_words=max_words, **boxes,
                layer=widgets.IntSlider(value=1, min=1, max=num_layers, description="layer"),
                head=widgets.SelectionSlider(options=heads, value=heads[0], description="head"))
