"""Schematics of the attention models, drawn by code with matplotlib (no copied images).

- :func:`encoder_decoder_diagram`: an encoder reads the source (both ways, with ``bidirectional=True``) into
  one context vector, a decoder writes the target from it, one token at a time (chapter 5; with
  ``attention=True``, chapter 7's look back at every encoder state);
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

from ._language import DATA_GID, in_book_language

# one palette for the book's schematics
COLOURS = {"encoder": "#cfe2f3", "decoder": "#d9ead3", "context": "#fde9a9", "attention": "#f4cccc",
           "norm": "#fff2cc", "ffn": "#d9d2e9", "embed": "#eeeeee", "token": "#fce5cd", "segment": "#d9ead3",
           "position": "#cfe2f3", "edge": "#444444", "muted": "#666666"}
CHAR = 0.085  # inches per character of 9-point text, generously
# A book page shows a figure at most 358 px wide on a 390 px phone: a figure W inches wide keeps text of f points
# at least 8 px there when f / W >= 1.6 (tests/test_figures.py). The diagrams the chapters draw are narrow enough
# for text of this size.
SMALLEST = 10.5
PHONE_WIDTH = 6.3   # inches: the widest figure whose SMALLEST text still reads on a phone


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


@in_book_language
def encoder_decoder_diagram(source: Sequence[str] = ("seven", "two", "nine"), target: Sequence[str] = ("7", "2", "9"),
                            *, attention: bool = False, bidirectional: bool = False, cell: str = "RNN",
                            title: str = ""):
    """An encoder reads ``source`` token by token; its last state is the context vector; a decoder
    writes ``target`` from it, each step fed the token written before (``<bos>`` first) and ending in ``<eos>``.

    ``bidirectional=True`` draws the encoder of chapters 5 and 7, which reads the source both ways: arrows run
    both ways between its cells, and the summary joins the forward chain's last state (at the last word) with the
    backward chain's (at the first word, the arc above the encoder). ``attention=True`` draws the decoder's look
    back at every encoder state (chapter 7) for its last step, routed above the decoder's outputs; the yellow box
    is then the summary that starts the decoder, ``s_0``, since in that chapter "context vector" means each step's
    own weighted average. ``cell`` names the recurrent cell in the boxes ("RNN", "GRU", "LSTM").
    """
    if not isinstance(attention, bool) or not isinstance(bidirectional, bool):
        raise ValueError(f"attention and bidirectional must be True or False, got {attention!r} and "
                         f"{bidirectional!r}")
    source, target = _tokens("source", source), _tokens("target", target)
    outputs = [*target, "<eos>"]
    inputs = ["<bos>", *target]
    f = SMALLEST  # every text at least this size, the boxes as narrow as the tokens allow: readable on a phone
    step = max(0.68, max(_width(t, f) for t in [*source, *outputs, *inputs]) + 0.22)
    box_w, box_h = min(step - 0.2, 0.7), 0.5
    gap = 0.8  # the context vector sits in the gap between the two rows of cells
    enc_caption = "encoder: reads both ways" if bidirectional else "encoder: reads the source"
    dec_caption = "decoder: fed the token written before"
    width = max(0.2 + step * len(source) + gap + step * len(outputs) + 0.15,
                0.9 * (_width(enc_caption, f) + _width(dec_caption, f)))
    # above the cells: the backward chain's arc (bidirectional), then the attention's path and its label
    height = 3.3 + (0.4 if title else 0) + (0.35 if attention else 0)
    fig, ax = _figure(width, height)
    row, text_below, text_above = 1.55, 0.55, 2.6
    top = row + box_h / 2
    enc_x = [0.2 + step * (i + 0.5) for i in range(len(source))]
    context_x = enc_x[-1] + step / 2 + gap / 2
    dec_x = [context_x + gap / 2 + step * (i + 0.5) for i in range(len(outputs))]
    both = 0.09 if bidirectional else 0.0  # the forward arrow above the middle, the backward one below it
    for i, (x, token) in enumerate(zip(enc_x, source)):
        # the cell's name is what the chapter runs ("GRU"), kept as written in both editions: a box fits no more
        _box(ax, x, row, box_w, box_h, f"{cell}", COLOURS["encoder"], fontsize=f, gid=DATA_GID)
        ax.text(x, text_below, token, ha="center", va="center", fontsize=f)
        _arrow(ax, (x, text_below + 0.15), (x, row - box_h / 2))
        if i:
            _arrow(ax, (enc_x[i - 1] + box_w / 2, row + both), (x - box_w / 2, row + both))
            if bidirectional:
                _arrow(ax, (x - box_w / 2, row - both), (enc_x[i - 1] + box_w / 2, row - both))
    # the summary: in chapter 5 the context vector c; in chapter 7 "context vector" is each step's c_u, and this
    # box is only what the decoder starts from
    _box(ax, context_x, row, 0.5, box_h, "$s_0$" if attention else "$c$", COLOURS["context"], fontsize=f + 1.5)
    ax.text(context_x, row - box_h / 2 - 0.1, "summary:\nstart state" if attention else "context\nvector",
            ha="center", va="top", fontsize=f, color=COLOURS["muted"], linespacing=1.1)
    _arrow(ax, (enc_x[-1] + box_w / 2, row + both), (context_x - 0.25, row + both))
    if bidirectional:
        # the backward chain ends at the first word: its last state reaches the summary over the encoder
        _arrow(ax, (enc_x[0] - box_w / 4, top), (context_x, top), colour=COLOURS["muted"], lw=0.9,
               connectionstyle=f"arc3,rad={-min(0.3, 0.55 / max(context_x - enc_x[0], 0.5)):.3f}")
    _arrow(ax, (context_x + 0.25, row), (dec_x[0] - box_w / 2, row))
    for i, (x, token_in, token_out) in enumerate(zip(dec_x, inputs, outputs)):
        _box(ax, x, row, box_w, box_h, f"{cell}", COLOURS["decoder"], fontsize=f, gid=DATA_GID)
        ax.text(x, text_below, token_in, ha="center", va="center", fontsize=f, color=COLOURS["muted"])
        _arrow(ax, (x, text_below + 0.15), (x, row - box_h / 2))
        ax.text(x, text_above, token_out, ha="center", va="center", fontsize=f, weight="bold")
        _arrow(ax, (x, row + box_h / 2), (x, text_above - 0.15))
        if i:
            _arrow(ax, (dec_x[i - 1] + box_w / 2, row), (x - box_w / 2, row))
            # the token just written is the next step's input
            _arrow(ax, (dec_x[i - 1] + 0.12, text_above - 0.15), (x - 0.12, text_below + 0.15),
                   colour="#aaaaaa", lw=0.8, linestyle=(0, (3, 2)))
    if attention:
        # one path from the last step, up past the outputs, then down to every encoder state: it crosses no box
        red, bus = "#c0504d", text_above + 0.4
        last = dec_x[-1] + box_w / 2 - 0.08
        ax.plot([last, last, enc_x[0]], [top, bus, bus], color=red, lw=0.9, solid_capstyle="round")
        for x in enc_x:
            _arrow(ax, (x, bus), (x, top), colour=red, lw=0.9)
        ax.text(width / 2, bus + 0.12, "attention: each step looks back at every encoder state",
                ha="center", va="bottom", fontsize=f, color=red)
    # each caption centred under its cells but inside the figure; where short rows would make them meet, the
    # encoder's goes to the left edge and the decoder's to the right
    halves = [_width(caption, f) * 0.45 for caption in (enc_caption, dec_caption)]
    centres = [min(max((xs[0] + xs[-1]) / 2, half), width - half) for xs, half in zip((enc_x, dec_x), halves)]
    if centres[0] + halves[0] + 0.1 > centres[1] - halves[1]:
        centres = [halves[0] + 0.05, width - halves[1] - 0.05]
    for centre, caption in zip(centres, (enc_caption, dec_caption)):
        ax.text(centre, 0.18, caption, ha="center", va="center", fontsize=f, style="italic", color=COLOURS["muted"])
    if title:
        ax.text(0.15, height - 0.22, title, ha="left", va="center", fontsize=f + 1)
    return fig


# -- scaled dot-product attention, step by step -------------------------------------------------------------------


@in_book_language
def attention_diagram(tokens: Sequence[str] = ("the", "cat", "sat", "on", "the", "mat"), query: int = 2,
                      scores: Sequence[float] | None = None, *, d: int = 8, title: str = ""):
    """One query's path through scaled dot-product attention, one row per step and one column per token.

    ① each token's embedding ``x_j``; ② three linear maps give the query ``q`` (of token ``query``) and every
    token's key ``k_j`` and value ``v_j``; ③ scores ``q·k_j/√d``; ④ a softmax turns them into weights that sum
    to 1; ⑤ the output ``z`` is the weighted sum of the values. ``scores`` (one per token, already divided by
    √d) are the numbers written in row ③; by default a fixed illustrative set. Weights are computed from them.
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

    f = SMALLEST
    col = max(0.72, max(_width(t, f) for t in tokens) + 0.15)   # one column per token, one row per step
    head_w, q_w, row_h = 1.2, 0.5, 0.64
    left = head_w + q_w
    width = left + col * n + 0.1
    top = 0.4 + (0.4 if title else 0)
    height = top + 5 * row_h + 0.95
    fig, ax = _figure(width, height)
    xs = [left + col * (j + 0.5) for j in range(n)]
    y_tok = height - top
    y_emb, y_kv, y_score, y_weight, y_value = (y_tok - row_h * (r + 1) for r in range(5))
    for y, text, sub in ((y_emb, "① embeddings", "$x_j$"),
                         (y_kv, "② keys, values", "$k_j = W^K x_j$\n$v_j = W^V x_j$"),
                         (y_score, "③ scores", f"$q \\cdot k_j / \\sqrt{{d}}$\nd = {d}"),
                         (y_weight, "④ softmax", "weights $\\alpha_j$"),
                         (y_value, "⑤ weighted sum", "$\\alpha_j v_j$")):
        ax.text(0.1, y + 0.13, text, ha="left", va="center", fontsize=f, weight="bold")
        ax.text(0.1, y - 0.02, sub, ha="left", va="top", fontsize=f, color=COLOURS["muted"], linespacing=1.15)
    # the query: one vector from the chosen token's embedding, compared with every key
    x_q = head_w + q_w / 2
    _box(ax, x_q, y_score, 0.4, 0.3, "$q$", COLOURS["attention"], fontsize=f)
    ax.text(x_q, y_score - 0.3, f"$q = W^Q x_{{{query + 1}}}$", ha="center", va="center", fontsize=f,
            color="#c0504d")
    _arrow(ax, (x_q + 0.21, y_score), (xs[0] - 0.3, y_score), colour="#c0504d", lw=0.9)
    bar_max = min(col - 0.15, 0.6)
    for j, (x, token) in enumerate(zip(xs, tokens)):
        is_query = j == query
        ax.text(x, y_tok, token, ha="center", va="center", fontsize=f, weight="bold" if is_query else "normal",
                color="#c0504d" if is_query else "black")
        _arrow(ax, (x, y_tok - 0.14), (x, y_emb + 0.16), lw=0.8)
        _box(ax, x, y_emb, 0.42, 0.3, f"$x_{{{j + 1}}}$", COLOURS["attention"] if is_query else COLOURS["embed"],
             fontsize=f)
        _arrow(ax, (x, y_emb - 0.16), (x, y_kv + 0.16), lw=0.8)
        _box(ax, x - 0.16, y_kv, 0.3, 0.3, f"$k_{{{j + 1}}}$", COLOURS["encoder"], fontsize=f)
        _box(ax, x + 0.16, y_kv, 0.3, 0.3, f"$v_{{{j + 1}}}$", COLOURS["decoder"], fontsize=f)
        _arrow(ax, (x - 0.16, y_kv - 0.16), (x - 0.16, y_score + 0.14), lw=0.6, colour="#888888")
        ax.text(x, y_score, f"{scores[j]:.2f}", ha="center", va="center", fontsize=f)
        ax.add_patch(Rectangle((x - bar_max / 2, y_weight - 0.2), bar_max * weights[j], 0.13, fc="#6fa8dc",
                               ec="none"))
        ax.add_patch(Rectangle((x - bar_max / 2, y_weight - 0.2), bar_max, 0.13, fc="none", ec="#999999", lw=0.6))
        ax.text(x, y_weight + 0.08, f"{weights[j]:.2f}", ha="center", va="center", fontsize=f)
        _box(ax, x, y_value, col - 0.06, 0.3, "", COLOURS["decoder"])
        ax.text(x, y_value, f"{weights[j]:.2f} $v_{{{j + 1}}}$", ha="center", va="center", fontsize=f)
    x_sum, y_sum = (xs[0] + xs[-1]) / 2, y_value - 0.72
    for x in xs:
        _arrow(ax, (x, y_value - 0.16), (x_sum + (x - x_sum) * 0.12, y_sum + 0.25), lw=0.6, colour="#888888")
    ax.add_patch(Circle((x_sum, y_sum), 0.22, fc="white", ec=COLOURS["edge"], lw=1.1))
    ax.text(x_sum, y_sum, "Σ", ha="center", va="center", fontsize=f + 2)
    ax.text(x_sum + 0.32, y_sum, "$z$", ha="left", va="center", fontsize=f + 2)
    if title:
        ax.text(0.1, height - 0.22, title, ha="left", va="center", fontsize=f + 1)
    return fig


# -- the Transformer block ---------------------------------------------------------------------------------------


@in_book_language
def transformer_block_diagram(*, norm_first: bool = False, title: str = ""):
    """The encoder block (left) and decoder block (right) of Vaswani et al. (2017): self-attention, then the
    feed-forward network, each in a residual connection with layer normalisation; the decoder's self-attention
    is masked (causal) and a cross-attention sub-layer reads the encoder's output. ``norm_first=True`` draws the
    pre-LN layout (the norm inside each residual branch) that most recent models use."""
    f = SMALLEST   # two narrow stacks, their long names on two lines: readable in a phone's column
    width, height = 6.25, 7.6 + (0.4 if title else 0)
    fig, ax = _figure(width, height)
    box_w, box_h, gap = 1.75, 0.52, 0.28
    y0 = 0.95  # inputs at the bottom, outputs at the top: data flows upwards as in the paper

    def stack(x, sublayers):
        """Draw residual sub-layers upwards from y; returns the y of each sub-layer's output."""
        y = y0 + 1.55
        outs = []
        for name, colour in sublayers:
            start = y - 0.25
            if norm_first:
                _box(ax, x, y + box_h / 2, box_w, box_h, "layer norm", COLOURS["norm"], fontsize=f)
                _box(ax, x, y + box_h * 1.5 + gap, box_w, box_h, name, colour, fontsize=f)
                add_y = y + box_h * 2 + gap * 2 + 0.05
                _arrow(ax, (x, y + box_h), (x, y + box_h + gap))
                _arrow(ax, (x, y + box_h * 2 + gap), (x, add_y - 0.13))
            else:
                _box(ax, x, y + box_h / 2, box_w, box_h, name, colour, fontsize=f)
                _box(ax, x, y + box_h * 1.5 + gap, box_w, box_h, "add & layer norm", COLOURS["norm"], fontsize=f)
                add_y = y + box_h * 1.5 + gap  # the residual joins at the add & norm box
                _arrow(ax, (x, y + box_h), (x, y + box_h + gap))
            _arrow(ax, (x, start), (x, y))
            # the residual path around the sub-layer
            side = x - box_w / 2 - 0.22
            ax.plot([x, side, side], [start + 0.05, start + 0.05, add_y], color=COLOURS["edge"], lw=1)
            if norm_first:
                from matplotlib.patches import Circle

                ax.add_patch(Circle((x, add_y), 0.13, fc="white", ec=COLOURS["edge"], lw=1))
                ax.text(x, add_y, "+", ha="center", va="center", fontsize=f)
                _arrow(ax, (side, add_y), (x - 0.13, add_y))
                y = add_y + 0.13 + 0.28
            else:
                _arrow(ax, (side, add_y), (x - box_w / 2, add_y))
                y = y + box_h * 2 + gap + 0.3
            outs.append(y - 0.28)
        return outs

    x_enc, x_dec = 1.85, 4.62
    for x, label in ((x_enc, "source tokens"), (x_dec, "target tokens, shifted right")):
        ax.text(x, y0 - 0.25, label, ha="center", va="center", fontsize=f)
        _box(ax, x, y0 + 0.3, box_w, box_h, "embedding", COLOURS["embed"], fontsize=f)
        _arrow(ax, (x, y0 - 0.12), (x, y0 + 0.3 - box_h / 2))
        from matplotlib.patches import Circle

        ax.add_patch(Circle((x, y0 + 1.0), 0.14, fc="white", ec=COLOURS["edge"], lw=1))
        ax.text(x, y0 + 1.0, "+", ha="center", va="center", fontsize=f)
        _arrow(ax, (x, y0 + 0.3 + box_h / 2), (x, y0 + 0.86))
        ax.text(x + 0.27, y0 + 1.0, "positional\nencoding", ha="left", va="center", fontsize=f,
                color=COLOURS["muted"])
        ax.plot([x, x], [y0 + 1.14, y0 + 1.3], color=COLOURS["edge"], lw=1.1)
    enc_out = stack(x_enc, [("multi-head\nself-attention", COLOURS["attention"]),
                            ("feed-forward\nnetwork", COLOURS["ffn"])])
    dec_out = stack(x_dec, [("masked\nself-attention", COLOURS["attention"]),
                            ("cross-attention", COLOURS["attention"]), ("feed-forward\nnetwork", COLOURS["ffn"])])
    # the N x frames around the repeated part
    from matplotlib.patches import FancyBboxPatch

    for x, top in ((x_enc, enc_out[-1]), (x_dec, dec_out[-1])):
        ax.add_patch(FancyBboxPatch((x - box_w / 2 - 0.4, y0 + 1.4), box_w + 0.65, top - y0 - 1.35,
                                    boxstyle="round,pad=0.02,rounding_size=0.1", fc="none", ec="#999999", lw=1,
                                    linestyle=(0, (4, 2))))
    ax.text(x_enc - box_w / 2 - 0.5, (y0 + 1.4 + enc_out[-1]) / 2, "N ×", ha="right", va="center", fontsize=f)
    ax.text(x_dec + box_w / 2 + 0.35, (y0 + 1.4 + dec_out[-1]) / 2, "× N", ha="left", va="center", fontsize=f)
    # the encoder's output is the keys and values of every decoder block's cross-attention
    cross_y = dec_out[0] + 0.3 + (box_h / 2 if not norm_first else box_h * 1.5 + gap)
    ax.plot([x_enc, x_enc], [enc_out[-1], enc_out[-1] + 0.35], color=COLOURS["edge"], lw=1.1)
    ax.plot([x_enc, (x_enc + x_dec) / 2], [enc_out[-1] + 0.35, enc_out[-1] + 0.35], color=COLOURS["edge"], lw=1.1)
    ax.plot([(x_enc + x_dec) / 2] * 2, [enc_out[-1] + 0.35, cross_y], color=COLOURS["edge"], lw=1.1)
    _arrow(ax, ((x_enc + x_dec) / 2, cross_y), (x_dec - box_w / 2, cross_y))
    ax.text(x_enc, enc_out[-1] + 0.5, "encoder output:\nkeys and values", ha="center", va="bottom", fontsize=f,
            linespacing=1.1)
    top = dec_out[-1]
    _box(ax, x_dec, top + 0.55, box_w, box_h, "linear, then softmax", COLOURS["embed"], fontsize=f)
    _arrow(ax, (x_dec, top), (x_dec, top + 0.55 - box_h / 2))
    _arrow(ax, (x_dec, top + 0.55 + box_h / 2), (x_dec, top + 1.0))
    ax.text(x_dec, top + 1.13, "next-token probabilities", ha="center", va="center", fontsize=f)
    ax.text(x_enc, y0 - 0.62, "encoder", ha="center", va="center", fontsize=f + 1, weight="bold")
    ax.text(x_dec, y0 - 0.62, "decoder", ha="center", va="center", fontsize=f + 1, weight="bold")
    ax.set_ylim(0, max(height, top + 1.45))
    fig.set_size_inches(width, max(height, top + 1.45))
    ax.set_xlim(0, width)
    if title:
        ax.text(0.15, max(height, top + 1.45) - 0.2, title, ha="left", va="center", fontsize=f)
    return fig


# -- BERT's input -----------------------------------------------------------------------------------------------


@in_book_language
def bert_inputs_diagram(sentence_a: Sequence[str] = ("my", "dog", "is", "cute"),
                        sentence_b: Sequence[str] = ("he", "likes", "play", "##ing"), *, title: str = "",
                        vertical: bool | None = None):
    """BERT's input for ``[CLS] A [SEP] B [SEP]``: each position's vector is the sum of its token embedding,
    its segment embedding (A or B) and its position embedding (Devlin et al. 2019, Fig. 2).

    One column per position, as in the paper, or (``vertical``, the default where the columns would be wider than
    ``PHONE_WIDTH``, past reading in a phone's text column) one row per position."""
    a, b = _tokens("sentence_a", sentence_a), _tokens("sentence_b", sentence_b, minimum=0)
    tokens = ["[CLS]", *a, "[SEP]", *(b + ["[SEP]"] if b else [])]
    segments = [0] * (len(a) + 2) + [1] * (len(b) + 1 if b else 0)
    labels = {"token": [f"$E_{{{_tex(t)}}}$" for t in tokens],
              "segment": ["$E_A$" if s == 0 else "$E_B$" for s in segments],
              "position": [f"$E_{{{i}}}$" for i in range(len(tokens))]}
    kinds = (("token", "token embeddings"), ("segment", "segment embeddings"), ("position", "position embeddings"))
    f = SMALLEST
    cell = max(0.62, max(_width(t, f) for t in tokens) + 0.22, max(_width(lab, f) for lab in labels["token"]) + 0.2)
    left = 2.05  # the row names
    vertical = left + cell * len(tokens) + 0.2 > PHONE_WIDTH if vertical is None else vertical

    def colour(key, i):
        return COLOURS[key] if key != "segment" or segments[i] == 0 else "#b6d7a8"

    if vertical:
        token_w = max(0.8, max(_width(t, f) for t in tokens) + 0.25)
        cell_w = max(1.0, max(_width(lab, f) for lab in labels["token"]) + 0.35)
        row_h, head = 0.34, 0.55 + (0.35 if title else 0)
        width = 0.25 + token_w + 3 * (cell_w + 0.35) + 0.1
        height = head + row_h * len(tokens) + 0.15
        fig, ax = _figure(width, height)
        x_token = 0.25 + token_w / 2
        xs = [0.25 + token_w + 0.35 + (cell_w + 0.35) * k + cell_w / 2 for k in range(3)]
        y_head = height - head + 0.25
        ax.text(x_token, y_head, "input", ha="center", va="center", fontsize=f, weight="bold")
        for x, (_, name) in zip(xs, kinds):
            ax.text(x, y_head, name.replace(" embeddings", ""), ha="center", va="center", fontsize=f,
                    weight="bold")
        for i, token in enumerate(tokens):
            y = height - head - row_h * (i + 0.5)
            _box(ax, x_token, y, token_w - 0.1, row_h * 0.78, "", "white")
            ax.text(x_token, y, token, ha="center", va="center", fontsize=f)
            for k, (x, (key, _)) in enumerate(zip(xs, kinds)):
                _box(ax, x, y, cell_w, row_h * 0.78, labels[key][i], colour(key, i), fontsize=f)
                if k:
                    ax.text(x - cell_w / 2 - 0.175, y, "+", ha="center", va="center", fontsize=f,
                            color=COLOURS["muted"])
        if title:
            ax.text(0.15, height - 0.22, title, ha="left", va="center", fontsize=10)
        return fig

    width = left + cell * len(tokens) + 0.2
    rows = [("input", None), *((name, key) for key, name in kinds)]
    row_h = 0.62
    height = 0.05 + row_h * len(rows) + (0.35 if title else 0)
    fig, ax = _figure(width, height)
    y_top = height - 0.22 - (0.35 if title else 0)
    for r, (name, key) in enumerate(rows):
        y = y_top - r * row_h - 0.1
        ax.text(left - 0.12, y, name, ha="right", va="center", fontsize=f)
        for i, token in enumerate(tokens):
            x = left + cell * (i + 0.5)
            if key is None:
                _box(ax, x, y, cell - 0.1, 0.36, "", "white")
                ax.text(x, y, token, ha="center", va="center", fontsize=f)
            else:
                _box(ax, x, y, cell - 0.1, 0.36, labels[key][i], colour(key, i), fontsize=f)
            if r >= 2:
                ax.text(x, y + row_h / 2, "+", ha="center", va="center", fontsize=f, color=COLOURS["muted"])
    if title:
        ax.text(0.15, height - 0.22, title, ha="left", va="center", fontsize=10)
    return fig


def _tex(token: str) -> str:
    """A token as mathtext: letters in upright type, characters mathtext treats specially escaped outside it."""

    return "".join(f"\\{part}" if part in "#$%&_{}" else f"\\mathrm{{{part}}}"
                   for part in re.findall(r"[#$%&_{}]|[^#$%&_{}]+", token))


__all__ = ["attention_diagram", "bert_inputs_diagram", "encoder_decoder_diagram", "transformer_block_diagram"]
