"""Assemble ``_vendor/``: every script and style the rendered book serves itself.

- ``plotly.min.js`` from the installed (pinned) Python ``plotly`` package;
- ``book/_js/widgets-config.js`` (ours: points require.js at the vendored widget manager);
- ``vendor/`` (committed; require.js, the ipywidgets HTML manager, MathJax, each with
  its licence: see vendor/README.md);
- ``bertviz/``: the scripts bertviz's views load (require.js 2.3.6, d3 5.7.0, jQuery 2.0.3, with
  their licences), shipped as package data in ``seqviz/viz/bertviz_js/`` and used by
  ``seqviz.viz.bertviz_bridge`` (in the book, its views point at ``_static/bertviz/``).

``_vendor/`` is listed in ``html_static_path``; it is generated, not committed, and not
named ``_static`` because Jupyter Book injects every .js under ``_static`` into every page.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import plotly

ROOT = Path(__file__).resolve().parents[1]
VENDOR = ROOT / "_vendor"


def main() -> None:
    if VENDOR.exists():
        shutil.rmtree(VENDOR)
    shutil.copytree(ROOT / "vendor", VENDOR, ignore=shutil.ignore_patterns("README.md"))
    shutil.copyfile(ROOT / "book" / "_js" / "widgets-config.js", VENDOR / "widgets-config.js")
    shutil.copytree(ROOT / "seqviz" / "viz" / "bertviz_js", VENDOR / "bertviz", ignore=shutil.ignore_patterns("*.md"))
    shutil.copyfile(Path(plotly.__file__).parent / "package_data" / "plotly.min.js", VENDOR / "plotly.min.js")
    (VENDOR / "plotly.LICENSE.txt").write_text(
        f"plotly.min.js: plotly.js as shipped by the Python package plotly {plotly.__version__}; MIT licence,\n"
        "Copyright (c) Plotly Technologies Inc. https://github.com/plotly/plotly.js\n")
    files = sum(1 for p in VENDOR.rglob("*") if p.is_file())
    print(f"_vendor/: plotly.js from plotly {plotly.__version__} and {files - 3} vendored files")


if __name__ == "__main__":
    main()
