"""The browser pieces that the live check (JupyterLab), the Colab check (classic Notebook, per-output iframes) and
the browser check (the built book) share: Chromium's flags, a local server, a router that blocks other hosts, the
in-page watcher of a view's picture, and the driver that uses every control of a live view as a reader would.

A live view is one of: an ipywidgets ``seqviz-live`` view (ipywidgets 8 in JupyterLab, 7 in classic Notebook and
Colab), a ``seqviz-web`` view (its model runs in the page), or a bertviz view. ``page_js(scope)`` finds the views
under ``scope`` (a CSS prefix: the notebook's element, or "" in an output's own frame) and times each change of
their picture; ``Views`` drives them in a playwright Page or Frame.
"""

from __future__ import annotations

import functools
import http.server
import socket
import statistics
import threading
from pathlib import Path
from urllib.parse import urlparse

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--no-first-run", "--disable-quic"]
LOCAL_HOSTS = ("127.0.0.1", "localhost")
UNKNOWN_WORDS = "zqxv blorfen"
LONG_WORDS = 500


def in_order(worker, args: tuple, items: list, jobs: int, deal=None, lost=None):
    """Check ``items`` in ``jobs`` worker processes at once; yield ``(index, result)`` in the items' order, then
    ``(None, message)`` for every message a worker left at its end.

    ``worker(todo, done, *args)`` runs in each (spawned) process: it takes ``(index, item)`` from ``todo`` until a
    None, puts ``(index, result)`` into ``done`` for each, and may put ``(None, message)`` once before it ends
    (the live check leaves its JupyterLab log there). ``deal``: the indices in the order the items are handed out
    (default: as given; the live check deals the longest chapters first). An item whose worker stopped before
    it got a result gets ``lost(index)``, or, without ``lost``, raises RuntimeError.
    """
    import multiprocessing
    import queue as queues

    context = multiprocessing.get_context("spawn")
    todo, done = context.Queue(), context.Queue()
    for index in (range(len(items)) if deal is None else deal):
        todo.put((index, items[index]))
    for _ in range(jobs):
        todo.put(None)
    workers = [context.Process(target=worker, args=(todo, done, *args), daemon=True) for _ in range(jobs)]
    for process in workers:
        process.start()
    results, messages, next_index = {}, [], 0
    try:
        while next_index < len(items):
            while next_index not in results:
                try:
                    index, result = done.get(timeout=5)
                except queues.Empty:
                    if not any(w.is_alive() for w in workers) and done.empty():
                        if lost is None:
                            raise RuntimeError("every worker stopped before the last item") from None
                        results.update({i: lost(i) for i in range(next_index, len(items)) if i not in results})
                    continue
                if index is None:
                    messages.append(result)
                else:
                    results[index] = result
            yield next_index, results.pop(next_index)
            next_index += 1
        while len(messages) < jobs and any(w.is_alive() for w in workers):
            try:
                index, result = done.get(timeout=5)
            except queues.Empty:
                continue
            if index is None:
                messages.append(result)
        for message in messages:
            yield None, message
    finally:
        for process in workers:
            process.join(timeout=60)
            if process.is_alive():
                process.terminate()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep the report readable
        pass


def serve(directory: Path):
    """A static server for ``directory`` on 127.0.0.1 (a free port), in a daemon thread; ``.shutdown()`` stops it."""
    handler = functools.partial(_QuietHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def block_other_hosts(page, external: list[str], allow=None):
    """Let requests to this machine through; record and abort any other, unless ``allow(route)`` answers it."""
    def route(request_route):
        if urlparse(request_route.request.url).hostname in LOCAL_HOSTS:
            return request_route.continue_()
        if allow is not None and allow(request_route):
            return None
        external.append(request_route.request.url)
        return request_route.abort()

    page.route("**/*", route)


# In the page: a picture's signature (what a reader sees, hashed) and a watcher that times its change.
# %(scope)s is the CSS prefix under which views are looked for; state() reads the front end's cells.
_PAGE_JS = r"""
window.liveCheck = (() => {
  const scope = %(scope)r, front = %(front)s;
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
    const out = view.querySelector('.widget-output, .jupyter-widgets-output-area');  // ipywidgets 8, 7
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
  const views = () => [...document.querySelectorAll(
    [' .seqviz-live', ' .seqviz-web', ' [id^="bertviz"]'].map((s) => (scope + s).trim()).join(', '))];
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
    if (!front) return {cells: 0, ran: 0, busy: 0, errors: []};
    const cells = [...document.querySelectorAll(front.cell)];
    const prompts = cells.map((c) => (c.querySelector(front.prompt) || {}).textContent || '');
    const errors = [...document.querySelectorAll(front.output)]
      .filter((o) => /Traceback \(most recent call last\)|Error displaying widget/.test(o.textContent))
      .map((o) => o.textContent.slice(0, 400));
    return {cells: cells.length, ran: prompts.filter((p) => /\[\d+\]/.test(p)).length,
            busy: prompts.filter((p) => p.includes('*')).length, errors};
  };
  const sliderAt = (c) => {  // ipywidgets 8: noUiSlider (aria values); 7: jQuery UI (the handle's position)
    const handle = c.querySelector('.noUi-handle, .ui-slider-handle');
    if (handle.classList.contains('noUi-handle')) {
      const [now, lo, hi] = ['aria-valuenow', 'aria-valuemin', 'aria-valuemax'].map((a) => Number(handle.getAttribute(a)));
      return now >= hi ? 'max' : now <= lo ? 'min' : 'mid';
    }
    const left = parseFloat(handle.style.left || handle.style.bottom || '0');
    return left >= 100 ? 'max' : left <= 0 ? 'min' : 'mid';
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
      if (c.querySelector('.noUi-handle, .ui-slider-handle')) return {kind: 'slider', label, at: sliderAt(c)};
      if (c.querySelector('select')) return {kind: 'dropdown', label, options: c.querySelector('select').options.length};
      if (c.querySelector('input[type="text"]')) return {kind: 'text', label, value: c.querySelector('input').value};
      return {kind: 'other', label};
    });
    return {kind: 'live', title: title.trim(), controls, picture: picture(view)};
  });
  return {arm, result, startOver, state, describe, views, picture};
})();
"""

JUPYTERLAB = {"cell": ".jp-Notebook .jp-CodeCell", "prompt": ".jp-InputArea-prompt",
              "output": ".jp-Notebook .jp-OutputArea-output"}
CLASSIC = {"cell": "#notebook .cell.code_cell", "prompt": ".input_prompt", "output": "#notebook .output_area"}


def page_js(scope: str, front: dict | None = None) -> str:
    """The watcher for views under ``scope`` ("" in an output's own frame); ``front``: the front end's cells."""
    import json

    return _PAGE_JS % {"scope": scope, "front": json.dumps(front)}


def views_selector(scope: str) -> str:
    return ", ".join(f"{scope} {s}".strip() for s in (".seqviz-live", ".seqviz-web", "[id^='bertviz']"))


class Views:
    """Drives the live views under ``scope`` in ``target`` (a playwright Page or Frame) and records what each
    interaction did: ``rows`` (one per interaction, with its latency) and ``problems``."""

    def __init__(self, target, chapter: str, shots: Path, slow_s: float, scope: str = ""):
        self.target, self.chapter, self.shots, self.slow_s = target, chapter, shots, slow_s
        self.selector = views_selector(scope)
        self.rows: list[dict] = []
        self.problems: list[str] = []

    def js(self, expression: str, arg=None):
        return self.target.evaluate(expression, arg)

    def describe(self) -> list[dict]:
        return self.js("liveCheck.describe()")

    def handle(self, k: int):
        return self.target.query_selector_all(self.selector)[k]

    def measure(self, k: int, act, timeout_s: float | None = None) -> dict | None:
        """Arm the watcher on view ``k``, act, and wait until its picture changed; None if it did not."""
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        self.js("k => liveCheck.arm(k)", k)
        act()
        try:
            self.target.wait_for_function("() => liveCheck.result() !== null", timeout=(timeout_s or self.slow_s) * 1000)
        except PlaywrightTimeout:
            return None
        return self.js("liveCheck.result()")

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
        self.target.wait_for_function("k => liveCheck.picture(liveCheck.views()[k]).state === 'picture'", arg=k,
                                      timeout=self.slow_s * 1000)

    def check(self, k: int, view: dict, bad_inputs: bool = True):
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        name = view["title"] or view["kind"]
        try:
            self.ready(k)
        except PlaywrightTimeout:
            state = self.js("k => liveCheck.picture(liveCheck.views()[k])", k)
            self.problems.append(f"{name}: never showed a picture ({state.get('state')}: {state.get('text', '')[:200]})")
            self.shot(k, "_failed")
            (self.shots / f"{self.chapter}_view{k + 1}_failed.html").write_text(self.handle(k).evaluate("e => e.outerHTML"))
            return
        if view["kind"] == "bertviz":
            self.bertviz(k, name, view)
        else:  # an ipywidgets view, or a seqviz.web view (its model runs in the page)
            rows = ".seqviz-web-controls > label" if view["kind"] == "web" else ":scope > .widget-hbox > *"
            for control, spec in zip(self.handle(k).query_selector_all(rows), view["controls"]):
                label = spec["label"] or spec["kind"]
                if spec["kind"] == "text":
                    self.text(k, name, label, control.query_selector("input"), spec["value"], bad_inputs)
                elif spec["kind"] == "range":
                    self.range(k, name, label, control.query_selector("input"))
                elif spec["kind"] == "slider":
                    self.slider(k, name, label, control.query_selector(".noUi-handle, .ui-slider-handle"), spec["at"])
                elif spec["kind"] == "dropdown":
                    self.dropdown(k, name, label, control.query_selector("select"))
        self.shot(k)

    def shot(self, k: int, suffix: str = ""):
        """A screenshot of view ``k``; one that cannot be taken (a view still moving) is skipped, not a failure."""
        from playwright.sync_api import Error as PlaywrightError

        try:
            self.handle(k).scroll_into_view_if_needed(timeout=5_000)
            self.handle(k).screenshot(path=str(self.shots / f"{self.chapter}_view{k + 1}{suffix}.png"), timeout=10_000)
        except PlaywrightError:
            pass

    def bertviz(self, k, name, view):
        lines = self.js("k => liveCheck.picture(liveCheck.views()[k]).lines", k)
        if not lines:
            self.problems.append(f"{name}: bertviz drew no lines")
        for select_id in view["selects"]:
            select = self.handle(k).query_selector(f"select#{select_id}")
            count = select.evaluate("s => s.options.length")
            picks = [i % count for i in (1, 2, 0)] if count > 1 else []
            results = [self.measure(k, lambda i=i: select.select_option(index=i)) for i in picks[:2]]
            if results:
                self.record(name, f"menu '{select_id}'", results)

    def text(self, k, name, label, box, value, bad_inputs=True):
        words = value.split()
        other = " ".join(reversed(words)) if words != words[::-1] else " ".join(words[1:])

        def submit(text):
            box.fill(text)
            return lambda: box.press("Enter")

        results = [self.measure(k, submit(t)) for t in (other, value)]
        self.record(name, f"type into '{label}' + Enter", results)
        if not bad_inputs:
            return
        bad = {"unknown words": UNKNOWN_WORDS, "empty box": "",
               f"{LONG_WORDS} words": " ".join((words * LONG_WORDS)[:LONG_WORDS])}
        for what, text in bad.items():
            result = self.measure(k, submit(text), timeout_s=max(self.slow_s, 60))
            self.record(name, f"'{label}': {what}", [result], accept=("message", "picture"))
            self.measure(k, submit(value))  # back to the first sentence

    def _keys(self, k, name, label, handle, at_max: bool):
        ends = ["Home", "End"] if at_max else ["End", "Home"]
        handle.focus()
        results = [self.measure(k, lambda key=key: handle.press(key))
                   for key in [*ends, "ArrowRight" if ends[-1] == "Home" else "ArrowLeft"]]
        self.record(name, f"slider '{label}': both ends, one step", results)

    def slider(self, k, name, label, handle, at: str):
        """An ipywidgets slider, by the keyboard: both ends, then one step back."""
        self._keys(k, name, label, handle, at == "max")

    def range(self, k, name, label, handle):
        """A slider of a seqviz.web view (an <input type=range>): the keyboard, as a reader's would."""
        now, high = (float(handle.evaluate(f"e => e.{a}")) for a in ("value", "max"))
        self._keys(k, name, label, handle, now == high)

    def dropdown(self, k, name, label, select):
        count, current = select.evaluate("s => [s.options.length, s.selectedIndex]")
        picks = [(current + d) % count for d in (1, 2)] if count > 2 else [(current + 1) % count, current]
        results = [self.measure(k, lambda i=i: select.select_option(index=i)) for i in picks]
        self.record(name, f"dropdown '{label}'", results)


# Runs in the page: drives live view i of seqviz.web through every control and returns what it measured.
DRIVE = r"""([i, unknown]) => {
  const root = document.querySelectorAll('.seqviz-web')[i], view = root.seqvizView;
  const spec = JSON.parse(root.querySelector('script.seqviz-web-spec').textContent);
  let difference = 0, compared = 0;
  const compare = (got, want, path) => {  // walks seqviz's numbers; the page may show more than these
    if (Array.isArray(want)) {
      if (!Array.isArray(got) || got.length !== want.length)
        throw new Error(`${path}: ${Array.isArray(got) ? got.length : 'no'} values, seqviz has ${want.length}`);
      want.forEach((w, k) => compare(got[k], w, path));
    } else if (want !== null && typeof want === 'object') {
      for (const key of Object.keys(want)) compare(got == null ? undefined : got[key], want[key], `${path}.${key}`);
    } else {
      const d = Math.abs(Number(got) - Number(want));
      if (!(d <= Infinity)) throw new Error(`${path}: the page shows ${got}, seqviz ${want}`);
      difference = Math.max(difference, d);
      compared += 1;
    }
  };
  try {
    compare(seqviz.nn.toLists(view.numbers()), spec.expected || {}, 'numbers');
  } catch (error) {
    return {view: spec.view, problem: error.message};
  }
  const ms = [], messages = [];
  const fire = (input, value) => {
    input.value = String(value);
    input.dispatchEvent(new Event(input.type === 'range' ? 'input' : 'change'));
    ms.push(view.lastMs);
    const text = root.querySelector('.seqviz-web-message').textContent;
    if (text) messages.push(`${value}: ${text}`);
  };
  let unknownMessage = null;
  for (const [name, input] of Object.entries(view.controls)) {
    const first = input.value;
    if (input.type === 'text') {
      const words = first.split(/\s+/).filter(Boolean);
      fire(input, [...words].reverse().join(' '));
      fire(input, first);
      input.value = unknown;
      input.dispatchEvent(new Event('change'));
      unknownMessage = root.querySelector('.seqviz-web-message').textContent;
      fire(input, first);
    } else if (input.type === 'range') {
      const lo = Number(input.min), hi = Number(input.max), step = Number(input.step) || 1;
      for (const v of [lo, hi, lo + Math.round((hi - lo) / 2 / step) * step, first]) fire(input, v);
    } else if (input.tagName === 'SELECT') {
      for (const option of [...input.options].slice(0, 4)) fire(input, option.value);
      fire(input, first);
    }
  }
  return {view: spec.view, bytes: root.outerHTML.length, compared, difference, ms, messages, unknownMessage};
}"""
