"""Bridges between a running notebook and the rendered book.

``glue(name, value)`` hands a computed number to the prose: the notebook's markdown
writes ``{glue:text}`name:.1%``` and the book shows the value this run produced, so no
figure in the text is ever typed by hand. Outside a book build (Colab, JupyterLab) it
prints ``name = value`` so the reader still sees the number.

``span(values, fmt)`` writes the range of several runs for a sentence: "24% to 92%", or "100%" when every run
rounds to the same number (never "from 100% to 100%"); ``readable(x)`` writes a number a sentence can hold
whatever its size: "0", "0.0012", "5 × 10³²", never "5e+32" or "0.0e+00".

``say(name, outcome, sentences, **values)`` is how a chapter states a *judgement* computed from the run: the
hidden cell decides the outcome (``"higher"``, ``"similar"`` ...) from the numbers, and ``say`` glues the whole
sentence written for that outcome, never a word spliced into a template. The sentences may name numbers
(``{ratio:.1f}``), filled from ``values``. ``compare``, ``compare_runs`` and ``compare_times`` give the outcomes
for two numbers, two sets of runs, and two sets of repeated timings (judged only beyond their measured spread).
Every sentence goes through one translation hook, ``translate``, so that a chapter's hidden cells are the same
code in every edition of the book (``set_language``). ``glue`` sends a glued string (a label, a phrase a cell chose)
through it too, unless it is glued with ``data=True`` (a sentence of the task, a token, a model's output: the
run's data, the same in every edition); so do the labels ``seqviz.viz`` draws and the feedback of ``check()``: in
the Chinese edition (``set_language("zh")``, which loads the catalogue :mod:`seqviz.i18n` ships) the same code
writes Chinese. A text the catalogue lacks stays English and is reported once on stderr, which fails the Chinese
book's build (``-W``).

``wrap(text)`` breaks a printed sentence into lines the book's output column shows whole (77 columns, a Chinese
character counting two).

``exercise_number(label)`` is the one rule for how an exercise is called: the label ``ch04b-ex2`` is "Exercise
4b.2" in the text, in the built book (``book/_ext/seqviz_book.py`` numbers the exercises with it), in the student
edition and in ``book/instructors.md``.
"""

from __future__ import annotations

import math
import re
import string
import sys
import unicodedata
from collections.abc import Callable, Mapping

from . import i18n

LANGUAGES = ("en", "zh")
_language = "en"
# language -> function(english text) -> that language's text, or None where it has none; set_language registers
# the packaged catalogue (seqviz.i18n) unless a translator was registered first.
_TRANSLATORS: dict[str, Callable[[str], str | None]] = {}
# functions called with the new language whenever it changes (seqviz.viz sets matplotlib's font by one)
_LISTENERS: list[Callable[[str], None]] = []
_MISSING: dict[str, None] = {}  # texts that had no translation, in order, each reported once


_EXERCISE_LABEL = re.compile(r"\s*ch(\d+)([a-z]?)[.\-_ ]?ex(\d+)([a-z]?)\s*")


def exercise_number(label: str) -> str:
    """The number an exercise is called by: ``"ch08-ex2"`` -> ``"8.2"``, ``"ch04b-ex2"`` -> ``"4b.2"``,
    a follow-up ``"ch03.ex2b"`` -> ``"3.2b"`` (any of ``-``, ``.``, ``_`` between the parts)."""
    match = _EXERCISE_LABEL.fullmatch(label.lower()) if isinstance(label, str) else None
    if not match:
        raise ValueError(f"an exercise label looks like 'ch08-ex2' or 'ch04b-ex2', got {label!r}")
    return f"{int(match[1])}{match[2]}.{int(match[3])}{match[4]}"


def exercise_title(label: str) -> str:
    """``"Exercise 4b.2"`` for ``"ch04b-ex2"``: how the text, the book and the student edition name it."""
    return f"Exercise {exercise_number(label)}"


def glue(name: str, value, display: bool = False, data: bool = False):
    """Store ``value`` under ``name`` for ``{glue:text}`` / ``{glue:figure}`` in the book.

    A glued string is prose (a phrase a cell chose) and goes through :func:`translate`, unless ``data=True``: a
    string that is the run's data (a sampled sentence, a token, a model's translation) is glued exactly as it is,
    in every edition, and no catalogue needs an entry for it. Returns nothing, so a cell ending in ``glue(...)``
    does not echo the value twice.
    """
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"glue name must be an identifier like 'acc_bow', got {name!r}")
    if not isinstance(data, bool):
        raise ValueError(f"data must be True (the value is the run's data) or False (prose), got {data!r}")
    if hasattr(value, "item") and getattr(value, "ndim", 1) == 0:
        value = value.item()  # 0-d tensors and numpy scalars become Python numbers
    if isinstance(value, str) and not data:
        value = translate(value)  # a glued phrase is prose: the reader's language
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
    """``words[i]`` for :func:`compare`'s outcome ("higher", "similar", "lower"); ``words`` is
    ``(greater, similar, smaller)``. For internal labels (chapter 10's guide); a chapter's prose uses
    :func:`say`, which glues a whole sentence per outcome."""
    if isinstance(words, str) or len(words) != 3 or not all(isinstance(w, str) for w in words):
        raise ValueError(f"words must be three strings (greater, similar, smaller), got {words!r}")
    try:
        outcome = compare(a, b, rel_tol)
    except ValueError as error:
        raise ValueError(f"compare_word needs two finite numbers: {error}") from None
    return words[("higher", "similar", "lower").index(outcome)]


def compare_spread(a, b, words, margin: float = 0.0) -> str:
    """``words[i]`` for :func:`compare_runs`'s outcome ("higher", "overlap", "lower"); ``words`` is
    ``(greater, overlapping, smaller)``."""
    if isinstance(words, str) or len(words) != 3 or not all(isinstance(w, str) for w in words):
        raise ValueError(f"words must be three strings (greater, overlapping, smaller), got {words!r}")
    return words[("higher", "overlap", "lower").index(compare_runs(a, b, margin))]


def set_language(language: str) -> None:
    """The language of everything the package writes from now on: ``"en"`` (the default) or ``"zh"``.

    A chapter of the Chinese edition calls ``sv.book.set_language("zh")`` once, in its imports cell; nothing else in
    its code differs from the English chapter's. The first call for a language registers the catalogue
    :mod:`seqviz.i18n` ships for it (unless :func:`register_translator` gave one), then tells every listener
    (:func:`on_language`; ``seqviz.viz`` makes matplotlib draw Chinese with a CJK font).
    """
    global _language
    if language not in LANGUAGES:
        raise ValueError(f"language must be one of {LANGUAGES}, got {language!r}")
    if language != "en" and language not in _TRANSLATORS:
        register_translator(language, i18n.catalogue(language).lookup)
    _language = language
    for listener in list(_LISTENERS):
        listener(language)


def language() -> str:
    """The language ``say``, ``glue`` and the figures write in (``set_language``)."""
    return _language


def on_language(listener: Callable[[str], None]) -> None:
    """Call ``listener(language)`` now and whenever :func:`set_language` changes the language."""
    if not callable(listener):
        raise ValueError(f"listener must be callable, got {type(listener).__name__}")
    if listener not in _LISTENERS:
        _LISTENERS.append(listener)
    listener(_language)


def register_translator(language: str, translate_fn: Callable[[str], str | None]) -> None:
    """Let ``translate`` render English texts in ``language`` with ``translate_fn(text) -> str``, which returns
    None for a text it cannot translate."""
    if language not in LANGUAGES or language == "en":
        raise ValueError(f"a translator is for one of {LANGUAGES[1:]}, got {language!r}")
    if not callable(translate_fn):
        raise ValueError(f"translate_fn must be callable, got {type(translate_fn).__name__}")
    _TRANSLATORS[language] = translate_fn


def translate(text: str, strict: bool = True) -> str:
    """``text`` (English; a ``say`` sentence with its placeholders unfilled) in the current language.

    English itself when the language is "en", and for what is not English prose: a non-string, an empty string,
    a text that already holds Chinese. Where the translator has none, the English comes back; with ``strict``
    (every sentence and label) that is reported once on stderr, which the Chinese book's build turns into an error;
    ``strict=False`` is for what may be data (tick labels, a slider's steps): translated when the catalogue knows it.
    """
    if _language == "en" or not isinstance(text, str) or not text.strip() or i18n.has_cjk(text):
        return text
    # numbers and symbols only ("(0.26, 0.28)", "100.0%", "6 × 10¹⁴"): nothing to translate. str.isalpha, not the
    # regular expression [^\W\d_], which takes a superscript digit (a number, but not a decimal one) for a letter
    if not any(ch.isalpha() for ch in text):
        return text
    translated = _TRANSLATORS[_language](text)
    if isinstance(translated, str):
        return translated
    if strict and text not in _MISSING:
        _MISSING[text] = None
        print(f"seqviz: no {_language} translation of {text!r}: add it to a catalogue in seqviz/i18n/{_language}/ "
              "(zh/TRANSLATING.md)", file=sys.stderr)
    return text


_COMMA = {"en": ", ", "zh": "，"}


def listing(parts) -> str:
    """Words already in the book's language, joined as a list with its comma: "a, b" or "a，b"."""
    return _COMMA.get(_language, ", ").join(parts)


def series(parts) -> str:
    """Words already in the book's language, joined as a sentence lists them: "a", "a and b", "a, b and c" (in
    Chinese "a和b", "a、b和c")."""
    parts = [str(p) for p in parts]
    if not parts:
        raise ValueError("series needs at least one part, got none")
    if _language == "zh":
        return parts[0] if len(parts) == 1 else "、".join(parts[:-1]) + "和" + parts[-1]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


PRINT_COLUMNS = 77  # a printed line the book's output column shows whole at 1280 px (a full-width character: 2)


def wrap(text: str, columns: int = PRINT_COLUMNS) -> str:
    """``text`` broken into lines of at most ``columns`` columns, each line of it on its own, so that a printed
    sentence reads whole instead of running off the right edge of the output. English breaks between words;
    Chinese (two columns a character) between characters, never inside a run of Latin letters and digits, and
    never before a closing punctuation mark (，。；：）」》)."""
    if not isinstance(text, str):
        raise ValueError(f"wrap expects a string, got {type(text).__name__}")
    if isinstance(columns, bool) or not isinstance(columns, int) or columns < 10:
        raise ValueError(f"columns must be an int of at least 10, got {columns!r}")

    def width(piece: str) -> int:
        return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in piece)

    lines = []
    for paragraph in text.split("\n"):
        # pieces: a run of full-width characters is split into single characters; anything else breaks at spaces
        pieces = re.findall(r"[^\s\u2e80-\uffef]+|[\u2e80-\uffef]|\s+", paragraph)
        line = ""
        for piece in pieces:
            closing = piece in "，。、；：！？）」』》】”’"
            if line.strip() and width(line) + width(piece) > columns and not piece.isspace() and not closing:
                lines.append(line.rstrip())
                line = ""
            if not (piece.isspace() and not line):
                line += piece
        lines.append(line.rstrip())
    return "\n".join(lines)


def missing_translations() -> list[str]:
    """The texts ``translate`` found no translation for (strict lookups), in the order they came."""
    return list(_MISSING)


def _fill(sentence: str, values: Mapping) -> str:
    names = {field for _, field, _, _ in string.Formatter().parse(sentence) if field}
    missing = sorted(n for n in names if n.split(".")[0].split("[")[0] not in values)
    if missing:
        raise ValueError(f"the sentence {sentence!r} names {missing}, which say() was not given")
    return sentence.format(**values)


def say(name: str, outcome, sentences: Mapping, **values) -> str:
    """Glue under ``name`` the sentence written for ``outcome``, and return it.

    ``sentences`` maps every possible outcome to a whole English sentence (or several); ``values`` fill the
    sentence's ``{placeholders}``, with their format (``{ratio:.1f}``). The hidden cell that computes ``outcome``
    is the only place the judgement is made, so the text agrees with the run in full mode, quick mode and on a
    GPU::

        say("clip_verdict", compare(with_clip, without_clip, rel_tol=0.05), {
            "higher": "Clipping helped: {gain:.0%} more sentences came out right.",
            "similar": "Clipping made no difference here.",
            "lower": "Clipping hurt here."}, gain=with_clip - without_clip)
    """
    if not isinstance(sentences, Mapping) or not sentences:
        raise ValueError(f"sentences must be a non-empty dict outcome -> sentence, got {type(sentences).__name__}")
    if outcome not in sentences:
        raise ValueError(f"no sentence for the outcome {outcome!r}; the sentences cover {list(sentences)}")
    sentence = sentences[outcome]
    if not isinstance(sentence, str) or not sentence.strip():
        raise ValueError(f"the sentence for {outcome!r} must be a non-empty string, got {sentence!r}")
    values = {k: (v.item() if hasattr(v, "item") and getattr(v, "ndim", 1) == 0 else v) for k, v in values.items()}
    # a word the cell passes as a value ("above", "below") is translated where the catalogue knows it; a value
    # that is data (a sentence of the task, a token) is not in any catalogue and stays as it is
    values = {k: translate(v, strict=False) if isinstance(v, str) else v for k, v in values.items()}
    text = _fill(translate(sentence), values)
    glue(name, text)
    return text


def span(values, fmt: str = ".0%", joiner: str = " to ") -> str:
    """The range of ``values`` (several runs) as text for a sentence: ``"24% to 92%"`` with the format ``fmt``,
    or one number when the smallest and the largest round to the same text (``"100%"``, not "100% to 100%")."""
    runs = _runs("values", values)
    low, high = format(min(runs), fmt), format(max(runs), fmt)
    return low if low == high else f"{low}{translate(joiner, strict=False)}{high}"  # " to ": the book's language


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def readable(value, digits: int = 2) -> str:
    """``value`` as a sentence writes it, never in a programmer's e-notation: ``"0"`` for zero, a plain decimal
    between 0.001 and a million (``"0.0012"``, ``"3.5"``, ``"120,000"``), and beyond them a power of ten:
    ``"5 × 10³²"``, ``"4.5 × 10⁻⁵"``, or ``"10³²"`` when the leading figure is 1 (``digits`` significant figures)."""
    value = _finite("value", value)
    if isinstance(digits, bool) or not isinstance(digits, int) or digits < 1:
        raise ValueError(f"digits must be a whole number >= 1, got {digits!r}")
    if value == 0:
        return "0"
    sign, size = ("−" if value < 0 else ""), abs(value)
    exponent = math.floor(math.log10(size))
    mantissa = round(size / 10 ** exponent, digits - 1)
    if mantissa >= 10:  # 9.96 rounds up to 10.0: one more power of ten
        mantissa, exponent = mantissa / 10, exponent + 1
    if -3 <= exponent < 6:
        text = f"{mantissa * 10 ** exponent:,.{max(0, digits - 1 - exponent)}f}"
        return sign + (text.rstrip("0").rstrip(".") if "." in text else text)
    power = "10" + str(exponent).translate(_SUPERSCRIPT)
    lead = f"{mantissa:.{digits - 1}f}".rstrip("0").rstrip(".")
    return f"{sign}{power}" if lead == "1" else f"{sign}{lead} × {power}"


def _finite(name: str, value) -> float:
    value = float(value.item() if hasattr(value, "item") else value)
    if not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value}")
    return value


def _runs(name: str, runs) -> list[float]:
    runs = runs.tolist() if hasattr(runs, "tolist") else runs
    runs = [runs] if isinstance(runs, (int, float)) else list(runs)
    if not runs:
        raise ValueError(f"{name} must be a non-empty sequence of finite numbers, got []")
    return [_finite(f"every value of {name}", v) for v in runs]


def compare(a, b, rel_tol: float = 0.05) -> str:
    """``"higher"``, ``"similar"`` or ``"lower"``: how ``a`` compares with ``b``, where two numbers within
    ``rel_tol`` of the larger one's size are similar."""
    a, b, rel_tol = _finite("a", a), _finite("b", b), _finite("rel_tol", rel_tol)
    if rel_tol < 0:
        raise ValueError(f"rel_tol must be >= 0, got {rel_tol}")
    if abs(a - b) <= rel_tol * max(abs(a), abs(b)):
        return "similar"
    return "higher" if a > b else "lower"


def compare_runs(a, b, margin: float = 0.0) -> str:
    """``"higher"`` when every run of ``a`` beat every run of ``b`` by more than ``margin``, ``"lower"`` in the
    mirror case, ``"overlap"`` otherwise: where the ranges over seeds overlap, the run does not say which is better."""
    a, b, margin = _runs("a", a), _runs("b", b), _finite("margin", margin)
    if margin < 0:
        raise ValueError(f"margin must be a finite number >= 0, got {margin}")
    if min(a) > max(b) + margin:
        return "higher"
    if max(a) < min(b) - margin:
        return "lower"
    return "overlap"


def compare_times(a, b, min_ratio: float = 1.1) -> str:
    """``"slower"``, ``"similar"`` or ``"faster"``: how the repeated timings ``a`` compare with ``b``.

    A timing is noisy, so one is called slower only when every repeat of it took longer than every repeat of the
    other (the ranges do not overlap) *and* the medians differ by at least ``min_ratio``; otherwise "similar".
    Each side needs at least two repeats: one timing has no spread to judge by.
    """
    a, b, min_ratio = _runs("a", a), _runs("b", b), _finite("min_ratio", min_ratio)
    if len(a) < 2 or len(b) < 2:
        raise ValueError(f"compare_times needs at least two repeats of each timing, got {len(a)} and {len(b)}")
    if min_ratio < 1:
        raise ValueError(f"min_ratio must be >= 1, got {min_ratio}")
    if min(a + b) <= 0:
        raise ValueError("timings must be positive")
    med_a, med_b = sorted(a)[len(a) // 2], sorted(b)[len(b) // 2]
    if min(a) > max(b) and med_a >= min_ratio * med_b:
        return "slower"
    if max(a) < min(b) and med_b >= min_ratio * med_a:
        return "faster"
    return "similar"
