"""scripts/colab_check.py: the parts that need no Colab-like venv or browser (the run itself is make colab-check)."""

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import colab_check  # noqa: E402
import sync_repo_url  # noqa: E402

NOTEBOOKS = sync_repo_url.notebook_paths()


def test_the_notebook_colab_opens_differs_only_in_the_repository_url():
    path = NOTEBOOKS[0]
    original = json.loads(path.read_text())
    opened = colab_check.colab_notebook(path, "/srv/clone/.git")
    cell = "".join(sync_repo_url.first_code_cell(opened)["source"])
    assert '"url": "file:///srv/clone/.git"' in cell and sync_repo_url.repository_url() not in cell
    assert opened["cells"][2:] == original["cells"][2:]
    assert sync_repo_url.pin_of(opened)["commit"] == sync_repo_url.pin_of(original)["commit"]


def test_a_cell_that_does_not_name_the_repository_once_stops_the_check(tmp_path):
    path = tmp_path / "x.ipynb"
    notebook = json.loads(NOTEBOOKS[0].read_text())
    sync_repo_url.first_code_cell(notebook)["source"] = ['if "google.colab" in sys.modules:\n', "    pass\n"]
    path.write_text(json.dumps(notebook))
    with pytest.raises(SystemExit, match="does not name the repository once"):
        colab_check.colab_notebook(path, "/srv/clone/.git")


def test_the_chapters_with_kernel_side_widgets_are_found_by_their_imports():
    found = {p.stem.split("_")[0] for p in NOTEBOOKS if p.parent.name == "notebooks"
             and colab_check.has_kernel_widgets(json.loads(p.read_text()))}
    assert {"01", "03", "05", "10"} <= found and not found & {"02", "04", "06", "07", "08", "09"}


def dist(site: Path, name: str, version: str):
    info = site / f"{name}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")


def test_what_pip_put_in_a_layer_is_split_into_changes_to_colabs_packages_and_additions(tmp_path):
    runtime = object.__new__(colab_check.Runtime)
    runtime.prefix = tmp_path / "layer"
    site = colab_check.site_packages(runtime.prefix)
    dist(site, "sacrebleu", "2.6.0")
    dist(site, "python_dateutil", "4.0.0")   # Colab has 2.9: pip replaced it in the layer
    changed, added = runtime.changes({"python-dateutil": "2.9.0.post0", "torch": "2.13.0"})
    assert changed == {"python-dateutil": ("2.9.0.post0", "4.0.0")} and added == {"sacrebleu": "2.6.0"}


def test_the_report_fails_on_a_change_to_colabs_packages(tmp_path, capsys):
    result = {"front": "nbclient", "install_s": 9.0, "run_s": 20.0, "cells": 3, "ran": 3, "problems": [], "rows": [],
              "frames": {"problems": [], "rows": [], "counts": {"outputs": 1}}, "added": {"sacrebleu": "2.6.0"}}
    chapters = {"02": (Path("02_x.ipynb"), None, None)}
    assert colab_check.report({"02": {**result, "changed": {}}}, chapters, {}, {}, tmp_path, 1.0) == 0
    assert "pip's changes to Colab's packages: none" in capsys.readouterr().out
    changed = {"python-dateutil": ("2.9.0.post0", "4.0.0")}
    assert colab_check.report({"02": {**result, "changed": changed}}, chapters, {}, {}, tmp_path, 1.0) == 1
    out = capsys.readouterr().out
    assert "FAIL 02_x.ipynb: pip changed Colab's python-dateutil: 2.9.0.post0 -> 4.0.0" in out
    assert colab_check.report({"02": {**result, "changed": {}}}, chapters, {"torch": "2.13.0"}, {"torch": "2.9"},
                              tmp_path, 1.0) == 1   # Colab's venv itself must not change


def test_colab_packages_name_the_issues_list_with_a_date_and_torch_as_the_cpu_stand_in():
    text = (ROOT / "colab-packages.txt").read_text()
    pins = dict(line.split("==") for line in text.splitlines() if line and not line.startswith("#"))
    assert pins["torch"] == "2.13.0" and pins["ipywidgets"] == "7.7.1" and pins["notebook"].startswith("6.5")
    assert {"widgetsnbextension", "plotly", "numpy", "matplotlib", "pandas", "transformers", "ipython", "ipykernel",
            "jupyter-client"} <= set(pins)
    import re

    assert re.search(r"read on \d{4}-\d{2}-\d{2}", text)


def test_a_chinese_chapter_runs_its_colab_cell_set_up_and_first_figure_then_stops(tmp_path):
    import types

    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    svg = "<svg xmlns='http://www.w3.org/2000/svg' width='4' height='4'></svg>"
    nb.cells = [nbformat.v4.new_code_cell("print('the Colab cell')"),
                nbformat.v4.new_markdown_cell("## 1.1"),
                nbformat.v4.new_code_cell("from IPython.display import SVG, display\nlanguage = 'zh'"),
                nbformat.v4.new_code_cell("print('no picture yet')"),
                nbformat.v4.new_code_cell(f"display(SVG({svg!r}))"),
                nbformat.v4.new_code_cell("raise RuntimeError('past the first figure')")]
    runtime = types.SimpleNamespace(name="python3", cwd=tmp_path)
    lite = colab_check.run_nbclient(json.loads(nbformat.writes(nb)), runtime, 120, until_figure=True)
    assert (lite["ran"], lite["cells"], lite["problems"]) == (4, 5, [])
    assert lite["front"] == "nbclient, to its first figure"
    full = colab_check.run_nbclient(json.loads(nbformat.writes(nb)), runtime, 120)
    assert full["ran"] == 5 and "past the first figure" in full["problems"][0]


def test_a_plotly_figure_counts_as_the_first_figure_and_text_does_not():
    from colab_runtime import is_figure

    assert is_figure({"data": {"image/png": "iVBOR"}}) and is_figure({"data": {"image/svg+xml": "<svg/>"}})
    assert is_figure({"data": {"application/vnd.plotly.v1+json": {"data": []}}})
    colab_html = ['<div id="f"></div>\n', '<script>Plotly.newPlot("f", [], {})</script>']  # Colab's renderer
    assert is_figure({"data": {"text/html": colab_html}})
    assert not is_figure({"data": {"text/html": "<table><tr><td>plotly</td></tr></table>"}})
    assert not is_figure({"name": "stdout", "text": "Plotly.newPlot is a function"})
