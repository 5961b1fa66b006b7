"""The values a checker compares an answer with, shipped as data (``expected/<chapter>.json``), not as code.

A checker asks ``EXPECTED("attention_bytes", "8,4,512", 8, 4, 512)``: the value of the named quantity on one of
its fixed cases. In a student's ``check()`` it comes from the chapter's table (plain JSON, :mod:`.plain`); the
arguments are not used. The instructor's material (``instructor/exercises/``, not part of the installed package)
defines the functions behind the names (the reference answers, and the typical mistakes beside them):
``instructor/record_expected.py`` runs every checker with them and writes the tables, and grading answers every
question live from them (:func:`use_source`). ``EXPECTED.maybe(...)`` is for a hint ("is this the answer that
forgot the mask?"): ``None`` where the table has no such value.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

from .plain import decode, encode
from .registry import Feedback

HERE = Path(__file__).resolve().parent / "expected"

# While set (instructor tools only): an object with value(chapter, name, args, kwargs) and siblings(chapter, name)
# (the names of the mistakes computed from the same arguments), and the tables being recorded.
_SOURCE = None
_RECORDING: dict[str, dict] | None = None


@contextlib.contextmanager
def use_source(source, record: dict[str, dict] | None = None):
    """Answer every expected value from ``source`` instead of the shipped tables (recording into ``record``)."""
    global _SOURCE, _RECORDING
    previous = _SOURCE, _RECORDING
    _SOURCE, _RECORDING = source, record
    try:
        yield
    finally:
        _SOURCE, _RECORDING = previous


class Expected:
    """The expected values of one chapter's checkers."""

    def __init__(self, chapter: str):
        self.chapter = chapter
        self._table: dict | None = None

    def table(self) -> dict:
        if self._table is None:
            path = HERE / f"{self.chapter}.json"
            self._table = json.loads(path.read_text()) if path.exists() else {}
        return self._table

    def _get(self, name: str, case, args, kwargs, required: bool):
        key = f"{name}[{case}]"
        if _SOURCE is not None:
            value = _SOURCE.value(self.chapter, name, args, kwargs)
            if _RECORDING is not None:
                table = _RECORDING.setdefault(self.chapter, {})
                table[key] = encode(value)
                for sibling in _SOURCE.siblings(self.chapter, name):  # every mistake's value on every case
                    table[f"{sibling}[{case}]"] = encode(_SOURCE.value(self.chapter, sibling, args, kwargs))
            return value
        table = self.table()
        if key in table:
            return decode(table[key])
        if required:
            raise Feedback(f"this check has no expected value for {key} in seqviz/exercises/expected/"
                           f"{self.chapter}.json: is your seqviz older than the notebook? Reinstall it.")
        return None

    def __call__(self, name: str, case, *args, **kwargs):
        return self._get(name, case, args, kwargs, required=True)

    def maybe(self, name: str, case, *args, **kwargs):
        return self._get(name, case, args, kwargs, required=False)
