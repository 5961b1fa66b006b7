"""Write the student edition: ``student/notebooks/`` with every solution removed.

- a code cell tagged ``solution`` becomes a stub that raises ``NotImplementedError``
  with the exercise label and the hint (a first line ``# Hint: ...`` in the solution);
- ``{solution}`` directives, and the gated ``{solution-start}`` / ``{solution-end}``
  pairs, are removed from markdown cells (a cell left empty is dropped);
- outputs and execution counts are cleared.

Usage: ``python scripts/make_student.py [--out student]`` (``make student``).
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FENCE = r"(?P<fence>`{3,}|~{3,}|:{3,})"
SOLUTION_BLOCK = re.compile(FENCE + r"\{solution\}[^\n]*\n.*?^(?P=fence)[ \t]*$\n?", re.DOTALL | re.MULTILINE)
GATE = re.compile(FENCE + r"\{solution-(?P<kind>start|end)\}[ \t]*(?P<label>[^\n]*)\n.*?^(?P=fence)[ \t]*$\n?",
                  re.DOTALL | re.MULTILINE)
HINT = re.compile(r"^\s*#\s*Hint:\s*(?P<hint>.+)$", re.MULTILINE | re.IGNORECASE)


def source(cell) -> str:
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def stub(label: str, solution: str) -> str:
    hint = HINT.search(solution)
    hint_text = hint["hint"].strip() if hint else "see the exercise text above."
    name = label or "this exercise"
    lines = [f"# Exercise {name}: your code here.", f"# Hint: {hint_text}",
             f"raise NotImplementedError({f'{name}: write your solution here. Hint: {hint_text}'!r})"]
    return "\n".join(lines)


def studentise(notebook: dict) -> dict:
    """Return a copy of ``notebook`` without solutions (the input is not changed)."""
    notebook = json.loads(json.dumps(notebook))
    cells, label = [], ""
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
            if "solution" in cell.get("metadata", {}).get("tags", []):
                cell["source"] = stub(label, text)
                cell["metadata"]["tags"] = [t for t in cell["metadata"]["tags"] if t != "solution"] + ["exercise"]
            cell["outputs"], cell["execution_count"] = [], None
        cells.append(cell)
    notebook["cells"] = cells
    return notebook


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=str(ROOT / "student"), help="output folder (default: student/)")
    parser.add_argument("notebooks", nargs="*", help="notebooks (default: notebooks/*.ipynb)")
    args = parser.parse_args(argv)
    paths = [Path(p) for p in args.notebooks] or sorted((ROOT / "notebooks").glob("*.ipynb"))
    out = Path(args.out) / "notebooks"
    out.mkdir(parents=True, exist_ok=True)
    for path in paths:
        notebook = studentise(json.loads(path.read_text()))
        stubs = sum("exercise" in c.get("metadata", {}).get("tags", []) for c in notebook["cells"])
        (out / path.name).write_text(json.dumps(notebook, indent=1, ensure_ascii=False) + "\n")
        print(f"{out / path.name}: {stubs} exercise stub(s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
