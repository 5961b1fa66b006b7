"""make colab-check: every chapter opened and run from its first cell as in Colab, in an environment like Colab's.

1. **Colab's packages**: ``.venv-colab`` holds ``colab-packages.txt`` (Colab's versions, torch as the CPU
   stand-in); the Makefile builds it. Nothing of the book is installed there.
2. **A fresh runtime per chapter**: each chapter gets its own thin venv layered over ``.venv-colab`` (a ``.pth``
   file adds Colab's site-packages after the layer's own), a fresh kernel whose start imports a stand-in
   ``google.colab`` and ipywidgets (as Colab's kernel does), and its own working folder. Whatever pip installs
   goes into the layer and dies with it; Colab's packages are shared, read-only in effect, so "fresh" costs
   a venv without pip (milliseconds) instead of 1.7 GB. pip keeps its usual cache (downloads, and the wheel
   it built from the pinned commit): the first chapter clones and builds seqviz from the local clone, later
   ones reuse that wheel, where a fresh Colab runtime would build it again (a few seconds more).
3. **The notebook's own install line**: the Colab cell runs for real, with only the repository URL replaced by
   this clone (``git+file://<this clone>@<pin>``). After each chapter, the layer is read: a package that pip put
   there under the name of one of Colab's is a change to Colab's packages (there must be none); the others are
   what the chapter added.
4. **Run all, as Colab would**, in quick mode: a chapter with kernel-side ipywidgets views (one that imports
   ipywidgets: chapters 1, 3, 5, 10) runs in the classic Notebook 6.5 with ipywidgets 7.7.1 in headless Chromium
   (the nearest front end to Colab's widget renderer that runs here): Cell > Run All, then every live view is
   used (typed into, slid, picked, bad inputs) and must redraw. The others run through nbclient.
   The Chinese edition's chapters (``zh/notebooks``, the same code cell for cell, ``sync_zh.py --check``) run
   their Colab cell (the ``zh`` extra and the CJK font), their set-up (``set_language("zh")``, the catalogues)
   and their first figure; ``--zh-full`` names those run in full, like the English ones (default: chapter 1,
   a classic-Notebook chapter with a widget view).
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
import json
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import sync_repo_url  # noqa: E402
from colab_browser import CLASSIC_WIDGETS, ClassicNotebook, html_outputs, render_outputs, run_classic  # noqa: E402
from colab_runtime import (FAKE_COLAB, STARTUP, Runtime, colab_notebook, has_kernel_widgets, packages,  # noqa: E402
                           run_nbclient, site_packages)
from view_driver import CHROMIUM, FLAGS, serve  # noqa: E402


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
    parser.add_argument("--zh-full", nargs="*", default=["01"],
                        help="chapters of the Chinese edition run in full (the others: their Colab cell, set-up and "
                             "first figure; their code is the English chapters', run in full here)")
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
                      "IPYTHONDIR": str(work / "ipython"),
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
        # a Chinese chapter not in --zh-full runs to its first figure: its Colab cell (the zh extra, the CJK font),
        # set_language and the catalogues, one figure drawn in Chinese; the rest is the English code, run above
        lite = {c for c in chapters if c.startswith("zh-") and c.removeprefix("zh-") not in args.zh_full}
        classic = [c for c, (_, nb, _) in chapters.items() if has_kernel_widgets(nb) and c not in lite]
        plotly_js = site_packages(colab) / "plotly" / "package_data" / "plotly.min.js"
        waiting, ran = queue.Queue(), queue.Queue()   # chapters for nbclient; chapters whose frames are due
        for chapter in chapters:
            if chapter not in classic:
                waiting.put(chapter)

        def run_waiting(once: bool = False):
            """nbclient chapters from the queue (both threads take from it: the load stays even)."""
            while True:
                try:
                    chapter = waiting.get_nowait()
                except queue.Empty:
                    return
                path, notebook, runtime = chapters[chapter]
                results[chapter] = run_nbclient(notebook, runtime, args.timeout, until_figure=chapter in lite)
                print(f"{path.relative_to(ROOT)}: ran in {results[chapter]['run_s']:.0f} s "
                      f"({results[chapter]['front']}, {results[chapter]['ran']} of {results[chapter]['cells']} "
                      "code cells)", flush=True)
                ran.put(chapter)
                if once:
                    return

        worker = threading.Thread(target=run_waiting, daemon=True)
        if args.jobs > 1:
            worker.start()
        from playwright.sync_api import sync_playwright

        frames = work / "frames"
        frames.mkdir()
        static, server = serve(frames), None
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)

                def render_ran():  # the browser is this thread's: the frames of every chapter that has run
                    while True:
                        try:
                            chapter = ran.get_nowait()
                        except queue.Empty:
                            return
                        (out / f"{chapter}.ipynb").write_text(json.dumps(results[chapter]["notebook"]))
                        results[chapter]["frames"] = render_outputs(
                            browser, static.server_address[1], frames, chapter,
                            html_outputs(results[chapter]["notebook"]), plotly_js, shots, args.slow)

                try:
                    if classic:
                        for chapter in classic:
                            path, notebook, runtime = chapters[chapter]
                            (work / "content" / chapter / path.name).write_text(json.dumps(notebook, indent=1))
                        env = {**os.environ, "JUPYTER_CONFIG_DIR": str(work / "config"),
                               "JUPYTER_RUNTIME_DIR": str(work / "runtime"),
                               "JUPYTER_PATH": f"{work / 'jupyter'}{os.pathsep}{colab / CLASSIC_WIDGETS}"}
                        server = ClassicNotebook(colab, work, env)
                        for chapter in classic:
                            path, notebook, runtime = chapters[chapter]
                            results[chapter] = run_classic(browser, server, f"content/{chapter}/{path.name}", chapter,
                                                           shots, args.timeout, args.slow, plotly_js)
                            results[chapter]["notebook"] = json.loads((work / "content" / chapter / path.name).read_text())
                            print(f"{path.name}: ran in {results[chapter]['run_s']:.0f} s (classic Notebook), "
                                  f"{len({r['view'] for r in results[chapter]['rows']})} widget view(s) used", flush=True)
                            ran.put(chapter)
                            render_ran()
                        server.stop()
                        server = None
                    while not waiting.empty():  # then this thread takes nbclient chapters too
                        run_waiting(once=True)
                        render_ran()
                    if worker.is_alive():
                        worker.join()
                    render_ran()
                finally:
                    browser.close()
        finally:
            static.shutdown()
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
    import resource

    cpu = sum(getattr(resource.getrusage(who), f) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
              for f in ("ru_utime", "ru_stime"))
    print(f"colab check: {len(results)} chapters in {seconds:.0f} s ({cpu:.0f} s of CPU, kernels and browser "
          "included): "
          f"{'FAILED on ' + str(failures) + ' chapter(s)' if failures else 'every chapter ran from its first cell'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
