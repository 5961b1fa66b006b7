"""Fabricated submissions for the grading tests: a released notebook with its stubs filled in.

``fill(released, answers)`` returns a copy of a student notebook in which the stub of each exercise
label (``"ch02-ex1"``) is replaced by the given code, as a student would type it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LABEL = re.compile(r"#\s*Exercise\s+(?P<label>ch\d\d[a-z]?-ex\d+)\b")


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
