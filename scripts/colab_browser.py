"""The Colab check's two front ends in headless Chromium (scripts/colab_check.py runs them).

- the classic Notebook 6.5 of Colab's packages, for the chapters with kernel-side ipywidgets views: Cell > Run
  All, then every live view used as a reader would (``view_driver.Views``);
- every HTML output of a chapter in its own sandboxed iframe, served from another origin than the page around
  it and with no require.js, as Colab renders outputs: seqviz-web views (seqviz's numbers, then every control),
  bertviz views (lines, menus) and plotly figures must draw, with no console error and no other host asked
  (plotly's Colab renderer asks two CDNs, as in Colab: answered here, noted, and an error in any other output).
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
from view_driver import CLASSIC, DRIVE, Views, block_other_hosts, free_port, page_js  # noqa: E402

DRIVE_UNKNOWN = "zqxv blorfen"
PLOTLY_CDN = "cdn.plot.ly"
MATHJAX_CDN = "https://cdnjs.cloudflare.com/ajax/libs/mathjax/"
# The classic front end's own complaints that Colab's never makes: CodeMirror looks for a highlighting mode named
# after each MyST fence (```{exercise} ...) and 404s; its font CSS asks for about:blank.
# And plotly's Colab renderer writes a bare <script src=plotly.js>: under the classic Notebook's require.js that
# defines a module, not the global Plotly (Colab has no require.js: the iframes below check the figures).
CLASSIC_NOISE = ("/static/components/codemirror/", "codemirror/mode/", "Access to font at 'about:blank'",
                 "Plotly is not defined")
# ipywidgets 7.7.1's own classic front end: widgetsnbextension 3.6.10 (what Colab ships, and never loads: Colab has
# its own widget renderer) cannot create an Output widget in the classic Notebook ("_deserialize_state is not a
# function"); the Makefile puts 3.6.1's nbextension, the one released with ipywidgets 7.7.1, in this folder.
CLASSIC_WIDGETS = "classic-frontend/share/jupyter"


class ClassicNotebook:
    """The classic Notebook 6.5 server of Colab's packages over the work folder; stopped by its id on exit."""

    def __init__(self, colab: Path, work: Path, env: dict):
        self.token, self.port = secrets.token_hex(16), free_port()
        command = [str(colab / "bin" / "jupyter-notebook"), "--no-browser", "--ip=127.0.0.1", f"--port={self.port}",
                   "--port-retries=0", f"--NotebookApp.token={self.token}", f"--notebook-dir={work}",
                   "--NotebookApp.enable_mathjax=False", "--log-level=WARN"]  # MathJax would come from a CDN
        if os.geteuid() == 0:
            command.append("--allow-root")
        self.log_path = work / "notebook.log"
        self.log = self.log_path.open("w")
        self.process = subprocess.Popen(command, cwd=work, env=env, stdout=self.log, stderr=subprocess.STDOUT,
                                        start_new_session=True)
        self.base = f"http://127.0.0.1:{self.port}"
        deadline = time.monotonic() + 120
        while True:
            try:
                self.api("GET", "/api/status")
                break
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"the classic Notebook did not start; see {self.log_path}") from None
                time.sleep(0.2)

    def api(self, method: str, path: str):
        request = urllib.request.Request(self.base + path, method=method, headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(request, timeout=10) as response:
            body = response.read()
        return json.loads(body) if body else None

    def stop_kernels(self):
        for kernel in self.api("GET", "/api/kernels") or []:
            self.api("DELETE", f"/api/kernels/{kernel['id']}")

    def stop(self):
        if self.process.poll() is None:
            try:
                self.stop_kernels()
            except OSError:
                pass
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        try:  # a kernel it could not stop, in its process group
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.log.close()


def plotly_from(plotly_js: Path, seen: list):
    """Colab's plotly renderer asks two CDNs, for plotly.js and MathJax: plotly.js is answered from the plotly
    package, MathJax with an empty script (no figure here has LaTeX); each such request is noted in ``seen``."""
    def allow(route):
        url = route.request.url
        if url.startswith(f"https://{PLOTLY_CDN}/"):
            route.fulfill(path=str(plotly_js), content_type="application/javascript")
        elif url.startswith(MATHJAX_CDN):
            route.fulfill(body="/* MathJax stand-in (colab_check) */", content_type="application/javascript")
        else:
            return False
        seen.append((route.request.frame.url.rsplit("/", 1)[-1], url))
        return True

    return allow


def run_classic(browser, server: ClassicNotebook, relpath: str, chapter: str, shots: Path, timeout: float,
                slow_s: float, plotly_js: Path) -> dict:
    """Open the chapter in the classic Notebook, Cell > Run All, then use every live view; save its outputs."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    errors, external, problems, rows, cdn = [], [], [], [], []

    def console(message):
        where = message.location.get("url", "")
        if message.type == "error" and not any(noise in where or noise in message.text for noise in CLASSIC_NOISE):
            errors.append(f"{message.text} ({where.rsplit('/', 1)[-1][:80]})")

    page.on("console", console)
    page.on("pageerror", lambda e: None if any(noise in str(e) for noise in CLASSIC_NOISE)
            else errors.append(f"page error: {e}"))
    block_other_hosts(page, external, allow=plotly_from(plotly_js, cdn))
    page.add_init_script(page_js("#notebook", CLASSIC))
    start = time.monotonic()
    result = {"front": "classic Notebook 6.5", "install_s": float("nan"), "cells": 0, "ran": 0}
    try:
        page.goto(f"{server.base}/notebooks/{relpath}?token={server.token}", wait_until="domcontentloaded",
                  timeout=60_000)
        page.wait_for_function("() => window.Jupyter && Jupyter.notebook && Jupyter.notebook.kernel && "
                               "Jupyter.notebook.kernel.is_connected() && "
                               "document.querySelector('#kernel_indicator_icon.kernel_idle_icon')", timeout=120_000)
        page.click("#menus a.dropdown-toggle:text-is('Cell')")
        page.click("#run_all_cells > a")
        page.wait_for_function("() => liveCheck.state().busy > 0 || liveCheck.state().ran > 0", timeout=30_000)
        run_start = time.monotonic()
        deadline = run_start + timeout
        while True:  # the first code cell is the install: its time is when its prompt gets a number
            state = page.evaluate("liveCheck.state()")
            first = page.evaluate("() => (document.querySelector('#notebook .code_cell .input_prompt') || {}).textContent")
            if result["install_s"] != result["install_s"] and first and "[*]" not in first and "[ ]" not in first:
                result["install_s"] = time.monotonic() - run_start
            if state["busy"] == 0 and (state["ran"] == state["cells"] or state["errors"]):
                break
            if time.monotonic() > deadline:
                raise PlaywrightTimeout(f"Run All did not finish in {timeout:.0f} s")
            page.wait_for_timeout(250)
        result["run_s"] = time.monotonic() - start
        result.update(cells=state["cells"], ran=state["ran"])
        if state["ran"] < state["cells"]:
            problems.append(f"only {state['ran']} of {state['cells']} code cells ran")
        problems += [f"error output: {e}" for e in state["errors"]]
        (shots / f"{chapter}_classic.html").write_text(page.content())
        views = Views(page, chapter, shots, slow_s, scope="#notebook")
        for k, view in enumerate(views.describe()):
            views.check(k, view)
        rows, problems = views.rows, problems + views.problems
        problems += [f"error output: {e}" for e in page.evaluate("liveCheck.state()")["errors"] if e not in state["errors"]]
        page.evaluate("() => Jupyter.notebook.save_notebook()")
        page.wait_for_function("() => !Jupyter.notebook.dirty", timeout=30_000)
    except PlaywrightTimeout as error:
        page.screenshot(path=str(shots / f"{chapter}_timeout.png"))
        problems.append(f"timed out: {str(error).splitlines()[0]}")
        result.setdefault("run_s", time.monotonic() - start)
    problems += [f"console error: {e}" for e in errors]
    problems += [f"request to another host: {u}" for u in external]
    page.close()
    server.stop_kernels()
    return {**result, "problems": problems, "rows": rows}


def html_outputs(notebook: dict) -> list[str]:
    return [output["data"]["text/html"] if isinstance(output["data"]["text/html"], str)
            else "".join(output["data"]["text/html"])
            for cell in notebook["cells"] if cell["cell_type"] == "code" for output in cell.get("outputs", [])
            if "text/html" in output.get("data", {})]


FRAME_ERRORS = "window.frameErrors = []; window.addEventListener('error', (e) => frameErrors.push(e.message));"
FRAME_INSPECT = """() => ({
  errors: window.frameErrors || [],
  web: document.querySelectorAll('.seqviz-web').length,
  webMounted: document.querySelectorAll('.seqviz-web.seqviz-web-mounted').length,
  bertviz: document.querySelectorAll('[id^="bertviz"]').length,
  bertvizDrawn: [...document.querySelectorAll('[id^="bertviz"]')].filter((h) => h.querySelector('svg line')).length,
  plots: document.querySelectorAll('.plotly-graph-div').length,
  plotsDrawn: [...document.querySelectorAll('.plotly-graph-div')].filter((p) => p.querySelector('.main-svg')).length,
})"""


def render_outputs(browser, server_port: int, frames: Path, chapter: str, outputs: list[str], plotly_js: Path,
                   shots: Path, slow_s: float) -> dict:
    """Every HTML output of a chapter in its own sandboxed iframe (another origin than the page), then checked."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    folder = frames / chapter
    folder.mkdir(parents=True, exist_ok=True)
    for k, body in enumerate(outputs):
        (folder / f"{k}.html").write_text(f'<!doctype html><html><head><meta charset="utf-8"></head><body>{body}'
                                          "</body></html>")
    (folder / "index.html").write_text("<!doctype html><html><body>" + "".join(
        f'<iframe id="out{k}" sandbox="allow-scripts allow-same-origin allow-forms allow-popups allow-modals" '
        f'src="http://localhost:{server_port}/{chapter}/{k}.html" style="width:100%;height:800px;border:0">'
        "</iframe>" for k in range(len(outputs))) + "</body></html>")
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    errors, external, cdn = [], [], []
    page.on("console", lambda m: errors.append(f"{m.location.get('url', '').rsplit('/', 1)[-1]}: {m.text}")
            if m.type == "error" else None)
    uncaught = []  # also caught in each frame, where they are named by their output
    page.on("pageerror", lambda e: uncaught.append(str(e)))
    block_other_hosts(page, external, allow=plotly_from(plotly_js, cdn))
    page.add_init_script(page_js(""))
    page.add_init_script(FRAME_ERRORS)
    problems, rows, counts = [], [], {"outputs": len(outputs), "web": 0, "web_ok": 0, "bertviz": 0, "bertviz_ok": 0,
                                      "plots": 0, "plots_ok": 0}
    page.goto(f"http://127.0.0.1:{server_port}/{chapter}/index.html", wait_until="load", timeout=120_000)
    for k in range(len(outputs)):
        element = page.query_selector(f"#out{k}")
        element.scroll_into_view_if_needed()  # an iframe out of sight gets no animation frames
        target = element.content_frame()
        target.wait_for_load_state("load")
        try:  # bertviz draws once its scripts ran; plotly once plotly.js arrived
            target.wait_for_function("() => [...document.querySelectorAll('[id^=\"bertviz\"]')].every((h) => "
                                     "h.querySelector('svg line')) && [...document.querySelectorAll('.plotly-graph-div')]"
                                     ".every((p) => p.querySelector('.main-svg'))", timeout=15_000)
        except PlaywrightTimeout:
            pass
        found = target.evaluate(FRAME_INSPECT)
        problems += [f"output {k}: page error: {e}" for e in found["errors"]]
        counts["plots"] += found["plots"]
        counts["plots_ok"] += found["plotsDrawn"]
        counts["bertviz"] += found["bertviz"]
        counts["web"] += found["web"]
        if found["plotsDrawn"] < found["plots"]:
            problems.append(f"output {k}: {found['plots'] - found['plotsDrawn']} plotly figure(s) did not draw")
        if found["webMounted"] < found["web"]:
            problems.append(f"output {k}: {found['web'] - found['webMounted']} seqviz-web view(s) did not start")
        if found["bertvizDrawn"] < found["bertviz"]:
            problems.append(f"output {k}: bertviz drew no lines")
        if not (found["web"] or found["bertviz"]):
            continue
        before = len(problems)
        for i in range(found["webMounted"]):  # seqviz's own numbers for the first input, then every control
            drive = target.evaluate(DRIVE, [i, DRIVE_UNKNOWN])
            if "problem" in drive:
                problems.append(f"output {k}: {drive['view']}: {drive['problem']}")
            elif drive["difference"] > 1e-4:
                problems.append(f"output {k}: {drive['view']}: its numbers differ from seqviz's by {drive['difference']:.1e}")
        views = Views(target, f"{chapter} output {k}", shots, slow_s)
        for v, view in enumerate(views.describe()):  # typed into, slid and picked as a reader would
            views.check(v, view)
        rows += views.rows
        problems += [f"output {k}: {p}" for p in views.problems]
        ok = len(problems) == before
        counts["web_ok"] += found["web"] if ok else 0
        counts["bertviz_ok"] += found["bertvizDrawn"] if ok else 0
    page.screenshot(path=str(shots / f"{chapter}_frames.png"), full_page=False)
    page.close()
    problems += [f"console error: {e}" for e in errors]
    problems += [f"page error: {e}" for e in uncaught if not any(e in p for p in problems)]
    problems += [f"request to another host: {u}" for u in external]
    web_frames = {f"{k}.html" for k, body in enumerate(outputs) if "seqviz-web" in body or "bertviz" in body}
    problems += [f"a seqviz-web or bertviz output asked a CDN: {u}" for where, u in cdn if where in web_frames]
    return {"problems": problems, "rows": rows, "counts": counts, "cdn": len(cdn)}
