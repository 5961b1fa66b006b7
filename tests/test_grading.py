"""Grading on a fabricated class (scripts/grade.py, instructor/grader): the red-team class earns nothing extra,
honest answers get what they deserve, and the workflow does what book/instructors.md says.

The class works on a small copy of chapter 3 (``grading_fixtures.mini_chapter``). One run grades the honest
students and every attack that needs no time limit, at ordinary limits; the submissions that hang, loop, kill
their kernel, fork or flood their output are graded in a run of their own with short limits. The red-team
gradebook (student, case, points, deserved) is written to the pytest temporary folder and printed.
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
import grade  # noqa: E402
from grading_fixtures import (CH03, delete_exercise, edit_metadata, fill, full_points, mini_chapter,  # noqa: E402
                              misbehaving, red_team, solutions, write)
from make_student import release  # noqa: E402

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[1]
CH01 = ROOT / "notebooks" / "01_why_order_matters.ipynb"


def import_seconds() -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import torch, seqviz.exercises"], check=True, capture_output=True)
    return time.perf_counter() - start


def run_grader(submissions, course, out, *extra):
    code = grade.main([str(submissions), "--course", str(course), "--out", str(out), "--jobs", "2", *extra])
    folder = out / "latest"
    rows = list(csv.DictReader(open(folder / "gradebook.csv"))) if (folder / "gradebook.csv").exists() else []
    return code, rows, folder.resolve()


def totals(rows):
    result = {}
    for r in rows:
        result[r["student"]] = result.get(r["student"], 0) + float(r["points"])
    return result


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("course")
    sources = [mini_chapter(CH03, tmp / "chapters"), mini_chapter(CH01, tmp / "chapters")]
    released = release(sources, tmp / "student", tmp / "course")
    return tmp / "course", {k: json.loads(v.read_text()) for k, v in released.items()}, solutions(CH03)


def build(folder: Path, cases: dict, released: dict):
    for student, (_, answers, _) in cases.items():
        notebook = fill(released, answers)
        if student == "metadata":
            notebook = edit_metadata(notebook)
        if student == "deleted":
            notebook = delete_exercise(notebook, "ch03-ex3")
        write(notebook, folder / f"{student}.ipynb")


def gradebook_table(cases, rows) -> str:
    got = totals(rows)
    lines = ["| student | case | points | deserved |", "| --- | --- | --- | --- |"]
    lines += [f"| {s} | {case} | {got.get(s, 0):g} | {deserved} |" for s, (case, _, deserved) in cases.items()]
    return "\n".join(lines)


@pytest.fixture(scope="module")
def class_run(course, tmp_path_factory):
    course_dir, released, right = course
    tmp = tmp_path_factory.mktemp("class")
    out = tmp / "grades"
    cases = red_team(right, course_dir, out / "gradebook.csv")
    build(tmp / "submissions", cases, released["ch03"])
    (tmp / "submissions" / "garbage.ipynb").write_text("this is not a notebook {")
    write(released["ch01"], tmp / "submissions" / "otherchapter.ipynb")
    # the guide's layout, a folder per student with several chapters: only chapter 3's notebook is graded
    write(fill(released["ch03"], right), tmp / "submissions" / "multi" / CH03.name)
    write(released["ch01"], tmp / "submissions" / "multi" / CH01.name)
    (tmp / "submissions" / "notes.txt").write_text("not a notebook")
    start = time.perf_counter()
    code, rows, folder = run_grader(tmp / "submissions", course_dir, out, "--assignment", "ch03",
                                    "--cell-timeout", "120", "--timeout", "600")
    seconds = time.perf_counter() - start
    table = gradebook_table(cases, rows)
    (tmp_path_factory.getbasetemp() / "red_team_gradebook.md").write_text(table + f"\n\ngraded in {seconds:.0f} s\n")
    print(table, f"graded in {seconds:.0f} s", sep="\n")
    return code, rows, folder, cases, out


@pytest.fixture(scope="module")
def misbehaving_run(course, tmp_path_factory):
    course_dir, released, right = course
    tmp = tmp_path_factory.mktemp("misbehaving")
    cases = misbehaving(right)
    build(tmp / "submissions", cases, released["ch03"])
    write(fill(released["ch03"], right), tmp / "submissions" / "alice.ipynb")  # an honest student beside them
    cases = {**cases, "alice": ("all right, graded beside them", right, full_points(right))}
    # Short limits, scaled by how long `import torch` takes now (a busy machine is slower): the set-up cell takes
    # about one import, a normal run of the mini chapter about two.
    imports = import_seconds()
    per_cell, per_notebook = max(5, round(2.5 * imports)), max(40, round(10 * imports))
    start = time.perf_counter()
    code, rows, folder = run_grader(tmp / "submissions", course_dir, tmp / "grades", "--cell-timeout", str(per_cell),
                                    "--timeout", str(per_notebook), "--call-timeout", str(per_cell))
    seconds = time.perf_counter() - start
    table = gradebook_table(cases, rows)
    table += f"\n\nlimits: {per_cell} s per cell and per call, {per_notebook} s per notebook"
    (tmp_path_factory.getbasetemp() / "misbehaving_gradebook.md").write_text(table + f"\n\ngraded in {seconds:.0f} s\n")
    print(table, f"graded in {seconds:.0f} s", sep="\n")
    return code, rows, folder, cases


def test_every_red_team_case_earns_exactly_what_it_deserves(class_run):
    code, rows, folder, cases, _ = class_run
    assert code == 0
    got = totals(rows)
    wrong = {s: (got.get(s), deserved) for s, (_, _, deserved) in cases.items() if got.get(s) != deserved}
    assert not wrong, f"(points, deserved): {wrong}\n{(folder / 'report.md').read_text()}"
    assert all(float(r["points"]) <= float(r["max_points"]) for r in rows)


def test_misbehaving_submissions_are_stopped_and_the_rest_of_their_notebook_graded(misbehaving_run):
    code, rows, folder, cases = misbehaving_run
    assert code == 0
    got = totals(rows)
    wrong = {s: (got.get(s), deserved) for s, (_, _, deserved) in cases.items() if got.get(s) != deserved}
    assert not wrong, f"(points, deserved): {wrong}\n{(folder / 'report.md').read_text()}"
    report = (folder / "report.md").read_text()
    assert "ran past the time limit of the notebook" in report.split("## sleeper")[1].split("##")[0]
    assert "ended the kernel" in report.split("## killer")[1].split("##")[0]
    assert "time limit" in {r["exercise"]: r["note"] for r in rows if r["student"] == "spinner"}["ch03.ex2"]


def test_a_library_function_is_caught_by_name_and_by_its_tripwire(class_run):
    _, rows, *_ = class_run
    note = {r["exercise"]: r["note"] for r in rows if r["student"] == "library"}["ch03.ex4"]
    assert "torch.nn.utils.clip_grad_norm_" in note and "asks you to write yourself" in note


def test_no_forged_rows_and_bad_files_are_messages(class_run):
    _, rows, folder, cases, out = class_run
    assert {r["student"] for r in rows} == set(cases) | {"garbage", "otherchapter", "multi"}
    assert not (out / "gradebook.csv").exists(), "a submission wrote the merged gradebook"
    report = (folder / "report.md").read_text()
    assert "not JSON" in report.split("## garbage")[1].split("##")[0]
    assert "holds the exercises of ch01, not of ch03" in report
    assert "notes.txt: not a notebook" in report
    assert "ch03.ex3: its answer and check cells are missing" in report.split("## deleted")[1].split("##")[0]


def test_feedback_pages_are_self_contained_wrapped_and_free_of_markup(class_run):
    _, rows, folder, *_ = class_run
    pages = {p.parent.name: p.read_text() for p in (folder / "feedback").glob("*/*.html")}
    assert {r["student"] for r in rows} <= set(pages)
    for student, page in pages.items():
        assert "<script" not in page and "http://" not in page and "https://" not in page, student
        assert "{exercise}" not in page and "{glue" not in page and "{solution" not in page, student
        assert "white-space:pre-wrap" in page
    assert "Exercise 3.2" in pages["alice"] and "2 / 2" in pages["alice"] \
        and f"{full_points(solutions(CH03))} / {full_points(solutions(CH03))}" in pages["alice"]
    assert "No answer yet" in pages["bob"]
    assert ">0 / 2</span>" in pages["formatter"].split("Exercise 3.2")[1].split("</h2>")[0]


def test_each_run_writes_a_new_dated_folder_and_merges_only_when_asked(class_run, course, tmp_path):
    course_dir, released, right = course
    submissions = tmp_path / "submissions"
    write(fill(released["ch03"], right), submissions / "alice.ipynb")
    out = tmp_path / "grades"
    first = run_grader(submissions, course_dir, out, "--merge")[2]
    (submissions / "alice.ipynb").unlink()
    write(released["ch03"], submissions / "zoe.ipynb")
    second = run_grader(submissions, course_dir, out, "--merge")[2]
    assert first != second and first.exists() and second.exists()
    assert [p.name for p in (second / "feedback").iterdir()] == ["zoe"], "a stale page in the new folder"
    merged = totals(list(csv.DictReader(open(out / "gradebook.csv"))))
    assert merged == {"alice": full_points(right), "zoe": 0}


def test_assignment_grades_only_that_chapter_in_a_folder_per_student(class_run):
    _, rows, folder, *_ = class_run
    assert {r["assignment"] for r in rows if r["student"] == "multi"} == {"ch03"}
    assert totals(rows)["multi"] == full_points(solutions(CH03))
    assert [p.name for p in (folder / "feedback" / "multi").iterdir()] == ["ch03.html"]


def test_an_empty_folder_is_a_clear_error(course, tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    assert grade.main([str(tmp_path / "empty"), "--course", str(course[0]), "--out", str(tmp_path / "out")]) == 1
    assert "no submissions in" in capsys.readouterr().err


def test_grading_needs_no_kernel_output_and_sets_no_environment_of_its_own():
    """The grader's process never imports what a kernel could have changed: it reads files it wrote itself."""
    text = (ROOT / "scripts" / "grade.py").read_text() + (ROOT / "instructor" / "grader" / "judge.py").read_text()
    assert "outputs\"]" not in text.replace('cell["outputs"], cell["execution_count"] = [], None', "")
    assert "pickle.load" not in text and "cloudpickle" not in text
    assert os.path.exists(ROOT / "instructor" / "grader" / "evaluator.py")
