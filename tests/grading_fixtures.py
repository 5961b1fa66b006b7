"""Fabricated submissions for the grading tests: a released notebook with its stubs filled in, and the red-team
class (``RED_TEAM``): each student's answers and what they deserve.

``fill(released, answers)`` returns a copy of a student notebook in which the stub of each exercise label
(``"ch03-ex1"``) is replaced by the given code, as a student would type it. The class works on a small copy of
chapter 3 (its set-up cell and its exercise section, ``mini_chapter``): four exercises of 2 points, the last of
which (``clip_norm``) must not call ``torch.nn.utils.clip_grad_norm_``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LABEL = re.compile(r"#\s*Exercise\s+(?P<label>ch\d\d[a-z]?-ex\d+)\b")
CH03 = ROOT / "notebooks" / "03_vanishing_gradients.ipynb"


def mini_chapter(path: Path, out_dir: Path) -> Path:
    """A small copy of a chapter notebook: its set-up cells and its exercise section (same file name)."""
    notebook = json.loads(path.read_text())
    cells = notebook["cells"]
    first_exercise = next(i for i, c in enumerate(cells) if "{exercise}" in "".join(c["source"]))
    setup = [c for c in cells[:first_exercise] if c["cell_type"] == "code" and "import seqviz" in "".join(c["source"])]
    notebook["cells"] = [cells[0], *setup, *cells[first_exercise:]]
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / path.name).write_text(json.dumps(notebook, indent=1))
    return out_dir / path.name


def solutions(chapter_notebook: Path) -> dict[str, str]:
    """{label: the solution code of that exercise} from a chapter notebook (its cells tagged solution)."""
    notebook = json.loads(chapter_notebook.read_text())
    found, label = {}, ""
    for cell in notebook["cells"]:
        text = "".join(cell["source"])
        gate = re.search(r"\{solution-start\}\s*(ch\d\d[a-z]?-ex\d+)", text)
        if cell["cell_type"] == "markdown" and gate:
            label = gate[1]
        if "solution" in cell.get("metadata", {}).get("tags", []):
            found[label] = found.get(label, "") + text + "\n"
    return found


def fill(released: dict, answers: dict[str, str], *, keep_header=True) -> dict:
    """A copy of the released notebook whose stubs hold ``answers[label]`` (others stay stubs)."""
    notebook = json.loads(json.dumps(released))
    for cell in notebook["cells"]:
        text = "".join(cell["source"])
        match = LABEL.match(text)
        if cell["cell_type"] == "code" and match and match["label"] in answers:
            header = text.splitlines()[0] + "\n" if keep_header else ""
            cell["source"] = header + answers[match["label"]]
    return notebook


def write(notebook: dict, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(notebook, indent=1))
    return path


# -- the red-team class ---------------------------------------------------------------------------------------
# Each attacker answers exercise 1 right (2 points deserved) and attacks the others with wrong answers.

WRONG = {"ch03-ex2": "answer = lambda w_hh, g, T: torch.ones(T)\n",
         "ch03-ex3": "answer = lambda w_hh, h_t: w_hh\n",
         "ch03-ex4": "answer = lambda grads, max_norm: grads\n"}

FORMATTER = """
ip = get_ipython()
for kind in (float, int, object):
    ip.display_formatter.formatters["text/plain"].for_type(kind, lambda value, p, cycle: p.text("2"))
answer = 0.5
"""

META_PATH = """
import importlib.abc, importlib.machinery, sys, types
class Fake(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path=None, target=None):
        if name == "seqviz_capture" or name.startswith("seqviz.exercises") or name.startswith("instructor"):
            return importlib.machinery.ModuleSpec(name, self)
    def create_module(self, spec):
        return None
    def exec_module(self, module):
        module.save = lambda key, value: None
        module.check = lambda *a, **k: print("✅ Correct!") or True
        module.grade_cell = lambda *a, **k: 2.0
        module.EXERCISES = {}
for name in [m for m in sys.modules if m.startswith(("seqviz.exercises", "seqviz_capture"))]:
    del sys.modules[name]
sys.meta_path.insert(0, Fake())
answer = 0.5
"""

CALLS_REFERENCES = """
answer = None
import sys
sys.path.insert(0, {root!r})
for attempt in ("from seqviz.exercises import EXERCISES; answer = EXERCISES['ch03.ex2'].reference()",
                "from seqviz.exercises.ch03 import _closed_form_reference as answer",
                "from instructor.exercises.ch03 import _closed_form_reference as answer",
                "from seqviz.exercises.grading import grade_cell"):
    try:
        exec(attempt)
    except Exception as error:
        print("refused:", type(error).__name__)
answer = answer if callable(answer) else (lambda w_hh, g, T: torch.ones(T))
"""

LIBRARY_FUNCTION = """
from torch.nn.utils import clip_grad_norm_ as shrink
def clip_norm(grads, max_norm):
    params = [torch.nn.Parameter(torch.zeros_like(g)) for g in grads]
    for p, g in zip(params, grads):
        p.grad = g.clone()
    shrink(params, max_norm)
    return [p.grad for p in params]
answer = clip_norm
"""

LIBRARY_FUNCTION_RELOADED = """
import importlib, torch.nn.utils.clip_grad as cg
def clip_norm(grads, max_norm):
    fresh = importlib.reload(cg)  # the real function again, from disk, past any tripwire
    params = [torch.nn.Parameter(g.clone()) for g in grads]
    for p, g in zip(params, grads):
        p.grad = g.clone()
    fresh.clip_grad_norm_(params, max_norm)
    return [p.grad for p in params]
answer = clip_norm
"""

REDEFINED_CHECK = """
def check(*args, **kwargs):
    print("✅ Correct! everything is right")
    return True
import seqviz.exercises as ex
ex.check = check
for exercise in ex.EXERCISES.values():
    exercise.checker = lambda answer: (True, "fine")
answer = 0.5
"""

FAKE_SEQVIZ = """
import os, sys, pathlib
fake = pathlib.Path.cwd() / "seqviz" / "exercises"
fake.mkdir(parents=True, exist_ok=True)
(fake.parent / "__init__.py").write_text("")
(fake / "__init__.py").write_text("def check(*a, **k):\\n    print('✅ Correct!')\\n    return True\\n")
(fake / "plain.py").write_text("def encode(v, depth=0):\\n    return 2\\ndef decode(d):\\n    return 2\\n")
for name in [m for m in sys.modules if m == "seqviz" or m.startswith("seqviz.")]:
    del sys.modules[name]
sys.path.insert(0, str(pathlib.Path.cwd()))
try:
    from seqviz.exercises import check
except Exception:
    pass
answer = 0.5
"""

PATCHES_COMPARISONS = """
import sys, threading, numpy, numpy.testing, torch, torch.testing
torch.allclose = lambda *a, **k: True
torch.equal = lambda *a, **k: True
torch.testing.assert_close = lambda *a, **k: None
numpy.testing.assert_allclose = lambda *a, **k: None
numpy.allclose = lambda *a, **k: True
def tracer(frame, event, arg):
    if frame.f_code.co_name == "compare_tensors" and event == "return":
        frame.f_locals["ok"] = True
    return tracer
sys.settrace(tracer)
threading.settrace(tracer)
answer = 0.5
"""

READS_THE_COURSE = """
import glob, os, pathlib
found = []
for pattern in ({course!r} + "/**/*.py", {course!r} + "/source/**/*.ipynb", {root!r} + "/instructor/**/*.py"):
    found += glob.glob(pattern, recursive=True)
print("files found:", len(found))
text = "\\n".join(pathlib.Path(p).read_text() for p in found[:50])
namespace = {{}}
if "_closed_form_reference" in text:
    exec(text[text.index("def _closed_form_reference"):].split("\\n\\n\\n")[0], {{"torch": torch}}, namespace)
answer = namespace.get("_closed_form_reference", lambda w_hh, g, T: torch.ones(T))
"""

WRITES_ELSEWHERE = """
import pathlib
for target in ({gradebook!r}, {root!r} + "/seqviz/exercises/ch03.py", {course!r} + "/instructor/exercises/ch03.py"):
    try:
        pathlib.Path(target).write_text("mallory,ch03,ch03.ex1,100,2,forged\\n")
        print("wrote", target)
    except OSError as error:
        print("could not write", target, type(error).__name__)
answer = 0.5
"""

METADATA_EDITS = "metadata"  # marker: handled in red_team(): nbgrader metadata rewritten, cells unlocked

CRASH = "raise RuntimeError('my cell crashes')\n"

KILLS_THE_KERNEL = "import os\nos._exit(1)\n"

LOOPS = "while True:\n    pass\n"

SLEEPS_FOREVER = """
import signal, time
signal.signal(signal.SIGINT, signal.SIG_IGN)   # the interrupt at the time limit per cell is ignored
while True:
    time.sleep(1)
"""

FORKS = """
import os, time, pickle
if os.fork() == 0:                     # a child that outlives the cell, and the kernel, if it can
    time.sleep(4)
    folder = os.environ.get("SEQVIZ_CAPTURE_DIR", ".")
    for name in os.listdir(folder):
        with open(os.path.join(folder, name), "wb") as handle:
            handle.write(pickle.dumps(None))
    os._exit(0)
"""

SPINS = "def closed_form_norms(w_hh, g, T):\n    while True:\n        pass\n\n\nanswer = closed_form_norms\n"

HUGE_OUTPUT = "for _ in range(150):\n    print('x' * 1_000_000)\nanswer = 0.5\n"


def full_points(right: dict[str, str]) -> int:
    """What a chapter's exercises are worth, from its solutions by label: 2 points each (the mini chapters graded
    here have no follow-up questions)."""
    return 2 * len(right)


def red_team(right: dict[str, str], course: Path, gradebook: Path) -> dict[str, tuple[str, dict, int]]:
    """{student: (case, answers by label or a transformation, points deserved)} for the class run at normal
    limits. Honest students first; every attacker answers exercise 1 right, so deserves 2 of the full points."""
    root = str(ROOT)
    full = full_points(right)
    one_right = {"ch03-ex1": right["ch03-ex1"]}
    attack = lambda label, code: {**one_right, **WRONG, label: code}  # noqa: E731
    return {
        "alice": ("all right", right, full),
        "bob": ("stubs", {}, 0),
        "dave": ("right values as lists and numpy arrays", {
            **right,
            "ch03-ex2": right["ch03-ex2"] + "answer = lambda w, g, T: closed_form_norms(w, g, T).tolist()\n",
            "ch03-ex3": right["ch03-ex3"] + "answer = lambda w, h: step_jacobian(w, h).numpy()\n"}, full),
        "erin": ("a cell that crashes", {**right, "ch03-ex2": CRASH}, full - 2),
        "frank": ("one wrong answer", {**right, "ch03-ex3": WRONG["ch03-ex3"]}, full - 2),
        "formatter": ("display formatter shows every number as 2",
                      attack("ch03-ex2", FORMATTER + WRONG["ch03-ex2"]), 2),
        "finder": ("sys.meta_path finder replaces the grading helpers", attack("ch03-ex2", META_PATH), 2),
        "reference": ("calls reference() and private helpers", attack("ch03-ex2", CALLS_REFERENCES.format(root=root)),
                      2),
        "library": ("calls clip_grad_norm_ under another name", {**right, "ch03-ex4": LIBRARY_FUNCTION}, full - 2),
        "checker": ("redefines check and the checkers", attack("ch03-ex2", REDEFINED_CHECK), 2),
        "metadata": ("edits nbgrader metadata (points, ids, locks)", {**one_right, **WRONG}, 2),
        "fake": ("a fake seqviz/ in the working directory", attack("ch03-ex2", FAKE_SEQVIZ), 2),
        "patcher": ("sys.settrace, torch.allclose and numpy.testing patched", attack("ch03-ex2", PATCHES_COMPARISONS),
                    2),
        "reader": ("reads the course folder and instructor/", attack("ch03-ex2", READS_THE_COURSE.format(
            course=str(course), root=root)), 2),
        "writer": ("writes the gradebook, the package and the course", attack("ch03-ex2", WRITES_ELSEWHERE.format(
            gradebook=str(gradebook), root=root, course=str(course))), 2),
        "deleted": ("deleted an exercise's cells", right, full - 2),
    }


def misbehaving(right: dict[str, str]) -> dict[str, tuple[str, dict, int]]:
    """The submissions that need the time limits: graded in a run of their own, with short limits."""
    full = full_points(right)
    return {
        "loops": ("an infinite loop (stopped at the time limit per cell)", {**right, "ch03-ex3": LOOPS}, full - 2),
        "sleeper": ("sleeps forever, ignoring the interrupt", {**right, "ch03-ex2": SLEEPS_FOREVER}, full - 2),
        "killer": ("ends its kernel (os._exit)", {**right, "ch03-ex3": KILLS_THE_KERNEL}, full - 2),
        "forker": ("forks a process that outlives the cell", {**right, "ch03-ex1": right["ch03-ex1"] + FORKS}, full),
        "printer": ("writes 150 MB of output", {**right, "ch03-ex2": right["ch03-ex2"] + HUGE_OUTPUT}, full - 2),
        "spinner": ("a function that never returns when called", {**right, "ch03-ex2": SPINS}, full - 2),
    }


def edit_metadata(notebook: dict) -> dict:
    """Every nbgrader cell unlocked, worth 100 points, renamed; the grading cells' sources rewritten."""
    for cell in notebook["cells"]:
        meta = cell.get("metadata", {}).get("nbgrader")
        if meta:
            meta.update(locked=False, points=100, grade_id="mine-" + meta.get("grade_id", ""))
            if meta.get("grade") and not meta.get("solution"):
                cell["source"] = "print(2.0)\n2.0"
    return notebook


def delete_exercise(notebook: dict, label: str) -> dict:
    key = label.replace("-", ".")
    notebook["cells"] = [c for c in notebook["cells"] if not (LABEL.match("".join(c["source"])) and LABEL.match(
        "".join(c["source"]))["label"] == label) and f'check("{key}"' not in "".join(c["source"])]
    return notebook
