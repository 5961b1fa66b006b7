"""Grading with nbgrader, end to end, on a fabricated class (scripts/make_student.py, scripts/grade.py).

One grading run of a small chapter-1 assignment (the chapter's set-up cell and its exercise section)
covers: all correct, all stubs, wrong answers and numpy scalars, NaN, raising answers, a loop that
hits the time limit per cell, a kernel that sleeps forever (time limit per notebook), a submission
that overrides check() and the grading helpers and writes to the gradebook, one that rewrites the
hidden tests, a renamed exercise cell, a notebook saved without nbgrader's metadata, a file that is
not JSON and another chapter's notebook. A second run grades the whole of chapter 1 (a real chapter)
for two students. Time limits scale with how long ``import torch`` takes on this machine.
"""

from __future__ import annotations

import csv
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
import grade  # noqa: E402
from grading_fixtures import fill, mini_chapter, solutions, write  # noqa: E402
from make_student import release  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CH01 = ROOT / "notebooks" / "01_why_order_matters.ipynb"
CH02 = ROOT / "notebooks" / "02_sticky_note.ipynb"


def import_seconds() -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import torch, seqviz.exercises"], check=True, capture_output=True)
    return time.perf_counter() - start


@pytest.fixture(scope="module")
def limits():
    """(seconds per cell, seconds per notebook): generous for the set-up cell, short for the loops."""
    per_cell = max(30, round(8 * import_seconds()))
    return per_cell, 3 * per_cell + 30


def run_grader(submissions, course, out, limits, *extra):
    per_cell, per_notebook = limits
    code = grade.main([str(submissions), "--course", str(course), "--out", str(out), "--jobs", "3",
                       "--cell-timeout", str(per_cell), "--timeout", str(per_notebook), *extra])
    rows = list(csv.DictReader(open(out / "gradebook.csv"))) if (out / "gradebook.csv").exists() else []
    return code, rows


def points(rows, student):
    return {r["exercise"]: float(r["points"]) for r in rows if r["student"] == student}


OVERRIDE_EVERYTHING = """
import seqviz.exercises as ex, seqviz.exercises.registry as reg, seqviz.exercises.grading as gr
def check(*args, **kwargs):
    print("✅ Correct!")
    return True
ex.check = check
reg.run_checker = lambda key, answer: (True, "fine")
gr.grade = lambda *args, **kwargs: (2.0, ["fine"])
gr.grade_cell = lambda *args, **kwargs: 2.0
for exercise in ex.EXERCISES.values():
    exercise.checker = lambda answer: (True, "fine")
_grade_cell = lambda *args, **kwargs: 2.0
# write a forged gradebook where the real one will be, and full marks into nbgrader's database copy
import pathlib, sqlite3
try:
    pathlib.Path({gradebook!r}).write_text("student,assignment,exercise,points,max_points,note\\n"
                                           "mallory,ch01,ch01.ex1,100,2,\\nzed,ch01,ch01.ex1,2,2,\\n")
except OSError as error:
    print("could not write the gradebook:", error)
for db in pathlib.Path.cwd().parents[2].glob("gradebook.db"):
    with sqlite3.connect(db) as con:
        con.execute("update grade set manual_score = 2")
answer = 7
"""

REWRITE_HIDDEN_TESTS = """
import os, pathlib, seqviz.exercises.grading as gr
path = pathlib.Path(gr.__file__)
print(path.read_text()[:200])                     # reading the hidden tests: allowed, and useless
for db in pathlib.Path.cwd().parents[2].glob("gradebook.db"):
    print("database:", db.stat().st_size, "bytes")
try:
    os.chmod(path, 0o644)
    path.write_text("def grade_cell(key, answer):\\n    return 2.0\\n")
    print("rewrote", path)
except OSError as error:
    print("could not rewrite the hidden tests:", error)
answer = 7
"""

SLEEP_FOREVER = """
import signal, time
signal.signal(signal.SIGINT, signal.SIG_IGN)      # the interrupt at the time limit per cell is ignored
while True:
    time.sleep(1)
"""


@pytest.fixture(scope="module")
def graded_class(tmp_path_factory, limits):
    tmp = tmp_path_factory.mktemp("class")
    source = mini_chapter(CH01, tmp / "chapter")
    course = tmp / "course"
    released = json.loads(release([source], tmp / "student", course)["ch01"].read_text())
    right = solutions(CH01)
    assert set(right) == {"ch01-ex1", "ch01-ex2", "ch01-ex3", "ch01-ex4"}
    out = tmp / "grades"
    folder = tmp / "submissions"
    write(fill(released, right), folder / "alice" / "01_why_order_matters.ipynb")
    write(released, folder / "bob.ipynb")
    write(fill(released, {  # numpy scalar right; the character-level bag, NaN and a NaN-returning function wrong
        "ch01-ex1": "import numpy as np\nanswer = np.int64(60)\n",
        "ch01-ex2": "answer = lambda a, b: sorted(a) == sorted(b)\n",
        "ch01-ex3": "answer = lambda kernel_size, num_layers: float('nan')\n",
        "ch01-ex4": "import numpy as np\nanswer = np.float64('nan')\n"}), folder / "carol.ipynb")
    write(fill(released, {**right, "ch01-ex1": "raise RuntimeError('my cell crashes')\n",
                          "ch01-ex2": "def answer(a, b):\n    raise ValueError('my function crashes')\n"}),
          folder / "erin.ipynb")
    write(fill(released, {**right, "ch01-ex3": "import time\nwhile True:\n    time.sleep(1)\n"}),
          folder / "frank.ipynb")
    write(fill(released, {**right, "ch01-ex2": SLEEP_FOREVER}), folder / "gina.ipynb")
    write(fill(released, {"ch01-ex1": OVERRIDE_EVERYTHING.format(gradebook=str(out / "gradebook.csv"))}),
          folder / "mallory.ipynb")
    write(fill(released, {"ch01-ex1": REWRITE_HIDDEN_TESTS}), folder / "trudy.ipynb")
    renamed = fill(released, right)
    for cell in renamed["cells"]:
        grade_id = cell["metadata"].get("nbgrader", {}).get("grade_id")
        if grade_id == "ch01-ex2-answer":
            cell["metadata"]["nbgrader"]["grade_id"] = "my-answer"  # renamed: runs as ordinary code
    renamed["cells"] = [c for c in renamed["cells"]  # exercise 3's check and grading cells deleted
                        if 'check("ch01.ex3"' not in "".join(c["source"])
                        and c["metadata"].get("nbgrader", {}).get("grade_id") != "ch01-ex3-tests"]
    write(renamed, folder / "renamed.ipynb")
    colab = fill(released, right)
    for cell in colab["cells"]:
        cell["metadata"].pop("nbgrader", None)  # some editors drop unknown metadata
    write(colab, folder / "colab.ipynb")
    (folder / "garbage.ipynb").write_text("this is not a notebook {")
    write(json.loads(CH02.read_text()), folder / "otherchapter.ipynb")
    (folder / "notes.txt").write_text("not a notebook")
    start = time.perf_counter()
    code, rows = run_grader(folder, course, out, limits, "--assignment", "ch01")
    seconds = time.perf_counter() - start
    report = (out / "report.md").read_text()
    print(report, f"graded in {seconds:.0f} s", sep="\n")
    return code, rows, report, out, seconds


def test_right_answers_get_full_marks_and_stubs_zero(graded_class):
    code, rows, report, out, _ = graded_class
    assert code == 0
    assert points(rows, "alice") == {"ch01.ex1": 2, "ch01.ex2": 2, "ch01.ex3": 2, "ch01.ex4": 2}
    assert set(points(rows, "bob").values()) == {0}
    assert all("No answer yet" in r["note"] for r in rows if r["student"] == "bob")
    assert {r["max_points"] for r in rows if r["student"] == "alice"} == {"2"}


def test_wrong_answers_and_nan_lose_their_points_numpy_scalars_do_not(graded_class):
    _, rows, *_ = graded_class
    assert points(rows, "carol") == {"ch01.ex1": 2, "ch01.ex2": 0, "ch01.ex3": 0, "ch01.ex4": 0}
    notes = {r["exercise"]: r["note"] for r in rows if r["student"] == "carol"}
    assert "god bites man" in notes["ch01.ex2"] and "NaN" in notes["ch01.ex4"]


def test_a_crash_costs_only_that_exercise(graded_class):
    _, rows, report, *_ = graded_class
    assert points(rows, "erin") == {"ch01.ex1": 0, "ch01.ex2": 0, "ch01.ex3": 2, "ch01.ex4": 2}
    assert "RuntimeError: my cell crashes" in report


def test_a_loop_is_interrupted_at_the_cell_limit_and_the_rest_is_graded(graded_class):
    _, rows, report, *_ = graded_class
    assert points(rows, "frank") == {"ch01.ex1": 2, "ch01.ex2": 2, "ch01.ex3": 0, "ch01.ex4": 2}
    assert "time limit per cell" in report.split("## frank")[1].split("##")[0]


def test_a_kernel_that_ignores_interrupts_is_stopped_at_the_notebook_limit(graded_class):
    _, rows, report, *_ = graded_class
    assert set(points(rows, "gina").values()) == {0}
    assert "ran past its time limit" in report.split("## gina")[1].split("##")[0]


def test_overriding_check_and_the_graders_and_writing_the_gradebook_earn_nothing(graded_class):
    _, rows, _, out, _ = graded_class
    assert set(points(rows, "mallory").values()) == {0}
    assert [r for r in rows if r["student"] == "mallory" and float(r["points"]) > 2] == []
    assert all(float(r["points"]) <= float(r["max_points"]) for r in rows)
    assert {r["student"] for r in rows} == {"alice", "bob", "carol", "erin", "frank", "gina", "mallory", "trudy",
                                            "renamed", "colab", "garbage", "otherchapter"}  # no forged rows


def test_rewriting_the_hidden_tests_earns_nothing(graded_class):
    _, rows, report, *_ = graded_class
    assert set(points(rows, "trudy").values()) == {0}
    section = report.split("## trudy")[1].split("##")[0]
    page = (graded_class[3] / "feedback" / "trudy" / "ch01.html").read_text()
    assert "changed the grading code" in section or "could not rewrite the hidden tests" in page


def test_bad_input_is_a_message_and_the_run_goes_on(graded_class):
    _, rows, report, *_ = graded_class
    assert "not JSON" in report.split("## garbage")[1].split("##")[0]
    assert "holds the exercises of ch02, not of ch01" in report
    assert "notes.txt: not a notebook" in report
    renamed = report.split("## renamed")[1].split("##")[0]
    assert "'my-answer' is not a cell of this assignment" in renamed and "ch01.ex3" in renamed
    assert points(rows, "renamed") == {"ch01.ex1": 2, "ch01.ex2": 2, "ch01.ex3": 0, "ch01.ex4": 2}
    assert points(rows, "colab") == {"ch01.ex1": 2, "ch01.ex2": 2, "ch01.ex3": 2, "ch01.ex4": 2}


def test_one_feedback_page_per_student(graded_class):
    _, rows, _, out, _ = graded_class
    students = {r["student"] for r in rows}
    pages = {p.parent.name: p.read_text() for p in (out / "feedback").glob("*/*.html")}
    assert students <= set(pages)
    assert "ch01.ex2: 2 / 2 points" in pages["alice"] and "No answer yet" in pages["bob"]


def test_an_empty_folder_is_a_clear_error(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    (tmp_path / "course").mkdir()
    (tmp_path / "course" / "gradebook.db").write_bytes(b"")
    assert grade.main([str(tmp_path / "empty"), "--course", str(tmp_path / "course"),
                       "--out", str(tmp_path / "out")]) == 1
    assert "no submissions in" in capsys.readouterr().err


def test_a_whole_chapter_end_to_end(tmp_path, limits):
    course = tmp_path / "course"
    released = json.loads(release([CH01], tmp_path / "student", course)["ch01"].read_text())
    folder = tmp_path / "submissions"
    write(fill(released, solutions(CH01)), folder / "alice" / CH01.name)
    write(released, folder / "bob" / CH01.name)
    per_cell, _ = limits
    code, rows = run_grader(folder, course, tmp_path / "grades", (per_cell, 6 * per_cell))
    assert code == 0
    assert sum(points(rows, "alice").values()) == 8 and sum(points(rows, "bob").values()) == 0
