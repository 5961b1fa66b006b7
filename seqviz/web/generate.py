"""Chapter 4b's language model, writing in the reader's browser: :func:`generate_view` and :func:`mulberry32`.

Type a prompt, move the temperature, the top-k and the seed: the page (``js/views/generate.js``) feeds the
prompt through the chapter's trained :class:`~seqviz.models.GRULM` (any cell, any number of layers;
``js/nn/recurrent.js``) and samples by :func:`seqviz.decode.sample`'s rule (``js/nn/sampling.js``), one
uniform number per token from the page's generator, mulberry32.
:func:`mulberry32` draws the same numbers in Python, so ``sample(model, ids, steps, temperature=...,
top_k=..., uniforms=mulberry32(seed, steps))`` writes exactly the page's text: the view's ``expected``
(seqviz's numbers for its first prompt, compared with the page's by the browser check) is made that way.
Tests: ``tests/test_js_twins.py`` (the numbers, under node), ``tests/test_web_generate.py`` (the view).

Used by chapter 4b.
"""

from __future__ import annotations

from ..data.real import TOKEN
from ..decode import sample
from ..models import GRULM
from . import export
from .page import WebView

# seqviz.data.real.TOKEN in JavaScript (flag u): Python's \w (str) is a letter, a digit or "_".
WORD_PATTERN = r"[\p{L}\p{N}_]+(?:['’-][\p{L}\p{N}_]+)*|[^\p{L}\p{N}_\s]"
CHAR_PATTERN = r"[\s\S]"   # every character (a code point, with flag u), spaces and line breaks included
TOP_K_MENU = (1, 3, 10, None)   # None: every token ("all")
TEMPERATURES = (0.1, 2.0, 0.05)   # the slider: lowest, highest, step
SEEDS = 20


def mulberry32(seed: int, n: int) -> list[float]:
    """The first ``n`` uniform numbers in [0, 1) of mulberry32 seeded with ``seed``: the page's generator
    (``nn.mulberry32`` in ``js/nn/sampling.js``), in 32-bit unsigned arithmetic."""
    if isinstance(seed, bool) or not isinstance(seed, int) or isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"expected an int seed and a count n >= 0, got seed={seed!r}, n={n!r}")
    mask, a, out = 0xFFFFFFFF, seed & 0xFFFFFFFF, []
    for _ in range(n):
        a = (a + 0x6D2B79F5) & mask
        t = ((a ^ (a >> 15)) * (1 | a)) & mask
        t = ((t + (((t ^ (t >> 7)) * (61 | t)) & mask)) & mask) ^ t
        out.append(((t ^ (t >> 14)) & mask) / 4294967296)
    return out


def prompt_tokens(text: str, level: str, lower: bool) -> list[str]:
    """A prompt's tokens as the page reads them: characters, or words by ``seqviz.data.real.tokenize``'s rule."""
    text = text.lower() if lower else text
    return list(text) if level == "char" else TOKEN.findall(text)


def _is_lower(vocab) -> bool:
    return all(t == t.lower() for t in vocab.itos if t not in getattr(vocab, "specials", ()))


def generate_view(model, vocab, prompt: str, *, level: str = "char", steps: int = 200, temperature: float = 1.0,
                  top_k: int | None = None, seed: int = 0, lower: bool | None = None, max_prompt: int = 200,
                  still=None, title: str = "The language model writes: type a prompt, move the temperature") -> WebView:
    """Chapter 4b: the model continues a typed prompt by ``steps`` sampled tokens, each coloured by its probability.

    ``model`` is a trained ``GRULM`` and ``vocab`` its vocabulary (``vocab.itos``: characters for
    ``level="char"``, words for ``level="word"``, joined with spaces when shown). The prompt is lower-cased
    when ``lower`` is True (default: when the vocabulary has no upper-case token) and may hold at most
    ``max_prompt`` tokens. The controls start at ``temperature`` (0.1 to 2.0, step 0.05), ``top_k`` (1, 3,
    10 or None: all) and ``seed`` (0 to 20). The page's weights are every parameter, float32: a hidden size
    of 128 or less keeps a chapter's page small (its HTML is ``len(view.html())``).
    """
    if not isinstance(model, GRULM):
        raise ValueError(f"expected a seqviz.models.GRULM (the recurrent language model), got {type(model).__name__}")
    kind = export.cell_kind(model.rnn)
    if not hasattr(vocab, "itos") or len(vocab.itos) != model.vocab_size:
        got = f"{len(vocab.itos)} tokens" if hasattr(vocab, "itos") else type(vocab).__name__
        raise ValueError(f"vocab must be the model's vocabulary (a Vocab with {model.vocab_size} tokens), got {got}")
    if level not in ("char", "word"):
        raise ValueError(f"level must be 'char' or 'word', got {level!r}")
    if isinstance(steps, bool) or not isinstance(steps, int) or not 1 <= steps <= 1000:
        raise ValueError(f"steps must be an int in 1..1000 (tokens to write), got {steps!r}")
    low, high, step = TEMPERATURES
    number = isinstance(temperature, (int, float)) and not isinstance(temperature, bool)
    if not number or not low - 1e-9 <= temperature <= high + 1e-9 or \
            abs((temperature - low) / step - round((temperature - low) / step)) > 1e-6:
        raise ValueError(f"temperature must be on the slider, {low} to {high} in steps of {step}, got {temperature!r}")
    menu = [k for k in TOP_K_MENU if k is None or k < model.vocab_size]
    if top_k not in menu or isinstance(top_k, bool):
        raise ValueError(f"top_k must be one of the menu's {menu} (None: all), got {top_k!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= SEEDS:
        raise ValueError(f"seed must be an int in 0..{SEEDS} (the slider), got {seed!r}")
    if isinstance(max_prompt, bool) or not isinstance(max_prompt, int) or max_prompt < 1:
        raise ValueError(f"max_prompt must be an int >= 1, got {max_prompt!r}")
    if lower is not None and not isinstance(lower, bool):
        raise ValueError(f"lower must be True, False or None (None: lower-case when the vocabulary is), got {lower!r}")
    lower = _is_lower(vocab) if lower is None else lower
    if not isinstance(prompt, str):
        raise ValueError(f"prompt must be a string, got {type(prompt).__name__}")
    title = export.check_title(title)
    tokens = prompt_tokens(prompt, level, lower)
    unknown = sorted({t for t in tokens if t not in vocab.stoi or t in vocab.specials})
    if not tokens or unknown or len(tokens) > max_prompt:
        raise ValueError(f"the first prompt must be 1..{max_prompt} tokens the model knows, got {prompt!r} "
                         f"({len(tokens)} tokens; unknown: {unknown})")
    temperature = round(float(temperature), 10)
    drawn = sample(model, [vocab.stoi[t] for t in tokens], steps, temperature=temperature, top_k=top_k,
                   uniforms=mulberry32(seed, steps))
    expected = {"ids": drawn.ids, "probs": drawn.probs, "first": drawn.distributions[0].tolist(),
                "mean_log_prob": drawn.mean_log_prob}   # every chosen token has p > 0: a finite mean
    words = export.vocabulary(vocab, CHAR_PATTERN if level == "char" else WORD_PATTERN, lower, max_prompt)
    info = {"cell": kind, "num_layers": int(model.rnn.num_layers), "hidden_size": int(model.hidden_size),
            "vocab_size": int(model.vocab_size)}
    options = {"model": info, "prompt": prompt, "steps": steps, "temperature": temperature, "top_k": top_k,
               "seed": seed, "top_k_menu": menu, "title": title}
    roles = export.NAMES["language_model"]
    names = [roles["embedding"], *export.recurrent_names(roles["rnn"], model.rnn.num_layers), roles["out_weight"],
             roles["out_bias"]]
    return WebView("generate", export.named_weights(model, names), {**words, "flags": "gu", "level": level}, options,
                   still, expected)
