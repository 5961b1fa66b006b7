"""Bridges between a running notebook and the rendered book.

``glue(name, value)`` hands a computed number to the prose: the notebook's markdown
writes ``{glue:text}`name:.1%``` and the book shows the value this run produced, so no
figure in the text is ever typed by hand. Outside a book build (Colab, JupyterLab) it
prints ``name = value`` so the reader still sees the number.
"""

from __future__ import annotations


def glue(name: str, value, display: bool = False):
    """Store ``value`` under ``name`` for ``{glue:text}`` / ``{glue:figure}`` in the book.

    Returns nothing, so a cell ending in ``glue(...)`` does not echo the value twice.
    """
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"glue name must be an identifier like 'acc_bow', got {name!r}")
    if hasattr(value, "item") and getattr(value, "ndim", 1) == 0:
        value = value.item()  # 0-d tensors and numpy scalars become Python numbers
    try:
        from myst_nb import glue as myst_glue
    except ImportError:
        if not display:
            print(f"{name} = {value!r}" if not isinstance(value, float) else f"{name} = {value:.4g}")
        else:
            from IPython.display import display as show

            show(value)
        return None
    myst_glue(name, value, display=display)
    return None


def compare_word(a, b, words, rel_tol: float = 0.05) -> str:
    """The word that says how measured ``a`` compares with measured ``b``.

    ``words`` is ``(greater, similar, smaller)``, e.g. ``("slower than", "about as fast as", "faster than")``
    for two times. ``a`` counts as similar to ``b`` when ``|a - b| <= rel_tol * max(|a|, |b|)``. Chapters glue
    the result next to the numbers, so a sentence that judges a run is computed from the same run and stays true
    on a GPU, in Colab and in quick mode. NaN or infinite inputs raise ``ValueError``: no word fits them.
    """
    import math

    if isinstance(words, str) or len(words) != 3 or not all(isinstance(w, str) for w in words):
        raise ValueError(f"words must be three strings (greater, similar, smaller), got {words!r}")
    if rel_tol < 0:
        raise ValueError(f"rel_tol must be >= 0, got {rel_tol}")
    a, b = (float(v.item() if hasattr(v, "item") else v) for v in (a, b))
    if not (math.isfinite(a) and math.isfinite(b)):
        raise ValueError(f"compare_word needs two finite numbers, got {a} and {b}")
    if abs(a - b) <= rel_tol * max(abs(a), abs(b)):
        return words[1]
    return words[0] if a > b else words[2]


def compare_spread(a, b, words, margin: float = 0.0) -> str:
    """The word that says how the runs of ``a`` compare with the runs of ``b``, seeds and all.

    ``a`` and ``b`` are the per-seed results of two models (any sequences of numbers); ``words`` is
    ``(greater, overlapping, smaller)``. It returns ``greater`` only when every run of ``a`` beat every run of
    ``b`` by more than ``margin`` (``min(a) > max(b) + margin``), ``smaller`` when every run of ``a`` is below every
    run of ``b`` by more than ``margin``, and ``overlapping`` otherwise: when the ranges over seeds overlap (or are
    closer than the measurement's own noise, which ``margin`` states), the run does not say which is better. Chapters
    4 and 5 glue it beside the spread, so that a verdict over seeds is never stronger than the seeds allow.
    """
    import math

    if isinstance(words, str) or len(words) != 3 or not all(isinstance(w, str) for w in words):
        raise ValueError(f"words must be three strings (greater, overlapping, smaller), got {words!r}")
    values = []
    for name, runs in (("a", a), ("b", b)):
        runs = runs.tolist() if hasattr(runs, "tolist") else runs
        runs = [runs] if isinstance(runs, (int, float)) else list(runs)
        runs = [float(v) for v in runs]
        if not runs or not all(math.isfinite(v) for v in runs):
            raise ValueError(f"{name} must be a non-empty sequence of finite numbers, got {runs!r}")
        values.append(runs)
    if not (math.isfinite(margin) and margin >= 0):
        raise ValueError(f"margin must be a finite number >= 0, got {margin}")
    (a, b) = values
    if min(a) > max(b) + margin:
        return words[0]
    if max(a) < min(b) - margin:
        return words[2]
    return words[1]
