"""The student edition removes every solution, and runs up to its first stub."""

import json
import re
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
from make_student import studentise  # noqa: E402

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


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
def test_no_solution_survives(path):
    original = json.loads(path.read_text())
    student = studentise(original)
    dump = json.dumps(student)
    whole = "\n".join("".join(c["source"]) for c in student["cells"])
    assert "{solution" not in whole
    leaked = [line for line in solution_lines(original) if line in whole]
    assert not leaked, f"solution lines survived: {leaked[:3]}"
    stubs = [c for c in student["cells"] if "exercise" in c["metadata"].get("tags", [])]
    assert len(stubs) == sum("solution" in c.get("metadata", {}).get("tags", []) for c in original["cells"]) >= 3
    for stub in stubs:
        assert re.search(r"raise NotImplementedError\('ch\d\d-ex\d+: ", "".join(stub["source"]))
    assert '"outputs": []' in dump and original["cells"] != student["cells"]


def test_studentise_handles_plain_solution_blocks_and_keeps_hints():
    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("```{exercise} E\n:label: ch99-ex1\n\nDo it.\n```\n\n"
                                      "```{solution} ch99-ex1\n:class: dropdown\n\nThe answer is 42.\n```"),
        nbformat.v4.new_markdown_cell("```{solution-start} ch99-ex1\n:class: dropdown\n```"),
        nbformat.v4.new_code_cell("# Hint: six times seven\nanswer = 6 * 7", metadata={"tags": ["solution"]}),
        nbformat.v4.new_markdown_cell("```{solution-end}\n```"),
    ])
    student = studentise(json.loads(nbformat.writes(notebook)))
    assert len(student["cells"]) == 2
    assert "42" not in student["cells"][0]["source"] and "Do it." in student["cells"][0]["source"]
    assert "six times seven" in student["cells"][1]["source"] and "6 * 7" not in student["cells"][1]["source"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_student_notebook_runs_up_to_its_first_stub(path, monkeypatch):
    monkeypatch.setenv("SEQVIZ_QUICK", "1")
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    student = studentise(json.loads(path.read_text()))
    first = next(i for i, c in enumerate(student["cells"]) if "exercise" in c["metadata"].get("tags", []))
    student["cells"] = student["cells"][: first + 1]  # what follows the first stub cannot run anyway
    notebook = nbformat.reads(json.dumps(student), as_version=4)
    client = NotebookClient(notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}})
    with pytest.raises(CellExecutionError) as error:
        client.execute()
    assert "NotImplementedError" in str(error.value)
    failed = [i for i, c in enumerate(notebook.cells) if c.cell_type == "code"
              and any(o.get("output_type") == "error" for o in c.get("outputs", []))]
    assert failed == [first], f"errors in cells {failed}, expected only the stub at {first}"
