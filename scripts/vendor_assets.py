"""Copy the scripts the book serves itself into ``_vendor/`` (listed in html_static_path).

The versions are those of the installed, pinned Python packages (constraints.txt), so
the rendered book needs no CDN. ``_vendor/`` is generated, not committed. It is not
named ``_static`` because Jupyter Book injects every .js under ``_static`` into every page.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import plotly

ROOT = Path(__file__).resolve().parents[1]
VENDOR = ROOT / "_vendor"


def main() -> None:
    VENDOR.mkdir(exist_ok=True)
    source = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
    shutil.copyfile(source, VENDOR / "plotly.min.js")
    (VENDOR / "LICENSES.txt").write_text(
        f"plotly.min.js: plotly.js as shipped by the Python package plotly {plotly.__version__}; MIT licence,\n"
        "Copyright (c) 2016-2024 Plotly Technologies Inc. https://github.com/plotly/plotly.js\n"
    )
    print(f"vendored plotly.js from plotly {plotly.__version__} into {VENDOR.relative_to(ROOT)}/")


if __name__ == "__main__":
    main()
