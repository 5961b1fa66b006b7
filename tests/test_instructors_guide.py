"""Every command of book/instructors.md, run in the order the page prints them, on a scratch copy of the
repository whose book is small (the page's own chapter 1, cut to its set-up cell and exercises).

The commands are read from the page's ```bash blocks, so the page and this test cannot drift apart. Only the two
lines that fetch the repository (``git clone ...`` and ``cd sequence-models-book``) are not run: the scratch
copy stands for them. The blocks a student runs (``fetch_assignment``, ``submit``, ``fetch_feedback``) run in a
student's own folder, with an nbgrader configuration that points at the course's exchange, as on a JupyterHub.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from grading_fixtures import fill, full_points, mini_chapter, solutions, write  # noqa: E402

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "book" / "instructors.md"
NOT_RUN_HERE = ["git clone https://github.com/seqviz-book/sequence-models-book.git", "cd sequence-models-book"]
CH01 = ROOT / "notebooks" / "01_why_order_matters.ipynb"


def command_blocks(text: str) -> list[list[str]]:
    """The lines of each ```bash block of the page, in order."""
    return [[line for line in block.splitlines() if line.strip() and not line.lstrip().startswith("#")]
            for block in re.findall(r"^```bash\n(.*?)^```", text, re.DOTALL | re.MULTILINE)]


def scratch_repository(tmp: Path) -> Path:
    """A copy of the repository's files (not its outputs), the environment linked, one small chapter."""
    repo = tmp / "sequence-models-book"
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    for name in tracked.splitlines():
        source = ROOT / name
        if name.startswith("notebooks/") or not source.is_file():
            continue
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, repo / name)  # mtimes kept: make does not reinstall .venv
    for name in ("instructor", "tests/grading_fixtures.py"):  # not yet committed while this test is written
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, repo / name, dirs_exist_ok=True,
                            ignore=shutil.ignore_patterns("__pycache__"))
    venv = repo / ".venv"  # the environment, linked part by part, with a fresh stamp (make does not reinstall)
    venv.mkdir()
    for part in (ROOT / ".venv").iterdir():
        if part.name != ".installed":
            (venv / part.name).symlink_to(part)
    (venv / ".installed").touch()
    mini_chapter(CH01, repo / "notebooks")
    (repo / "_toc.yml").write_text("format: jb-book\nroot: book/instructors\nchapters:\n"
                                   "  - file: notebooks/01_why_order_matters\n")
    return repo


def run_block(lines: list[str], cwd: Path, env: dict) -> str:
    script = "set -e\n" + "\n".join(lines) + "\n"
    run = subprocess.run(["bash", "-c", script], cwd=cwd, env=env, capture_output=True, text=True, timeout=1800)
    assert run.returncode == 0, f"{lines} failed:\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}"
    return run.stdout + run.stderr


@pytest.fixture(scope="module")
def guide_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("guide")
    blocks = command_blocks(GUIDE.read_text())
    repo = scratch_repository(tmp)
    student_home = tmp / "student-home"
    (student_home / ".jupyter").mkdir(parents=True)
    (student_home / ".jupyter" / "nbgrader_config.py").write_text(
        f"c = get_config()\nc.Exchange.root = {str(repo / 'course' / 'exchange')!r}\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SOLUTIONS", "SEQVIZ_SOLUTIONS"))}
    env["PATH"] = str(ROOT / ".venv" / "bin") + os.pathsep + env.get("PATH", "")
    outputs, skipped = [], []
    for lines in blocks:
        runnable = [line for line in lines if line not in NOT_RUN_HERE]
        skipped += [line for line in lines if line in NOT_RUN_HERE]
        if any(re.search(r"nbgrader (fetch_assignment|submit|fetch_feedback)", line) for line in runnable):
            for line in runnable:  # the student works on the assignment between fetching and submitting it
                outputs.append(run_block([line], student_home, {**env, "HOME": str(student_home)}))
                if "fetch_assignment" in line:
                    notebook = student_home / "ch01" / CH01.name
                    write(fill(json.loads(notebook.read_text()), solutions(CH01)), notebook)
            continue
        if any(line.startswith("make grade SUBMISSIONS=submissions") for line in runnable):
            released = json.loads((repo / "student" / "notebooks" / CH01.name).read_text())
            write(fill(released, solutions(CH01)), repo / "submissions" / "alice.ipynb")
            write(released, repo / "submissions" / "bob" / CH01.name)
        outputs.append(run_block(runnable, repo, env) if runnable else "")
    return repo, student_home, blocks, skipped, outputs


def test_the_guide_has_the_commands_it_describes():
    flat = [line for block in command_blocks(GUIDE.read_text()) for line in block]
    for needed in ("make student", "make book SOLUTIONS=0", "make student VARIANT=", "nbgrader release_assignment",
                   "nbgrader collect", "make grade SUBMISSIONS=course/submitted", "nbgrader release_feedback"):
        assert any(line.startswith(needed) for line in flat), needed
    grade = [line for line in flat if line.startswith("make grade")]
    assert any(all(f" {v}=" in line for v in ("ASSIGNMENT", "OUT", "FULL", "TIMEOUT", "JOBS")) for line in grade)
    assert not any("--" in line for line in grade), "make takes VARIABLE=value, not --options"


def test_every_command_of_the_guide_runs_as_printed(guide_run):
    repo, student_home, blocks, skipped, _ = guide_run
    assert skipped == NOT_RUN_HERE, "only fetching the repository is left out"
    assert (repo / "course" / "nbgrader_config.py").exists()
    assert json.loads((repo / "course" / "variant.json").read_text())["name"] == "spring-2027"
    page = (repo / "_build" / "html" / "notebooks" / "01_why_order_matters.html").read_text()
    assert "solution" not in page.split('<main')[-1].lower().replace("solution-start", "").split("</main>")[0] \
        or 'content="0"' in page
    assert 'name="seqviz-solutions" content="0"' in page and "tag_solution" not in page


def test_each_grading_command_wrote_its_own_results(guide_run):
    repo, *_ = guide_run
    folders = sorted(p for p in (repo / "grades").iterdir() if p.is_dir() and not p.is_symlink())
    assert len(folders) == 3, folders
    by_name = {p.name.endswith("-ch01"): p for p in folders}
    rows = list(__import__("csv").DictReader(open(folders[0] / "gradebook.csv")))
    assert {r["student"] for r in rows} == {"alice", "bob"}
    assert sum(float(r["points"]) for r in rows if r["student"] == "alice") == full_points(solutions(CH01))
    assert by_name[True].exists()


def test_the_students_get_their_feedback_through_the_exchange(guide_run):
    repo, student_home, *_ = guide_run
    pages = list((student_home / "ch01" / "feedback").rglob("*.html"))
    assert pages, "nbgrader fetch_feedback brought no page"
    text = pages[0].read_text()
    full = full_points(solutions(CH01))
    assert "Exercise 1.1" in text and f"{full} / {full}" in text and "<script" not in text


def test_nbgrader_autograde_is_refused_with_a_pointer_to_make_grade(guide_run):
    """It would score what the student's kernel prints (book/instructors.md, "Why nbgrader")."""
    repo, *_ = guide_run
    env = {**os.environ, "PATH": str(ROOT / ".venv" / "bin") + os.pathsep + os.environ.get("PATH", "")}
    for command in ("autograde", "generate_feedback"):
        if command == "generate_feedback":  # a notebook where an earlier autograde would have left it
            for submitted in (repo / "course" / "submitted").glob("*/ch01"):
                shutil.copytree(submitted, repo / "course" / "autograded" / submitted.parent.name / "ch01",
                                dirs_exist_ok=True)
        run = subprocess.run(["nbgrader", command, "ch01", "--force"], cwd=repo / "course", env=env,
                             capture_output=True, text=True, timeout=300)
        assert run.returncode != 0 and "graded by `make grade" in run.stdout + run.stderr, command
