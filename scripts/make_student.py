"""Release the exercises with nbgrader: the student edition and the instructor's course folder.

One source: the chapter notebooks in ``notebooks/``. For each chapter this script

1. writes nbgrader's *source* notebook, ``course/source/chNN/<name>.ipynb``: every code cell
   tagged ``solution`` becomes an nbgrader solution cell (``answer = None`` stubs, the solution
   between ``### BEGIN SOLUTION`` and ``### END SOLUTION``), the ``{solution}`` directives leave
   the text, and after every ``check(...)`` cell comes a locked nbgrader *grade* cell that holds the
   exercise's points and only a comment (the hidden tests never enter a notebook: ``make grade`` runs them
   in its own process, ``instructor/grader``);
2. runs ``nbgrader generate_assignment chNN`` (solutions removed, checksums and points recorded in
   ``course/gradebook.db``);
3. copies the released notebooks to ``student/notebooks/``: the student edition (the Chinese edition's chapters,
   ``zh/notebooks/``, to ``student/zh/notebooks/``, as the assignments ``chNN_zh``).

The course folder also gets the instructor's material (``course/instructor/``: reference answers, hidden
tests, the grader), ``course/nbgrader_config.py`` (the course id and exchange, so that nbgrader's commands work
from ``course/`` as printed in the guide) and ``course/variant.json`` (the class variant: ``--variant NAME``
draws other hidden cases for every student; kept from one run to the next unless given).

A student edition run top to bottom prints "No answer yet ..." at every exercise and no
traceback: each stub leaves ``answer`` (and ``follow_up``) defined as ``None``.

Usage: ``python scripts/make_student.py [--out student] [--course course] [notebooks ...]``
(``make student``). ``scripts/grade.py`` grades submissions against ``course/``.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import re
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # the instructor's material (instructor/), beside the package
FENCE = r"(?P<fence>`{3,}|~{3,}|:{3,})"
SOLUTION_BLOCK = re.compile(FENCE + r"\{solution\}[^\n]*\n.*?^(?P=fence)[ \t]*$\n?", re.DOTALL | re.MULTILINE)
GATE = re.compile(FENCE + r"\{solution-(?P<kind>start|end)\}[ \t]*(?P<label>[^\n]*)\n.*?^(?P=fence)[ \t]*$\n?",
                  re.DOTALL | re.MULTILINE)
HINT = re.compile(r"^\s*#\s*Hint:\s*(?P<hint>.+)$", re.IGNORECASE)
CHECK_CALL = re.compile(r"""check\(\s*["'](?P<key>ch\d+[a-z]?[.\-]ex\d+[a-z]?)["']\s*,\s*(?P<name>[A-Za-z_]\w*)\s*\)""")
ASSIGNED = re.compile(r"^(?P<name>answer|follow_up)\s*=", re.MULTILINE)
COURSE_ID = "seqviz"
CODE_STUB = "# your code here"
GRADE_HEADER = ("# Grading cell for {key} ({points} pt): make grade reads your answer `{name}` after the check "
                "cell above; this cell does nothing.")
NBGRADER_CONFIG = """# The nbgrader course of the book (written by make student; book/instructors.md).
# Run nbgrader from this folder.
import os

from nbgrader.preprocessors import NbGraderPreprocessor

c = get_config()  # noqa: F821 - nbgrader's configuration object
c.CourseDirectory.course_id = "{course_id}"
c.CourseDirectory.root = os.path.dirname(os.path.abspath(__file__))
# nbgrader's exchange (release_assignment, collect, release_feedback). On a JupyterHub, point this (and the
# students' own nbgrader_config.py) at the shared exchange, e.g. "/srv/nbgrader/exchange".
c.Exchange.root = os.path.join(c.CourseDirectory.root, "exchange")
c.ClearSolutions.code_stub = {{"python": "{code_stub}"}}


class GradedByMakeGrade(NbGraderPreprocessor):  # nbgrader's base: enabled when registered
    \"\"\"nbgrader autograde and generate_feedback would score what the student's own kernel prints: refused.\"\"\"

    def preprocess(self, nb, resources):
        raise RuntimeError("this course is graded by `make grade SUBMISSIONS=course/submitted ASSIGNMENT=...` "
                           "from the book's folder (book/instructors.md), which also writes the feedback pages "
                           "that nbgrader release_feedback sends; nbgrader autograde and generate_feedback are "
                           "switched off here")


c.Autograde.autograde_preprocessors = [GradedByMakeGrade]
c.GenerateFeedback.preprocessors = [GradedByMakeGrade]
"""


def source(cell) -> str:
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def is_chinese(path: Path) -> bool:
    """A chapter of the Chinese edition (zh/notebooks/NN_title.ipynb, scripts/sync_zh.py)."""
    return path.resolve().parent.parent.name == "zh" and path.parent.name == "notebooks"


def assignment_id(path: Path) -> str:
    """'ch02' for notebooks/02_sticky_note.ipynb, 'ch04b' for notebooks/04b_language_models.ipynb, 'ch01_zh' for
    the Chinese edition's zh/notebooks/01_why_order_matters.ipynb (its own nbgrader assignment: the same
    exercises and check cells, the text in Chinese)."""
    match = re.match(r"(\d+)([a-z]?)_", path.name)
    if not match:
        raise ValueError(f"a chapter notebook is named NN_title.ipynb, got {path.name}")
    return f"ch{int(match[1]):02d}{match[2]}" + ("_zh" if is_chinese(path) else "")


def nbgrader_meta(grade_id: str, *, solution: bool, grade: bool, points: int = 0) -> dict:
    meta = {"grade": grade, "grade_id": grade_id, "locked": not solution, "schema_version": 3,
            "solution": solution, "task": False}
    if grade:
        meta["points"] = points
    return meta


def solution_cell(text: str, label: str, names: list[str], index: int) -> tuple[str, dict]:
    """The nbgrader source of one solution cell: header, hint, ``name = None`` stubs, the fenced solution."""
    lines = text.splitlines()
    hints = []
    while lines and HINT.match(lines[0]):
        hints.append(lines.pop(0))
    names = names or ["answer"]
    header = [f"# Exercise {label or 'of this chapter'}: write your code below, then set "
              + " and ".join(f"`{n}`" for n in names) + "."]
    stubs = [f"{name} = None" for name in names]
    body = "\n".join(header + hints + stubs + ["### BEGIN SOLUTION", *lines, "### END SOLUTION"])
    grade_id = f"{label or 'exercise'}-answer" + (f"-{index + 1}" if index else "")
    return body, nbgrader_meta(grade_id, solution=True, grade=False)


def grade_cells(check_text: str) -> list[dict]:
    """One locked grade cell (its points, a comment) per ``check(...)`` call in a check cell."""
    from seqviz.exercises import normalise_id

    from instructor.grader.judge import points

    cells = []
    for call in CHECK_CALL.finditer(check_text):
        key = normalise_id(call["key"])
        text = GRADE_HEADER.format(key=key, points=f"{points(key):g}", name=call["name"])
        grade_id = key.replace(".", "-") + "-tests"  # nbgrader ids: letters, digits, - and _
        cells.append({"cell_type": "code", "execution_count": None, "id": grade_id, "outputs": [], "source": text,
                      "metadata": {"tags": ["grading"],
                                   "nbgrader": nbgrader_meta(grade_id, solution=False, grade=True,
                                                             points=points(key))}})
    return cells


def nbgrader_source(notebook: dict) -> dict:
    """nbgrader's source notebook made from a chapter notebook (the input is not changed)."""
    notebook = json.loads(json.dumps(notebook))
    cells, label, per_label = [], "", {}
    for cell in notebook["cells"]:
        text = source(cell)
        if cell["cell_type"] == "markdown":
            for gate in GATE.finditer(text):
                if gate["kind"] == "start":
                    label = gate["label"].strip()
            text = GATE.sub("", SOLUTION_BLOCK.sub("", text)).strip()
            if not text:
                continue
            cell["source"] = text
        elif cell["cell_type"] == "code":
            cell["outputs"], cell["execution_count"] = [], None
            tags = cell.get("metadata", {}).get("tags", [])
            if "solution" in tags:
                names = list(dict.fromkeys(m["name"] for m in ASSIGNED.finditer(text)))
                index = per_label.get(label, 0)
                per_label[label] = index + 1
                cell["source"], meta = solution_cell(text, label, names, index)
                cell["metadata"]["nbgrader"] = meta
                cell["metadata"]["tags"] = [t for t in tags if t != "solution"] + ["exercise"]
            elif CHECK_CALL.search(text):
                cells.append(cell)
                cells.extend(grade_cells(text))
                continue
        cells.append(cell)
    notebook["cells"] = cells
    return notebook


def nbgrader_api(course: Path):
    """nbgrader's Python API on the course folder ``course`` (quiet, offline)."""
    from nbgrader.apps import NbGraderAPI
    from traitlets.config import Config

    # nbgrader runs the `alembic` command (installed beside this Python) when it creates a gradebook
    bin_dir = str(Path(sys.executable).parent)
    if bin_dir not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = bin_dir + os.pathsep + os.environ.get("PATH", "")
    config = Config()
    config.CourseDirectory.root = str(course)
    config.CourseDirectory.course_id = COURSE_ID
    config.ClearSolutions.code_stub = {"python": CODE_STUB}
    config.Exchange.root = str(course / "exchange")
    logging.getLogger("traitlets").setLevel(logging.ERROR)
    return NbGraderAPI(config=config)


def write_course_files(course: Path, variant: str | None):
    """The instructor's material, nbgrader's configuration and the class variant, in the course folder."""
    course.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(course / "instructor", ignore_errors=True)
    shutil.copytree(ROOT / "instructor", course / "instructor", ignore=shutil.ignore_patterns("__pycache__"))
    (course / "nbgrader_config.py").write_text(NBGRADER_CONFIG.format(course_id=COURSE_ID, code_stub=CODE_STUB))
    path = course / "variant.json"
    if variant is not None or not path.exists():
        name = variant or "book"
        path.write_text(json.dumps({"name": name, "seed": name}) + "\n")


def release(paths: list[Path], out: Path, course: Path, variant: str | None = None) -> dict[str, Path]:
    """Write the course folder and the student edition; return {assignment id: released notebook}."""
    write_course_files(course, variant)
    api = nbgrader_api(course)
    released = {}
    for path in paths:
        folder = out / "zh" / "notebooks" if is_chinese(path) else out / "notebooks"  # the Chinese edition apart
        folder.mkdir(parents=True, exist_ok=True)
        assignment = assignment_id(path)
        src = course / "source" / assignment
        shutil.rmtree(src, ignore_errors=True)
        src.mkdir(parents=True)
        (src / path.name).write_text(json.dumps(nbgrader_source(json.loads(path.read_text())), indent=1,
                                                ensure_ascii=False) + "\n")
        result = api.generate_assignment(assignment, force=True, create=True)
        if not result["success"]:
            raise RuntimeError(f"nbgrader generate_assignment {assignment} failed:\n{result['log']}\n{result['error']}")
        student = course / "release" / assignment / path.name
        shutil.copy(student, folder / path.name)
        released[assignment] = folder / path.name
    return released


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=str(ROOT / "student"), help="student edition folder (default: student/)")
    parser.add_argument("--course", default=str(ROOT / "course"), help="nbgrader course folder (default: course/)")
    parser.add_argument("--variant", default=None, help="the class variant (other hidden cases); kept if not given")
    parser.add_argument("notebooks", nargs="*",
                        help="chapter notebooks (default: notebooks/*.ipynb and the Chinese zh/notebooks/*.ipynb)")
    args = parser.parse_args(argv)
    paths = [Path(p) for p in args.notebooks] or (sorted((ROOT / "notebooks").glob("*.ipynb"))
                                                   + sorted((ROOT / "zh" / "notebooks").glob("*.ipynb")))
    released = release(paths, Path(args.out), Path(args.course), args.variant)
    for assignment, path in released.items():
        cells = json.loads(path.read_text())["cells"]
        stubs = sum("exercise" in c["metadata"].get("tags", []) for c in cells)
        graded = sum(c["metadata"].get("nbgrader", {}).get("points", 0) for c in cells)
        print(f"{path}: {assignment}, {stubs} exercise stub(s), {graded:g} points")
    print(f"course (private: source, release, gradebook.db, instructor/, nbgrader_config.py): {args.course}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
