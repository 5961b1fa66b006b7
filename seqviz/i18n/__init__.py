"""The book's other languages: the catalogues of what the package writes, and the font that draws Chinese.

A chapter of the Chinese edition runs the English chapter's code, with one line more in its imports cell:
``sv.book.set_language("zh")``. From then on every sentence ``sv.book.say`` and ``sv.book.glue`` write, every label
``seqviz.viz`` draws (titles, axes, legends, slider labels, hover text; whether the chapter's code or the package
wrote it), every ``check()`` feedback and every page view's message goes through one function,
:func:`seqviz.book.translate`, which looks the English text up here.

A catalogue is every ``seqviz/i18n/<language>/*.json`` file, merged: each maps an English text, **exactly as the
code writes it**, to its translation. A key may hold ``{placeholders}`` (a name, optionally a format): then

- a ``say`` sentence is found unfilled (its key is the sentence as written in the chapter, ``{ratio:.1f}`` and
  all) and filled after translation, so the Chinese sentence carries the run's numbers;
- a text the code has already filled (an f-string title, a checker's message) matches the key as a pattern: each
  placeholder stands for any text, which is copied into the translation, itself translated when the catalogue
  knows it (``"{model}: {answer} ({p})"`` with ``model = "bag of words"`` gives ``词袋模型：dog（50%）``).

Files are split by where the English is written (``book.json``: labels shared by chapters, ``chNN.json``: one
chapter's code, ``viz.json``, ``exercises.json``, ``web.json``: the package's own). The Chinese edition's guide
(``zh/TRANSLATING.md`` in the book's repository) says how to add an entry; ``tests/test_i18n.py`` checks that every
translated chapter's sentences are here and that each translation keeps its English key's placeholders.

:func:`cjk_font_file` finds the font matplotlib draws Chinese with: Noto Sans CJK, from the PyPI package
``noto-cjk-sans-otc`` (``pip install noto-cjk-sans-otc``; the Chinese notebooks' Colab cell installs it with
seqviz's ``zh`` extra), or one the system has. Imports nothing from seqviz: :mod:`seqviz.book` and :mod:`seqviz.viz` build on it.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import re
import string
from pathlib import Path

HERE = Path(__file__).resolve().parent
LANGUAGES = ("zh",)
CJK = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]")  # CJK punctuation, ideographs, full-width forms
MAX_DEPTH = 3  # how deep a placeholder's captured text is itself translated
# Families that draw simplified Chinese, best first: the packaged font, then what systems commonly have.
CJK_FAMILIES = ("Noto Sans CJK SC", "Source Han Sans SC", "Noto Sans SC", "Source Han Sans CN", "WenQuanYi Zen Hei",
                "WenQuanYi Micro Hei", "PingFang SC", "Microsoft YaHei", "SimHei", "Heiti SC", "Noto Sans CJK JP")
FONT_PACKAGE, FONT_FILE = "noto_cjk_sans_otc", "NotoSansCJK-Regular.ttc"
SYSTEM_FONT_FILES = ("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
                     "/usr/share/fonts/noto-cjk/NotoSansCJK-Regular.ttc",
                     "/usr/share/fonts/google-noto-cjk/NotoSansCJK-Regular.ttc")


_CITED_TITLE = re.compile(r"《[^》]*》")  # an English sentence may cite a Chinese title: it is still English


def has_cjk(text: str) -> bool:
    """Whether ``text`` holds a Chinese character or CJK punctuation outside a cited title 《...》 (then it is not
    English to translate)."""
    rest = _CITED_TITLE.sub("", text)
    return bool(CJK.search(rest)) or (not re.search(r"[A-Za-z]", rest) and bool(CJK.search(text)))


def _fields(template: str) -> list[tuple[str, str | None, str]]:
    """(literal text, field name or None, the field as written) for each piece of a format string."""
    pieces = []
    for literal, field, spec, conversion in string.Formatter().parse(template):
        written = None if field is None else "{" + field + (f"!{conversion}" if conversion else "") + \
            (f":{spec}" if spec else "") + "}"
        pieces.append((literal, field, written))
    return pieces


class Catalogue:
    """English text -> translation, exact or by pattern (the module's docstring says how a key matches)."""

    def __init__(self, language: str, entries: dict[str, str], sources: dict[str, str] | None = None):
        self.language, self.entries, self.sources = language, dict(entries), dict(sources or {})
        self.patterns = []
        for key, value in self.entries.items():
            try:
                pieces = _fields(key)
            except ValueError as error:
                raise ValueError(f"{self.where(key)}: the key {key!r} is not a valid format string ({error})") from None
            names = [field for _, field, _ in pieces if field is not None]
            if not names:
                continue
            literal = "".join(text for text, _, _ in pieces)
            if not literal.strip():
                raise ValueError(f"{self.where(key)}: the key {key!r} is only placeholders: it would match anything")
            regex, groups = "", {}
            for text, field, _ in pieces:
                regex += re.escape(text)
                if field is not None:
                    if field in groups:
                        regex += f"(?P={groups[field]})"
                    else:
                        groups[field] = f"g{len(groups)}"
                        regex += f"(?P<{groups[field]}>.*?)"
            literals = tuple(text for text, _, _ in pieces if text)
            self.patterns.append((regex, groups, value, len(literal), literals))
        self.patterns.sort(key=lambda p: -p[3])  # the most specific pattern first
        # Compiled on first use: a catalogue holds about a thousand patterns (1.2 s to compile them all, in every
        # Chinese chapter's kernel), and a text is tried only against those whose every literal piece it contains.
        self._compiled: dict[str, re.Pattern] = {}

    def where(self, key: str) -> str:
        return self.sources.get(key, f"seqviz/i18n/{self.language}")

    def lookup(self, text: str, depth: int = 0) -> str | None:
        """The translation of ``text``, or None when the catalogue has none."""
        if not isinstance(text, str):
            return None
        if text in self.entries:
            return self.entries[text]
        for source, groups, value, _, literals in self.patterns:
            if not all(piece in text for piece in literals):
                continue
            regex = self._compiled.get(source)
            if regex is None:
                regex = self._compiled[source] = re.compile(source, re.DOTALL)
            match = regex.fullmatch(text)
            if match:
                captured = {field: match[group] for field, group in groups.items()}
                if depth < MAX_DEPTH:
                    captured = {k: (self.lookup(v, depth + 1) or v) for k, v in captured.items()}
                return "".join(literal + (captured.get(field, written) if field is not None else "")
                               for literal, field, written in _fields(value))
        return None

    __call__ = lookup


def read_catalogue(language: str, folder: Path | None = None) -> Catalogue:
    """Every ``<folder>/*.json`` merged (default: this package's ``<language>/``); a key in two files with two
    translations, a value that is not a string, or a translation that drops or adds a placeholder is a
    ``ValueError`` naming the file."""
    folder = folder or HERE / language
    if not folder.is_dir():
        raise ValueError(f"no catalogue for language {language!r} (expected the folder {folder})")
    entries, sources = {}, {}
    for path in sorted(folder.glob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as error:
            raise ValueError(f"{path.name} is not valid JSON: {error}") from None
        for key, value in data.items():
            if key.startswith("_"):  # "_about": a note for translators
                continue
            if not isinstance(value, str) or not value.strip():
                raise ValueError(f"{path.name}: the translation of {key!r} must be a non-empty string, got {value!r}")
            if key in entries and entries[key] != value:
                raise ValueError(f"{path.name} and {sources[key]} translate {key!r} differently")
            if placeholders(key) != placeholders(value):
                raise ValueError(f"{path.name}: {key!r} has the placeholders {sorted(placeholders(key))}, its "
                                 f"translation {sorted(placeholders(value))}")
            entries[key], sources[key] = value, path.name
    return Catalogue(language, entries, sources)


def placeholders(template: str) -> set[str]:
    """The fields of a format string, as written (``{ratio:.1f}``); an unparsable string has none."""
    try:
        return {written for _, field, written in _fields(template) if field is not None}
    except ValueError:
        return set()


@functools.lru_cache(maxsize=None)
def catalogue(language: str) -> Catalogue:
    """The packaged catalogue of ``language`` (read once)."""
    if language not in LANGUAGES:
        raise ValueError(f"seqviz has catalogues for {LANGUAGES}, not {language!r}")
    return read_catalogue(language)


def cjk_font_file() -> Path | None:
    """A font file that draws simplified Chinese: the packaged Noto Sans CJK, else a system copy, else None."""
    spec = importlib.util.find_spec(FONT_PACKAGE)
    if spec is not None and spec.submodule_search_locations:
        for folder in spec.submodule_search_locations:
            if (Path(folder) / FONT_FILE).is_file():
                return Path(folder) / FONT_FILE
    return next((Path(p) for p in SYSTEM_FONT_FILES if Path(p).is_file()), None)
