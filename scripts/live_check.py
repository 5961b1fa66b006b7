"""Open every chapter in JupyterLab in headless Chromium, run it, and use every live view as a student would.

Starts JupyterLab on 127.0.0.1 (a free port, a random token, quick mode, one thread) over a copy of
``notebooks/`` (so nothing is saved into the repository), then, for each chapter:

1. opens it, runs all cells from the Run menu, and waits until every code cell has run;
2. for every live view (the ``seqviz-live`` widgets, the ``seqviz-web`` views whose model runs in the page,
   and bertviz's views) performs what it offers:
   types a sentence and presses Enter, moves each slider to both ends and by single steps, picks
   other entries of each dropdown, changes bertviz's layer menu; after each, waits until the
   view's picture changed and records the time from the key press or selection to the new
   picture on screen;
3. tries the bad inputs of each sentence box (unknown words, an empty box, 500 words): each must
   end in a short message or a picture, never a traceback;
4. fails on an error output, an "Error displaying widget", a console error, a request to any host
   but the local server, a view whose picture did not change, or a bertviz view that drew no lines.

Latencies (median and max per view and interaction) go to ``benchmarks/results/live_latency.csv``
and ``.md``; screenshots of every view to ``_build/live/``. Every process it starts (JupyterLab,
its kernels, Chromium) is stopped, by its id, before it exits.

Usage: ``python scripts/live_check.py [--notebooks 08 09] [--timeout 240]``
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import TimeoutError as PlaywrightTimeout

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
from view_driver import (CHROMIUM, FLAGS, JUPYTERLAB, Views, block_other_hosts, free_port, in_order,  # noqa: E402
                         page_js)

SCOPE = ".jp-Notebook"
SETTINGS = {  # JupyterLab user settings for the run: every cell in the page, no autosave, nothing fetched
    "@jupyterlab/notebook-extension/tracker": {"windowingMode": "none", "autoStartDefaultKernel": True},
    "@jupyterlab/docmanager-extension/plugin": {"autosave": False},
    "@jupyterlab/apputils-extension/notification": {"fetchNews": "false", "checkForUpdates": False},
}




def server_config() -> str:
    """The server's jupyter_server_config.py: jupyter_server's kernel manager with its activity stamp set from the
    start (scripts/lab_kernels.py: without it, a kernel listed while it starts answers 500)."""
    return (f"import sys\nsys.path.insert(0, {str(ROOT / 'scripts')!r})\n"
            'c.AsyncMappingKernelManager.kernel_manager_class = "lab_kernels.StampedKernelManager"\n')


class Lab:
    """JupyterLab over a copy of the notebooks; stopped (kernels, then the server, by pid) on exit."""

    def __init__(self, workdir: Path, threads: int = 1):
        self.workdir, self.token, self.port = workdir, secrets.token_hex(16), free_port()
        settings = workdir / "settings"
        for name, values in SETTINGS.items():
            path = settings / f"{name}.jupyterlab-settings"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(values))
        config = workdir / "config"  # JUPYTER_CONFIG_DIR: the server's config (its kernels: lab_kernels.py says why)
        config.mkdir(parents=True, exist_ok=True)
        (config / "jupyter_server_config.py").write_text(server_config())
        env = {**os.environ, "SEQVIZ_QUICK": "1", "OMP_NUM_THREADS": str(threads), "MKL_NUM_THREADS": str(threads),
               "JUPYTERLAB_SETTINGS_DIR": str(settings), "JUPYTERLAB_WORKSPACES_DIR": str(workdir / "workspaces"),
               "JUPYTER_CONFIG_DIR": str(config), "JUPYTER_RUNTIME_DIR": str(workdir / "runtime"),
               "PYTHONUNBUFFERED": "1"}
        env.pop("SEQVIZ_BOOK", None)
        command = [str(Path(sys.executable).with_name("jupyter-lab")), "--no-browser", "--ServerApp.ip=127.0.0.1",
                   f"--ServerApp.port={self.port}", "--ServerApp.port_retries=0",
                   f"--IdentityProvider.token={self.token}", f"--ServerApp.root_dir={workdir}",
                   "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate", "--ServerApp.log_level=WARN"]
        if os.geteuid() == 0:
            command.append("--allow-root")
        self.log = (workdir / "jupyterlab.log").open("w")
        self.process = subprocess.Popen(command, cwd=workdir, env=env, stdout=self.log, stderr=subprocess.STDOUT,
                                        start_new_session=True)
        self.base = f"http://127.0.0.1:{self.port}"
        deadline = time.monotonic() + 120
        while True:  # ready when the API answers
            try:
                self.api("GET", "/api/status")
                break
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"JupyterLab did not start; see {workdir / 'jupyterlab.log'}") from None
                time.sleep(0.2)

    def api(self, method: str, path: str):
        request = urllib.request.Request(self.base + path, method=method,
                                         headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(request, timeout=10) as response:
            body = response.read()
        return json.loads(body) if body else None

    def url(self, notebook: str) -> str:
        return f"{self.base}/lab/tree/notebooks/{notebook}?token={self.token}&reset"

    def kernel_connected(self, notebook: str) -> bool:
        for session in self.api("GET", "/api/sessions") or []:
            kernel = session.get("kernel") or {}
            if session.get("path", "").endswith(notebook) and kernel.get("connections", 0) > 0 \
                    and kernel.get("execution_state") == "idle":
                return True
        return False

    def stop_kernels(self):
        for kernel in self.api("GET", "/api/kernels") or []:
            self.api("DELETE", f"/api/kernels/{kernel['id']}")

    def stop(self):
        if self.process.poll() is None:
            try:
                self.stop_kernels()
                self.api("POST", "/api/shutdown")
                self.process.wait(timeout=20)
            except (OSError, subprocess.TimeoutExpired):
                pass
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        try:  # anything the server left in its own process group (a kernel it could not stop)
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.log.close()


class Page:
    """One chapter open in JupyterLab: console errors and third-party requests are collected."""

    def __init__(self, browser, lab: Lab, notebook: str):
        self.page = browser.new_page(viewport={"width": 1400, "height": 1000})
        self.errors: list[str] = []
        self.external: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(f"page error: {e}"))
        block_other_hosts(self.page, self.external)
        self.page.add_init_script(page_js(SCOPE, JUPYTERLAB))
        self.page.goto(lab.url(notebook), wait_until="domcontentloaded", timeout=60_000)
        self.page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
        deadline = time.monotonic() + 120
        while not lab.kernel_connected(notebook):  # the page's kernel is started and connected
            if time.monotonic() > deadline:
                raise RuntimeError(f"{notebook}: no kernel connected after 120 s")
            self.page.wait_for_timeout(250)
        self.page.wait_for_function(
            "() => /\\| Idle/.test(document.querySelector('.jp-StatusBar-Widget') ? "
            "document.querySelector('.jp-StatusBar-Widget').textContent : '')", timeout=60_000)

    def js(self, expression: str, arg=None):
        return self.page.evaluate(expression, arg)

    def run_all(self, timeout_s: float) -> dict:
        """Run > Run All Cells, then wait until every code cell has run (or one failed)."""
        for attempt in range(3):  # a kernel that has just connected may miss the first request
            self.page.click('.lm-MenuBar-itemLabel:text-is("Run")')
            self.page.click('.lm-Menu-itemLabel:text-is("Run All Cells")')
            try:
                self.page.wait_for_function("() => { const s = liveCheck.state(); return s.busy > 0 || s.ran > 0; }",
                                            timeout=15_000)
                break
            except PlaywrightTimeout:
                if attempt == 2:
                    raise
        self.page.wait_for_function(
            "() => { const s = liveCheck.state(); return s.busy === 0 && (s.ran === s.cells || s.errors.length > 0); }",
            timeout=timeout_s * 1000, polling=250)
        return self.js("liveCheck.state()")


def check_chapter(browser, lab: Lab, notebook: str, shots: Path, timeout_s: float, slow_s: float):
    chapter = notebook.split("_")[0]
    start = time.monotonic()
    page = Page(browser, lab, notebook)
    problems: list[str] = []
    try:
        state = page.run_all(timeout_s)
        ran_s = time.monotonic() - start
        if state["ran"] < state["cells"]:
            problems.append(f"only {state['ran']} of {state['cells']} code cells ran")
        problems += [f"error output: {e}" for e in state["errors"]]
        views = Views(page.page, chapter, shots, slow_s, scope=SCOPE)
        for k, view in enumerate(views.describe()):
            views.check(k, view)
        problems += views.problems
        problems += [f"error output: {e}" for e in page.js("liveCheck.state()")["errors"] if e not in state["errors"]]
    except PlaywrightTimeout as error:
        page.page.screenshot(path=str(shots / f"{chapter}_timeout.png"))
        problems.append(f"timed out: {str(error).splitlines()[0]}")
        views, ran_s = None, time.monotonic() - start
    problems += [f"console error: {e}" for e in page.errors]
    problems += [f"third-party request: {u}" for u in page.external]
    page.page.close()
    lab.stop_kernels()
    summary = {"chapter": chapter, "run_all_s": ran_s, "total_s": time.monotonic() - start,
               "views": len({r["view"] for r in views.rows}) if views else 0}
    return (views.rows if views else []), problems, summary


def write_results(rows: list[dict], results: Path) -> tuple[Path, Path]:
    results.mkdir(parents=True, exist_ok=True)
    csv_path, md_path = results / "live_latency.csv", results / "live_latency.md"
    columns = list(rows[0]) if rows else ["chapter", "view", "interaction"]
    with csv_path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for row in rows:
        lines.append("| " + " | ".join(f"{v:.0f}" if isinstance(v, float) else str(v) for v in row.values()) + " |")
    md_path.write_text("\n".join(lines) + "\n")
    return csv_path, md_path


def _worker(todo, done, shots: str, timeout_s: float, slow_s: float) -> None:
    """One worker: its own copy of the chapters, JupyterLab and Chromium; runs the chapters it takes from ``todo``,
    then leaves the tail of its JupyterLab log."""
    from playwright.sync_api import sync_playwright

    shots = Path(shots)
    with tempfile.TemporaryDirectory(prefix="seqviz-live-") as tmp:
        workdir = Path(tmp)
        shutil.copytree(ROOT / "notebooks", workdir / "notebooks",
                        ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
        lab = Lab(workdir)
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
                try:
                    for index, notebook in iter(todo.get, None):
                        try:
                            done.put((index, check_chapter(browser, lab, notebook, shots, timeout_s, slow_s)))
                        except Exception as error:  # noqa: BLE001  (this chapter fails; the others still run)
                            done.put((index, ([], [f"the check itself failed: {type(error).__name__}: {error}"],
                                              _empty_summary(notebook))))
                finally:
                    browser.close()
        finally:
            lab.stop()
            log = workdir / "jupyterlab.log"
            done.put((None, log.read_text()[-3000:] if log.exists() else "(none)"))


def _empty_summary(notebook: str) -> dict:
    return {"chapter": notebook.split("_")[0], "run_all_s": 0.0, "total_s": 0.0, "views": 0}


def checked(notebooks: list[str], shots: Path, timeout_s: float, slow_s: float, jobs: int):
    """Yield ``(notebook, (rows, problems, summary))`` in chapter order, then ``(None, log)`` per worker.

    The chapters are dealt out longest first (by file size) to ``jobs`` worker processes.
    """
    deal = sorted(range(len(notebooks)), key=lambda i: -(ROOT / "notebooks" / notebooks[i]).stat().st_size)
    lost = lambda i: ([], ["its worker stopped before it ran"], _empty_summary(notebooks[i]))  # noqa: E731
    for index, outcome in in_order(_worker, (str(shots), timeout_s, slow_s), notebooks, jobs, deal=deal, lost=lost):
        yield (None if index is None else notebooks[index]), outcome


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--notebooks", nargs="*", default=[], help="chapter numbers or name prefixes (default: all)")
    parser.add_argument("--shots", default=str(ROOT / "_build" / "live"))
    parser.add_argument("--results", default=str(ROOT / "benchmarks" / "results"))
    parser.add_argument("--timeout", type=float, default=300, help="seconds for one chapter's Run All")
    parser.add_argument("--slow", type=float, default=30, help="seconds an update may take before it counts as none")
    parser.add_argument("--jobs", type=int, default=2,
                        help="chapters run at once, each worker with its own JupyterLab and Chromium")
    args = parser.parse_args(argv)
    notebooks = sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb")
                       if not args.notebooks or any(p.name.startswith(n) for n in args.notebooks))
    if not notebooks:
        print(f"no notebooks match {args.notebooks}")
        return 2
    shots = Path(args.shots)
    if shots.exists():
        shutil.rmtree(shots)
    shots.mkdir(parents=True)
    start = time.monotonic()
    rows, failures, summaries = [], 0, []
    jobs = max(1, min(args.jobs, len(notebooks)))
    results, logs = {}, []
    for notebook, outcome in checked(notebooks, shots, args.timeout, args.slow, jobs):
        if notebook is None:   # a worker's JupyterLab log, printed if a chapter failed
            logs.append(outcome)
            continue
        chapter_rows, problems, summary = outcome
        rows += chapter_rows
        summaries.append(summary)
        failures += bool(problems)
        print(f"{notebook}: ran all cells in {summary['run_all_s']:.0f} s, {summary['views']} live "
              f"view(s), {summary['total_s']:.0f} s in all: {'FAILED' if problems else 'ok'}", flush=True)
        for problem in problems:
            print(f"    FAIL {notebook}: {problem}", flush=True)
    if failures:
        for log in logs:
            print(f"JupyterLab's log: {log}")
    csv_path, md_path = write_results(rows, Path(args.results))
    print()
    print(md_path.read_text())
    print(f"wrote {csv_path} and {md_path}; screenshots in {shots}")
    print(f"live check: {len(notebooks)} chapters in {time.monotonic() - start:.0f} s, {jobs} at once: "
          f"{'FAILED on ' + str(failures) + ' chapter(s)' if failures else 'every live view answered'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
