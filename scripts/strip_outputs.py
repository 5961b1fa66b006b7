"""Remove outputs and execution counts from notebooks (``make strip``); ``--check`` only reports."""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def dirty_cells(notebook: dict) -> int:
    return sum(1 for c in notebook["cells"] if c["cell_type"] == "code" and (c.get("outputs") or c.get("execution_count")))


def main(argv: list[str]) -> int:
    check = "--check" in argv
    paths = [Path(a) for a in argv if a != "--check"] or sorted(
        [*(ROOT / "notebooks").glob("*.ipynb"), *(ROOT / "zh" / "notebooks").glob("*.ipynb")])  # both editions
    bad = 0
    for path in paths:
        notebook = json.loads(path.read_text())
        count = dirty_cells(notebook)
        if not count:
            continue
        bad += 1
        if check:
            print(f"{path}: {count} code cell(s) hold outputs or execution counts")
            continue
        for cell in notebook["cells"]:
            if cell["cell_type"] == "code":
                cell["outputs"], cell["execution_count"] = [], None
        path.write_text(json.dumps(notebook, indent=1, ensure_ascii=False) + "\n")
        print(f"stripped {path}")
    return 1 if (check and bad) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
