"""make colab-check: every chapter opened and run from its first cell as in Colab, in an environment like Colab's.

1. **Colab's packages**: ``.venv-colab`` holds ``colab-packages.txt`` (Colab's versions, torch as the CPU
   stand-in); the Makefile builds it. Nothing of the book is installed there.
2. **A fresh runtime per chapter**: each chapter gets its own thin venv layered over ``.venv-colab`` (a ``.pth``
   file adds Colab's site-packages after the layer's own), a fresh kernel whose start imports a stand-in
   ``google.colab`` and ipywidgets (as Colab's kernel does), and its own working folder. Whatever pip installs
   goes into the layer and dies with it; Colab's packages are shared, read-only in effect, so "fresh" costs
   a venv without pip (milliseconds) instead of 1.7 GB. pip's wheel cache lives for one run: the first
   chapter clones and builds seqviz from the local clone, later ones reuse the wheel built from the same
   commit, as a second Colab session would not (the first install's time is reported on its own).
3. **The notebook's own install line**: the Colab cell runs for real, with only the repository URL replaced by
   this clone (``git+file://<this clone>@<pin>``). After each chapter, the layer is read: a package that pip put
   there under the name of one of Colab's is a change to Colab's packages (there must be none); the others are
   what the chapter added.
4. **Run all, as Colab would**, in quick mode: a chapter with kernel-side ipywidgets views (one that imports
   ipywidgets: chapters 1, 3, 5, 10) runs in the classic Notebook 6.5 with ipywidgets 7.7.1 in headless Chromium
   (the nearest front end to Colab's widget renderer that runs here): Cell > Run All, then every live view is
   used (typed into, slid, picked, bad inputs) and must redraw. The others run through nbclient.
5. **Each output in its own sandboxed iframe**, as Colab renders outputs: every HTML output of every chapter is
   served from another origin than the page around it, with no require.js; every ``seqviz-web`` view must draw,
   match seqviz's numbers and answer typing, sliding and picking; every bertviz view must draw its lines and
   answer its menus; plotly figures must draw. No console error, no request to another host (plotly's Colab
   renderer asks cdn.plot.ly for plotly.js, as in Colab: that one request is answered from the plotly package
   and reported).

Fails on any of these; prints one table (per chapter: install and run times, views, pip's additions) and writes
it to ``_build/colab/report.md``, with each chapter as it ran (``<chapter>.ipynb``); screenshots go to
``_build/colab/shots/``.

Usage: ``python scripts/colab_check.py [--colab .venv-colab] [--notebooks 01 08] [--jobs 2]``
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import sync_repo_url  # noqa: E402
from view_driver import (CHROMIUM, CLASSIC, DRIVE, FLAGS, Views, block_other_hosts, free_port,  # noqa: E402
                         page_js, serve)

PYVER = f"python{sys.version_info.major}.{sys.version_info.minor}"
FAKE_COLAB = '"""A stand-in for Colab\'s google.colab (make colab-check): the Colab cell asks only that it is imported."""\n'
STARTUP = "import google.colab, ipywidgets  # Colab's kernel imports both before the first cell\n"
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
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(self.prefix)], check=True)
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


def run_nbclient(notebook: dict, runtime: Runtime, timeout: float) -> dict:
    """Run all cells, top to bottom, in the chapter's fresh kernel; stops at the first error, as Run all does."""
    import nbclient
    import nbformat
    from nbclient.exceptions import CellExecutionError

    notebook = nbformat.reads(json.dumps(notebook), as_version=4)  # sources as strings, as nbclient reads them

    start = time.monotonic()
    client = nbclient.NotebookClient(notebook, kernel_name=runtime.name, timeout=timeout, allow_errors=False,
                                     resources={"metadata": {"path": str(runtime.cwd)}}, record_timing=True)
    problem = None
    try:
        client.execute()
    except CellExecutionError as error:
        problem = str(error).strip().splitlines()[-1][:600]
    except Exception as error:  # noqa: BLE001 - a dead kernel or a timeout, reported per chapter
        problem = f"{type(error).__name__}: {str(error)[:600]}"
    code = [c for c in notebook["cells"] if c["cell_type"] == "code"]
    return {"front": "nbclient", "notebook": notebook, "run_s": time.monotonic() - start,
            "install_s": cell_seconds(code[0]),
            "cells": len(code), "ran": sum(c.get("execution_count") is not None for c in code),
            "problems": [f"Run all stopped: {problem or error_of(notebook)}"] if problem else [], "rows": []}


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
        views = Views(target, chapter, shots, slow_s)
        for v, view in enumerate(views.describe()):  # typed into, slid and picked as a reader would
            views.check(v, view)
        for row in views.rows:
            row["view"] = f"output {k}: {row['view']}"
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


def chapter_of(path: Path) -> str:
    rel = path.relative_to(ROOT)
    return ("zh-" if rel.parts[0] == "zh" else "") + path.stem.split("_")[0]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--colab", default=str(ROOT / ".venv-colab"), help="the venv of colab-packages.txt")
    parser.add_argument("--notebooks", nargs="*", default=[], help="chapter numbers or name prefixes (default: all)")
    parser.add_argument("--timeout", type=float, default=600, help="seconds for one chapter's Run all")
    parser.add_argument("--slow", type=float, default=30, help="seconds an update may take before it counts as none")
    parser.add_argument("--jobs", type=int, default=2, help="chapters run at once (nbclient beside the classic Notebook)")
    parser.add_argument("--out", default=str(ROOT / "_build" / "colab"))
    args = parser.parse_args(argv)
    colab = Path(args.colab).resolve()
    if not (colab / "bin" / "python").exists():
        print(f"no Colab-like venv at {colab}: run `make colab-check` (it builds it from colab-packages.txt)")
        return 2
    paths = [p for p in sync_repo_url.notebook_paths()
             if not args.notebooks or any(p.name.startswith(n) or chapter_of(p) == n for n in args.notebooks)]
    if not paths:
        print(f"no notebooks match {args.notebooks}")
        return 2
    problems = sync_repo_url.sync(check=True)  # the pin must hold: this installs what the cells pin
    if problems:
        print("the Colab cells do not hold (python scripts/sync_repo_url.py --check):", *problems, sep="\n  ")
        return 1
    clone = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--path-format=absolute", "--git-common-dir"],
                           capture_output=True, text=True, check=True).stdout.strip()
    out = Path(args.out)
    shutil.rmtree(out, ignore_errors=True)
    shots = out / "shots"
    shots.mkdir(parents=True)
    colab_packages = packages(site_packages(colab))
    before = dict(colab_packages)
    start = time.monotonic()
    for name in ("MPLBACKEND", "SEQVIZ_BOOK", "PYTHONPATH", "VIRTUAL_ENV"):  # Colab's kernel has none of these
        os.environ.pop(name, None)
    results: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="seqviz-colab-") as tmp:
        work = Path(tmp)
        fake = work / "colab_stand_in"
        (fake / "google" / "colab").mkdir(parents=True)   # google/ stays a namespace package, as in Colab
        (fake / "google" / "colab" / "__init__.py").write_text(FAKE_COLAB)
        startup = work / "ipython" / "profile_default" / "startup"
        startup.mkdir(parents=True)
        (startup / "00-colab.py").write_text(STARTUP)
        kernel_env = {"SEQVIZ_QUICK": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
                      "IPYTHONDIR": str(work / "ipython"), "PIP_CACHE_DIR": str(work / "pip-cache"),
                      "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PYTHONUNBUFFERED": "1",
                      "PYDEVD_DISABLE_FILE_VALIDATION": "1"}  # ipykernel 6's debugger: no warning per kernel
        os.environ["JUPYTER_PATH"] = str(work / "jupyter")
        chapters = {}
        for path in paths:
            chapter = chapter_of(path)
            notebook = colab_notebook(path, clone)
            runtime = Runtime(work, chapter, colab, fake, kernel_env)
            notebook["metadata"]["kernelspec"] = {"name": runtime.name, "display_name": runtime.name,
                                                  "language": "python"}
            chapters[chapter] = (path, notebook, runtime)
        classic = [c for c, (_, nb, _) in chapters.items() if has_kernel_widgets(nb)]
        plain = [c for c in chapters if c not in classic]

        def run_plain():
            for chapter in plain:
                path, notebook, runtime = chapters[chapter]
                results[chapter] = run_nbclient(notebook, runtime, args.timeout)
                print(f"{path.name}: ran in {results[chapter]['run_s']:.0f} s (nbclient)", flush=True)

        from playwright.sync_api import sync_playwright

        plotly_js = site_packages(colab) / "plotly" / "package_data" / "plotly.min.js"
        worker = threading.Thread(target=run_plain)
        if args.jobs > 1:
            worker.start()
        server = None
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
                try:
                    if classic:
                        for chapter in classic:
                            path, notebook, runtime = chapters[chapter]
                            target = work / "content" / chapter / path.name
                            target.write_text(json.dumps(notebook, indent=1))
                        env = {**os.environ, "JUPYTER_CONFIG_DIR": str(work / "config"),
                               "JUPYTER_RUNTIME_DIR": str(work / "runtime"),
                               "JUPYTER_PATH": f"{work / 'jupyter'}{os.pathsep}{colab / CLASSIC_WIDGETS}"}
                        server = ClassicNotebook(colab, work, env)
                        for chapter in classic:
                            path, notebook, runtime = chapters[chapter]
                            results[chapter] = run_classic(browser, server, f"content/{chapter}/{path.name}", chapter,
                                                           shots, args.timeout, args.slow, plotly_js)
                            saved = work / "content" / chapter / path.name
                            results[chapter]["notebook"] = json.loads(saved.read_text())
                            print(f"{path.name}: ran in {results[chapter]['run_s']:.0f} s (classic Notebook), "
                                  f"{len({r['view'] for r in results[chapter]['rows']})} widget view(s) used", flush=True)
                        server.stop()
                        server = None
                    if args.jobs > 1:
                        worker.join()
                    else:
                        run_plain()
                    frames = work / "frames"
                    frames.mkdir()
                    static = serve(frames)
                    try:
                        for chapter in chapters:
                            (out / f"{chapter}.ipynb").write_text(json.dumps(results[chapter]["notebook"]))
                            outputs = html_outputs(results[chapter]["notebook"])
                            results[chapter]["frames"] = render_outputs(browser, static.server_address[1], frames,
                                                                        chapter, outputs, plotly_js, shots, args.slow)
                    finally:
                        static.shutdown()
                finally:
                    browser.close()
        finally:
            if server is not None:
                server.stop()
            if worker.is_alive():
                worker.join()
        for chapter, (path, notebook, runtime) in chapters.items():
            results[chapter]["changed"], results[chapter]["added"] = runtime.changes(colab_packages)
    after = packages(site_packages(colab))
    return report(results, chapters, before, after, out, time.monotonic() - start)


def report(results, chapters, before, after, out: Path, seconds: float) -> int:
    lines = ["| chapter | front end | install cell s | run all s | cells run | HTML outputs (own iframe) | "
             "seqviz-web views ok | bertviz views ok | plotly drawn | widget interactions ok | problems |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    failures, added = 0, {}
    for chapter, result in results.items():
        frames = result.get("frames", {"problems": [], "rows": [], "counts": {}})
        c = frames["counts"]
        problems = result["problems"] + frames["problems"]
        problems += [f"pip changed Colab's {n}: {a} -> {b}" for n, (a, b) in result["changed"].items()]
        widget_rows = result["rows"]
        interactions = f"{sum(r['changed'] == 'yes' for r in widget_rows)}/{len(widget_rows)}" if widget_rows else "-"
        lines.append(f"| {chapter} | {result['front']} | {result['install_s']:.1f} | {result['run_s']:.0f} | "
                     f"{result['ran']}/{result['cells']} | {c.get('outputs', 0)} | {c.get('web_ok', 0)}/{c.get('web', 0)} | "
                     f"{c.get('bertviz_ok', 0)}/{c.get('bertviz', 0)} | {c.get('plots_ok', 0)}/{c.get('plots', 0)} | "
                     f"{interactions} | {len(problems)} |")
        failures += bool(problems)
        for problem in problems:
            lines.append(f"\n    FAIL {chapters[chapter][0].name}: {problem}")
        added.update(result["added"])
    table = "\n".join(lines)
    changed = sorted({n for r in results.values() for n in r["changed"]})
    touched = sorted(n for n in set(before) | set(after) if before.get(n) != after.get(n))
    widget_lines = ["| chapter | view | interaction | updates | changed | shows | median ms | max ms |", "|" + "---|" * 8]
    for result in results.values():
        for row in result["rows"] + result.get("frames", {}).get("rows", []):
            widget_lines.append("| " + " | ".join(f"{v:.0f}" if isinstance(v, float) else str(v) for v in row.values()) + " |")
    text = (f"{table}\n\npip's changes to Colab's packages: {', '.join(changed) if changed else 'none'}"
            f"\nColab's venv itself changed: {', '.join(touched) if touched else 'no'}"
            f"\npip added (into each chapter's layer, union): "
            f"{', '.join(f'{n}=={v}' for n, v in sorted(added.items())) or 'nothing'}\n\n"
            "Live views used (classic Notebook's ipywidgets views; seqviz-web and bertviz in their iframes):\n\n"
            + "\n".join(widget_lines) + "\n")
    out.mkdir(parents=True, exist_ok=True)
    (out / "report.md").write_text(text)
    print()
    print(text)
    failures += bool(touched)
    print(f"colab check: {len(results)} chapters in {seconds:.0f} s: "
          f"{'FAILED on ' + str(failures) + ' chapter(s)' if failures else 'every chapter ran from its first cell'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
