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
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlparse

from playwright.sync_api import TimeoutError as PlaywrightTimeout

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--no-first-run", "--disable-quic"]
SETTINGS = {  # JupyterLab user settings for the run: every cell in the page, no autosave, nothing fetched
    "@jupyterlab/notebook-extension/tracker": {"windowingMode": "none", "autoStartDefaultKernel": True},
    "@jupyterlab/docmanager-extension/plugin": {"autosave": False},
    "@jupyterlab/apputils-extension/notification": {"fetchNews": "false", "checkForUpdates": False},
}
UNKNOWN_WORDS = "zqxv blorfen"
LONG_WORDS = 500

# In the page: a picture's signature (what a reader sees, hashed) and a watcher that times its change.
PAGE_JS = r"""
window.liveCheck = (() => {
  const hash = (text) => { let h = 0; for (let i = 0; i < text.length; i++) h = (h * 31 + text.charCodeAt(i)) | 0;
                           return text.length + ':' + h; };
  const picture = (view) => {
    if (view.matches('[id^="bertviz"]')) {
      const svg = view.querySelector('svg');
      const lines = view.querySelectorAll('svg line').length;
      return {state: lines ? 'picture' : 'empty', sig: svg ? hash(svg.innerHTML) : '', lines};
    }
    if (view.matches('.seqviz-web')) {  // seqviz.web: the model runs in the page
      const message = view.querySelector('.seqviz-web-message');
      if (message && message.textContent) return {state: 'message', sig: hash(message.textContent), text: message.textContent};
      const pic = view.querySelector('.seqviz-web-picture');
      return {state: pic && pic.childElementCount ? 'picture' : 'empty', sig: pic ? hash(pic.innerHTML) : ''};
    }
    const out = view.querySelector('.widget-output');
    if (!out) return {state: 'empty', sig: ''};
    const message = out.querySelector('.seqviz-live-message, .seqviz-live-error');
    if (message) return {state: message.classList.contains('seqviz-live-error') ? 'error' : 'message',
                         sig: hash(message.textContent), text: message.textContent};
    if (/Traceback|Error displaying widget/.test(out.textContent)) return {state: 'error', sig: hash(out.textContent),
                                                                          text: out.textContent.slice(0, 300)};
    const plot = out.querySelector('.js-plotly-plot');  // before <img>: plotly's renderer keeps a hidden one
    if (plot) {
      const svg = plot.querySelector('.main-svg');
      const images = [...plot.querySelectorAll('image')].map((i) => i.getAttribute('href') || '').join('');
      return {state: svg ? 'picture' : 'loading', sig: hash(plot.textContent + images + plot.querySelectorAll('path').length)};
    }
    const img = out.querySelector('img');
    if (img) return {state: img.complete && img.naturalWidth ? 'picture' : 'loading', sig: hash(img.src)};
    const text = out.innerText.trim();
    return {state: text ? 'picture' : 'empty', sig: hash(out.innerHTML)};
  };
  const views = () => [...document.querySelectorAll('.jp-Notebook .seqviz-live, .jp-Notebook .seqviz-web, .jp-Notebook [id^="bertviz"]')];
  let watch = null;
  const arm = (index) => {
    const view = views()[index];
    const before = picture(view);
    watch = {t0: null, t1: null, before, after: null};
    const mark = () => { if (watch && watch.t0 === null) watch.t0 = performance.now(); };
    watch.mark = mark;
    const poll = () => {
      if (!watch || watch.t1 !== null) return;
      const now = picture(view);
      if (watch.t0 !== null && now.sig !== before.sig && now.state !== 'loading' && now.state !== 'empty') {
        watch.t1 = performance.now(); watch.after = now; return;
      }
      requestAnimationFrame(poll);
    };
    requestAnimationFrame(poll);
    return before;
  };
  for (const type of ['keydown', 'change', 'input', 'mousedown']) {
    document.addEventListener(type, (e) => { if (watch && e.isTrusted !== undefined) watch.mark(); }, true);
  }
  const result = () => watch && watch.t1 !== null ? {ms: watch.t1 - watch.t0, after: watch.after} : null;
  const startOver = () => { if (watch) { watch.t0 = null; } };
  const state = () => {
    const cells = [...document.querySelectorAll('.jp-Notebook .jp-CodeCell')];
    const prompts = cells.map((c) => (c.querySelector('.jp-InputArea-prompt') || {}).textContent || '');
    const errors = [...document.querySelectorAll('.jp-Notebook .jp-OutputArea-output')]
      .filter((o) => /Traceback \(most recent call last\)|Error displaying widget/.test(o.textContent))
      .map((o) => o.textContent.slice(0, 400));
    return {cells: cells.length, ran: prompts.filter((p) => /\[\d+\]/.test(p)).length,
            busy: prompts.filter((p) => p.includes('*')).length, errors};
  };
  const describe = () => views().map((view) => {
    if (view.matches('[id^="bertviz"]')) {
      const selects = [...view.querySelectorAll('select')].map((s) => s.id);  // only the head view has a layer menu
      return {kind: 'bertviz', title: selects.includes('layer') ? 'bertviz head_view' : 'bertviz model_view',
              selects, picture: picture(view)};
    }
    if (view.matches('.seqviz-web')) {
      const controls = [...view.querySelectorAll('.seqviz-web-controls > label')].map((c) => {
        const label = c.firstChild.textContent.trim(), input = c.querySelector('input, select');
        if (input.tagName === 'SELECT') return {kind: 'dropdown', label, options: input.options.length};
        return {kind: input.type === 'range' ? 'range' : 'text', label, value: input.value};
      });
      return {kind: 'web', title: (view.querySelector('.seqviz-web-title') || {}).textContent || '', controls,
              picture: picture(view)};
    }
    const title = (view.querySelector('.widget-html') || {}).textContent || '';
    const controls = [...view.querySelector('.widget-hbox').children].map((c) => {
      const label = ((c.querySelector('.widget-label') || {}).textContent || '').trim();
      if (c.querySelector('.noUi-handle')) return {kind: 'slider', label};
      if (c.querySelector('select')) return {kind: 'dropdown', label, options: c.querySelector('select').options.length};
      if (c.querySelector('input[type="text"]')) return {kind: 'text', label, value: c.querySelector('input').value};
      return {kind: 'other', label};
    });
    return {kind: 'live', title: title.trim(), controls, picture: picture(view)};
  });
  return {arm, result, startOver, state, describe, views, picture};
})();
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Lab:
    """JupyterLab over a copy of the notebooks; stopped (kernels, then the server, by pid) on exit."""

    def __init__(self, workdir: Path, threads: int = 1):
        self.workdir, self.token, self.port = workdir, secrets.token_hex(16), free_port()
        settings = workdir / "settings"
        for name, values in SETTINGS.items():
            path = settings / f"{name}.jupyterlab-settings"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(values))
        env = {**os.environ, "SEQVIZ_QUICK": "1", "OMP_NUM_THREADS": str(threads), "MKL_NUM_THREADS": str(threads),
               "JUPYTERLAB_SETTINGS_DIR": str(settings), "JUPYTERLAB_WORKSPACES_DIR": str(workdir / "workspaces"),
               "JUPYTER_CONFIG_DIR": str(workdir / "config"), "JUPYTER_RUNTIME_DIR": str(workdir / "runtime"),
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
        self.page.route("**/*", self._route)
        self.page.add_init_script(PAGE_JS)
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

    def _route(self, route):
        if urlparse(route.request.url).hostname in ("127.0.0.1", "localhost"):
            return route.continue_()
        self.external.append(route.request.url)
        return route.abort()

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


VIEWS = ".jp-Notebook .seqviz-live, .jp-Notebook .seqviz-web, .jp-Notebook [id^='bertviz']"


class Views:
    """Drives the live views of one open chapter and records what each interaction did."""

    def __init__(self, page: Page, chapter: str, shots: Path, slow_s: float):
        self.page, self.chapter, self.shots, self.slow_s = page, chapter, shots, slow_s
        self.rows: list[dict] = []
        self.problems: list[str] = []

    def handle(self, k: int):
        return self.page.page.query_selector_all(VIEWS)[k]

    def measure(self, k: int, act, timeout_s: float | None = None) -> dict | None:
        """Arm the watcher on view ``k``, act, and wait until its picture changed; None if it did not."""
        self.page.js("k => liveCheck.arm(k)", k)
        act()
        try:
            self.page.page.wait_for_function("() => liveCheck.result() !== null", timeout=(timeout_s or self.slow_s) * 1000)
        except PlaywrightTimeout:
            return None
        return self.page.js("liveCheck.result()")

    def record(self, view: str, interaction: str, results: list, accept=("picture",)):
        changed = [r for r in results if r is not None]
        states = sorted({r["after"]["state"] for r in changed})
        ms = [r["ms"] for r in changed]
        row = {"chapter": self.chapter, "view": view, "interaction": interaction, "updates": len(results),
               "changed": "yes" if changed and len(changed) == len(results) else "no",
               "shows": "/".join(states), "median_ms": statistics.median(ms) if ms else float("nan"),
               "max_ms": max(ms) if ms else float("nan")}
        self.rows.append(row)
        if len(changed) < len(results):
            self.problems.append(f"{view}: {interaction}: the picture did not change "
                                 f"({len(results) - len(changed)} of {len(results)} times)")
        for r in changed:
            if r["after"]["state"] not in accept:
                self.problems.append(f"{view}: {interaction}: showed {r['after']['state']}: "
                                     f"{r['after'].get('text', '')[:200]}")
        return row

    def ready(self, k: int):
        self.handle(k).scroll_into_view_if_needed()
        self.page.page.wait_for_function("k => liveCheck.picture(liveCheck.views()[k]).state === 'picture'", arg=k,
                                         timeout=self.slow_s * 1000)

    def check(self, k: int, view: dict):
        name = view["title"] or view["kind"]
        try:
            self.ready(k)
        except PlaywrightTimeout:
            state = self.page.js("k => liveCheck.picture(liveCheck.views()[k])", k)
            self.problems.append(f"{name}: never showed a picture ({state.get('state')}: {state.get('text', '')[:200]})")
            self.handle(k).screenshot(path=str(self.shots / f"{self.chapter}_view{k + 1}_failed.png"))
            (self.shots / f"{self.chapter}_view{k + 1}_failed.html").write_text(self.handle(k).evaluate("e => e.outerHTML"))
            return
        if view["kind"] == "bertviz":
            self.bertviz(k, name, view)
        else:  # an ipywidgets view, or a seqviz.web view (its model runs in the page)
            rows = ".seqviz-web-controls > label" if view["kind"] == "web" else ":scope > .widget-hbox > *"
            for control, spec in zip(self.handle(k).query_selector_all(rows), view["controls"]):
                label = spec["label"] or spec["kind"]
                if spec["kind"] == "text":
                    self.text(k, name, label, control.query_selector("input"), spec["value"])
                elif spec["kind"] == "range":
                    self.range(k, name, label, control.query_selector("input"))
                elif spec["kind"] == "slider":
                    self.slider(k, name, label, control.query_selector(".noUi-handle"))
                elif spec["kind"] == "dropdown":
                    self.dropdown(k, name, label, control.query_selector("select"))
        self.handle(k).scroll_into_view_if_needed()
        self.handle(k).screenshot(path=str(self.shots / f"{self.chapter}_view{k + 1}.png"))

    def bertviz(self, k, name, view):
        lines = self.page.js("k => liveCheck.picture(liveCheck.views()[k]).lines", k)
        if not lines:
            self.problems.append(f"{name}: bertviz drew no lines")
        for select_id in view["selects"]:
            select = self.handle(k).query_selector(f"select#{select_id}")
            count = select.evaluate("s => s.options.length")
            picks = [i % count for i in (1, 2, 0)] if count > 1 else []
            results = [self.measure(k, lambda i=i: select.select_option(index=i)) for i in picks[:2]]
            if results:
                self.record(name, f"menu '{select_id}'", results)

    def text(self, k, name, label, box, value):
        words = value.split()
        other = " ".join(reversed(words)) if words != words[::-1] else " ".join(words[1:])

        def submit(text):
            box.fill(text)
            return lambda: box.press("Enter")

        results = [self.measure(k, submit(t)) for t in (other, value)]
        self.record(name, f"type into '{label}' + Enter", results)
        bad = {"unknown words": UNKNOWN_WORDS, "empty box": "",
               f"{LONG_WORDS} words": " ".join((words * LONG_WORDS)[:LONG_WORDS])}
        for what, text in bad.items():
            result = self.measure(k, submit(text), timeout_s=max(self.slow_s, 60))
            self.record(name, f"'{label}': {what}", [result], accept=("message", "picture"))
            self.measure(k, submit(value))  # back to the first sentence

    def slider(self, k, name, label, handle):
        now, low, high = (float(handle.get_attribute(a)) for a in ("aria-valuenow", "aria-valuemin", "aria-valuemax"))
        ends = ["Home", "End"] if now == high else ["End", "Home"]
        handle.focus()
        results = [self.measure(k, lambda key=key: handle.press(key)) for key in [*ends, "ArrowRight" if ends[-1] ==
                   "Home" else "ArrowLeft"]]
        self.record(name, f"slider '{label}': both ends, one step", results)

    def range(self, k, name, label, handle):
        """A slider of a seqviz.web view (an <input type=range>): the keyboard, as a reader's would."""
        now, high = (float(handle.evaluate(f"e => e.{a}")) for a in ("value", "max"))
        ends = ["Home", "End"] if now == high else ["End", "Home"]
        handle.focus()
        results = [self.measure(k, lambda key=key: handle.press(key)) for key in [*ends, "ArrowRight" if ends[-1] ==
                   "Home" else "ArrowLeft"]]
        self.record(name, f"slider '{label}': both ends, one step", results)

    def dropdown(self, k, name, label, select):
        count, current = select.evaluate("s => [s.options.length, s.selectedIndex]")
        picks = [(current + d) % count for d in (1, 2)] if count > 2 else [(current + 1) % count, current]
        results = [self.measure(k, lambda i=i: select.select_option(index=i)) for i in picks]
        self.record(name, f"dropdown '{label}'", results)


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
        views = Views(page, chapter, shots, slow_s)
        for k, view in enumerate(page.js("liveCheck.describe()")):
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


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--notebooks", nargs="*", default=[], help="chapter numbers or name prefixes (default: all)")
    parser.add_argument("--shots", default=str(ROOT / "_build" / "live"))
    parser.add_argument("--results", default=str(ROOT / "benchmarks" / "results"))
    parser.add_argument("--timeout", type=float, default=300, help="seconds for one chapter's Run All")
    parser.add_argument("--slow", type=float, default=30, help="seconds an update may take before it counts as none")
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
    from playwright.sync_api import sync_playwright

    start = time.monotonic()
    rows, failures, summaries = [], 0, []
    with tempfile.TemporaryDirectory(prefix="seqviz-live-") as tmp:
        workdir = Path(tmp)
        shutil.copytree(ROOT / "notebooks", workdir / "notebooks",
                        ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
        lab = Lab(workdir)
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
                try:
                    for notebook in notebooks:
                        chapter_rows, problems, summary = check_chapter(browser, lab, notebook, shots, args.timeout,
                                                                        args.slow)
                        rows += chapter_rows
                        summaries.append(summary)
                        failures += bool(problems)
                        print(f"{notebook}: ran all cells in {summary['run_all_s']:.0f} s, {summary['views']} live "
                              f"view(s), {summary['total_s']:.0f} s in all: {'FAILED' if problems else 'ok'}",
                              flush=True)
                        for problem in problems:
                            print(f"    FAIL {notebook}: {problem}", flush=True)
                finally:
                    browser.close()
        finally:
            lab.stop()
            if failures:
                print(f"JupyterLab's log: {(workdir / 'jupyterlab.log').read_text()[-3000:]}")
    csv_path, md_path = write_results(rows, Path(args.results))
    print()
    print(md_path.read_text())
    print(f"wrote {csv_path} and {md_path}; screenshots in {shots}")
    print(f"live check: {len(notebooks)} chapters in {time.monotonic() - start:.0f} s: "
          f"{'FAILED on ' + str(failures) + ' chapter(s)' if failures else 'every live view answered'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
