"""Grade a folder of submitted chapter notebooks with nbgrader: a gradebook CSV and one feedback page each.

    python scripts/grade.py SUBMISSIONS [--out grades] [--assignment ch02] [--timeout 600] [--cell-timeout 120]

``SUBMISSIONS`` holds one notebook per student (``alice.ipynb``) or one folder per student
(``alice/02_sticky_note.ipynb``, several chapters allowed). ``make student`` must have written the
nbgrader course folder (``course/``: source notebooks with hidden tests, ``gradebook.db``).

Each submission is graded on its own, in a fresh temporary copy of the course folder and of the
``seqviz`` package, by ``nbgrader autograde`` in a fresh kernel (quick mode unless ``--full``), with
no network (a new network namespace, ``unshare -rn``, where the system allows it), a time limit per
cell (the cell is interrupted, the rest of the notebook runs) and one per notebook (the process tree
is killed). nbgrader restores every locked grading cell, hidden tests included, from its database
before the run. Afterwards this script, not the student's kernel, reads the points from the graded
notebook: a grading cell counts only if its source is the released one, it raised nothing, wrote
nothing to stderr and showed one number between 0 and its points. It then writes those points to
the copy's database and runs ``nbgrader generate_feedback``. Nothing is written to ``--out`` until
every submission is done, so a submission cannot touch another's results.

Output (``--out``, default ``grades/``): ``gradebook.csv`` (student, assignment, exercise, points,
max_points, note), ``feedback/<student>/<assignment>.html`` and ``report.md`` (one paragraph per
submission: what was graded, what went wrong, how long it took). A bad submission (not JSON, another
chapter, a renamed or missing cell, a crash, a loop) is a note in the report, never a stopped run.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_student import CHECK_CALL, nbgrader_api  # noqa: E402

FEEDBACK_LOCK = threading.Lock()
COURSE_PARTS = ("source", "release", "gradebook.db", "nbgrader_config.py")
GRADE_ID = re.compile(r"^(?P<key>ch\d\d[a-z]?-ex\d+[a-z]?)-tests$")
LABEL = re.compile(r"#\s*Exercise\s+(?P<label>ch\d\d[a-z]?-ex\d+)\b")


@dataclass
class Exercise:
    key: str  # "ch02.ex1"
    grade_id: str  # "ch02-ex1-tests"
    points: float
    source: str  # the grading cell with its hidden tests, as released


@dataclass
class Assignment:
    id: str  # "ch02"
    notebook: str  # "02_sticky_note.ipynb"
    released: dict  # the student edition
    exercises: list[Exercise]


@dataclass
class Result:
    student: str
    path: str
    assignment: str = ""
    scores: dict[str, float] = field(default_factory=dict)
    notes: dict[str, str] = field(default_factory=dict)  # per exercise
    messages: list[str] = field(default_factory=list)  # per submission
    seconds: float = 0.0
    feedback: bytes = b""


# -- the course -------------------------------------------------------------------------------------------


def snapshot(folder: Path, parts=None) -> dict[str, bytes]:
    """Every file under ``folder`` (or under its ``parts``) as {relative path: bytes}, read once."""
    roots = [folder / p for p in parts] if parts else [folder]
    files = {}
    for root in roots:
        paths = [root] if root.is_file() else sorted(root.rglob("*")) if root.exists() else []
        for path in paths:
            if path.is_file() and "__pycache__" not in path.parts and ".ipynb_checkpoints" not in path.parts:
                files[str(path.relative_to(folder))] = path.read_bytes()
    return files


def write_snapshot(files: dict[str, bytes], folder: Path, read_only=False):
    for name, data in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        if read_only:
            path.chmod(0o444)


def load_assignments(course_files: dict[str, bytes]) -> dict[str, Assignment]:
    """The released assignments, with the grading cells (hidden tests included) of their source notebooks."""
    assignments = {}
    for name, data in course_files.items():
        parts = Path(name).parts
        if len(parts) != 3 or parts[0] != "source" or not name.endswith(".ipynb"):
            continue
        assignment, notebook = parts[1], parts[2]
        released = course_files.get(str(Path("release", assignment, notebook)))
        if released is None:
            continue
        exercises = []
        for cell in json.loads(data)["cells"]:
            meta = cell.get("metadata", {}).get("nbgrader", {})
            match = GRADE_ID.match(meta.get("grade_id", "")) if meta.get("grade") else None
            if match:
                key = match["key"].replace("-", ".", 1)
                exercises.append(Exercise(key, meta["grade_id"], float(meta["points"]), "".join(cell["source"])))
        assignments[assignment] = Assignment(assignment, notebook, json.loads(released), exercises)
    return assignments


# -- submissions ------------------------------------------------------------------------------------------


def student_id(name: str) -> str:
    """A file or folder name as an nbgrader student id: letters, digits, '.', '-' and '_'."""
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name).strip(".") or "student"


def find_submissions(folder: Path) -> tuple[list[tuple[str, Path]], list[str]]:
    """[(student, notebook)] and messages about files that are not notebooks."""
    found, messages = [], []
    for entry in sorted(folder.iterdir()):
        if entry.name.startswith("."):
            continue
        if entry.is_dir():
            notebooks = sorted(p for p in entry.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)
            if not notebooks:
                messages.append(f"{entry.name}/: no notebook (.ipynb) in this folder; nothing graded.")
            found += [(student_id(entry.name), p) for p in notebooks]
        elif entry.suffix == ".ipynb":
            found.append((student_id(entry.stem), entry))
        else:
            messages.append(f"{entry.name}: not a notebook (.ipynb); ignored.")
    return found, messages


def chapters_in(notebook: dict) -> list[str]:
    """The chapters whose exercises a notebook holds, most frequent first."""
    counts = {}
    for cell in notebook.get("cells", []):
        text = "".join(cell.get("source", "")) if isinstance(cell, dict) else ""
        for call in CHECK_CALL.finditer(text):
            number = re.match(r"ch(\d+)([a-z]?)", call["key"])
            chapter = "ch%02d%s" % (int(number[1]), number[2])
            counts[chapter] = counts.get(chapter, 0) + 1
    return sorted(counts, key=counts.get, reverse=True)


def read_notebook(path: Path) -> dict:
    """The submission as a v4 notebook dict, or ValueError saying why it is not one."""
    import nbformat

    raw = path.read_bytes()
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"not a notebook: the file is not JSON ({error})") from None
    if not isinstance(data, dict) or "cells" not in data:
        raise ValueError("not a notebook: JSON without a list of cells")
    try:
        notebook = nbformat.reads(json.dumps(data), as_version=4)
    except Exception as error:  # noqa: BLE001 - any reader error is a message
        raise ValueError(f"not a valid notebook ({type(error).__name__}: {error})") from None
    return json.loads(nbformat.writes(notebook))


def normalise(notebook: dict, assignment: Assignment) -> tuple[dict, list[str]]:
    """Give the submission the nbgrader cells the grader needs; say what had to be repaired.

    - a cell with an nbgrader id this assignment does not have (a renamed cell) loses that metadata;
    - answer and grading cells without metadata (some editors drop it) get it back from the release,
      found by their header line;
    - a missing grading cell is put back after its check cell, if that is there: nbgrader then
      restores its hidden tests. Without a check cell the exercise is missing and earns nothing.
    """
    messages = []
    released = {c["metadata"]["nbgrader"]["grade_id"]: c for c in assignment.released["cells"]
                if "nbgrader" in c.get("metadata", {})}
    headers = {"".join(c["source"]).splitlines()[0]: gid for gid, c in released.items() if c["source"]}
    seen = set()
    for cell in notebook["cells"]:
        meta = cell.setdefault("metadata", {})
        text = "".join(cell["source"])
        grade_id = meta.get("nbgrader", {}).get("grade_id")
        if grade_id is not None and (grade_id not in released or grade_id in seen):
            what = "repeated" if grade_id in seen else "not a cell of this assignment (renamed?)"
            messages.append(f"cell '{grade_id}' is {what}: it runs as ordinary code.")
            meta.pop("nbgrader", None)
            grade_id = None
        if grade_id is None and cell["cell_type"] == "code" and text:
            header = text.splitlines()[0]
            if header in headers and headers[header] not in seen:
                grade_id = headers[header]
                meta["nbgrader"] = json.loads(json.dumps(released[grade_id]["metadata"]["nbgrader"]))
                messages.append(f"cell '{grade_id}' had lost its nbgrader metadata: restored from the release.")
        if grade_id is not None:
            seen.add(grade_id)
    for exercise in assignment.exercises:
        if exercise.grade_id in seen:
            continue
        place = next((i for i, c in enumerate(notebook["cells"]) if c["cell_type"] == "code" and any(
            call["key"].replace("-", ".") == exercise.key for call in CHECK_CALL.finditer("".join(c["source"])))),
            None)
        if place is None:
            messages.append(f"{exercise.key}: its check cell and grading cell are missing (deleted or renamed); "
                            "0 points.")
            continue
        cell = json.loads(json.dumps(released[exercise.grade_id]))
        cell["id"] = f"restored-{exercise.grade_id}"
        notebook["cells"].insert(place + 1, cell)
        messages.append(f"{exercise.key}: the grading cell was missing; put back after its check cell.")
    return notebook, messages


# -- one submission ---------------------------------------------------------------------------------------


def sandbox_prefix(level: int, read_only: list[Path]) -> list[str]:
    """The command prefix for one grading child: level 2 = no network, ``read_only`` folders mounted
    read-only and every capability dropped (so it cannot mount them back); 1 = no network; 0 = nothing."""
    if level == 2:
        mounts = "".join(f" && mount --bind -o ro {shlex.quote(str(p))} {shlex.quote(str(p))}"
                         for p in read_only if p.exists())
        drop = "setpriv --bounding-set=-all --inh-caps=-all --no-new-privs"
        return ["unshare", "-rnm", "--pid", "--fork", "--kill-child", "sh", "-c",
                f'ip link set lo up{mounts} && exec {drop} "$@"', "sandbox"]
    if level == 1:
        return ["unshare", "-rn", "--pid", "--fork", "--kill-child", "sh", "-c", 'ip link set lo up && exec "$@"',
                "sandbox"]
    return []


SANDBOX_WORDS = {2: "no network; the repository, course, submissions, output and grading code read-only",
                 1: "no network (read-only mounts are refused on this system)",
                 0: "NO sandbox: user namespaces are refused on this system (kernels had network and write access)"}


def sandbox_level(probe_dir: Path) -> int:
    """The strongest sandbox this system allows (Linux user namespaces need no root, where enabled)."""
    for level in (2, 1):
        try:
            probe = subprocess.run(sandbox_prefix(level, [probe_dir]) + ["true"], capture_output=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if probe.returncode == 0:
            return level
    return 0


def kill_tree(pid: int):
    """SIGKILL a process, its process group and every descendant (a kernel may run in its own session)."""
    import psutil

    try:
        victims = psutil.Process(pid).children(recursive=True)
    except psutil.NoSuchProcess:
        victims = []
    for victim in victims:
        with contextlib.suppress(psutil.NoSuchProcess):
            victim.kill()
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def run_worker(tmp: Path, assignment: str, student: str, args, isolation) -> tuple[bool, str]:
    """nbgrader autograde in a child process tree, killed whole at the notebook time limit."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER", "IPYTHON", "PYTHON"))}
    env.update(PYTHONPATH=str(tmp / "lib"), HOME=str(tmp / "home"), IPYTHONDIR=str(tmp / "home" / ".ipython"),
               JUPYTER_RUNTIME_DIR=str(tmp / "home" / "runtime"), MPLBACKEND="Agg", OMP_NUM_THREADS="1",
               MKL_NUM_THREADS="1", PATH=str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", ""))
    if not args.full:
        env["SEQVIZ_QUICK"] = "1"
    worker = [sys.executable, str(Path(__file__).resolve()), "--worker", str(tmp / "course"), assignment, student,
              "--cell-timeout", str(args.cell_timeout)]
    command = isolation + worker
    process = subprocess.Popen(command, env=env, cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               start_new_session=True)
    try:
        output, _ = process.communicate(timeout=args.timeout)
    except subprocess.TimeoutExpired:
        kill_tree(process.pid)  # with --pid the kernel dies with the namespace; without, it is found here
        process.communicate()
        return False, f"the notebook ran past its time limit of {args.timeout} s and was stopped"
    finally:
        kill_tree(process.pid)  # anything the submission left running
    text = output.decode("utf-8", "replace")
    if process.returncode != 0:
        return False, "nbgrader autograde failed: " + text.strip().splitlines()[-1][:300] if text.strip() else \
            f"nbgrader autograde exited with {process.returncode}"
    return True, ""


def score_cells(graded: dict, assignment: Assignment) -> tuple[dict, dict]:
    """Points per exercise, read from the graded notebook by this process (never by the student's kernel)."""
    cells = {c["metadata"].get("nbgrader", {}).get("grade_id"): c for c in graded["cells"]}
    scores, notes = {}, {}
    for exercise in assignment.exercises:
        cell = cells.get(exercise.grade_id)
        scores[exercise.key] = 0.0
        if cell is None:
            notes[exercise.key] = "grading cell missing"
            continue
        if "".join(cell["source"]) != exercise.source:
            notes[exercise.key] = "grading cell differs from the released one"
            continue
        outputs = cell.get("outputs", [])
        errors = [o for o in outputs if o["output_type"] == "error"]
        results = [o for o in outputs if o["output_type"] == "execute_result"]
        stdout = "".join("".join(o.get("text", "")) for o in outputs
                         if o["output_type"] == "stream" and o.get("name") == "stdout")
        if errors:
            notes[exercise.key] = f"{errors[0]['ename']}: {errors[0]['evalue']}"[:200]
        elif any(o["output_type"] == "stream" and o.get("name") == "stderr" for o in outputs):
            notes[exercise.key] = "the grading cell wrote to stderr"
        elif len(results) != 1:
            notes[exercise.key] = "the grading cell showed no score (not run, or its output was suppressed)"
        else:
            try:
                value = float("".join(results[0]["data"].get("text/plain", "")))
            except ValueError:
                value = -1.0
            if 0 <= value <= exercise.points:
                scores[exercise.key] = value
                lines = [ln.strip() for ln in stdout.splitlines()[1:]]
                notes[exercise.key] = " ".join(lines).replace(" hidden tests", " | hidden tests")[:300]
            else:
                notes[exercise.key] = "the grading cell showed no valid score"
    return scores, notes


def cell_errors(graded: dict) -> list[str]:
    """One line per ordinary cell of the graded notebook that raised (an interrupted loop, a crash)."""
    lines = []
    for number, cell in enumerate(graded["cells"], 1):
        if cell["cell_type"] != "code" or cell["metadata"].get("nbgrader", {}).get("grade"):
            continue
        for output in cell.get("outputs", []):
            if output["output_type"] == "error":
                name = cell["metadata"].get("nbgrader", {}).get("grade_id") or f"cell {number}"
                why = " (stopped at the time limit per cell)" if output["ename"] in ("KeyboardInterrupt",
                                                                                     "CellTimeoutError") else ""
                lines.append(f"{name} raised {output['ename']}: {output['evalue'][:120]}{why}")
                break
    return lines


def feedback_page(tmp: Path, assignment: Assignment, student: str, scores: dict) -> bytes:
    """nbgrader's feedback page, after writing this process's points into the copy's gradebook."""
    from nbgrader.api import Gradebook

    course = tmp / "course"
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        notebook = gradebook.find_submission_notebook(Path(assignment.notebook).stem, assignment.id, student)
        for grade in notebook.grades:
            key = GRADE_ID.match(grade.name)["key"].replace("-", ".", 1) if GRADE_ID.match(grade.name) else None
            grade.auto_score, grade.manual_score, grade.extra_credit = scores.get(key, 0.0), None, None
            grade.needs_manual_grade = False
        gradebook.db.commit()
    with warnings.catch_warnings():  # nbconvert warns about every output without an HTML form (plotly JSON)
        warnings.simplefilter("ignore", UserWarning)
        result = nbgrader_api(course).generate_feedback(assignment.id, student)
    page = course / "feedback" / student / assignment.id / assignment.notebook.replace(".ipynb", ".html")
    if not result["success"] or not page.exists():
        raise RuntimeError(result.get("error") or "no feedback page")
    return page.read_bytes()


def plain_feedback(path: Path | None, result: Result) -> bytes:
    """A small page for a submission that nbgrader could not grade (the notes say why)."""
    import html

    rows = "".join(f"<tr><td>{html.escape(k)}</td><td>{v:g}</td><td>{html.escape(result.notes.get(k, ''))}</td></tr>"
                   for k, v in result.scores.items())
    notes = "".join(f"<li>{html.escape(m)}</li>" for m in result.messages)
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>Feedback: {html.escape(result.student)}"
            f"</title></head><body><h1>Feedback for {html.escape(result.student)}: {html.escape(result.assignment)}"
            f"</h1><ul>{notes}</ul><table><tr><th>exercise</th><th>points</th><th>note</th></tr>{rows}</table>"
            "</body></html>").encode()


def grade_one(student, path, assignments, course_files, package_files, args, sandbox) -> Result:
    result = Result(student, str(path))
    start = time.perf_counter()
    try:
        notebook = read_notebook(path)
    except ValueError as error:
        result.messages.append(str(error))
        if args.assignment in assignments:
            result.assignment = args.assignment
            result.scores = {e.key: 0.0 for e in assignments[args.assignment].exercises}
        result.seconds = time.perf_counter() - start
        return result
    found = chapters_in(notebook)
    named = re.match(r"(\d+)([a-z]?)_", path.name)
    if args.assignment:
        chapter = args.assignment
        if found and found[0] != chapter:
            result.messages.append(f"this notebook holds the exercises of {found[0]}, not of {chapter}: "
                                   "was the wrong file submitted? 0 points.")
    elif found:
        chapter = found[0]
        if named and "ch%02d%s" % (int(named[1]), named[2]) != chapter:
            result.messages.append(f"the file is named like chapter {int(named[1])} but holds the exercises of "
                                   f"{chapter}; graded as {chapter}.")
    else:
        chapter = "ch%02d%s" % (int(named[1]), named[2]) if named else ""
    result.assignment = chapter
    if chapter not in assignments:
        result.messages.append(f"no released assignment '{chapter or '?'}' matches this notebook (no check cells "
                               "found); run make student, or pass --assignment.")
        result.seconds = time.perf_counter() - start
        return result
    assignment = assignments[chapter]
    result.scores = {e.key: 0.0 for e in assignment.exercises}
    if args.assignment and found and found[0] != chapter:
        result.seconds = time.perf_counter() - start
        return result
    notebook, repairs = normalise(notebook, assignment)
    result.messages += repairs
    with tempfile.TemporaryDirectory(prefix="seqviz-grade-", ignore_cleanup_errors=True) as name:
        tmp = Path(name)
        write_snapshot(course_files, tmp / "course")
        write_snapshot(package_files, tmp / "lib", read_only=True)
        submitted = tmp / "course" / "submitted" / student / chapter / assignment.notebook
        submitted.parent.mkdir(parents=True)
        submitted.write_text(json.dumps(notebook))
        level, read_only = sandbox
        ok, message = run_worker(tmp, chapter, student, args, sandbox_prefix(level, read_only + [tmp / "lib"]))
        graded_path = tmp / "course" / "autograded" / student / chapter / assignment.notebook
        if not ok:
            result.messages.append(message + "; 0 points.")
        elif not graded_path.exists():
            result.messages.append("nbgrader wrote no graded notebook; 0 points.")
        else:
            graded = json.loads(graded_path.read_text())
            result.scores, result.notes = score_cells(graded, assignment)
            result.messages += cell_errors(graded)
            if snapshot(tmp / "lib") != package_files:
                result.messages.append("the submission changed the grading code during the run: 0 points.")
                result.scores = {k: 0.0 for k in result.scores}
            try:
                with FEEDBACK_LOCK:  # nbgrader's converters chdir into the course: one at a time
                    result.feedback = feedback_page(tmp, assignment, student, result.scores)
            except Exception as error:  # noqa: BLE001 - a page we write ourselves instead
                last = (str(error).strip().splitlines() or [""])[-1][:200]
                result.messages.append(f"nbgrader generate_feedback failed ({type(error).__name__}: {last}): "
                                       "a plain feedback page instead.")
        for root, dirs, _ in os.walk(tmp):  # the read-only package copy must be removable
            for d in dirs:
                os.chmod(os.path.join(root, d), 0o755)
    result.seconds = time.perf_counter() - start
    return result


# -- the run ----------------------------------------------------------------------------------------------


def write_outputs(results: list[Result], out: Path, assignments, extra_messages, total_seconds, isolated):
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "gradebook.csv", "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["student", "assignment", "exercise", "points", "max_points", "note"])
        for r in results:
            maximum = {e.key: e.points for e in assignments[r.assignment].exercises} if r.assignment in assignments \
                else {}
            for key, value in r.scores.items():
                writer.writerow([r.student, r.assignment, key, f"{value:g}", f"{maximum.get(key, 0):g}",
                                 r.notes.get(key, "")])
            if not r.scores:
                writer.writerow([r.student, r.assignment, "", "0", "0", " ".join(r.messages)[:300]])
    for r in results:
        page = out / "feedback" / r.student / f"{r.assignment or Path(r.path).stem}.html"
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_bytes(r.feedback or plain_feedback(None, r))
    lines = ["# Grading report", "",
             f"{len(results)} notebook(s) graded in {total_seconds:.0f} s. Each ran in a fresh kernel with: "
             f"{isolated}.", ""]
    lines += [f"- {m}" for m in extra_messages]
    for r in results:
        total = sum(r.scores.values())
        maximum = sum(e.points for e in assignments[r.assignment].exercises) if r.assignment in assignments else 0
        lines += ["", f"## {r.student}: {Path(r.path).name} ({r.assignment or '?'}): {total:g} / {maximum:g} "
                      f"points, {r.seconds:.1f} s"]
        lines += [f"- {m}" for m in r.messages]
        lines += [f"- {k}: {v:g} ({r.notes.get(k, '')})" for k, v in r.scores.items() if v == 0 and r.notes.get(k)]
    (out / "report.md").write_text("\n".join(lines) + "\n")


def grade_folder(args) -> int:
    submissions, course, out = Path(args.submissions), Path(args.course), Path(args.out)
    if not (course / "gradebook.db").exists():
        print(f"no nbgrader course in {course}: run `make student` first.", file=sys.stderr)
        return 2
    if not submissions.is_dir():
        print(f"{submissions} is not a folder of submissions.", file=sys.stderr)
        return 2
    found, messages = find_submissions(submissions)
    if not found:
        print(f"no submissions in {submissions}: expected {submissions}/<student>.ipynb or "
              f"{submissions}/<student>/<chapter notebook>.ipynb.", file=sys.stderr)
        for message in messages:
            print("  " + message, file=sys.stderr)
        return 1
    course_files = snapshot(course, COURSE_PARTS)  # read once, before any submission runs
    package_files = {str(Path("seqviz", k)): v for k, v in snapshot(ROOT / "seqviz").items()}
    assignments = load_assignments(course_files)
    if args.assignment and args.assignment not in assignments:
        print(f"--assignment {args.assignment}: not released; known: {', '.join(sorted(assignments))}",
              file=sys.stderr)
        return 2
    out.mkdir(parents=True, exist_ok=True)
    level = sandbox_level(out)
    read_only = [ROOT, course.resolve(), submissions.resolve(), out.resolve()]
    start = time.perf_counter()

    def one(item):
        student, path = item
        try:
            result = grade_one(student, path, assignments, course_files, package_files, args, (level, read_only))
        except Exception as error:  # noqa: BLE001 - one submission never stops the run
            result = Result(student, str(path), args.assignment, messages=[f"grading failed: {error!r}"])
        print(f"{student} {path.name}: {sum(result.scores.values()):g} points, {result.seconds:.1f} s"
              + (f" ({'; '.join(result.messages)})" if result.messages else ""), flush=True)
        return result

    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:  # each job is a child process tree
        results = list(pool.map(one, found))
    total_seconds = time.perf_counter() - start
    write_outputs(results, out, assignments, messages, total_seconds, SANDBOX_WORDS[level])
    print(f"gradebook: {out / 'gradebook.csv'}; feedback: {out / 'feedback'}; report: {out / 'report.md'} "
          f"({total_seconds:.0f} s)")
    return 0


def worker(course: str, assignment: str, student: str, cell_timeout: int) -> int:
    """Inside the sandboxed child: nbgrader autograde of one submission in the course copy."""
    import logging

    api = nbgrader_api(Path(course))
    api.config.Execute.timeout = cell_timeout  # per cell; the cell is interrupted and the rest runs
    api.config.Execute.interrupt_on_timeout = True
    api.config.Execute.raise_on_iopub_timeout = False  # an interrupted cell may be slow to answer: wait, not fail
    logging.getLogger().setLevel(logging.ERROR)
    result = api.autograde(assignment, student, force=True, create=True)
    if not result["success"]:
        print(str(result.get("error") or result.get("log"))[-2000:])
        return 1
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("submissions", nargs="?", help="folder of submissions")
    parser.add_argument("rest", nargs="*", help=argparse.SUPPRESS)
    parser.add_argument("--course", default=str(ROOT / "course"), help="nbgrader course folder (make student)")
    parser.add_argument("--out", default=str(ROOT / "grades"), help="where the gradebook and feedback go")
    parser.add_argument("--assignment", default="", help="grade every notebook as this chapter, e.g. ch02")
    parser.add_argument("--timeout", type=int, default=600, help="seconds per notebook (default 600)")
    parser.add_argument("--cell-timeout", type=int, default=120, help="seconds per cell (default 120)")
    parser.add_argument("--jobs", type=int, default=max(1, min(4, (os.cpu_count() or 2) // 2)),
                        help="submissions graded at once (default: half the CPU cores, at most 4)")
    parser.add_argument("--full", action="store_true", help="run the chapters in full mode (default: quick)")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        return worker(args.submissions, *args.rest[:2], args.cell_timeout)
    if not args.submissions:
        parser.error("give the folder of submissions")
    return grade_folder(args)


if __name__ == "__main__":
    sys.exit(main())
