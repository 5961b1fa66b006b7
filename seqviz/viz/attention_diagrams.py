"""Schematics of the attention models, drawn by code with matplotlib (no copied images).

- :func:`encoder_decoder_diagram`: an encoder reads the source into one context vector, a decoder
  writes the target from it, one token at a time (chapter 5; with ``attention=True``, chapter 7's look
  back at every encoder state);
- :func:`attention_diagram`: one query's path through scaled dot-product attention, step by step as
  in Alammar's "Illustrated Transformer": embeddings, then query, keys and values, then scores,
  softmax and the weighted sum (chapter 8);
- :func:`transformer_block_diagram`: the encoder and decoder blocks of Vaswani et al. (2017, Fig. 1),
  post-LN as in the paper or pre-LN (chapter 8);
- :func:`bert_inputs_diagram`: BERT's input, the sum of token, segment and position embeddings
  (Devlin et al. 2019, Fig. 2; chapter 9).

Every function takes plain tokens (or nothing) and returns a matplotlib ``Figure`` outside pyplot,
sized from its content so that long tokens never run into each other; ``tests/test_figures.py``
checks that no two texts overlap and none leaves the figure.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

# one palette for the book's schematics
COLOURS = {"encoder": "#cfe2f3", "decoder": "#d9ead3", "context": "#fde9a9", "attention": "#f4cccc",
           "norm": "#fff2cc", "ffn": "#d9d2e9", "embed": "#eeeeee", "token": "#fce5cd", "segment": "#d9ead3",
           "position": "#cfe2f3", "edge": "#444444", "muted": "#666666"}
CHAR = 0.085  # inches per character of 9-point text, generously


def _tokens(name: str, tokens, minimum: int = 1) -> list[str]:
    if isinstance(tokens, str) or not isinstance(tokens, Sequence):
        raise ValueError(f"{name} must be a list of token strings, got {type(tokens).__name__}")
    tokens = [str(t) for t in tokens]
    if len(tokens) < minimum:
        raise ValueError(f"{name} needs at least {minimum} token(s), got {len(tokens)}")
    if any(not t.strip() for t in tokens):
        raise ValueError(f"{name} holds an empty token: {tokens!r}")
    return tokens


def _figure(width: float, height: float):
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=(width, height))
    plt.close(fig)  # not left open in pyplot: a notebook shows it once, as the cell's value
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_axis_off()
    ax.set(xlim=(0, width), ylim=(0, height))  # data units are inches: sizes below read as inches
    return fig, ax


def _box(ax, x, y, w, h, text, colour, fontsize=9, **text_kw):
    from matplotlib.patches import FancyBboxPatch

    ax.add_patch(FancyBboxPatch((x - w / 2, y - h / 2), w, h, boxstyle="round,pad=0.02,rounding_size=0.06",
                                fc=colour, ec=COLOURS["edge"], lw=0.9))
    if text:
        ax.text(x, y, text, ha="center", va="center", fontsize=fontsize, **text_kw)


def _arrow(ax, start, end, colour=None, lw=1.1, style="-|>", **kw):
    from matplotlib.patches import FancyArrowPatch

    ax.add_patch(FancyArrowPatch(start, end, arrowstyle=style, mutation_scale=9, lw=lw,
                                 color=colour or COLOURS["edge"], shrinkA=0, shrinkB=0, **kw))


def _width(text: str, fontsize: float = 9) -> float:
    """A generous width in inches for ``text`` at ``fontsize`` points (mathtext counted by its visible letters)."""

    visible = re.sub(r"\\[a-zA-Z]+|[$_{}\\]", "", text)
    return CHAR * fontsize / 9 * max(len(visible), 1)


# -- the encoder-decoder -------------------------------------------------------------------------------------------


def encoder_decoder_diagram(source: Sequence[str] = ("seven", "two", "nine"), target: Sequence[str] = ("7", "2", "9"),
                            *, attention: bool = False, cell: str = "RNN", title: str = ""):
    """An encoder reads ``source`` token by token; its last state is the context vector; a decoder
    writes ``target`` from it, each step fed the token written before (``<bos>`` first) and ending in ``<eos>``.

    ``attention=True`` draws the decoder's look back at every encoder state (chapter 7) for its last step.
    ``cell`` names the recurrent cell in the boxes ("RNN", "GRU", "LSTM").
    """
    source, target = _tokens("source", source), _tokens("target", target)
    outputs = [*target, "<eos>"]
    inputs = ["<bos>", *target]
    step = max(0.95, max(_width(t) for t in [*source, *outputs, *inputs]) + 0.3)
    box_w, box_h = min(step - 0.2, 0.95), 0.5
    gap = 1.25  # the context vector sits in the gap between the two rows of cells
    width = 0.5 + step * len(source) + gap + step * len(outputs) + 0.3
    height = 3.3 + (0.35 if title else 0) + (0.25 if attention else 0)
    fig, ax = _figure(width, height)
    row, text_below, text_above = 1.55, 0.55, 2.6
    enc_x = [0.5 + step * (i + 0.5) for i in range(len(source))]
    context_x = enc_x[-1] + step / 2 + gap / 2
    dec_x = [context_x + gap / 2 + step * (i + 0.5) for i in range(len(outputs))]
    for i, (x, token) in enumerate(zip(enc_x, source)):
        _box(ax, x, row, box_w, box_h, f"{cell}", COLOURS["encoder"])
        ax.text(x, text_below, token, ha="center", va="center", fontsize=9)
        _arrow(ax, (x, text_below + 0.15), (x, row - box_h / 2))
        if i:
            _arrow(ax, (enc_x[i - 1] + box_w / 2, row), (x - box_w / 2, row))
    _box(ax, context_x, row, 0.55, box_h, "$c$", COLOURS["context"], fontsize=11)
    ax.text(context_x, row - box_h / 2 - 0.12, "context\nvector", ha="center", va="top", fontsize=8,
            color=COLOURS["muted"])
    _arrow(ax, (enc_x[-1] + box_w / 2, row), (context_x - 0.275, row))
    _arrow(ax, (context_x + 0.275, row), (dec_x[0] - box_w / 2, row))
    for i, (x, token_in, token_out) in enumerate(zip(dec_x, inputs, outputs)):
        _box(ax, x, row, box_w, box_h, f"{cell}", COLOURS["decoder"])
        ax.text(x, text_below, token_in, ha="center", va="center", fontsize=9, color=COLOURS["muted"])
        _arrow(ax, (x, text_below + 0.15), (x, row - box_h / 2))
        ax.text(x, text_above, token_out, ha="center", va="center", fontsize=9, weight="bold")
        _arrow(ax, (x, row + box_h / 2), (x, text_above - 0.15))
        if i:
            _arrow(ax, (dec_x[i - 1] + box_w / 2, row), (x - box_w / 2, row))
            # the token just written is the next step's input
            _arrow(ax, (dec_x[i - 1] + 0.12, text_above - 0.15), (x - 0.12, text_below + 0.15),
                   colour="#aaaaaa", lw=0.8, linestyle=(0, (3, 2)))
    if attention:
        last = dec_x[-1]
        for x in enc_x:
            _arrow(ax, (last - 0.1, row + box_h / 2), (x, row + box_h / 2), colour="#c0504d", lw=0.8,
                   connectionstyle="arc3,rad=0.12", style="-")
        ax.text((enc_x[0] + enc_x[-1]) / 2, text_above + 0.4, "attention: each step looks back at every encoder state",
                ha="center", va="bottom", fontsize=8, color="#c0504d")
    ax.text((enc_x[0] + enc_x[-1]) / 2, 0.18, "encoder: reads the source", ha="center", va="center", fontsize=8,
            style="italic", color=COLOURS["muted"])
    ax.text((dec_x[0] + dec_x[-1]) / 2, 0.18, "decoder: fed the token written before", ha="center", va="center",
            fontsize=8, style="italic", color=COLOURS["muted"])
    if title:
        ax.text(0.15, height - 0.22, title, ha="left", va="center", fontsize=10)
    return fig


# -- scaled dot-product attention, step by step -------------------------------------------------------------------


def attention_diagram(tokens: Sequence[str] = ("the", "cat", "sat", "on", "the", "mat"), query: int = 2,
                      scores: Sequence[float] | None = None, *, d: int = 8, title: str = ""):
    """One query's path through scaled dot-product attention, one column per step.

    ① each token's embedding ``x_j``; ② three linear maps give the query ``q`` (of token ``query``) and every
    token's key ``k_j`` and value ``v_j``; ③ scores ``q·k_j/√d``; ④ a softmax turns them into weights that sum
    to 1; ⑤ the output ``z`` is the weighted sum of the values. ``scores`` (one per token, already divided by
    √d) are the numbers written in column ③; by default a fixed illustrative set. Weights are computed from them.
    """
    tokens = _tokens("tokens", tokens)
    n = len(tokens)
    if not 0 <= query < n:
        raise ValueError(f"query must index one of the {n} tokens (0..{n - 1}), got {query}")
    if scores is None:
        scores = np.linspace(-1.0, 1.0, n)[np.argsort(np.argsort(-np.abs(np.arange(n) - query)))]
    scores = np.asarray(scores, dtype=float).reshape(-1)
    if scores.shape != (n,) or not np.isfinite(scores).all():
        raise ValueError(f"scores must be {n} finite numbers (one per token), got shape {scores.shape}")
    weights = np.exp(scores - scores.max())
    weights /= weights.sum()

    from matplotlib.patches import Circle, Rectangle

    token_w = max(0.7, max(_width(t) for t in tokens) + 0.2)
    row_h = 0.42
    columns = [0.2 + token_w / 2]  # x of: token, x_j, k_j and v_j, score, weight bar, weighted value, sum
    for w in (token_w / 2 + 0.5, 1.35, 1.3, 1.25, 1.45, 1.1):
        columns.append(columns[-1] + w)
    width = columns[-1] + 0.5
    top = 1.55 + (0.35 if title else 0)  # the step headings and the query above the rows (and a title)
    height = top + row_h * n + 0.35
    fig, ax = _figure(width, height)
    y_rows = [height - top - row_h * (j + 0.5) for j in range(n)]
    x_tok, x_emb, x_kv, x_score, x_weight, x_value, x_sum = columns
    heading_y = height - top + 1.2
    sub_y = heading_y - 0.27
    for x, text, sub in ((x_emb, "① embeddings", "$x_j$"), (x_kv, "② keys, values", "$k_j = W^K x_j$, $v_j = W^V x_j$"),
                         (x_score, "③ scores", f"$q \\cdot k_j / \\sqrt{{d}}$, d = {d}"),
                         (x_weight, "④ softmax", "weights $\\alpha_j$"), (x_value, "⑤ weighted sum", "$\\alpha_j v_j$")):
        ax.text(x, heading_y, text, ha="center", va="center", fontsize=8.5, weight="bold")
        ax.text(x, sub_y, sub, ha="center", va="center", fontsize=7.5, color=COLOURS["muted"])
    # the query: one vector from the chosen token's embedding, compared with every key
    y_q = sub_y - 0.45
    _box(ax, x_score, y_q, 0.45, row_h * 0.72, "$q$", COLOURS["attention"], fontsize=9)
    ax.text(x_score + 0.3, y_q, f"$q = W^Q x_{{{query + 1}}}$", ha="left", va="center", fontsize=7.5,
            color="#c0504d")
    _arrow(ax, (x_score, y_q - row_h * 0.36), (x_score, y_rows[0] + row_h * 0.3), colour="#c0504d", lw=0.9)
    bar_max = 0.8
    for j, (y, token) in enumerate(zip(y_rows, tokens)):
        is_query = j == query
        ax.text(x_tok, y, token, ha="center", va="center", fontsize=9, weight="bold" if is_query else "normal",
                color="#c0504d" if is_query else "black")
        _box(ax, x_emb, y, 0.5, row_h * 0.72, f"$x_{{{j + 1}}}$", COLOURS["attention"] if is_query else COLOURS["embed"])
        _arrow(ax, (x_emb + 0.26, y), (x_kv - 0.42, y), lw=0.8)
        _box(ax, x_kv - 0.2, y, 0.4, row_h * 0.72, f"$k_{{{j + 1}}}$", COLOURS["encoder"], fontsize=8.5)
        _box(ax, x_kv + 0.22, y, 0.4, row_h * 0.72, f"$v_{{{j + 1}}}$", COLOURS["decoder"], fontsize=8.5)
        _arrow(ax, (x_kv + 0.44, y), (x_score - 0.32, y), lw=0.6, colour="#888888")
        ax.text(x_score, y, f"{scores[j]:.2f}", ha="center", va="center", fontsize=9)
        left = x_weight - bar_max / 2 - 0.15
        ax.add_patch(Rectangle((left, y - row_h * 0.3), bar_max * weights[j], row_h * 0.6, fc="#6fa8dc", ec="none"))
        ax.add_patch(Rectangle((left, y - row_h * 0.3), bar_max, row_h * 0.6, fc="none", ec="#999999", lw=0.6))
        ax.text(left + bar_max + 0.06, y, f"{weights[j]:.2f}", ha="left", va="center", fontsize=8)
        _box(ax, x_value, y, 0.8, row_h * 0.72, "", COLOURS["decoder"])
        ax.text(x_value, y, f"{weights[j]:.2f} $v_{{{j + 1}}}$", ha="center", va="center", fontsize=8)
    y_sum = (y_rows[0] + y_rows[-1]) / 2
    for y in y_rows:
        _arrow(ax, (x_value + 0.42, y), (x_sum - 0.25, y_sum + (y - y_sum) * 0.25), lw=0.6, colour="#888888")
    ax.add_patch(Circle((x_sum, y_sum), 0.24, fc="white", ec=COLOURS["edge"], lw=1.1))
    ax.text(x_sum, y_sum, "Σ", ha="center", va="center", fontsize=12)
    ax.text(x_sum, y_sum - 0.45, "$z$", ha="center", va="center", fontsize=12)
    if title:
        ax.text(0.15, height - 0.22, title, ha="left", va="center", fontsize=10)
    return fig


# -- the Transformer block ---------------------------------------------------------------------------------------


def transformer_block_diagram(*, norm_first: bool = False, title: str = ""):
    """The encoder block (left) and decoder block (right) of Vaswani et al. (2017): self-attention, then the
    feed-forward network, each in a residual connection with layer normalisation; the decoder's self-attention
    is masked (causal) and a cross-attention sub-layer reads the encoder's output. ``norm_first=True`` draws the
    pre-LN layout (the norm inside each residual branch) that most recent models use."""
    width, height = 8.6, 7.6 + (0.35 if title else 0)
    fig, ax = _figure(width, height)
    box_w, box_h, gap = 2.2, 0.42, 0.3
    y0 = 0.95  # inputs at the bottom, outputs at the top: data flows upwards as in the paper

    def stack(x, sublayers):
        """Draw residual sub-layers upwards from y; returns the y of each sub-layer's output."""
        y = y0 + 1.55
        outs = []
        for name, colour in sublayers:
            start = y - 0.25
            if norm_first:
                _box(ax, x, y + box_h / 2, box_w, box_h, "layer norm", COLOURS["norm"], fontsize=8.5)
                _box(ax, x, y + box_h * 1.5 + gap, box_w, box_h, name, colour, fontsize=8.5)
                add_y = y + box_h * 2 + gap * 2 + 0.05
                _arrow(ax, (x, y + box_h), (x, y + box_h + gap))
                _arrow(ax, (x, y + box_h * 2 + gap), (x, add_y - 0.13))
            else:
                _box(ax, x, y + box_h / 2, box_w, box_h, name, colour, fontsize=8.5)
                _box(ax, x, y + box_h * 1.5 + gap, box_w, box_h, "add & layer norm", COLOURS["norm"], fontsize=8.5)
                add_y = y + box_h * 1.5 + gap  # the residual joins at the add & norm box
                _arrow(ax, (x, y + box_h), (x, y + box_h + gap))
            _arrow(ax, (x, start), (x, y))
            # the residual path around the sub-layer
            side = x - box_w / 2 - 0.22
            ax.plot([x, side, side], [start + 0.05, start + 0.05, add_y], color=COLOURS["edge"], lw=1)
            if norm_first:
                from matplotlib.patches import Circle

                ax.add_patch(Circle((x, add_y), 0.13, fc="white", ec=COLOURS["edge"], lw=1))
                ax.text(x, add_y, "+", ha="center", va="center", fontsize=10)
                _arrow(ax, (side, add_y), (x - 0.13, add_y))
                y = add_y + 0.13 + 0.28
            else:
                _arrow(ax, (side, add_y), (x - box_w / 2, add_y))
                y = y + box_h * 2 + gap + 0.3
            outs.append(y - 0.28)
        return outs

    x_enc, x_dec = 2.2, 6.2
    for x, label in ((x_enc, "source tokens"), (x_dec, "target tokens, shifted right")):
        ax.text(x, y0 - 0.25, label, ha="center", va="center", fontsize=8.5)
        _box(ax, x, y0 + 0.3, box_w, box_h, "embedding", COLOURS["embed"], fontsize=8.5)
        _arrow(ax, (x, y0 - 0.12), (x, y0 + 0.3 - box_h / 2))
        from matplotlib.patches import Circle

        ax.add_patch(Circle((x, y0 + 1.0), 0.14, fc="white", ec=COLOURS["edge"], lw=1))
        ax.text(x, y0 + 1.0, "+", ha="center", va="center", fontsize=10)
        _arrow(ax, (x, y0 + 0.3 + box_h / 2), (x, y0 + 0.86))
        ax.text(x + 0.27, y0 + 1.0, "positional\nencoding", ha="left", va="center", fontsize=7.5,
                color=COLOURS["muted"])
        ax.plot([x, x], [y0 + 1.14, y0 + 1.3], color=COLOURS["edge"], lw=1.1)
    enc_out = stack(x_enc, [("multi-head self-attention", COLOURS["attention"]), ("feed-forward network", COLOURS["ffn"])])
    dec_out = stack(x_dec, [("masked self-attention", COLOURS["attention"]),
                            ("cross-attention", COLOURS["attention"]), ("feed-forward network", COLOURS["ffn"])])
    # the N x frames around the repeated part
    from matplotlib.patches import FancyBboxPatch

    for x, top in ((x_enc, enc_out[-1]), (x_dec, dec_out[-1])):
        ax.add_patch(FancyBboxPatch((x - box_w / 2 - 0.4, y0 + 1.4), box_w + 0.65, top - y0 - 1.35,
                                    boxstyle="round,pad=0.02,rounding_size=0.1", fc="none", ec="#999999", lw=1,
                                    linestyle=(0, (4, 2))))
    ax.text(x_enc - box_w / 2 - 0.5, (y0 + 1.4 + enc_out[-1]) / 2, "N ×", ha="right", va="center", fontsize=10)
    ax.text(x_dec + box_w / 2 + 0.35, (y0 + 1.4 + dec_out[-1]) / 2, "× N", ha="left", va="center", fontsize=10)
    # the encoder's output is the keys and values of every decoder block's cross-attention
    cross_y = dec_out[0] + 0.3 + (box_h / 2 if not norm_first else box_h * 1.5 + gap)
    ax.plot([x_enc, x_enc], [enc_out[-1], enc_out[-1] + 0.35], color=COLOURS["edge"], lw=1.1)
    ax.plot([x_enc, (x_enc + x_dec) / 2], [enc_out[-1] + 0.35, enc_out[-1] + 0.35], color=COLOURS["edge"], lw=1.1)
    ax.plot([(x_enc + x_dec) / 2] * 2, [enc_out[-1] + 0.35, cross_y], color=COLOURS["edge"], lw=1.1)
    _arrow(ax, ((x_enc + x_dec) / 2, cross_y), (x_dec - box_w / 2, cross_y))
    ax.text((x_enc + x_dec) / 2 + 0.08, cross_y + 0.14, "keys, values", ha="left", va="bottom", fontsize=7.5,
            color=COLOURS["muted"])
    ax.text(x_enc, enc_out[-1] + 0.55, "encoder output", ha="center", va="bottom", fontsize=8.5)
    top = dec_out[-1]
    _box(ax, x_dec, top + 0.55, box_w, box_h, "linear, then softmax", COLOURS["embed"], fontsize=8.5)
    _arrow(ax, (x_dec, top), (x_dec, top + 0.55 - box_h / 2))
    _arrow(ax, (x_dec, top + 0.55 + box_h / 2), (x_dec, top + 1.0))
    ax.text(x_dec, top + 1.13, "next-token probabilities", ha="center", va="center", fontsize=8.5)
    ax.text(x_enc, y0 - 0.62, "encoder", ha="center", va="center", fontsize=9.5, weight="bold")
    ax.text(x_dec, y0 - 0.62, "decoder", ha="center", va="center", fontsize=9.5, weight="bold")
    ax.set_ylim(0, max(height, top + 1.45))
    fig.set_size_inches(width, max(height, top + 1.45))
    ax.set_xlim(0, width)
    if title:
        ax.text(0.15, max(height, top + 1.45) - 0.2, title, ha="left", va="center", fontsize=10)
    return fig


# -- BERT's input -----------------------------------------------------------------------------------------------


def bert_inputs_diagram(sentence_a: Sequence[str] = ("my", "dog", "is", "cute"),
                        sentence_b: Sequence[str] = ("he", "likes", "play", "##ing"), *, title: str = "",
                        vertical: bool | None = None):
    """BERT's input for ``[CLS] A [SEP] B [SEP]``: each position's vector is the sum of its token embedding,
    its segment embedding (A or B) and its position embedding (Devlin et al. 2019, Fig. 2).

    One column per position, as in the paper, or (``vertical``, the default beyond 9 tokens, where columns would
    shrink past reading in a page's text column) one row per position."""
    a, b = _tokens("sentence_a", sentence_a), _tokens("sentence_b", sentence_b, minimum=0)
    tokens = ["[CLS]", *a, "[SEP]", *(b + ["[SEP]"] if b else [])]
    segments = [0] * (len(a) + 2) + [1] * (len(b) + 1 if b else 0)
    labels = {"token": [f"$E_{{{_tex(t)}}}$" for t in tokens],
              "segment": ["$E_A$" if s == 0 else "$E_B$" for s in segments],
              "position": [f"$E_{{{i}}}$" for i in range(len(tokens))]}
    kinds = (("token", "token embeddings"), ("segment", "segment embeddings"), ("position", "position embeddings"))
    vertical = len(tokens) > 9 if vertical is None else vertical

    def colour(key, i):
        return COLOURS[key] if key != "segment" or segments[i] == 0 else "#b6d7a8"

    if vertical:
        token_w = max(0.8, max(_width(t) for t in tokens) + 0.25)
        cell_w = max(1.0, max(_width(lab, 8) for lab in labels["token"]) + 0.35)
        row_h, head = 0.34, 0.55 + (0.35 if title else 0)
        width = 0.25 + token_w + 3 * (cell_w + 0.35) + 0.1
        height = head + row_h * len(tokens) + 0.15
        fig, ax = _figure(width, height)
        x_token = 0.25 + token_w / 2
        xs = [0.25 + token_w + 0.35 + (cell_w + 0.35) * k + cell_w / 2 for k in range(3)]
        y_head = height - head + 0.25
        ax.text(x_token, y_head, "input", ha="center", va="center", fontsize=8.5, weight="bold")
        for x, (_, name) in zip(xs, kinds):
            ax.text(x, y_head, name.replace(" embeddings", ""), ha="center", va="center", fontsize=8.5,
                    weight="bold")
        for i, token in enumerate(tokens):
            y = height - head - row_h * (i + 0.5)
            _box(ax, x_token, y, token_w - 0.1, row_h * 0.78, "", "white")
            ax.text(x_token, y, token, ha="center", va="center", fontsize=9)
            for k, (x, (key, _)) in enumerate(zip(xs, kinds)):
                _box(ax, x, y, cell_w, row_h * 0.78, labels[key][i], colour(key, i), fontsize=8.5)
                if k:
                    ax.text(x - cell_w / 2 - 0.175, y, "+", ha="center", va="center", fontsize=9,
                            color=COLOURS["muted"])
        if title:
            ax.text(0.15, height - 0.22, title, ha="left", va="center", fontsize=10)
        return fig

    cell = max(0.62, max(_width(t) for t in tokens) + 0.22, max(_width(lab, 8) for lab in labels["token"]) + 0.2)
    left = 1.55  # the row names
    width = left + cell * len(tokens) + 0.2
    rows = [("input", None), *((name, key) for key, name in kinds)]
    row_h = 0.62
    height = 0.05 + row_h * len(rows) + (0.35 if title else 0)
    fig, ax = _figure(width, height)
    y_top = height - 0.22 - (0.35 if title else 0)
    for r, (name, key) in enumerate(rows):
        y = y_top - r * row_h - 0.1
        ax.text(left - 0.12, y, name, ha="right", va="center", fontsize=8.5)
        for i, token in enumerate(tokens):
            x = left + cell * (i + 0.5)
            if key is None:
                _box(ax, x, y, cell - 0.1, 0.36, "", "white")
                ax.text(x, y, token, ha="center", va="center", fontsize=9)
            else:
                _box(ax, x, y, cell - 0.1, 0.36, labels[key][i], colour(key, i), fontsize=8)
            if r >= 2:
                ax.text(x, y + row_h / 2, "+", ha="center", va="center", fontsize=9, color=COLOURS["muted"])
    if title:
        ax.text(0.15, height - 0.22, title, ha="left", va="center", fontsize=10)
    return fig


def _tex(token: str) -> str:
    """A token as mathtext: letters in upright type, characters mathtext treats specially escaped outside it."""

    return "".join(f"\\{part}" if part in "#$%&_{}" else f"\\mathrm{{{part}}}"
                   for part in re.findall(r"[#$%&_{}]|[^#$%&_{}]+", token))


__all__ = ["attention_diagram", "bert_inputs_diagram", "encoder_decoder_diagram", "transformer_block_diagram"]
