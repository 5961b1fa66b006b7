"""Write the repository URL from ``_config.yml`` into every notebook's Colab install cell.

The URL is written in one place (``repository.url`` in ``_config.yml``); after changing
it, run ``python scripts/sync_repo_url.py`` (``--check`` only reports, exit 1 on drift).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CELL_MARK = 'if "google.colab" in sys.modules:'
SOURCE = """# In Colab, install seqviz from the book's repository (the "seqviz" on PyPI is an unrelated project).
import subprocess, sys
if "google.colab" in sys.modules:
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "seqviz @ git+{url}"], check=True)"""


def repository_url() -> str:
    match = re.search(r"^repository:\s*\n\s+url:\s*(\S+)", (ROOT / "_config.yml").read_text(), re.MULTILINE)
    if not match:
        raise SystemExit("_config.yml has no repository.url")
    return match[1]


def colab_cell_source(url: str) -> str:
    return SOURCE.format(url=url)


def first_code_cell(notebook: dict) -> dict | None:
    return next((c for c in notebook["cells"] if c["cell_type"] == "code"), None)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true", help="report drift, change nothing")
    args = parser.parse_args(argv)
    expected = colab_cell_source(repository_url())
    drift = []
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        notebook = json.loads(path.read_text())
        cell = first_code_cell(notebook)
        if cell is None or CELL_MARK not in "".join(cell["source"]):
            drift.append(f"{path.name}: the first code cell is not the Colab install cell")
            continue
        if "".join(cell["source"]) != expected:
            drift.append(path.name)
            if not args.check:
                cell["source"] = expected
                tags = cell.setdefault("metadata", {}).setdefault("tags", [])
                if "remove-cell" not in tags:
                    tags.append("remove-cell")
                path.write_text(json.dumps(notebook, indent=1, ensure_ascii=False) + "\n")
    for line in drift:
        print(("drift: " if args.check else "updated: ") + line)
    return 1 if (args.check and drift) else 0


if __name__ == "__main__":
    sys.exit(main())
