"""A fresh Colab runtime per chapter, over Colab's packages (scripts/colab_check.py runs them).

A chapter's runtime is a thin venv (no pip, milliseconds to make) whose ``.pth`` file adds Colab's site-packages
(``.venv-colab``) after its own, a kernelspec whose kernel imports a stand-in ``google.colab`` and ipywidgets at
start (as Colab's does), and a working folder. pip, run by the chapter's own Colab cell, installs into the layer;
what it put there under the name of one of Colab's packages is a change to Colab's packages.
"""

from __future__ import annotations

import importlib.metadata
import json
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import sync_repo_url  # noqa: E402

PYVER = f"python{sys.version_info.major}.{sys.version_info.minor}"
FAKE_COLAB = '"""A stand-in for Colab\'s google.colab (make colab-check): the Colab cell asks only that it is imported."""\n'
STARTUP = "import google.colab, ipywidgets  # Colab's kernel imports both before the first cell\n"


def site_packages(prefix: Path) -> Path:
    return prefix / "lib" / PYVER / "site-packages"


def packages(site: Path) -> dict[str, str]:
    """{normalised name: version} of the distributions installed in one site-packages folder."""
    found = {}
    for dist in importlib.metadata.distributions(path=[str(site)]):
        name = (dist.metadata["Name"] or "").lower().replace("_", "-")
        if name:
            found[name] = dist.version
    return found


class Runtime:
    """One chapter's fresh Colab runtime: a layer over Colab's packages, a kernelspec, a working folder."""

    def __init__(self, work: Path, chapter: str, colab: Path, fake: Path, env: dict):
        self.name = f"colab-{chapter}"
        self.prefix = work / "layers" / chapter
        subprocess.run([str(colab / "bin" / "python"), "-m", "venv", "--without-pip", str(self.prefix)], check=True)
        site = site_packages(self.prefix)
        (site / "00-colab-base.pth").write_text(
            f"import site; site.addsitedir({str(site_packages(colab))!r})\n{fake}\n")
        self.python = self.prefix / "bin" / "python"
        self.cwd = work / "content" / chapter
        self.cwd.mkdir(parents=True)
        spec = work / "jupyter" / "kernels" / self.name
        spec.mkdir(parents=True)
        (spec / "kernel.json").write_text(json.dumps({
            "argv": [str(self.python), "-m", "ipykernel_launcher", "-f", "{connection_file}"],
            "display_name": f"Colab-like ({chapter})", "language": "python", "env": env}))

    def changes(self, colab_packages: dict[str, str]) -> tuple[dict, dict]:
        """(Colab's packages pip changed: {name: (Colab's, now)}, the packages it added: {name: version})."""
        mine = packages(site_packages(self.prefix))
        changed = {n: (colab_packages[n], v) for n, v in mine.items() if n in colab_packages}
        return changed, {n: v for n, v in mine.items() if n not in colab_packages}


def colab_notebook(path: Path, clone: str) -> dict:
    """The chapter as Colab opens it, with only the Colab cell's repository URL replaced by this clone."""
    notebook = json.loads(path.read_text())
    cell = sync_repo_url.first_code_cell(notebook)
    source = "".join(cell["source"])
    url = f'"url": "{sync_repo_url.repository_url()}"'
    if source.count(url) != 1:
        raise SystemExit(f"{path.name}: the Colab cell does not name the repository once ({url}): run "
                         "python scripts/sync_repo_url.py")
    cell["source"] = source.replace(url, f'"url": "file://{clone}"')
    return notebook


def has_kernel_widgets(notebook: dict) -> bool:
    """A chapter whose code imports ipywidgets has kernel-side views."""
    return any(re.search(r"^\s*(import|from) ipywidgets\b", "".join(c["source"]), re.MULTILINE)
               for c in notebook["cells"][1:] if c["cell_type"] == "code")


def cell_seconds(cell: dict) -> float:
    timing = cell.get("metadata", {}).get("execution", {})
    start, end = timing.get("iopub.execute_input"), timing.get("shell.execute_reply")
    if not (start and end):
        return float("nan")
    from datetime import datetime

    parse = lambda t: datetime.fromisoformat(t.replace("Z", "+00:00"))  # noqa: E731
    return (parse(end) - parse(start)).total_seconds()


def error_of(notebook: dict) -> str | None:
    for cell in notebook["cells"]:
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                return f"{output['ename']}: {output['evalue']}"[:600]
    return None


def is_figure(output: dict) -> bool:
    """A picture among a cell's outputs: a PNG or SVG (matplotlib), or a plotly figure (its JSON, or the HTML
    that draws it with Plotly, as Colab's renderer writes it)."""
    data = output.get("data", {})
    if {"image/png", "image/svg+xml", "application/vnd.plotly.v1+json"} & set(data):
        return True
    html = data.get("text/html", "")
    html = "".join(html) if isinstance(html, list) else html
    return "Plotly.newPlot" in html


def run_nbclient(notebook: dict, runtime: Runtime, timeout: float, until_figure: bool = False) -> dict:
    """Run all cells, top to bottom, in the chapter's fresh kernel; stops at the first error, as Run all does.

    ``until_figure``: stop after the first cell past the Colab cell that draws a picture (:func:`is_figure`):
    the Colab cell's install, the chapter's set-up (imports, ``set_language``) and one figure, for an edition
    whose code is the other's, cell for cell (scripts/sync_zh.py --check), run in full here already.
    """
    import nbclient
    import nbformat
    from nbclient.exceptions import CellExecutionError

    notebook = nbformat.reads(json.dumps(notebook), as_version=4)  # sources as strings, as nbclient reads them

    start = time.monotonic()
    client = nbclient.NotebookClient(notebook, kernel_name=runtime.name, timeout=timeout, allow_errors=False,
                                     resources={"metadata": {"path": str(runtime.cwd)}}, record_timing=True)
    problem = None
    try:
        if not until_figure:
            client.execute()
        else:
            with client.setup_kernel():
                code_seen = 0
                for index, cell in enumerate(notebook.cells):
                    if cell.cell_type != "code":
                        continue
                    client.execute_cell(cell, index)
                    code_seen += 1
                    if code_seen > 1 and any(is_figure(o) for o in cell.outputs):
                        break
    except CellExecutionError as error:
        problem = str(error).strip().splitlines()[-1][:600]
    except Exception as error:  # noqa: BLE001 - a dead kernel or a timeout, reported per chapter
        problem = f"{type(error).__name__}: {str(error)[:600]}"
    code = [c for c in notebook["cells"] if c["cell_type"] == "code"]
    return {"front": "nbclient, to its first figure" if until_figure else "nbclient", "notebook": notebook,
            "run_s": time.monotonic() - start, "install_s": cell_seconds(code[0]),
            "cells": len(code), "ran": sum(c.get("execution_count") is not None for c in code),
            "problems": [f"Run all stopped: {problem or error_of(notebook)}"] if problem else [], "rows": []}
