"""The bibliography holds every work the book names: an "Author (year)", "Author et al." or "Author and Author
(year)" in a chapter's prose or a page of ``book/`` must have an entry in ``book/references.bib`` (first author's
surname, and the year where the text gives one), and every ``{cite}`` key must exist there.

The patterns are deliberately plain: a capitalised surname followed by "et al.", or by a year in parentheses or
after a comma, or two or three surnames joined by "and"/"&" before a year (``Schuster and Paliwal's ... (1997)``
counts: a possessive may stand between the names and the year). ``NOT_NAMES`` lists the capitalised words that
are not people and may stand before a year.
"""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BIB = ROOT / "book" / "references.bib"
SURNAME = r"[A-Z][a-zà-ÿ]+(?:[-'’][A-Z]?[a-zà-ÿ]+)*"  # Vaswani, Fei-Fei, Müller
NAMES = rf"{SURNAME}(?:,? {SURNAME})*(?:,? (?:and|&) {SURNAME})?"
YEAR = r"(?:19|20)\d\d"
PATTERNS = [
    re.compile(rf"(?P<names>{SURNAME}) et al\.(?:,? \(?(?P<year>{YEAR})\)?)?"),                    # Vaswani et al., 2017
    re.compile(rf"(?P<names>{SURNAME}(?:, {SURNAME})* (?:and|&) {SURNAME})(?:'s|’s)?[^()\n.]{{0,60}}?"
               rf"[ (,]\(?(?P<year>{YEAR})\b"),                                                    # Williams and Zipser, 1989
    re.compile(rf"\((?P<names>{SURNAME}),? (?P<year>{YEAR})[);,:]"),                                 # (Post, 2018), (Koehn 2004;
    re.compile(rf"(?<!and )(?<!& )(?<!, )(?<![-\w’'])(?P<names>{SURNAME}) \((?P<year>{YEAR})\)"),  # Elman (1990)
    re.compile(rf"^- (?P<names>{SURNAME}), [A-Z]\..*?\((?P<year>{YEAR})\)", re.MULTILINE),          # a chapter's own list
]
NOT_NAMES = {"Chapter", "Section", "Table", "Figure", "Exercise", "In", "See", "The", "From", "Since", "Until",
             "Around", "By", "After", "Before", "Colab", "Python", "Transformers", "Summary", "Fig", "Vol"}


def _plain(name: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", name) if not unicodedata.combining(c)).lower()


def _bib_entries() -> list[dict]:
    from pybtex.database import parse_file

    entries = []
    for key, entry in parse_file(str(BIB)).entries.items():
        people = entry.persons.get("author", [])
        surnames = [_plain(" ".join(p.last_names).replace("{", "").replace("}", "")) for p in people]
        surnames = [re.sub(r"\\.", "", s).replace("\\", "") for s in surnames]
        entries.append({"key": key, "surnames": surnames, "year": entry.fields.get("year", "")})
    return entries


def _pages() -> dict[str, str]:
    """The prose of every chapter (markdown cells) and of every page in book/."""
    pages = {}
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        pages[path.name] = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    for path in sorted((ROOT / "book").glob("*.md")):
        pages[path.name] = path.read_text(encoding="utf-8")
    return pages


def citations(text: str) -> list[tuple[str, str, str]]:
    """Each named work in ``text`` as (the words that name it, first author's surname, year or "")."""
    text = re.sub(r"`[^`\n]*`", "", text)  # code and roles ({cite}`key` is checked by key)
    found = []
    for pattern in PATTERNS:
        for match in pattern.finditer(text):
            names = re.split(r",? (?:and|&) |, ", match["names"])
            if names[0] in NOT_NAMES:
                continue
            found.append((match.group(0).strip(), names[0], match.groupdict().get("year") or ""))
    return found


def _first_author_is(entry: dict, surname: str) -> bool:
    """The entry's first author is ``surname`` ("Allal" names "Ben Allal", "Merriënboer" "van Merriënboer")."""
    if not entry["surnames"]:
        return False
    first, surname = entry["surnames"][0], _plain(surname)
    return first == surname or first.endswith(" " + surname)


def missing_from(text: str, entries: list[dict]) -> list[str]:
    missing = []
    for words, surname, year in citations(text):
        if not any(_first_author_is(e, surname) and (not year or e["year"] == year) for e in entries):
            missing.append(f"{words!r}: no entry with first author {surname}" + (f" and year {year}" if year else ""))
    return missing


def test_every_named_work_has_an_entry_in_the_bibliography():
    entries = _bib_entries()
    problems = {page: missing for page, text in _pages().items() if (missing := missing_from(text, entries))}
    assert not problems, "works named in the text with no entry in book/references.bib:\n" + "\n".join(
        f"  {page}: {line}" for page, lines in problems.items() for line in lines)


def test_every_cite_key_is_in_the_bibliography():
    keys = {e["key"] for e in _bib_entries()}
    unknown = {page: sorted(set(re.findall(r"\{cite(?::[a-z]+)?\}`([^`]+)`", text)) and
                            {k.strip() for ks in re.findall(r"\{cite(?::[a-z]+)?\}`([^`]+)`", text)
                             for k in ks.split(",")} - keys)
               for page, text in _pages().items()}
    unknown = {page: ks for page, ks in unknown.items() if ks}
    assert not unknown, f"{{cite}} keys with no entry in book/references.bib: {unknown}"


def test_every_entry_is_cited_or_named_somewhere():
    """The references page lists every entry (``:all:``) and says the chapters cite them: so each entry must be
    cited with ``{cite}`` in a page, or named by the guide's findings (``seqviz/guide/literature.py``, whose works
    chapter 10's tables name), never merely listed."""
    from seqviz.guide import FINDINGS

    cited = {k.strip() for text in _pages().values()
             for ks in re.findall(r"\{cite(?::[a-z]+)?\}`([^`]+)`", text) for k in ks.split(",")}
    works = [_plain(part) for f in FINDINGS.values() for part in f.cite.split(";")]   # "Kitaev et al. (2020)"
    unused = sorted(e["key"] for e in _bib_entries() if e["key"] not in cited and not any(
        e["surnames"] and e["surnames"][0] in work and e["year"] in work for work in works))
    assert not unused, f"entries of book/references.bib that no page cites: {unused}"


def test_the_two_source_articles_are_entries_with_their_chinese_titles():
    from pybtex.database import parse_file

    bib = parse_file(str(BIB)).entries
    assert "为什么序列与众不同" in bib["zh_why_sequences"].fields["title"]
    assert "Why Sequences Are Different" in bib["zh_why_sequences"].fields["title"]
    assert "从“序列”到“理解”的本质之旅" in bib["zh_sequence_to_understanding"].fields["title"]
    assert "From Sequence to Understanding" in bib["zh_sequence_to_understanding"].fields["title"]


@pytest.mark.parametrize("text, expected", [
    ("That is the Transformer (Vaswani et al., 2017).", [("Vaswani", "2017")]),
    ("as Le et al. did", [("Le", "")]),
    ("teacher forcing (Williams and Zipser, 1989)", [("Williams", "1989")]),
    ("This is Schuster and Paliwal's **bidirectional RNN** (1997), and", [("Schuster", "1997")]),
    ("Karpathy, Johnson and Fei-Fei (2015) found", [("Karpathy", "2015")]),
    ("a paired bootstrap (Koehn 2004: the same", [("Koehn", "2004")]),
    ("the reference (Post, 2018), and", [("Post", "2018")]),
    ("Elman (1990) drew", [("Elman", "1990")]),
    ("- Bengio, Y., Simard, P. and Frasconi, P. (1994). Learning", [("Bengio", "1994")]),
    ("Chapter (2017) and Table (2020)", []),
])
def test_the_patterns_find_what_a_reader_reads_as_a_citation(text, expected):
    assert sorted({(s, y) for _, s, y in citations(text)}) == sorted(expected)


def test_a_name_missing_from_the_bibliography_is_reported():
    entries = _bib_entries()
    assert missing_from("as shown by Nobody et al. (2031)", entries)
    assert missing_from("(Vaswani et al., 2016)", entries)  # right author, wrong year
    assert not missing_from("(Vaswani et al., 2017)", entries)
