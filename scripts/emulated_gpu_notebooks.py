"""Run chapters as on a GPU, on a CPU-only machine: every device mix-up fails as it would on CUDA.

Each notebook is executed (quick mode unless ``--full``) with one extra first cell that starts the
emulated accelerator of ``tests/emulated_accelerator.py``: ``pick_device()`` then answers "cuda",
models that ``fit`` moves there hold tensors that raise where a CPU tensor meets them, and
``.numpy()`` on them fails as on CUDA. Nothing is written back to the notebooks.

    python scripts/emulated_gpu_notebooks.py                      # every chapter
    python scripts/emulated_gpu_notebooks.py notebooks/04_gates.ipynb

Exit status 1 if a chapter fails; the failing cell and its error are printed.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

ROOT = Path(__file__).resolve().parents[1]
START = f"""import sys
sys.path.insert(0, {str(ROOT / 'tests')!r})
import emulated_accelerator
emulated_accelerator.start()
import seqviz as sv
assert sv.pick_device().type == "cuda", "the emulation did not start"
"""


def run(path: Path, timeout: int) -> tuple[bool, float, str]:
    notebook = nbformat.read(path, as_version=4)
    notebook.cells.insert(0, nbformat.v4.new_code_cell(START))
    client = NotebookClient(notebook, timeout=timeout, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}})
    start = time.perf_counter()
    try:
        client.execute()
        return True, time.perf_counter() - start, ""
    except CellExecutionError as error:
        failing = next((i for i, c in enumerate(notebook.cells) if c.cell_type == "code"
                        and any(o.get("output_type") == "error" for o in c.get("outputs", []))), None)
        where = "?" if failing is None else f"cell {failing - 1} (counting from 0, all cell types):\n" + \
            "\n".join("    " + line for line in notebook.cells[failing].source.splitlines()[:6])
        return False, time.perf_counter() - start, f"{where}\n  {error.ename}: {error.evalue}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("notebooks", nargs="*", type=Path)
    parser.add_argument("--full", action="store_true", help="full mode (default: SEQVIZ_QUICK=1)")
    parser.add_argument("--timeout", type=int, default=1200, help="seconds per cell")
    args = parser.parse_args(argv)
    os.environ["SEQVIZ_QUICK"] = "0" if args.full else "1"
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    paths = args.notebooks or sorted((ROOT / "notebooks").glob("*.ipynb"))
    failed = []
    for path in paths:
        ok, seconds, error = run(path, args.timeout)
        print(f"{'ok  ' if ok else 'FAIL'} {path.name}  {seconds:.0f} s", flush=True)
        if not ok:
            print(error, flush=True)
            failed.append(path.name)
    print(f"{len(paths) - len(failed)} of {len(paths)} chapters ran under the emulated accelerator")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
