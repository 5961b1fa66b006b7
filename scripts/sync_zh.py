"""The Chinese edition (``zh/``) kept in step with the English book: one code, two languages, no drift.

Layout: ``zh/`` is a second Jupyter Book whose pages mirror the English ones path for path (``zh/_toc.yml`` lists
the files of ``_toc.yml`` in the same parts and order, with Chinese captions). Each page is one of

- a **translated chapter**, ``zh/notebooks/NN.ipynb``: cell for cell the English notebook (the same cell ids, in
  the same order). Its code cells are the English code cells, written by this script: the one difference is the
  line ``IMPORT_LINE`` in the imports cell (after its imports), and the Colab cell, which
  ``scripts/sync_repo_url.py`` writes for a Chinese chapter (it installs ``seqviz[zh]``, the CJK font). Its
  markdown cells are Chinese; each records, in ``metadata.zh``, the SHA-256 and the text of the English cell it
  translates (``en_sha256``, ``en``) and its status (``translated``, or ``todo``: an English cell not yet
  translated, shown in the page as the English under a notice);
- a **translated page**, ``zh/book/*.md``, whose front matter records the English page's SHA-256;
- a **page of its own** (``status: own``: the zh–en glossary);
- a **notice page** for a page not yet translated (``status: untranslated``, written by this script): the Chinese
  reader is told so and sent to the English page, never shown English as if it were the Chinese book.

``python scripts/sync_zh.py`` (write) brings every zh page up to date: the toc, the notice pages, each chapter's
code cells, new English cells (as ``todo``), cells the English dropped; a ``todo`` cell a translator has rewritten
becomes ``translated``. It never touches a translated prose cell.

``python scripts/sync_zh.py --check`` (CI, ``tests/test_sync_zh.py``) changes nothing and fails (exit 1) when

- a code cell of a Chinese chapter is not the English code cell (names the chapter and the cell, with a diff);
- an English prose cell (or page) changed since its translation was written (names the chapter and the cell and
  shows the English diff: what the translation must now say);
- a translation lost a glued value, a label or a directive its English cell has;
- a ``say`` sentence of a translated chapter has no Chinese in the catalogue (``seqviz/i18n/zh/``), naming the
  nearest entry when the English sentence seems to have changed;
- the toc or a notice page is not what the write run makes.

English cells still to translate and pages not yet translated are reported, not failures: a new English cell lands
at once, and the Chinese page shows it as English under a notice until it is translated.

After updating a translation whose English changed, say so: ``python scripts/sync_zh.py --accept
zh/notebooks/01_why_order_matters.ipynb[#CELL_ID ...]`` records the current English as what each named cell (or
every changed cell of the chapter) translates. ``--start notebooks/NN.ipynb`` begins a chapter's translation (its
notice page becomes a notebook whose prose cells are all ``todo``); ``--start book/setup.md`` does the same for a
page. ``zh/TRANSLATING.md`` is the translator's guide.
"""

from __future__ import annotations

import argparse
import ast
import copy
import difflib
import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
ZH = "zh"
IMPORT_LINE = 'sv.book.set_language("zh")  # 中文版：计算出的句子、图中文字和练习反馈都用中文'
TODO_CLASS = "seqviz-zh-todo"
TODO_NOTICE = ("```{{admonition}} 本段尚未翻译\n:class: {cls}\n下面是英文原文：这一段是英文版新增或改写的，"
               "中文译文还没有跟上。\n```\n\n").format(cls=TODO_CLASS)
STATUSES = ("translated", "todo", "own", "untranslated")
GLUE = re.compile(r"\{glue(?::\w+)?\}`([A-Za-z_]\w*)")
LABEL = re.compile(r"^:label:\s*(\S+)", re.MULTILINE)
DIRECTIVE = re.compile(r"^(`{3,}|:{3,})\{([\w-]+)\}[ \t]*(\S*)", re.MULTILINE)
FRONT = re.compile(r"\A---\n(.*?)\n---\n", re.DOTALL)
UNTRANSLATED_PAGE = """---
seqviz_zh:
  status: untranslated
---

# {title}（尚未翻译）

```{{zh-untranslated}} {english}
```
"""


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def source(cell: dict) -> str:
    text = cell.get("source", "")
    return "".join(text) if isinstance(text, list) else text


def set_source(cell: dict, text: str) -> None:
    cell["source"] = text.splitlines(keepends=True)


class Report:
    """What a run found: failures (``--check`` exits 1 on any), and notes (reported, never failing)."""

    def __init__(self):
        self.failures: list[str] = []
        self.notes: list[str] = []
        self.changed: list[str] = []

    def fail(self, text: str) -> None:
        self.failures.append(text)

    def note(self, text: str) -> None:
        self.notes.append(text)


# -- the table of contents --------------------------------------------------------------------------------------


def toc_parts(path: Path) -> tuple[str, list[tuple[str, list[str]]]]:
    """(root, [(caption, [file, ...]), ...]) of a Jupyter Book ``_toc.yml``."""
    toc = yaml.safe_load(path.read_text(encoding="utf-8"))
    parts = [(part.get("caption", ""), [entry["file"] for entry in part.get("chapters", [])])
             for part in toc.get("parts", [])]
    return toc["root"], parts


def english_source(root: Path, page: str) -> Path | None:
    for suffix in (".ipynb", ".md"):
        if (root / f"{page}{suffix}").is_file():
            return root / f"{page}{suffix}"
    return None


def toc_text(root: Path) -> str:
    """``zh/_toc.yml`` as the write run makes it: the English structure, the Chinese captions kept by position."""
    en_root, en_parts = toc_parts(root / "_toc.yml")
    captions = []
    if (root / ZH / "_toc.yml").is_file():
        captions = [caption for caption, _ in toc_parts(root / ZH / "_toc.yml")[1]]
    lines = ["# The Chinese edition's table of contents: the English _toc.yml's files, parts and order, with Chinese",
             "# captions. Written by scripts/sync_zh.py (edit only the captions).",
             "format: jb-book", f"root: {en_root}", "parts:"]
    for i, (caption, files) in enumerate(en_parts):
        zh_caption = captions[i] if i < len(captions) and captions[i] else f"（待译）{caption}"
        lines += [f"  - caption: {json.dumps(zh_caption, ensure_ascii=False)}", "    chapters:"]
        lines += [f"      - file: {f}" for f in files]
    return "\n".join(lines) + "\n"


def pages(root: Path) -> list[str]:
    en_root, parts = toc_parts(root / "_toc.yml")
    return [en_root] + [f for _, files in parts for f in files]


# -- pages -------------------------------------------------------------------------------------------------------


def front_matter(text: str) -> dict:
    match = FRONT.match(text)
    return (yaml.safe_load(match[1]) or {}) if match else {}


def first_heading(path: Path) -> str:
    if path.suffix == ".ipynb":
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        text = next((source(c) for c in cells if c["cell_type"] == "markdown"), "")
    else:
        text = path.read_text(encoding="utf-8")
    match = re.search(r"^#\s+(.+)$", text, re.MULTILINE)
    return match[1].strip() if match else path.stem


def notice_page(root: Path, page: str) -> str:
    return UNTRANSLATED_PAGE.format(title=first_heading(english_source(root, page)), english=page)


def english_history(root: Path, relative: str, digest: str) -> str | None:
    """The English text whose SHA-256 is ``digest``, found in git's history of the file (None if not found)."""
    run = subprocess.run(["git", "-C", str(root), "log", "--format=%H", "--", relative], capture_output=True,
                         text=True)
    for commit in run.stdout.split()[:200]:
        shown = subprocess.run(["git", "-C", str(root), "show", f"{commit}:{relative}"], capture_output=True,
                               text=True)
        if shown.returncode == 0 and sha(shown.stdout) == digest:
            return shown.stdout
    return None


def diff(old: str, new: str, name: str) -> str:
    lines = difflib.unified_diff(old.splitlines(), new.splitlines(), f"{name} (English, when translated)",
                                 f"{name} (English, now)", lineterm="", n=1)
    return "\n".join("      " + line for line in lines)


def check_page(root: Path, page: str, report: Report, write: bool) -> str:
    """A markdown page (or a notice page); returns its status."""
    en = english_source(root, page)
    zh_md, zh_nb = root / ZH / f"{page}.md", root / ZH / f"{page}.ipynb"
    if zh_nb.is_file():
        return "notebook"
    if not zh_md.is_file() or front_matter(zh_md.read_text(encoding="utf-8")).get("seqviz_zh", {}).get(
            "status") == "untranslated":
        expected = notice_page(root, page)
        if not zh_md.is_file() or zh_md.read_text(encoding="utf-8") != expected:
            if write:
                zh_md.parent.mkdir(parents=True, exist_ok=True)
                zh_md.write_text(expected, encoding="utf-8")
                report.changed.append(f"{ZH}/{page}.md (notice page)")
            else:
                report.fail(f"{ZH}/{page}.md: the notice page of an untranslated page is missing or out of date "
                            "(run python scripts/sync_zh.py)")
        report.note(f"{page}: not yet translated (the Chinese book shows a notice page that links to the English)")
        return "untranslated"
    text = zh_md.read_text(encoding="utf-8")
    meta = front_matter(text).get("seqviz_zh") or {}
    status = meta.get("status")
    if status not in STATUSES:
        report.fail(f"{ZH}/{page}.md: front matter seqviz_zh.status must be one of {STATUSES}, got {status!r}")
        return "broken"
    english = en.read_text(encoding="utf-8")
    if status == "todo":
        body = text[FRONT.match(text).end():].lstrip("\n") if FRONT.match(text) else text
        recorded = str(meta.get("en_sha256", ""))
        old = english if recorded == sha(english) else english_history(root, en.relative_to(root).as_posix(), recorded)
        if old is not None and body == todo_source(old) and old != english:  # untouched, and the English moved on
            if write:
                zh_md.write_text(f"---\nseqviz_zh:\n  status: todo\n  en_sha256: {sha(english)}\n---\n\n"
                                 f"{todo_source(english)}", encoding="utf-8")
                report.changed.append(f"{ZH}/{page}.md: the English to translate changed")
            else:
                report.fail(f"{ZH}/{page}.md: the English of this untranslated page changed (run python "
                            "scripts/sync_zh.py)")
        elif old is None or body != todo_source(old):  # a translator rewrote it: a translation now
            if write:
                zh_md.write_text(text.replace("status: todo", "status: translated", 1), encoding="utf-8")
                report.changed.append(f"{ZH}/{page}.md: translated")
                status = "translated"
            else:
                report.fail(f"{ZH}/{page}.md: translated but still marked todo (run python scripts/sync_zh.py)")
        if status == "todo":
            report.note(f"{page}: not yet translated (the page shows the English under a notice)")
            return status
    if status == "translated":
        recorded = str(meta.get("en_sha256", ""))
        if recorded != sha(english):
            old = english_history(root, en.relative_to(root).as_posix(), recorded)
            shown = diff(old, english, en.relative_to(root).as_posix()) if old is not None else \
                f"      (the English it translated is not in this clone's history: git log -p {en.name})"
            report.fail(f"{ZH}/{page}.md: the English page {en.relative_to(root).as_posix()} changed since it was "
                        f"translated. Update the translation, then run python scripts/sync_zh.py --accept "
                        f"{ZH}/{page}.md\n{shown}")
        structure(english, text, f"{ZH}/{page}.md", report)
    return status


def accept_page(root: Path, page: str) -> None:
    path = root / ZH / f"{page}.md"
    text = path.read_text(encoding="utf-8")
    digest = sha(english_source(root, page).read_text(encoding="utf-8"))
    new, count = re.subn(r"^(\s*en_sha256:\s*)\S+$", lambda m: m[1] + digest, text, count=1, flags=re.MULTILINE)
    if not count:
        raise SystemExit(f"{path}: its front matter has no seqviz_zh.en_sha256 line to update")
    path.write_text(new, encoding="utf-8")


def structure(english: str, chinese: str, where: str, report: Report) -> None:
    """The machinery of a prose cell must survive translation: glued values, labels, directives and their targets."""
    for what, pattern in (("glued values", GLUE), ("labels", LABEL)):
        want, got = sorted(pattern.findall(english)), sorted(pattern.findall(chinese))
        if want != got:
            report.fail(f"{where}: its {what} differ from the English ({_missing(want, got)})")
    want = sorted((name, arg) for _, name, arg in DIRECTIVE.findall(english) if name not in ("admonition",))
    got = sorted((name, arg) for _, name, arg in DIRECTIVE.findall(chinese)
                 if name not in ("admonition",))
    if [n for n, a in want if n in ("exercise", "solution-start", "solution-end", "solution")] != \
            [n for n, a in got if n in ("exercise", "solution-start", "solution-end", "solution")] or \
            [a for n, a in want if n.startswith("solution")] != [a for n, a in got if n.startswith("solution")]:
        report.fail(f"{where}: its exercise and solution directives differ from the English ({_missing(want, got)})")


def _missing(want, got) -> str:
    lost = sorted(set(map(str, want)) - set(map(str, got)))
    extra = sorted(set(map(str, got)) - set(map(str, want)))
    return "; ".join(p for p in (f"missing {', '.join(lost)}" if lost else "",
                                 f"not in the English {', '.join(extra)}" if extra else "") if p) or "order or count"


# -- chapters ----------------------------------------------------------------------------------------------------


def with_language_line(code: str) -> str:
    """The imports cell of a Chinese chapter: the English cell with ``IMPORT_LINE`` after its leading imports."""
    lines = code.splitlines(keepends=True)
    for i, line in enumerate(lines):
        if line.startswith("sv.viz.use_book_renderer("):
            return "".join(lines[:i] + [IMPORT_LINE + "\n"] + lines[i:])
    tree = ast.parse(code)
    end = 0
    for node in tree.body:
        if not isinstance(node, (ast.Import, ast.ImportFrom)):
            break
        end = node.end_lineno
    return "".join(lines[:end] + [IMPORT_LINE + "\n"] + lines[end:])


def imports_cell(cells: list[dict]) -> int | None:
    """The index of the imports cell: the first code cell after the Colab cell that imports seqviz."""
    code = [i for i, c in enumerate(cells) if c["cell_type"] == "code"]
    return next((i for i in code[1:] if re.search(r"^import seqviz as sv\b", source(cells[i]), re.MULTILINE)),
                None)


def zh_code(en_cells: list[dict], index: int) -> str:
    text = source(en_cells[index])
    return with_language_line(text) if index == imports_cell(en_cells) else text


def todo_source(english: str) -> str:
    lines = english.splitlines(keepends=True)
    if lines and lines[0].startswith("#"):  # a heading stays the cell's first line: it may be the page's title
        return lines[0] + "\n" + TODO_NOTICE + "".join(lines[1:]).lstrip("\n")
    return TODO_NOTICE + english


def todo_cell(en_cell: dict) -> dict:
    text = source(en_cell)
    cell = {"cell_type": "markdown", "id": en_cell["id"], "metadata": copy.deepcopy(en_cell.get("metadata", {})),
            "source": []}
    cell["metadata"]["zh"] = {"status": "todo", "en_sha256": sha(text), "en": text}
    set_source(cell, todo_source(text))
    return cell


def code_cell(en_cells: list[dict], index: int, old: dict | None) -> dict:
    en_cell = en_cells[index]
    cell = {"cell_type": "code", "execution_count": None, "id": en_cell["id"],
            "metadata": copy.deepcopy(en_cell.get("metadata", {})), "outputs": [], "source": []}
    first_code = next(i for i, c in enumerate(en_cells) if c["cell_type"] == "code")
    if index == first_code and old is not None:  # the Colab cell: scripts/sync_repo_url.py writes it
        cell["source"] = copy.deepcopy(old["source"])
    else:
        set_source(cell, zh_code(en_cells, index))
    return cell


def chapter_name(path: Path) -> str:
    return path.relative_to(path.parents[1]).as_posix() if path.parent.name == "notebooks" else path.name


def check_chapter(root: Path, page: str, report: Report, write: bool, accept: set[str] | None = None) -> dict:
    """One Chinese chapter against its English notebook; returns counts (prose cells translated, to do)."""
    en_path, zh_path = root / f"{page}.ipynb", root / ZH / f"{page}.ipynb"
    name = f"{ZH}/{page}.ipynb"
    en_nb = json.loads(en_path.read_text(encoding="utf-8"))
    zh_nb = json.loads(zh_path.read_text(encoding="utf-8"))
    en_cells, zh_cells = en_nb["cells"], zh_nb["cells"]
    by_id = {c.get("id"): c for c in zh_cells}
    en_ids = [c.get("id") for c in en_cells]
    if None in en_ids or len(set(en_ids)) != len(en_ids):
        report.fail(f"{en_path.relative_to(root)}: every cell needs a unique id (nbformat 4.5) for the Chinese "
                    "edition to follow it")
        return {}
    first_code = next(i for i, c in enumerate(en_cells) if c["cell_type"] == "code")
    counts = {"translated": 0, "todo": 0, "stale": 0}
    new_cells, structural = [], []
    for index, en_cell in enumerate(en_cells):
        cid, old = en_cell["id"], by_id.get(en_cell["id"])
        where = f"{name}, cell {index} (id {cid})"
        if old is not None and old["cell_type"] != en_cell["cell_type"]:
            structural.append(f"{where}: a {old['cell_type']} cell where the English has a {en_cell['cell_type']} "
                              "cell")
            old = None
        if en_cell["cell_type"] == "code":
            cell = code_cell(en_cells, index, old)
            if old is None:
                structural.append(f"{where}: the English code cell is missing from the Chinese chapter")
            elif index != first_code:
                want, got = source(cell), source(old)
                if want != got:
                    report.fail(f"{where}: this code cell differs from the English one (the science code is the "
                                f"English code: run python scripts/sync_zh.py)\n"
                                + "\n".join("      " + line for line in difflib.unified_diff(
                                    want.splitlines(), got.splitlines(), "English (with the zh imports line)",
                                    "Chinese chapter", lineterm="", n=1)))
                elif old.get("metadata", {}) != cell["metadata"]:
                    report.fail(f"{where}: its metadata (tags) differ from the English cell's")
            new_cells.append(cell)
            continue
        english = source(en_cell)
        if old is None:
            structural.append(f"{where}: a new English prose cell, not yet in the Chinese chapter")
            new_cells.append(todo_cell(en_cell))
            counts["todo"] += 1
            continue
        cell = copy.deepcopy(old)
        meta = cell.setdefault("metadata", {}).setdefault("zh", {})
        status = meta.get("status")
        if status == "todo":
            recorded = meta.get("en", "")
            if source(cell) != todo_source(recorded):  # a translator rewrote it: it is a translation now
                if write:
                    meta["status"] = status = "translated"
                    report.changed.append(f"{where}: translated")
                else:
                    report.fail(f"{where}: translated but still marked todo (run python scripts/sync_zh.py)")
            elif recorded != english:  # the English changed before anyone translated it: show the new English
                if write:
                    cell = todo_cell(en_cell)
                    report.changed.append(f"{where}: the English to translate changed")
                else:
                    report.fail(f"{where}: the English of this untranslated cell changed (run python "
                                "scripts/sync_zh.py)")
            if status == "todo":
                counts["todo"] += 1
                report.note(f"{where}: not yet translated (the page shows the English under a notice)\n"
                            + "\n".join("      | " + line for line in english.splitlines()[:3]))
        if status == "translated":
            if TODO_CLASS in source(cell):
                report.fail(f"{where}: the translation still carries the 'not yet translated' notice")
            if meta.get("en_sha256") != sha(english):
                if accept is not None and (not accept or cid in accept):
                    meta["en_sha256"], meta["en"] = sha(english), english
                    report.changed.append(f"{where}: accepted as the translation of the current English")
                else:
                    counts["stale"] += 1
                    old_english = meta.get("en", "")
                    report.fail(f"{where}: the English prose cell changed since it was translated. Update the "
                                f"translation, then: python scripts/sync_zh.py --accept {name}#{cid}\n"
                                + diff(old_english, english, f"cell {cid}"))
            if sha(meta.get("en", "")) != meta.get("en_sha256"):
                report.fail(f"{where}: metadata.zh.en is not the English its en_sha256 records")
            structure(english, source(cell), where, report)
            counts["translated"] += 1
        elif status != "todo":
            report.fail(f"{where}: metadata.zh.status must be 'translated' or 'todo', got {status!r}")
        cell["metadata"] = {**copy.deepcopy(en_cell.get("metadata", {})), "zh": cell["metadata"]["zh"]}
        new_cells.append(cell)
    dropped = [c.get("id") for c in zh_cells if c.get("id") not in set(en_ids)]
    structural += [f"{name}: cell {cid} is no longer in the English chapter" for cid in dropped]
    if [c.get("id") for c in zh_cells if c.get("id") in set(en_ids)] != [i for i in en_ids if i in by_id]:
        structural.append(f"{name}: its cells are not in the English chapter's order")
    metadata = {**copy.deepcopy(en_nb.get("metadata", {})), "language_info": {"name": "python"}}
    if zh_nb.get("metadata") != metadata:   # e.g. seqviz.run_alone: the Chinese chapter is run as the English one
        structural.append(f"{name}: its notebook metadata differ from the English chapter's")
    if write:
        if new_cells != zh_cells or zh_nb.get("metadata") != metadata:
            zh_nb["cells"] = new_cells
            zh_nb["metadata"] = metadata
            zh_path.write_text(json.dumps(zh_nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
            report.changed += structural or [f"{name}: updated"]
    else:
        for line in structural:
            report.fail(line + " (run python scripts/sync_zh.py)")
    return counts


def start_chapter(root: Path, page: str) -> Path:
    """A Chinese chapter to translate: the English notebook's cells, every prose cell ``todo``."""
    en_nb = json.loads((root / f"{page}.ipynb").read_text(encoding="utf-8"))
    zh_nb = copy.deepcopy(en_nb)
    zh_nb["cells"] = [todo_cell(c) if c["cell_type"] == "markdown" else code_cell(en_nb["cells"], i, c)
                      for i, c in enumerate(en_nb["cells"])]
    path = root / ZH / f"{page}.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(zh_nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    (root / ZH / f"{page}.md").unlink(missing_ok=True)  # the notice page it replaces
    return path


def start_page(root: Path, page: str) -> Path:
    english = english_source(root, page).read_text(encoding="utf-8")
    path = root / ZH / f"{page}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\nseqviz_zh:\n  status: todo\n  en_sha256: {sha(english)}\n---\n\n"
                    f"{todo_source(english)}", encoding="utf-8")
    return path


# -- computed sentences ------------------------------------------------------------------------------------------


def say_sentences(notebook: dict) -> list[tuple[str, str]]:
    """(cell id, sentence) for every sentence a ``say(name, outcome, {outcome: sentence})`` call writes."""
    found = []
    for cell in notebook["cells"]:
        if cell["cell_type"] != "code":
            continue
        try:
            tree = ast.parse(source(cell))
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) == "say"):
                continue
            sentences = node.args[2] if len(node.args) > 2 else next(
                (k.value for k in node.keywords if k.arg == "sentences"), None)
            if isinstance(sentences, ast.Dict):
                found += [(cell.get("id"), v.value) for v in sentences.values
                          if isinstance(v, ast.Constant) and isinstance(v.value, str)]
    return found


def check_sentences(root: Path, page: str, report: Report) -> None:
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))  # this repository's seqviz (the catalogue of root may be a copy's)
    from seqviz.i18n import read_catalogue

    catalogue = read_catalogue("zh", root / "seqviz" / "i18n" / "zh")
    notebook = json.loads((root / f"{page}.ipynb").read_text(encoding="utf-8"))
    for cid, sentence in say_sentences(notebook):
        if sentence in catalogue.entries:
            continue
        near = difflib.get_close_matches(sentence, list(catalogue.entries), n=1, cutoff=0.6)
        hint = (f"; the nearest entry ({catalogue.sources[near[0]]}) is\n      {near[0]!r}\n      - its English "
                "changed? Translate the new sentence under its new key") if near else ""
        report.fail(f"{ZH}/{page}.ipynb, cell {cid}: the computed sentence {sentence!r} has no Chinese in "
                    f"seqviz/i18n/zh/{hint}")


# -- the translator's guide: its terms table comes from zh/terms.csv ----------------------------------------------

TERMS_BEGIN, TERMS_END = "<!-- terms: written by scripts/sync_zh.py from zh/terms.csv -->", "<!-- /terms -->"


def terms_table(root: Path) -> str:
    import csv

    rows = list(csv.DictReader((root / ZH / "terms.csv").read_text(encoding="utf-8").splitlines()))
    lines = ["| 中文 | English | 首次出现 |", "|---|---|---|"]
    lines += [f"| {r['中文']} | {r['English']} | {r['首次出现的章节']} |" for r in rows]
    return "\n".join(lines)


def check_guide(root: Path, report: Report, write: bool) -> None:
    path = root / ZH / "TRANSLATING.md"
    if not path.is_file() or not (root / ZH / "terms.csv").is_file():
        return
    text = path.read_text(encoding="utf-8")
    if TERMS_BEGIN not in text or TERMS_END not in text:
        report.fail(f"{ZH}/TRANSLATING.md: the markers of its terms table are missing")
        return
    head, rest = text.split(TERMS_BEGIN, 1)
    _, tail = rest.split(TERMS_END, 1)
    expected = f"{head}{TERMS_BEGIN}\n{terms_table(root)}\n{TERMS_END}{tail}"
    if expected != text:
        if write:
            path.write_text(expected, encoding="utf-8")
            report.changed.append(f"{ZH}/TRANSLATING.md: its terms table")
        else:
            report.fail(f"{ZH}/TRANSLATING.md: its terms table is not zh/terms.csv (run python scripts/sync_zh.py)")


# -- the run -----------------------------------------------------------------------------------------------------


def sync(root: Path = ROOT, write: bool = False, accept: dict[str, set[str]] | None = None) -> tuple[Report, dict]:
    report, summary = Report(), {}
    toc = toc_text(root)
    zh_toc = root / ZH / "_toc.yml"
    if not zh_toc.is_file() or zh_toc.read_text(encoding="utf-8") != toc:
        if write:
            zh_toc.parent.mkdir(parents=True, exist_ok=True)
            zh_toc.write_text(toc, encoding="utf-8")
            report.changed.append(f"{ZH}/_toc.yml")
        else:
            report.fail(f"{ZH}/_toc.yml does not mirror _toc.yml (run python scripts/sync_zh.py)")
    for page in pages(root):
        if english_source(root, page) is None:
            report.fail(f"_toc.yml lists {page}, which has no .ipynb or .md")
            continue
        status = check_page(root, page, report, write)
        if status == "notebook":
            counts = check_chapter(root, page, report, write, (accept or {}).get(f"{ZH}/{page}.ipynb"))
            check_sentences(root, page, report)
            summary[page] = counts
        else:
            summary[page] = status
    check_guide(root, report, write)
    return report, summary


def parse_accept(items: list[str]) -> dict[str, set[str]]:
    accept: dict[str, set[str]] = {}
    for item in items:
        path, _, cid = item.partition("#")
        path = Path(path).as_posix().removeprefix("./")
        accept.setdefault(path, set())
        if cid:
            accept[path].add(cid)
    return accept


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 on drift (CI)")
    parser.add_argument("--accept", nargs="+", metavar="ZH_PAGE[#CELL_ID]", default=[],
                        help="record the current English as what these updated translations translate")
    parser.add_argument("--start", nargs="+", metavar="ENGLISH_PAGE", default=[],
                        help="begin translating these pages (notebooks/NN.ipynb, or a page such as book/setup.md)")
    parser.add_argument("--root", default=str(ROOT), help=argparse.SUPPRESS)
    parser.add_argument("--quiet", action="store_true", help="no notes, only failures and the summary")
    args = parser.parse_args(argv)
    root = Path(args.root).resolve()
    for item in args.start:
        page = Path(item).with_suffix("").as_posix()
        made = start_chapter(root, page) if item.endswith(".ipynb") else start_page(root, page)
        print(f"started {made.relative_to(root)}: translate its prose, then run python scripts/sync_zh.py")
    accept = parse_accept(args.accept)
    for path in [p for p in accept if p.endswith(".md")]:
        accept_page(root, path.removeprefix(f"{ZH}/").removesuffix(".md"))
        print(f"accepted {path}")
    report, summary = sync(root, write=not args.check, accept=accept)
    if not args.check and args.start:
        subprocess.run([sys.executable, str(root / "scripts" / "sync_repo_url.py")], check=False)
    if not args.quiet:
        for line in report.notes:
            print(f"note: {line}")
    for line in report.changed:
        print(f"updated: {line}")
    for line in report.failures:
        print(f"DRIFT: {line}" if args.check else f"problem: {line}")
    chapters = {p: c for p, c in summary.items() if isinstance(c, dict)}
    done = sum(1 for p, s in summary.items() if s in ("translated", "own") or
               (isinstance(s, dict) and not s.get("todo") and not s.get("stale")))
    print(f"zh: {done} of {len(summary)} pages translated; " + ", ".join(
        f"{Path(p).name}: {c['translated']} prose cells translated, {c['todo']} to do" for p, c in chapters.items())
          + f"; {len(report.failures)} problem(s)")
    return 1 if report.failures else 0


if __name__ == "__main__":
    sys.exit(main())
