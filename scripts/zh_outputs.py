"""List the code outputs of the Chinese chapters that still show an English phrase.

Issue 29 wants everything a reader of the Chinese edition sees in Chinese, the outputs of the code cells included:
tables (``seqviz.measure.markdown_table`` translates headers and text cells through the catalogues), printed lines
(``print(sv.book.translate(...))``) and the lists a cell writes. This script finds the output blocks that still
hold an English phrase: three or more English words in a row. Not English prose, so never counted:

- code: a code span or fenced block inside an output (a model's samples, tokens), the printed source of a function
  (a cell that calls ``inspect.getsource``), a model's repr;
- names and numbers: a word with a digit, an underscore, a dot, a slash or ``@`` in it (``charlm-lstm-s``,
  ``manythings.org``, ``weight_hh_l0``), an acronym (``RNN``, ``BLEU``), ``<pad>``/``[MASK]``, and a run of
  capitalised words (a name: "Herman Melville", "The Stdlib Authors");
- quoted text ('...', "...", “...”): a sentence of the task or a word the line talks about; a citation
  ("Devlin et al. (2019)");
- data: a line of the shipped Moby-Dick text, the columns of a table that hold sentences of a task or a model's output (``DATA_COLUMNS``: "English", "a
  reference", ...), and the lines of ``DATA_LINES``: the patterns of printed data (the task's sentences, a
  translation pair), each with the reason it stays in its language. Keep both lists short: a new entry is a
  decision that the text is data, not a translation left for later.

Usage::

    python scripts/zh_outputs.py _build/html/zh          # a built Chinese edition (its notebooks/*.html)
    python scripts/zh_outputs.py /tmp/zh-05.ipynb ...    # executed Chinese notebooks

It prints each block with its English phrases and a count per chapter, and exits 1 when any block holds one.
``scripts/browser_check.py`` runs :func:`html_blocks` on every page of the Chinese edition's chapters and fails on
a block it finds.
"""

from __future__ import annotations

import argparse
import functools
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Table columns whose cells are data in every edition: sentences of a task, a reference translation, a model's
# output, a prompt. Written as the English header; the Chinese page shows its translation (both are matched).
DATA_COLUMNS = ("English", "a reference", "greedy", "beam of 5", "sentence", "prompt", "what it wrote", "text",
                "the long-run translator's French", "GRU, no attention", "GRU with attention", "Transformer",
                "top five guesses", "the model's French")

# Printed lines that are data (a regex that matches the whole line, stripped; the reason it stays English).
DATA_LINES = (
    (r"[a-z' ]+\s+->\s+[a-z]+", "chapters 1-2: a sentence of the task and its label (`sentence -> label`)"),
    (r"[a-z0-9'.,!? ]+\s+->\s+.+", "a source sentence and what it becomes (`source -> target`): task data"),
    (r"length\s+\d+: [a-z<> ]+", "chapter 2: padded sentences of the task, by length"),
    (r"[a-z ]+: \[[-\d. e]+\]", "chapter 1: a sentence of the task and the logits a model gives it"),
    (r"[a-z/ ]+\s{2,}\S.*", "chapter 5: a sentence of the tagging task (word/tag), then where its cue is"),
    (r"[a-z ]+\s{2,}P\(are\).*", "chapter 2: a sentence of the task, then what the model makes of it"),
    (r"dropout option adds dropout .*", "chapter 4: PyTorch's own warning, quoted as the library writes it"),
)

_CITATION = re.compile(r"[A-Z][\w'’-]+(?: et al\.| and [A-Z][\w'’-]+)? \(\d{4}[a-z]?\)")  # Devlin et al. (2019)
_WORD = re.compile(r"[A-Za-z]+(?:['’-][A-Za-z]+)*")
_STRIP = "\"“”‘’'()[]{}*,.;:!?…"
_QUOTED = re.compile(r"“[^”\n]*”|‘[^’\n]*’|\"[^\"\n]*\"|(?<![A-Za-z])'[^'\n]*'(?![A-Za-z])")
_DIGIT_WORDS = {"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"}
_CJK = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]")


def english_phrases(text: str) -> list[str]:
    """The runs of three or more English words in ``text`` (one line or one table cell), in order."""
    text = _CITATION.sub(" \x00 ", _QUOTED.sub(" \x00 ", text))
    phrases, run = [], []

    def close():
        words = [w.strip(_STRIP) for w in run]
        name = all(w[:1].isupper() for w in words)  # a run of capitalised words is a name
        listed = all(t.endswith(",") for t in run[:-1])  # "the, is, by, dog": a list of words (a vocabulary)
        digits = all(w in _DIGIT_WORDS for w in words)  # "zero five four": a digit task's source, spelled
        if len(words) >= 3 and not (name or listed or digits):
            phrases.append(" ".join(run))
        run.clear()

    for token in re.split(r"\s+", text):
        word = token.strip(_STRIP)
        english = (bool(word) and _WORD.fullmatch(word) is not None and not (len(word) > 1 and word.isupper())
                   and not re.search(r"[A-Z]", word[1:])  # CamelCase: a name (BagOfWords, SmolLM)
                   and (len(word) > 1 or word == "a"))  # one letter: a symbol (x, H)
        if english and not _CJK.search(token):
            run.append(token)
        else:
            close()
        if token.rstrip().endswith((":", ";", "|", "—")):  # a label and its value: two phrases
            close()
    close()
    return phrases


@functools.lru_cache(maxsize=1)
def _book() -> str:
    """The shipped Moby-Dick text (chapters 4b and 10 print excerpts of it: data, in every edition)."""
    try:
        sys.path.insert(0, str(ROOT))
        from seqviz.data.real import book_text
        return book_text("all")
    except Exception:  # noqa: BLE001
        return ""


def _data_line(line: str) -> bool:
    line = line.strip()
    return (len(line) >= 30 and line in _book()) or any(re.fullmatch(pattern, line) for pattern, _ in DATA_LINES)


def _data_headers() -> set[str]:
    """The data columns' headers in both editions."""
    headers = {h.replace("’", "'") for h in DATA_COLUMNS}
    try:
        sys.path.insert(0, str(ROOT))
        from seqviz import i18n
        lookup = i18n.catalogue("zh").lookup
        headers |= {lookup(h).replace("’", "'") for h in DATA_COLUMNS if lookup(h)}
    except Exception:  # noqa: BLE001  (without the package the English headers still match)
        pass
    return {h.strip() for h in headers}


def text_phrases(text: str) -> list[str]:
    """English phrases of a printed block (stream, text/plain), line by line, data lines left out."""
    found = []
    for line in text.splitlines():
        if line.strip() and not _data_line(line):
            for part in line.split(" | "):
                found += english_phrases(part)
    return found


def table_phrases(rows: list[list[str]]) -> list[str]:
    """English phrases of a table (its first row the headers), the data columns left out."""
    if not rows:
        return []
    data = _data_headers()
    skip = {k for k, header in enumerate(rows[0]) if header.strip().replace("’", "'") in data}
    found = []
    for row in rows:
        for k, cell in enumerate(row):
            if k not in skip:
                found += english_phrases(cell)
    return found


def markdown_phrases(text: str) -> list[str]:
    """English phrases of a text/markdown output: tables cell by cell, code spans and fences left out."""
    text = re.sub(r"```.*?```", " ", text, flags=re.DOTALL)
    text = re.sub(r"`[^`\n]*`", " ", text)
    found, table = [], []
    for line in [*text.splitlines(), ""]:
        if line.strip().startswith("|"):
            cells = [c for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
            if not all(re.fullmatch(r"\s*:?-+:?\s*", c) for c in cells):
                table.append(cells)
            continue
        if table:
            found += table_phrases(table)
            table = []
        line = re.sub(r"^\s*[-*]\s+", "", line)
        if line.strip() and not _data_line(line):
            found += english_phrases(line)
    return found


# ---- executed notebooks

def notebook_blocks(path: Path) -> list[dict]:
    """Every output block a reader of ``path`` (an executed notebook) sees that holds an English phrase."""
    nb = json.loads(Path(path).read_text(encoding="utf-8"))
    blocks = []
    for index, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "code":
            continue
        tags = set(cell.get("metadata", {}).get("tags", []))
        if tags & {"remove-cell", "remove-output"}:
            continue
        source = "".join(cell["source"])
        if "getsource" in source:
            continue
        for output in cell.get("outputs", []):
            if output["output_type"] == "stream":
                if output.get("name") == "stderr" or "remove-stderr" in tags:
                    continue
                kind, phrases = "stream", text_phrases("".join(output["text"]))
            elif "data" in output:
                data = output["data"]
                if any(k.startswith("application/papermill") or "glue" in k for k in data):
                    continue
                if "text/markdown" in data:
                    kind, phrases = "markdown", markdown_phrases("".join(data["text/markdown"]))
                elif "text/html" in data:
                    kind, phrases = "html", html_fragment_phrases("".join(data["text/html"]))
                elif "text/plain" in data and not any(k.startswith(("image/", "application/")) for k in data):
                    kind, phrases = "text", text_phrases("".join(data["text/plain"]))
                else:
                    continue
            else:
                continue
            if phrases:
                blocks.append({"cell": index, "kind": kind, "phrases": phrases})
    return blocks


# ---- built pages

def _soup(html: str):
    from bs4 import BeautifulSoup  # the book's theme depends on it: wherever the book builds, it is there
    return BeautifulSoup(html, "html.parser")


def _element_phrases(element) -> list[str]:
    classes = " ".join(element.get("class") or [])
    if element.name in ("pre", "code", "script", "style") or re.search(r"(^| )highlight-", classes):
        return []  # a code block of a markdown output: a model's sample, tokens
    for code in element.select("code, div[class^='highlight-'], script, style, .plotly-graph-div, .seqviz-web"):
        code.decompose()
    found = []
    for table in element.find_all("table"):
        rows = [[cell.get_text(" ", strip=True) for cell in tr.find_all(["th", "td"])] for tr in table.find_all("tr")]
        found += table_phrases(rows)
        table.decompose()
    for line in element.get_text("\n").splitlines():
        if line.strip() and not _data_line(line):
            found += english_phrases(line)
    return found


def html_fragment_phrases(html: str) -> list[str]:
    """English phrases of a text/html output (a table, a still's text); figures and live views left out."""
    return _element_phrases(_soup(html))


def html_blocks(html: str) -> list[dict]:
    """Every output block of a built chapter page (``html``, its text) that holds an English phrase."""
    soup = _soup(html)
    blocks = []
    for index, cell in enumerate(soup.select("div.cell")):
        code = cell.select_one("div.cell_input")
        if code is not None and "getsource" in code.get_text():
            continue
        output = cell.select_one("div.cell_output")
        if output is None:
            continue
        groups, loose = [], []
        for child in output.find_all(recursive=False):
            classes = set(child.get("class") or [])
            if classes & {"stream", "text_plain", "text_html"} or "pst-scrollable-table-container" in classes:
                if loose:
                    groups.append(("markdown", loose))
                    loose = []
                kind = "stream" if "stream" in classes else "text" if "text_plain" in classes else \
                    "table" if "pst-scrollable-table-container" in classes else "html"
                groups.append((kind, [child]))
            else:
                loose.append(child)  # a text/markdown output is rendered into the page as its elements
        if loose:
            groups.append(("markdown", loose))
        for kind, elements in groups:
            if kind in ("stream", "text"):
                phrases = [p for e in elements for p in text_phrases(e.get_text())]
            else:
                phrases = [p for e in elements for p in _element_phrases(e)]
            if phrases:
                blocks.append({"cell": index, "kind": kind, "phrases": phrases})
    return blocks


def scan(paths: list[Path]) -> dict[str, list[dict]]:
    """Chapter name -> its blocks with English phrases, for built pages (a folder or .html files) or notebooks."""
    files = []
    for path in paths:
        if path.is_dir():
            folder = path / "notebooks" if (path / "notebooks").is_dir() else path
            files += sorted(folder.glob("*.html")) or sorted(folder.glob("*.ipynb"))
        else:
            files.append(path)
    found = {}
    for file in files:
        if file.suffix == ".ipynb":
            found[file.stem] = notebook_blocks(file)
        else:
            found[file.stem] = html_blocks(file.read_text(encoding="utf-8"))
    return found


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+", type=Path, help="a built Chinese edition, its pages, or executed notebooks")
    parser.add_argument("--quiet", action="store_true", help="only the count per chapter")
    args = parser.parse_args(argv)
    missing = [p for p in args.paths if not p.exists()]
    if missing:
        raise SystemExit(f"no such file or folder: {', '.join(map(str, missing))}")
    found = scan(args.paths)
    total = 0
    for chapter, blocks in found.items():
        total += len(blocks)
        print(f"{chapter}: {len(blocks)} block(s) with English")
        if not args.quiet:
            for block in blocks:
                shown = "; ".join(block["phrases"][:4]) + (" ..." if len(block["phrases"]) > 4 else "")
                print(f"    cell {block['cell']} ({block['kind']}): {shown}")
    print(f"{total} output block(s) with English in {sum(1 for b in found.values() if b)} of {len(found)} chapter(s)")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
