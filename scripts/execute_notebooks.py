"""Run a book's notebooks a few at a time into the cache its build then reads, instead of one after another.

Jupyter Book runs one notebook at a time, and each chapter's kernel uses one thread (the Makefile's
``OMP_NUM_THREADS=1``): on two cores half the machine idles through the whole build. This script executes
the notebooks in ``--jobs`` worker processes (longest first, by the times of the last run where there is one),
each in its own kernel, in the notebook's folder as the build would, and stores every executed notebook in a
fresh jupyter-cache at ``--cache`` (removed first: nothing of an earlier run is ever reused). The build then
runs with ``SEQVIZ_EXECUTED=<cache>``: the book's extension (``book/_ext/seqviz_book.py``) switches myst-nb
to that cache, which matches each notebook by the hash of its code and merges the outputs in. A notebook
that failed here is not stored, so the build runs it again and reports its error as it always does; this
script also prints the failing cell and exits with 1.

The environment (``SEQVIZ_QUICK``, ``SEQVIZ_BOOK``, threads) is the caller's, passed to every kernel, with one
exception: a notebook whose metadata has ``seqviz.run_alone`` (a sentence saying why: chapter 9b times training
on one thread and on every core) runs first, by itself, with the thread limits (``OMP_NUM_THREADS``,
``MKL_NUM_THREADS``) removed. Beside another kernel its every-core timing would measure the other kernel (on two
cores, the threads of one step wait for a core the other notebook holds: 9b took 310 s so in full mode, and
reported two threads five times slower than one).
``--shared`` says the machine is shared by design (``make test`` runs the tests beside the book builds): there
nothing runs alone, so a ``run_alone`` notebook runs with the others, with the thread limits, and measures one
thread as the other shared runs do (the live check, the Colab check) instead of spinning threads that wait for
cores the tests hold (9b took 70-82 s so in quick mode beside the tests, against 28 s alone).
Per-notebook times go to ``<cache>/../notebook-times.csv`` (and are printed).

``--python`` runs the kernels in another environment's Python (it needs ipykernel and seqviz), while this one
executes and caches: CI executes the Chinese edition with the lowest versions ``requirements.txt`` allows
(``.venv-min``), so that one run of every chapter's code both tests those versions and builds that edition.

Usage: ``python scripts/execute_notebooks.py --cache _build/.jupyter_cache [--jobs 2] [--python PY] [--shared]
notebooks/*.ipynb``
"""

from __future__ import annotations

import argparse
import csv
import shutil
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _stop_with(parent: int) -> None:
    """In a worker: exit as soon as the process that started it is gone (killed, or stopped by the user), so that
    no worker goes on taking notebooks for nobody; its kernel then sees its own parent go and stops too."""
    import os
    import threading

    def watch():
        while os.getppid() == parent:
            time.sleep(1)
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


KERNEL = "seqviz-python"   # the kernelspec --python writes (in a folder of its own, on JUPYTER_PATH)


def kernel_spec(python: str, folder: Path) -> str | None:
    """Write a kernelspec for ``python`` under ``folder``: None, or why that Python cannot run a chapter."""
    import json
    import subprocess

    if not Path(python).is_file():
        return f"expected --python to be a Python interpreter, got {python!r} (no such file)"
    probe = subprocess.run([python, "-c", "import ipykernel, seqviz"], capture_output=True, text=True)
    if probe.returncode != 0:
        last = (probe.stderr.strip().splitlines() or ["(no message)"])[-1]
        return f"expected --python to have ipykernel and seqviz installed, but {python} says: {last}"
    spec = folder / "kernels" / KERNEL
    spec.mkdir(parents=True, exist_ok=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [python, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": f"Python ({python})", "language": "python"}))
    return None


def execute(path: str, timeout: int, kernel: str | None = None) -> tuple[str, str | None, float, str | None]:
    """Execute one notebook in its own folder: (path, executed notebook as JSON or None, seconds, error).
    ``kernel``: a kernelspec name to run it with instead of the notebook's own."""
    import nbformat
    from jupyter_cache.executors.utils import single_nb_execution

    notebook = nbformat.read(path, as_version=4)
    start = time.perf_counter()
    result = single_nb_execution(notebook, cwd=str(Path(path).parent), timeout=timeout, allow_errors=False,
                                 meta_override=True, **({"kernel_name": kernel} if kernel else {}))
    seconds = time.perf_counter() - start
    if result.err is not None:
        return path, None, seconds, result.exc_string or f"{type(result.err).__name__}: {result.err}"
    return path, nbformat.writes(notebook), seconds, None


def run_alone(path: Path) -> str | None:
    """Why the notebook at ``path`` must run by itself (its ``metadata.seqviz.run_alone``), or None."""
    import json

    reason = json.loads(path.read_text()).get("metadata", {}).get("seqviz", {}).get("run_alone")
    if reason is not None and not (isinstance(reason, str) and reason.strip()):
        raise ValueError(f"{path}: metadata.seqviz.run_alone must be a sentence saying why, got {reason!r}")
    return reason


def _unlimited_threads(parent: int) -> None:
    """Initializer of the worker that runs a notebook alone: its kernel may use every core."""
    import os

    _stop_with(parent)
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.pop(name, None)


def shown(path: Path | str) -> str:
    """A notebook's name as printed and logged: relative to the repository where it lies inside it."""
    path = Path(path)
    return path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)


def last_times(csv_path: Path) -> dict[str, float]:
    try:
        with csv_path.open() as f:
            return {row["notebook"]: float(row["seconds"]) for row in csv.DictReader(f)}
    except (OSError, KeyError, ValueError):
        return {}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("notebooks", nargs="+", help="the notebooks to execute")
    parser.add_argument("--cache", required=True, help="the jupyter-cache folder the build will read (made afresh)")
    parser.add_argument("--jobs", type=int, default=2, help="notebooks executed at once")
    parser.add_argument("--timeout", type=int, default=600, help="seconds one cell may take")
    parser.add_argument("--python", help="the Python whose kernel runs the notebooks (default: this one's)")
    parser.add_argument("--shared", action="store_true",
                        help="the machine is shared (tests run beside): no notebook runs alone")
    args = parser.parse_args(argv)
    paths = [Path(p).resolve() for p in args.notebooks]
    missing = [str(p) for p in paths if p.suffix != ".ipynb" or not p.is_file()]
    if missing:
        print(f"expected notebook files (.ipynb), got: {', '.join(missing)}")
        return 2
    if args.jobs < 1:
        print(f"expected --jobs of 1 or more, got {args.jobs}")
        return 2
    import atexit
    import os
    import tempfile

    import nbformat
    from jupyter_cache import get_cache
    from jupyter_cache.base import CacheBundleIn

    kernel = None
    if args.python:
        specs = Path(tempfile.mkdtemp(prefix="seqviz-kernel-"))
        atexit.register(shutil.rmtree, specs, True)
        problem = kernel_spec(args.python, specs)
        if problem:
            print(problem)
            return 2
        os.environ["JUPYTER_PATH"] = os.pathsep.join(filter(None, [str(specs), os.environ.get("JUPYTER_PATH")]))
        kernel = KERNEL
        print(f"kernels: {args.python}", flush=True)
    cache_dir = Path(args.cache).resolve()
    times_csv = cache_dir.parent / "notebook-times.csv"
    previous = last_times(times_csv)
    shutil.rmtree(cache_dir, ignore_errors=True)
    cache = get_cache(str(cache_dir))
    order = sorted(paths, key=lambda p: (-previous.get(shown(p), 0.0), -p.stat().st_size))
    try:
        alone = [p for p in order if run_alone(p) and not args.shared]
    except ValueError as error:
        print(error)
        return 2
    together = [p for p in order if p not in alone]
    start = time.perf_counter()
    rows, failed = [], []

    def collect(pool, batch):
        for future in as_completed([pool.submit(execute, str(p), args.timeout, kernel) for p in batch]):
            path, text, seconds, error = future.result()
            rel = shown(path)
            rows.append({"notebook": rel, "seconds": f"{seconds:.1f}", "ok": error is None})
            if error is not None:
                failed.append(rel)
                print(f"{rel}: FAILED after {seconds:.0f} s\n{error}", flush=True)
                continue
            cache.cache_notebook_bundle(CacheBundleIn(nbformat.reads(text, as_version=4), uri=path,
                                                      data={"execution_seconds": seconds}),
                                        check_validity=False, overwrite=True)
            print(f"{rel}: executed in {seconds:.0f} s" + (" (alone, every core)" if Path(path) in alone else ""),
                  flush=True)

    if alone:  # one at a time, nothing beside them, no thread limit
        with ProcessPoolExecutor(max_workers=1, initializer=_unlimited_threads, initargs=(os.getpid(),)) as pool:
            collect(pool, alone)
    if together:
        with ProcessPoolExecutor(max_workers=min(args.jobs, len(together)), initializer=_stop_with,
                                 initargs=(os.getpid(),)) as pool:
            collect(pool, together)
    rows.sort(key=lambda r: r["notebook"])
    times_csv.parent.mkdir(parents=True, exist_ok=True)
    with times_csv.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=["notebook", "seconds", "ok"])
        writer.writeheader()
        writer.writerows(rows)
    total = sum(float(r["seconds"]) for r in rows)
    print(f"{len(rows)} notebooks in {time.perf_counter() - start:.0f} s, {args.jobs} at once "
          f"({total:.0f} s one after another); times in {times_csv}"
          + (f"; FAILED: {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
