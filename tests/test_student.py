"""The student edition (make student, through nbgrader's generate_assignment): no solution and no hidden test
survives; the course folder gets the instructor's material and nbgrader's configuration; and every chapter's
student edition runs wherever the chapter runs.

That last point is proven without executing the student editions (``make notebooks`` already runs every chapter,
and no notebook runs twice in one ``make test``): a student edition is its chapter with each solution replaced
by a stub that sets ``answer = None``; it runs top to bottom wherever its chapter does unless a later cell reads a
name that only a solution defines or changes (checked here, cell by cell, on the code), and each check cell then
prints "No answer yet" (``check(key, None)``, checked for every exercise in ``tests/test_exercises.py``). The
grading tests run real student editions (of small chapter copies) in kernels.
"""

import ast
import json
import re
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
from make_student import CHECK_CALL, assignment_id, nbgrader_source, release  # noqa: E402

from seqviz.exercises import run_checker  # noqa: E402

pytestmark = pytest.mark.integration
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


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
    assert "grade_cell" not in whole and "instructor" not in whole, "grading code reached the student edition"
    leaked = [line for line in solution_lines(original) if line in whole]
    assert not leaked, f"solution lines survived: {leaked[:3]}"
    stubs = [c for c in student["cells"] if "exercise" in c["metadata"].get("tags", [])]
    assert len(stubs) == sum("solution" in c.get("metadata", {}).get("tags", []) for c in original["cells"]) >= 3
    for stub in stubs:
        assert re.match(r"# Exercise ch\d\d[a-z]?-ex\d+: ", "".join(stub["source"]))
        assert "answer = None" in "".join(stub["source"])
    graded = [c for c in student["cells"] if c["metadata"].get("nbgrader", {}).get("grade")]
    checks = [call for c in student["cells"] for call in CHECK_CALL.finditer("".join(c["source"]))]
    assert len(graded) == len(checks) >= 3, "one grading cell (its points) per check() call"
    assert all(c["outputs"] == [] for c in student["cells"] if c["cell_type"] == "code")


def test_the_course_folder_holds_the_instructors_material_and_nbgraders_configuration(released):
    _, course = released
    assert (course / "instructor" / "exercises" / "ch03.py").exists()
    assert (course / "instructor" / "grader" / "evaluator.py").exists()
    config = (course / "nbgrader_config.py").read_text()
    assert 'course_id = "seqviz"' in config and "Exchange.root" in config
    assert json.loads((course / "variant.json").read_text())["name"] == "book"


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
    assert "follow_up" in "".join(grading[1]["source"]) and "HIDDEN" not in "".join(grading[1]["source"])


# -- the student edition runs wherever its chapter runs ------------------------------------------------------


def _code(cell) -> str:
    """A cell's code with IPython's line magics and shell escapes blanked (so that ``ast`` can read it)."""
    return "\n".join("" if line.lstrip().startswith(("%", "!")) else line
                     for line in "".join(cell["source"]).splitlines())


def defined_and_changed(tree) -> tuple[set, set, set]:
    """(names bound, names whose object is changed in place, names read) by a cell's code."""
    bound, changed, read = set(), set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (bound if isinstance(node.ctx, (ast.Store, ast.Del)) else read).add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(node.ctx, ast.Store):
            base = node.value
            while isinstance(base, (ast.Attribute, ast.Subscript)):
                base = base.value
            if isinstance(base, ast.Name):
                changed.add(base.id)
    return bound, changed, read


def names_only_solutions_provide(notebook: dict) -> list[str]:
    """Cells that read a name which, in the student edition, only a solution would have bound or changed."""
    from_solutions, seen_elsewhere, problems = set(), set(), []
    for index, cell in enumerate(notebook["cells"]):
        if cell["cell_type"] != "code":
            continue
        tree = ast.parse(_code(cell))
        bound, changed, read = defined_and_changed(tree)
        if "solution" in cell.get("metadata", {}).get("tags", []):
            from_solutions |= (bound | changed) - {"answer", "follow_up"}  # the stubs set these two
            seen_elsewhere -= changed  # an object a solution changes in place is not the one the chapter made
            continue
        missing = (read & from_solutions) - seen_elsewhere
        if missing:
            problems.append(f"cell {index + 1} reads {sorted(missing)}, which only a solution provides")
        seen_elsewhere |= bound
        from_solutions -= bound
    return problems


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_no_later_cell_needs_what_only_a_solution_provides(path):
    assert names_only_solutions_provide(json.loads(path.read_text())) == []


def test_the_dependency_check_finds_a_cell_that_needs_a_solution():
    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("import torch\nmodel = torch.nn.Linear(2, 2)"),
        nbformat.v4.new_code_cell("def helper(x):\n    return x\nmodel.weight.data[:] = 0\nanswer = helper",
                                  metadata={"tags": ["solution"]}),
        nbformat.v4.new_code_cell('check("ch99.ex1", answer)'),
        nbformat.v4.new_code_cell("print(helper(model))"),
    ])
    problems = names_only_solutions_provide(json.loads(nbformat.writes(notebook)))
    assert problems == ["cell 4 reads ['helper', 'model'], which only a solution provides"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_every_check_cell_of_the_student_edition_says_no_answer_yet(path, released):
    notebooks, _ = released
    student = json.loads(notebooks[assignment_id(path)].read_text())
    for cell in student["cells"]:
        for call in CHECK_CALL.finditer("".join(cell["source"])) if cell["cell_type"] == "code" else ():
            stub = [c for c in student["cells"] if f"{call['name']} = None" in "".join(c["source"])]
            assert stub, f"{path.name}: nothing sets {call['name']} = None before {call[0]}"
            ok, message = run_checker(call["key"].replace("-", "."), None)
            assert not ok and message.startswith("No answer yet")
