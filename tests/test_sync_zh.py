"""scripts/sync_zh.py: the Chinese edition follows the English one, and says exactly where it no longer does.

On this repository the check passes. On a copy, each kind of drift fails the check, naming the chapter and the cell:
a changed English prose cell (with the English diff), a changed code cell, a lost glued value, a changed ``say``
sentence (with the nearest entry); a new English cell is reported and lands as a ``todo`` cell, shown in English
under a notice; ``--accept`` records an updated translation; an English page that changed fails too.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("sync_zh", ROOT / "scripts" / "sync_zh.py")
sync_zh = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sync_zh)
CHAPTER = "notebooks/01_why_order_matters"


def test_the_chinese_edition_is_in_step_with_the_english():
    report, summary = sync_zh.sync(ROOT)
    assert report.failures == [], "\n".join(report.failures)
    assert summary[CHAPTER]["translated"] > 0 and summary["book/intro"] == "translated"
    assert set(summary) == set(sync_zh.pages(ROOT)), "every English page has its Chinese page"


@pytest.fixture
def copy(tmp_path):
    for path in ("_toc.yml", f"{CHAPTER}.ipynb", "zh", "book", "seqviz/i18n/zh"):
        source, target = ROOT / path, tmp_path / path
        target.parent.mkdir(parents=True, exist_ok=True)
        (shutil.copytree if source.is_dir() else shutil.copy)(source, target)
    for page in sync_zh.pages(ROOT):  # the other chapters' English, for their notice pages
        if not (tmp_path / f"{page}.ipynb").exists() and (ROOT / f"{page}.ipynb").exists():
            shutil.copy(ROOT / f"{page}.ipynb", tmp_path / f"{page}.ipynb")
    return tmp_path


def _edit(root: Path, index_of, change):
    path = root / f"{CHAPTER}.ipynb"
    notebook = json.loads(path.read_text(encoding="utf-8"))
    cell = notebook["cells"][index_of(notebook["cells"])]
    change(notebook, cell)
    path.write_text(json.dumps(notebook, indent=1, ensure_ascii=False), encoding="utf-8")
    return cell


def _failures(root: Path) -> str:
    report, _ = sync_zh.sync(root)
    return "\n".join(report.failures)


def _prose(cells):
    return next(i for i, c in enumerate(cells) if c["cell_type"] == "markdown" and "## 1.3" in "".join(c["source"]))


def test_a_changed_english_prose_cell_fails_with_its_diff(copy):
    assert _failures(copy) == ""
    cell = _edit(copy, _prose, lambda nb, c: c.update(source="".join(c["source"]).replace(
        "so the sentences vary", "so the sentences differ")))
    failures = _failures(copy)
    assert f"zh/{CHAPTER}.ipynb, cell" in failures and f"(id {cell['id']})" in failures
    assert "changed since it was translated" in failures
    assert "-" in failures and "so the sentences differ" in failures  # the English diff, new line
    assert failures.count("changed since it was translated") == 1  # exactly the cell that changed
    report, _ = sync_zh.sync(copy, write=True, accept={f"zh/{CHAPTER}.ipynb": {cell["id"]}})
    assert _failures(copy) == ""  # --accept: the translation now follows the new English


def test_a_changed_code_cell_fails_and_the_write_run_restores_it(copy):
    zh = copy / "zh" / f"{CHAPTER}.ipynb"
    notebook = json.loads(zh.read_text(encoding="utf-8"))
    code = [c for c in notebook["cells"] if c["cell_type"] == "code"]
    code[3]["source"] = "".join(code[3]["source"]) + "\nN_TEST = 10  # a translator's edit\n"
    zh.write_text(json.dumps(notebook, indent=1, ensure_ascii=False), encoding="utf-8")
    failures = _failures(copy)
    assert f"(id {code[3]['id']}): this code cell differs from the English one" in failures
    sync_zh.sync(copy, write=True)
    assert _failures(copy) == ""


def test_changed_notebook_metadata_fails_and_the_write_run_copies_it(copy):
    _edit(copy, lambda cells: 0, lambda nb, c: nb["metadata"].update(seqviz={"run_alone": "it times every core"}))
    assert "its notebook metadata differ from the English chapter's" in _failures(copy)
    sync_zh.sync(copy, write=True)
    assert _failures(copy) == ""
    zh = json.loads((copy / "zh" / f"{CHAPTER}.ipynb").read_text(encoding="utf-8"))
    assert zh["metadata"]["seqviz"] == {"run_alone": "it times every core"}


def test_the_imports_cell_differs_by_one_line_only(copy):
    english = json.loads((copy / f"{CHAPTER}.ipynb").read_text(encoding="utf-8"))["cells"]
    chinese = json.loads((copy / "zh" / f"{CHAPTER}.ipynb").read_text(encoding="utf-8"))["cells"]
    i = sync_zh.imports_cell(english)
    en, zh = "".join(english[i]["source"]).splitlines(), "".join(chinese[i]["source"]).splitlines()
    assert [line for line in zh if line not in en] == [sync_zh.IMPORT_LINE]
    assert [line for line in zh if line != sync_zh.IMPORT_LINE] == en


def test_a_new_english_cell_is_reported_and_lands_as_todo(copy):
    def add(notebook, cell):
        notebook["cells"].insert(notebook["cells"].index(cell) + 1, {
            "cell_type": "markdown", "id": "newcell1", "metadata": {}, "source": ["A new paragraph.\n"]})

    _edit(copy, _prose, add)
    assert "newcell1" in _failures(copy)  # until the write run puts it in
    report, summary = sync_zh.sync(copy, write=True)
    report, summary = sync_zh.sync(copy)
    assert report.failures == [] and summary[CHAPTER]["todo"] == 1
    assert any("newcell1" in note and "not yet translated" in note for note in report.notes)
    cell = next(c for c in json.loads((copy / "zh" / f"{CHAPTER}.ipynb").read_text())["cells"] if c["id"] == "newcell1")
    assert sync_zh.TODO_CLASS in "".join(cell["source"]) and "A new paragraph." in "".join(cell["source"])
    cell_text = "新的一段。"  # the translator writes it; the write run marks it translated
    path = copy / "zh" / f"{CHAPTER}.ipynb"
    notebook = json.loads(path.read_text())
    next(c for c in notebook["cells"] if c["id"] == "newcell1")["source"] = [cell_text]
    path.write_text(json.dumps(notebook, ensure_ascii=False))
    sync_zh.sync(copy, write=True)
    report, summary = sync_zh.sync(copy)
    assert report.failures == [] and summary[CHAPTER]["todo"] == 0


def test_a_lost_glued_value_fails(copy):
    path = copy / "zh" / f"{CHAPTER}.ipynb"
    notebook = json.loads(path.read_text())
    cell = next(c for c in notebook["cells"] if "{glue:text}`acc_rnn" in "".join(c["source"]))
    cell["source"] = "".join(cell["source"]).replace("{glue:text}`acc_rnn:.1%`", "99%")
    path.write_text(json.dumps(notebook, ensure_ascii=False))
    assert "glued values differ from the English (missing acc_rnn)" in _failures(copy)


def test_a_changed_say_sentence_names_the_nearest_entry(copy):
    catalogue = copy / "seqviz" / "i18n" / "zh" / "ch01.json"
    entries = json.loads(catalogue.read_text())
    entries["Old {k} sentence about the doer in {n} sentences, both passive ones included"] = "旧句子 {k} {n}"
    catalogue.write_text(json.dumps(entries, ensure_ascii=False))

    def add_say(notebook, cell):
        cell["source"] = "".join(cell["source"]) + '\nsv.book.say("x", "a", {"a": "New {k} sentence about the doer in {n} sentences, both passive ones included"}, k=1, n=2)\n'

    _edit(copy, lambda cells: max(i for i, c in enumerate(cells) if c["cell_type"] == "code"), add_say)
    sync_zh.sync(copy, write=True)  # the code cell follows; the sentence has no Chinese yet
    failures = _failures(copy)
    assert "the computed sentence 'New {k} sentence" in failures and "has no Chinese" in failures
    assert "nearest entry (ch01.json)" in failures and "Old {k} sentence" in failures


def test_a_changed_english_page_fails(copy):
    intro = copy / "book" / "intro.md"
    intro.write_text(intro.read_text() + "\nOne more line.\n")
    failures = _failures(copy)
    assert "zh/book/intro.md: the English page book/intro.md changed since it was translated" in failures
    sync_zh.accept_page(copy, "book/intro")
    assert _failures(copy) == ""


def test_the_toc_mirrors_the_english_and_untranslated_pages_are_notices(copy):
    _, en_parts = sync_zh.toc_parts(copy / "_toc.yml")
    _, zh_parts = sync_zh.toc_parts(copy / "zh" / "_toc.yml")
    assert [files for _, files in en_parts] == [files for _, files in zh_parts]
    assert all(caption and "待译" not in caption for caption, _ in zh_parts)
    # every chapter is translated now: a page without its Chinese gets a notice page from the write run
    (copy / "zh" / "notebooks" / "10_choosing_a_model.ipynb").unlink()
    assert "10_choosing_a_model.md: the notice page" in _failures(copy)
    sync_zh.sync(copy, write=True)
    notice = (copy / "zh" / "notebooks" / "10_choosing_a_model.md").read_text()
    assert "status: untranslated" in notice and "{zh-untranslated} notebooks/10_choosing_a_model" in notice
    assert _failures(copy) == ""
    (copy / "zh" / "notebooks" / "10_choosing_a_model.md").unlink()
    assert "10_choosing_a_model.md: the notice page" in _failures(copy)


def test_a_started_page_is_english_under_a_notice_until_translated(copy):
    (copy / "zh" / "book" / "setup.md").unlink()
    sync_zh.start_page(copy, "book/setup")
    report, summary = sync_zh.sync(copy)
    assert report.failures == [] and summary["book/setup"] == "todo"
    page = copy / "zh" / "book" / "setup.md"
    assert sync_zh.TODO_CLASS in page.read_text()
    head = page.read_text().split("---\n")[1]
    english = (copy / "book" / "setup.md").read_text()
    page.write_text(f"---\n{head}---\n\n# 运行本书\n\n中文译文。\n")
    assert "translated but still marked todo" in _failures(copy)
    sync_zh.sync(copy, write=True)
    report, summary = sync_zh.sync(copy)
    assert summary["book/setup"] == "translated" and report.failures == [] and english
