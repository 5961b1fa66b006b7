"""Grade a folder of submitted chapter notebooks: a dated results folder with a gradebook and feedback pages.

    python scripts/grade.py SUBMISSIONS [--out grades] [--assignment ch02] [--full] [--timeout 900]
                            [--cell-timeout 120] [--call-timeout 20] [--jobs 2] [--merge]

(``make grade SUBMISSIONS=... [ASSIGNMENT=] [OUT=] [FULL=1] [TIMEOUT=] [JOBS=]``; see book/instructors.md.)

``SUBMISSIONS`` holds one notebook per student (``alice.ipynb``) or one folder per student (``alice/...``, any
depth, several chapters allowed: nbgrader's ``course/submitted`` is such a folder). ``make student`` must have
written the course folder (``course/``: the released notebooks and the instructor's material, ``instructor/``).

How a submission is graded (``instructor/grader``): its notebook runs in a fresh kernel in a sandbox, with a cell
after each exercise's check cell that saves the answer into a folder the grader chose, and nothing else; a
second sandboxed process (the evaluator), with tripwires on the library functions an exercise must not call,
calls each answer on the grader's arguments and returns plain JSON values; this process computes every expected
value from the course's references, runs the public check and the hidden test, and gives each exercise its points
(at most its points; one exercise never costs another). A cell that hangs or kills the kernel is stopped at
``--cell-timeout`` (or the notebook at ``--timeout``) and the notebook is run again without it.

Output: a new folder ``<out>/<date>-<time>[-<assignment>]/`` (``<out>/latest`` points at it) with
``gradebook.csv`` (student, assignment, exercise, points, max_points, note), ``feedback/<student>/<chNN>.html``
(one self-contained page: no script, nothing fetched) and ``report.md``. ``--merge`` also writes
``<out>/gradebook.csv``: the previous merged gradebook with this run's rows replacing those of the same student
and assignment. Grading nbgrader's ``course/submitted`` also puts each page where ``nbgrader release_feedback``
finds it (``course/feedback/<student>/<chNN>/``). Nothing is written before every submission is done.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import datetime
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_student import CHECK_CALL, assignment_id  # noqa: E402

LABEL = re.compile(r"#\s*Exercise\s+(?P<label>ch\d\d[a-z]?-ex\d+)\b")
CAPTURE_CELL = '__import__("seqviz_capture").save("{key}", globals().get("{name}"))'
FIELDS = ["student", "assignment", "exercise", "points", "max_points", "note"]


@dataclass
class Assignment:
    id: str  # "ch02"
    notebook: str  # "02_sticky_note.ipynb"
    released: dict  # the student edition
    exercises: list[tuple[str, str]]  # (key, the variable its check cell checks): ("ch02.ex2b", "follow_up")


@dataclass
class Result:
    student: str
    path: str
    assignment: str = ""
    scores: dict[str, float] = field(default_factory=dict)
    maximum: dict[str, float] = field(default_factory=dict)
    notes: dict[str, str] = field(default_factory=dict)  # per exercise: the feedback, one line
    lines: dict[str, list[str]] = field(default_factory=dict)  # per exercise: every feedback line
    code: dict[str, str] = field(default_factory=dict)  # per exercise: the student's answer cells
    messages: list[str] = field(default_factory=list)  # per submission
    seconds: float = 0.0
    secrets: dict[str, str] = field(default_factory=dict)  # nbgrader's timestamp.txt, submission_secret.txt


# -- the course -------------------------------------------------------------------------------------------


def source(cell) -> str:
    return "".join(cell.get("source", "")) if isinstance(cell, dict) else ""


def load_assignments(course: Path) -> dict[str, Assignment]:
    """The released assignments: for each, its notebook and the (exercise, variable) of every check call."""
    assignments = {}
    for path in sorted((course / "release").glob("*/*.ipynb")):
        released = json.loads(path.read_text())
        exercises = []
        for cell in released["cells"]:
            if cell["cell_type"] == "code":
                for call in CHECK_CALL.finditer(source(cell)):
                    key = _key(call["key"])
                    if key not in dict(exercises):
                        exercises.append((key, call["name"]))
        assignments[path.parent.name] = Assignment(path.parent.name, path.name, released, exercises)
    return assignments


def _key(text: str) -> str:
    from seqviz.exercises import normalise_id

    return normalise_id(text)


# -- submissions ------------------------------------------------------------------------------------------


def student_id(name: str) -> str:
    """A file or folder name as a student id: letters, digits, '.', '-' and '_'."""
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
        for call in CHECK_CALL.finditer(source(cell)):
            chapter = _key(call["key"]).split(".")[0]
            counts[chapter] = counts.get(chapter, 0) + 1
    return sorted(counts, key=counts.get, reverse=True)


def read_notebook(path: Path) -> dict:
    """The submission as a v4 notebook dict, or ValueError saying why it is not one."""
    import nbformat

    if path.stat().st_size > 200_000_000:
        raise ValueError("not graded: the file is larger than 200 MB")
    raw = path.read_bytes()
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"not a notebook: the file is not JSON ({error})") from None
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        raise ValueError("not a notebook: JSON without a list of cells")
    try:
        notebook = nbformat.reads(json.dumps(data), as_version=4)
    except Exception as error:  # noqa: BLE001 - any reader error is a message
        raise ValueError(f"not a valid notebook ({type(error).__name__}: {error})") from None
    return json.loads(nbformat.writes(notebook))


def which_assignment(notebook: dict, path: Path, wanted: str) -> str:
    """The chapter a submitted notebook is: by its check calls, else by its file name (``03_...``)."""
    found = chapters_in(notebook)
    if found:
        return found[0]
    with contextlib.suppress(ValueError):
        return assignment_id(path)
    return wanted or ""


def prepare(notebook: dict, assignment: Assignment) -> tuple[dict, dict[str, str], list[str]]:
    """The notebook to run: the submission's cells, outputs cleared, one capture cell after each exercise's check
    cell (or, if that was deleted, after its answer cell). Also {exercise: the student's answer cells} and notes."""
    cells = [c for c in notebook["cells"] if isinstance(c, dict) and c.get("cell_type") in ("code", "markdown",
                                                                                               "raw")]
    for cell in cells:
        if cell["cell_type"] == "code":
            cell["outputs"], cell["execution_count"] = [], None
    code, messages, after = {}, [], {}
    labels = {i: LABEL.match(source(c)) for i, c in enumerate(cells) if c["cell_type"] == "code"}
    for key, name in assignment.exercises:
        label = key.split(".")[0] + "-" + re.sub(r"[a-z]$", "", key.split(".")[1])  # ch02.ex2b -> ch02-ex2
        stubs = [i for i, m in labels.items() if m and m["label"] == label]
        checks = [i for i, c in enumerate(cells) if c["cell_type"] == "code" and any(
            _key(call["key"]) == key for call in CHECK_CALL.finditer(source(c)))]
        if checks:
            after[key] = checks[0]
        elif stubs:
            after[key] = stubs[-1]
            messages.append(f"{key}: its check cell is missing; the answer is taken after its answer cell.")
        else:
            messages.append(f"{key}: its answer and check cells are missing (deleted or renamed): 0 points.")
            continue
        first = stubs[0] if stubs and stubs[0] <= after[key] else after[key]
        code[key] = "\n\n".join(source(c) for c in cells[first:after[key] + 1] if c["cell_type"] == "code")
    prepared = []
    for index, cell in enumerate(cells):
        prepared.append(cell)
        for key, name in assignment.exercises:
            if after.get(key) == index:
                prepared.append({"cell_type": "code", "execution_count": None, "id": f"capture-{key}",
                                 "metadata": {}, "outputs": [], "source": CAPTURE_CELL.format(key=key, name=name)})
    result = dict(notebook)
    result["cells"] = prepared
    result.setdefault("metadata", {})["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                                       "language": "python"}
    return result, code, messages


# -- the sandbox ------------------------------------------------------------------------------------------


def sandbox_prefix(level: int, hidden: list[Path], read_only: list[Path]) -> list[str]:
    """The command prefix for a grading child: level 2 = no network, ``hidden`` folders replaced by empty ones,
    ``read_only`` mounted read-only, every capability dropped; 1 = no network; 0 = nothing."""
    if level == 2:
        hidden = [p for p in hidden if not any(q != p and q in p.parents for q in hidden)]  # the outermost only
        mounts = "".join(f" && mount --bind -o ro {shlex.quote(str(p))} {shlex.quote(str(p))}"
                         for p in read_only if p.exists())  # first: a bind mount would not carry the tmpfs below
        mounts += "".join(f" && mount -t tmpfs -o size=1m none {shlex.quote(str(p))}" for p in hidden if p.is_dir())
        drop = "setpriv --bounding-set=-all --inh-caps=-all --no-new-privs"
        return ["unshare", "-rnm", "--pid", "--fork", "--kill-child", "sh", "-c",
                f'ip link set lo up{mounts} && exec {drop} "$@"', "sandbox"]
    if level == 1:
        return ["unshare", "-rn", "--pid", "--fork", "--kill-child", "sh", "-c", 'ip link set lo up && exec "$@"',
                "sandbox"]
    return []


SANDBOX_WORDS = {2: "no network; the course, the instructor's material, the submissions and the results hidden; "
                    "the repository read-only",
                 1: "no network (mounts are refused on this system: the course and the instructor's material were "
                    "readable)",
                 0: "NO sandbox: user namespaces are refused on this system (kernels had network and file access)"}


def sandbox_level(probe: Path) -> int:
    """The strongest sandbox this system allows (Linux user namespaces need no root, where enabled)."""
    for level in (2, 1):
        try:
            run = subprocess.run(sandbox_prefix(level, [probe], [probe]) + ["true"], capture_output=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if run.returncode == 0:
            return level
    return 0


def kill_tree(pid: int):
    """SIGKILL a process group and every descendant (a kernel may run in its own session)."""
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


FILE_LIMIT = 2 * 2**30  # bytes: a grading child that writes a larger file is stopped (SIGXFSZ)


def limit_files():
    """In a grading child, before it runs: no file it writes may grow beyond FILE_LIMIT."""
    import resource

    resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_LIMIT, FILE_LIMIT))


def child_env(tmp: Path, full: bool) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER", "IPYTHON", "PYTHON"))}
    env.update(HOME=str(tmp / "home"), IPYTHONDIR=str(tmp / "home" / ".ipython"), MPLBACKEND="Agg",
               JUPYTER_RUNTIME_DIR=str(tmp / "home" / "runtime"), OMP_NUM_THREADS="1", MKL_NUM_THREADS="1",
               PATH=str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", ""))
    env.pop("SEQVIZ_QUICK", None)
    if not full:
        env["SEQVIZ_QUICK"] = "1"
    return env


def run_kernel(tmp: Path, prepared: dict, args, sandbox) -> tuple[list[str], list[str]]:
    """Run the prepared notebook in a sandboxed kernel, again without a cell that hung or ended the kernel (at most
    three times). Returns (messages, errors of ordinary cells)."""
    level, hidden, read_only = sandbox
    work, captures = tmp / "work", tmp / "work" / "captures"
    captures.mkdir(parents=True)
    (tmp / "home").mkdir(exist_ok=True)
    notebook_path, progress = work / "submission.ipynb", tmp / "progress.txt"
    notebook_path.write_text(json.dumps(prepared))
    lib = tmp / "lib"
    lib.mkdir()
    shutil.copy(ROOT / "instructor" / "grader" / "capture.py", lib / "seqviz_capture.py")
    shutil.copy(ROOT / "instructor" / "grader" / "kernel.py", lib / "kernel.py")
    env = child_env(tmp, args.full)
    env.update(PYTHONPATH=str(lib), SEQVIZ_CAPTURE_DIR=str(captures))
    messages, skip = [], []
    prefix = sandbox_prefix(level, hidden, read_only + [lib])
    for attempt in range(3):
        progress.write_text("")
        command = prefix + [sys.executable, str(lib / "kernel.py"), str(notebook_path), str(progress),
                            "--cell-timeout", str(args.cell_timeout), "--skip", ",".join(map(str, skip))]
        with open(tmp / "kernel-stderr.txt", "wb") as errors:
            process = subprocess.Popen(command, env=env, cwd=str(work), stdout=subprocess.DEVNULL, stderr=errors,
                                       start_new_session=True, preexec_fn=limit_files)
        try:
            code = process.wait(timeout=args.timeout)
        except subprocess.TimeoutExpired:
            code = None
        finally:
            kill_tree(process.pid)
            process.wait()
        state = progress.read_text() if progress.exists() else ""
        if code == 0 and state.startswith("done"):
            return messages, state.splitlines()[1:]
        stopped = int(state) if state.strip().isdigit() else None
        why = "ran past the time limit of the notebook" if code is None else "ended the kernel"
        if stopped is None:
            tail = (tmp / "kernel-stderr.txt").read_text(errors="replace").strip().splitlines()[-1:]
            messages.append(f"the notebook {why} before its first cell ran" + (f" ({tail[0][:200]})" if tail else "")
                            + ".")
            return messages, []
        messages.append(f"cell {stopped + 1} {why}: the notebook ran again without it.")
        skip.append(stopped)
    messages.append("the notebook failed three times; the answers saved before that are graded.")
    return messages, []


# -- one submission ---------------------------------------------------------------------------------------


def grade_one(student, path, assignments, args, sandbox, class_seed) -> Result:
    from instructor.exercises import SOLUTIONS
    from instructor.grader.judge import case_seed, forbidden_names_in, judge, points
    from instructor.grader.remote import Evaluator, EvaluatorFailed

    result = Result(student, str(path))
    start = time.perf_counter()
    try:
        notebook = read_notebook(path)
    except ValueError as error:
        result.messages.append(str(error))
        result.assignment = args.assignment or ""
        if result.assignment in assignments:
            result.scores = {k: 0.0 for k, _ in assignments[result.assignment].exercises}
        result.seconds = time.perf_counter() - start
        return result
    chapter = which_assignment(notebook, path, args.assignment)
    if args.assignment and chapter != args.assignment:
        result.assignment = args.assignment
        result.messages.append(f"this notebook holds the exercises of {chapter or 'no chapter'}, not of "
                               f"{args.assignment}: was the wrong file submitted? 0 points.")
        chapter = args.assignment
        result.scores = {k: 0.0 for k, _ in assignments[chapter].exercises} if chapter in assignments else {}
        result.seconds = time.perf_counter() - start
        return result
    result.assignment = chapter
    if chapter not in assignments:
        result.messages.append(f"no released assignment '{chapter or '?'}' matches this notebook (no check cells "
                               "found); run make student, or pass ASSIGNMENT=.")
        result.seconds = time.perf_counter() - start
        return result
    assignment = assignments[chapter]
    result.maximum = {k: points(k) for k, _ in assignment.exercises}
    result.scores = {k: 0.0 for k in result.maximum}
    for name in ("timestamp.txt", "submission_secret.txt"):
        if (path.parent / name).is_file():
            result.secrets[name] = (path.parent / name).read_text()[:1000]
    prepared, result.code, notes = prepare(notebook, assignment)
    result.messages += notes
    with tempfile.TemporaryDirectory(prefix="seqviz-grade-", ignore_cleanup_errors=True) as name:
        tmp = Path(name)
        messages, errors = run_kernel(tmp, prepared, args, sandbox)
        result.messages += messages
        for error in errors:
            index, _, what = error.partition(":")
            if not index.isdigit():
                continue
            what = what.strip()
            if what.startswith(("KeyboardInterrupt", "time limit")):
                result.messages.append(f"cell {int(index) + 1} was stopped at the time limit per cell "
                                       f"({args.cell_timeout} s).")
            else:
                result.messages.append(f"cell {int(index) + 1} raised {what}")
        # the kernel's sandbox is gone: its folder becomes the evaluator's input, copied where no kernel can reach
        captures = tmp / "answers"
        shutil.copytree(tmp / "work" / "captures", captures)
        evaluator_dir = tmp / "evaluator"
        evaluator_dir.mkdir()
        shutil.copy(ROOT / "instructor" / "grader" / "evaluator.py", evaluator_dir / "evaluator.py")
        level, hidden, read_only = sandbox
        env = child_env(tmp, args.full)
        evaluator = Evaluator(captures, sandbox_prefix(level, hidden, read_only + [captures, evaluator_dir]), env,
                              call_timeout=args.call_timeout, script=evaluator_dir / "evaluator.py")
        try:
            for key, _ in assignment.exercises:
                result.lines[key] = []
                if (captures / f"{key}.error").exists():
                    why = (captures / f"{key}.error").read_text()[:200]
                    result.notes[key] = f"your answer could not be saved for grading ({why})"
                    continue
                if not (captures / f"{key}.pkl").exists():
                    result.notes[key] = "no answer was saved (its cells did not run, or were deleted)"
                    continue
                named = forbidden_names_in(result.code.get(key, ""), SOLUTIONS[key].forbidden)
                evaluator.tripped = set()
                try:
                    answer = evaluator.load(key, SOLUTIONS[key].tripwires)
                    earned, lines = judge(key, answer, case_seed(class_seed, student, key), evaluator.tripped,
                                          named)
                except EvaluatorFailed as error:
                    earned, lines = 0.0, [f"your answer could not be graded: {error}"]
                finally:
                    evaluator.finish()
                result.scores[key] = min(max(float(earned), 0.0), result.maximum[key])
                result.lines[key] = lines
                result.notes[key] = " | ".join(lines)[:400]
        finally:
            evaluator.close()
    result.seconds = time.perf_counter() - start
    return result


# -- the run ----------------------------------------------------------------------------------------------


def rows_of(results: list[Result]) -> list[dict]:
    rows = []
    for r in results:
        for key, value in r.scores.items():
            rows.append({"student": r.student, "assignment": r.assignment, "exercise": key, "points": f"{value:g}",
                         "max_points": f"{r.maximum.get(key, 0):g}", "note": r.notes.get(key, "")})
        if not r.scores:
            rows.append({"student": r.student, "assignment": r.assignment, "exercise": "", "points": "0",
                         "max_points": "0", "note": " ".join(r.messages)[:300]})
    return rows


def write_csv(path: Path, rows: list[dict]):
    with open(path, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=FIELDS)
        writer.writeheader()
        writer.writerows(rows)


def write_outputs(results, folder: Path, out: Path, course: Path, assignments, extra, seconds, sandbox_words,
                  merge: bool, class_name: str):
    from instructor.grader.feedback import page

    folder.mkdir(parents=True)
    rows = rows_of(results)
    write_csv(folder / "gradebook.csv", rows)
    for r in results:
        if not r.assignment and not r.scores:
            name = Path(r.path).stem
        else:
            name = r.assignment
        target = folder / "feedback" / r.student / f"{name or 'unknown'}.html"
        target.parent.mkdir(parents=True, exist_ok=True)
        html = page(r, assignments.get(r.assignment), class_name)
        target.write_text(html)
        if r.secrets.get("timestamp.txt") and r.secrets.get("submission_secret.txt") and r.assignment in assignments:
            nbgrader_dir = course / "feedback" / r.student / r.assignment  # where nbgrader release_feedback looks
            nbgrader_dir.mkdir(parents=True, exist_ok=True)
            (nbgrader_dir / assignments[r.assignment].notebook.replace(".ipynb", ".html")).write_text(html)
            for file_name, text in r.secrets.items():
                (nbgrader_dir / file_name).write_text(text)
    lines = ["# Grading report", "", f"{len(results)} notebook(s) graded in {seconds:.0f} s "
             f"(class variant: {class_name}). Each ran in a fresh kernel with: {sandbox_words}.", ""]
    lines += [f"- {m}" for m in extra]
    for r in results:
        total, maximum = sum(r.scores.values()), sum(r.maximum.values())
        lines += ["", f"## {r.student}: {Path(r.path).name} ({r.assignment or '?'}): {total:g} / {maximum:g} points, "
                      f"{r.seconds:.1f} s"]
        lines += [f"- {m}" for m in r.messages]
        lines += [f"- {k}: {v:g} ({r.notes.get(k, '')})" for k, v in r.scores.items() if v == 0 and r.notes.get(k)]
    (folder / "report.md").write_text("\n".join(lines) + "\n")
    latest = out / "latest"
    with contextlib.suppress(FileNotFoundError):
        latest.unlink()
    with contextlib.suppress(OSError):
        latest.symlink_to(folder.name)
    if merge:
        merged = out / "gradebook.csv"
        keep = []
        done = {(r["student"], r["assignment"]) for r in rows}
        if merged.exists():
            keep = [r for r in csv.DictReader(open(merged)) if (r["student"], r["assignment"]) not in done]
        write_csv(merged, keep + rows)


def results_folder(out: Path, assignment: str) -> Path:
    stamp = datetime.datetime.now().strftime("%Y-%m-%d-%H%M%S")
    folder = out / (f"{stamp}-{assignment}" if assignment else stamp)
    n = 2
    while folder.exists():
        folder = out / f"{stamp}-{n}{'-' + assignment if assignment else ''}"
        n += 1
    return folder


def grade_folder(args) -> int:
    """Grade, with the course's own copy of the instructor's material imported for the run (and put back after)."""
    saved_path = list(sys.path)
    saved = {m: sys.modules.pop(m) for m in list(sys.modules) if m == "instructor" or m.startswith("instructor.")}
    try:
        return _grade_folder(args)
    finally:
        sys.path[:] = saved_path
        for name in [m for m in sys.modules if m == "instructor" or m.startswith("instructor.")]:
            del sys.modules[name]
        sys.modules.update(saved)


def _grade_folder(args) -> int:
    submissions, course, out = Path(args.submissions), Path(args.course).resolve(), Path(args.out).resolve()
    if not (course / "release").is_dir() or not (course / "instructor" / "exercises").is_dir():
        print(f"no course in {course} (release/ and instructor/): run `make student` first.", file=sys.stderr)
        return 2
    if not submissions.is_dir():
        print(f"{submissions} is not a folder of submissions.", file=sys.stderr)
        return 2
    sys.path.insert(0, str(course))  # the course's own copy of the instructor's material (its variant)
    import instructor
    from instructor.exercises import Source
    from seqviz.exercises.expected import use_source

    if Path(instructor.__file__).resolve().parent != (course / "instructor").resolve():
        print(f"could not import the course's instructor/ from {course}", file=sys.stderr)
        return 2
    assignments = load_assignments(course)
    if args.assignment and args.assignment not in assignments:
        print(f"ASSIGNMENT={args.assignment}: not released; known: {', '.join(sorted(assignments))}",
              file=sys.stderr)
        return 2
    found, messages = find_submissions(submissions)
    if args.assignment:  # only that chapter's notebooks: a student's folder may hold several chapters
        chosen = []
        for student, path in found:
            try:
                chapter = which_assignment(read_notebook(path), path, "")
            except ValueError:
                chapter = ""
            folder_layout = path.parent.resolve() != submissions.resolve()
            if folder_layout and chapter and chapter != args.assignment:
                continue  # another chapter of this student's folder: not this run's business
            chosen.append((student, path))
        found = chosen
    seen, unique = set(), []
    for student, path in found:
        if (student, path.name) in seen:
            messages.append(f"{student}: two notebooks named {path.name}; graded {path}.")
        seen.add((student, path.name))
        unique.append((student, path))
    if not unique:
        print(f"no submissions in {submissions}: expected {submissions}/<student>.ipynb or "
              f"{submissions}/<student>/<chapter notebook>.ipynb" + (f" of {args.assignment}" if args.assignment
                                                                       else "") + ".", file=sys.stderr)
        for message in messages:
            print("  " + message, file=sys.stderr)
        return 1
    variant = json.loads((course / "variant.json").read_text()) if (course / "variant.json").exists() else {}
    class_name, class_seed = variant.get("name", "book"), str(variant.get("seed", "book"))
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as probe:
        level = sandbox_level(Path(probe))
    hidden = [course, ROOT / "instructor", submissions.resolve(), out]
    read_only = [ROOT]
    start = time.perf_counter()

    def one(item):
        student, path = item
        try:
            result = grade_one(student, path, assignments, args, (level, hidden, read_only), class_seed)
        except Exception as error:  # noqa: BLE001 - one submission never stops the run
            result = Result(student, str(path), args.assignment, messages=[f"grading failed: {error!r}"])
        print(f"{student} {path.name}: {sum(result.scores.values()):g} points, {result.seconds:.1f} s"
              + (f" ({'; '.join(result.messages)})" if result.messages else ""), flush=True)
        return result

    # every expected value from the course's references, in every thread (not from the shipped tables)
    with use_source(Source()), ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(one, unique))  # each job is a child process tree
    seconds = time.perf_counter() - start
    folder = results_folder(out, args.assignment)
    write_outputs(results, folder, out, course, assignments, messages, seconds, SANDBOX_WORDS[level], args.merge,
                  class_name)
    print(f"results: {folder} (gradebook.csv, feedback/, report.md; {seconds:.0f} s)")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("submissions", help="folder of submissions")
    parser.add_argument("--course", default=str(ROOT / "course"), help="the course folder (make student)")
    parser.add_argument("--out", default=str(ROOT / "grades"), help="where the dated results folders go")
    parser.add_argument("--assignment", default="", help="grade only this chapter's notebooks, e.g. ch02")
    parser.add_argument("--timeout", type=int, default=900, help="seconds per notebook run (default 900)")
    parser.add_argument("--cell-timeout", type=int, default=120, help="seconds per cell (default 120)")
    parser.add_argument("--call-timeout", type=float, default=20, help="seconds per call of an answer (default 20)")
    parser.add_argument("--jobs", type=int, default=max(1, min(4, (os.cpu_count() or 2) // 2)),
                        help="submissions graded at once (default: half the CPU cores, at most 4)")
    parser.add_argument("--full", action="store_true", help="run the chapters in full mode (default: quick)")
    parser.add_argument("--merge", action="store_true", help="also merge this run into <out>/gradebook.csv")
    args = parser.parse_args(argv)
    return grade_folder(args)


if __name__ == "__main__":
    sys.exit(main())
