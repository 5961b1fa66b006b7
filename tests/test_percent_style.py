"""One house style for percentages, the field's: "99.9%", never "99.9 %" (CONTRIBUTING.md).

Every text a reader meets is scanned: the English chapters' prose and the strings of their code cells (the
``say`` sentences, glued phrases, printed lines), the Chinese catalogue (its English keys and its Chinese), the
package's own strings (exercise feedback, the guide, labels) and the book's pages. A difference of two percentages
is written in points ("a gap of 27.8 points"), which no scan can tell apart from a share: that is for the author.
"""

from __future__ import annotations

import io
import json
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# a number, a placeholder's "}" or a ")" followed by a space and "%", not a plotly "%{...}" or a "%(name)s"
SPACED_PERCENT = re.compile(r"(?:\d|\}|\))[ \u00a0]+%(?![({])")


def _strings(source: str) -> list[str]:
    """The string literals of Python source (f-strings whole): where the reader's text lives in code."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return []
    return [t.string for t in tokens if t.type == tokenize.STRING]


def _spaced(texts) -> list[str]:
    return [text[max(0, m.start() - 40):m.end() + 10] for text in texts for m in SPACED_PERCENT.finditer(text)]


def test_the_pattern_finds_a_spaced_percent_and_leaves_code_alone():
    assert len(_spaced(["chance is 12.5 %.", "within {tol:.0f} %", "(12.5) %"])) == 3
    assert not _spaced(["chance is 12.5%.", "%{y} · %{x} %{z:.3f}", "%(name)s", "100% of them"])
    assert _strings("x = (a + b) % 2\ns = f'{acc:.0%} %'\n") == ["f'{acc:.0%} %'"]  # the modulo is code, not text


@pytest.mark.parametrize("path", sorted((ROOT / "notebooks").glob("*.ipynb")) +
                         sorted((ROOT / "zh" / "notebooks").glob("*.ipynb")),
                         ids=lambda p: f"{p.parent.parent.name}-{p.stem}" if p.parent.parent.name == "zh" else p.stem)
def test_a_chapter_writes_percentages_unspaced(path):
    texts = []
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        source = "".join(cell["source"])
        texts += [source] if cell["cell_type"] == "markdown" else _strings(source)
    found = _spaced(texts)
    assert not found, f"{path.name}: write '12.5%', not '12.5 %': {found}"


def test_the_catalogues_write_percentages_unspaced():
    found = []
    for path in sorted((ROOT / "seqviz" / "i18n").rglob("*.json")):
        entries = json.loads(path.read_text(encoding="utf-8"))
        found += [f"{path.name}: {t}" for t in _spaced(list(entries) + [v for v in entries.values()
                                                                         if isinstance(v, str)])]
    assert not found, f"write '12.5%', not '12.5 %': {found}"


def test_the_package_and_the_pages_write_percentages_unspaced():
    # seqviz/checkpoints/ is left out: its split descriptions are recorded in the shipped manifests, which only
    # a rerun of the long runs rewrites
    found = [f"{p.relative_to(ROOT)}: {t}" for p in sorted((ROOT / "seqviz").rglob("*.py"))
             if "checkpoints" not in p.parts for t in _spaced(_strings(p.read_text(encoding="utf-8")))]
    found += [f"{p.relative_to(ROOT)}: {t}" for p in sorted((ROOT / "book").glob("*.md")) +
              sorted((ROOT / "zh" / "book").glob("*.md")) for t in _spaced([p.read_text(encoding="utf-8")])]
    assert not found, f"write '12.5%', not '12.5 %': {found}"
