"""The student edition (make student, through nbgrader's generate_assignment): no solution and no hidden
test survives, and every chapter runs top to bottom with "No answer yet" at each exercise and no traceback."""

import json
import os
import re
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
from make_student import CHECK_CALL, assignment_id, nbgrader_source, release  # noqa: E402

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
WITHOUT_EXERCISES_YET = {"09b_why_transformers_won"}  # its exercises come in a later round


@pytest.fixture(scope="module")
def released(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("release")
    return release(NOTEBOOKS, tmp / "student", tmp / "course"), tmp / "course"


def solution_lines(notebook):
    """Distinctive code lines of the solutions: not comments, not found outside solutions."""
    outside = "\n".join("".join(c["source"]) for c in notebook["cells"]
                        if "solution" not in c.get("metadata", {}).get("tags", []))
    lines = set()
    for cell in notebook["cells"]:
        if "solution" in cell.get("metadata", {}).get("tags", []):
            for line in "".join(cell["source"]).splitlines():
                line = line.strip()
                if len(line) >= 8 and not line.startswith("#") and line not in outside:
                    lines.add(line)
    return lines


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_no_solution_or_hidden_test_survives(path, released):
    notebooks, course = released
    original = json.loads(path.read_text())
    student = json.loads(notebooks[assignment_id(path)].read_text())
    whole = "\n".join("".join(c["source"]) for c in student["cells"])
    assert "{solution" not in whole and "BEGIN SOLUTION" not in whole and "HIDDEN TESTS" not in whole
    assert "grade_cell" not in whole, "the hidden tests reached the student edition"
    leaked = [line for line in solution_lines(original) if line in whole]
    assert not leaked, f"solution lines survived: {leaked[:3]}"
    stubs = [c for c in student["cells"] if "exercise" in c["metadata"].get("tags", [])]
    if path.stem in WITHOUT_EXERCISES_YET:  # released as it is: nothing to stub, nothing to grade
        assert not stubs and not any(c["metadata"].get("nbgrader", {}).get("grade") for c in student["cells"])
        return
    assert len(stubs) == sum("solution" in c.get("metadata", {}).get("tags", []) for c in original["cells"]) >= 3
    for stub in stubs:
        assert re.match(r"# Exercise ch\d\d[a-z]?-ex\d+: ", "".join(stub["source"]))
        assert "answer = None" in "".join(stub["source"])
    graded = [c for c in student["cells"] if c["metadata"].get("nbgrader", {}).get("grade")]
    checks = [call for c in student["cells"] for call in CHECK_CALL.finditer("".join(c["source"]))]
    assert len(graded) == len(checks) >= 3, "one grading cell per check() call"
    assert all(c["outputs"] == [] for c in student["cells"] if c["cell_type"] == "code")
    source = json.loads((course / "source" / assignment_id(path) / path.name).read_text())
    assert sum("### BEGIN HIDDEN TESTS" in "".join(c["source"]) for c in source["cells"]) == len(checks)


def test_nbgrader_source_keeps_hints_and_fences_the_solution():
    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("```{exercise} E\n:label: ch99-ex1\n\nDo it.\n```\n\n"
                                      "```{solution} ch99-ex1\n:class: dropdown\n\nThe answer is 42.\n```"),
        nbformat.v4.new_markdown_cell("```{solution-start} ch99-ex1\n:class: dropdown\n```"),
        nbformat.v4.new_code_cell("# Hint: six times seven\nanswer = 6 * 7\nfollow_up = 1",
                                  metadata={"tags": ["solution"]}),
        nbformat.v4.new_markdown_cell("```{solution-end}\n```"),
        nbformat.v4.new_code_cell('check("ch99.ex1", answer)\ncheck("ch99.ex1b", follow_up)'),
    ])
    source = nbgrader_source(json.loads(nbformat.writes(notebook)))
    texts = ["".join(c["source"]) for c in source["cells"]]
    assert "42" not in texts[0] and "Do it." in texts[0]
    assert texts[1].splitlines()[:4] == ["# Exercise ch99-ex1: write your code below, then set `answer` and "
                                         "`follow_up`.", "# Hint: six times seven", "answer = None",
                                         "follow_up = None"]
    assert "### BEGIN SOLUTION\nanswer = 6 * 7\nfollow_up = 1\n### END SOLUTION" in texts[1]
    assert source["cells"][1]["metadata"]["nbgrader"]["solution"] is True
    grading = source["cells"][3:]
    assert [c["metadata"]["nbgrader"]["grade_id"] for c in grading] == ["ch99-ex1-tests", "ch99-ex1b-tests"]
    assert [c["metadata"]["nbgrader"]["points"] for c in grading] == [2, 1]
    assert '_grade_cell("ch99.ex1b", globals().get("follow_up"))' in "".join(grading[1]["source"])


def run_student_edition(path: Path):
    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(notebook, timeout=600, kernel_name="python3", allow_errors=True,
                            resources={"metadata": {"path": str(ROOT / "notebooks")}})
    client.execute()
    return notebook


def test_student_editions_run_top_to_bottom_with_feedback_and_no_traceback(released, monkeypatch):
    monkeypatch.setenv("SEQVIZ_QUICK", "1")
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    notebooks, _ = released
    paths = [notebooks[k] for k in sorted(notebooks)]
    with ThreadPoolExecutor(max_workers=max(1, min(2, os.cpu_count() or 1))) as pool:  # each kernel: one thread
        executed = dict(zip(paths, pool.map(run_student_edition, paths)))
    for path, notebook in executed.items():
        errors = [(i, o["ename"], o["evalue"]) for i, c in enumerate(notebook.cells) if c.cell_type == "code"
                  for o in c.outputs if o["output_type"] == "error"]
        assert not errors, f"{path.name}: tracebacks {errors[:3]}"
        for cell in notebook.cells:
            calls = list(CHECK_CALL.finditer(cell.source)) if cell.cell_type == "code" else []
            if calls:
                text = "".join(o.get("text", "") for o in cell.outputs if o["output_type"] == "stream")
                assert text.count("No answer yet") == len(calls), f"{path.name}: {cell.source!r} printed {text!r}"
