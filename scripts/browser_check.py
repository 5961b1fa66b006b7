"""Open every page of the built book in headless Chromium and check what a reader sees.

Serves ``_build/html`` on 127.0.0.1 and, for each page, fails on:
- a console error or an uncaught page error;
- a request to any host but the local server (the book must work offline);
- a plotly figure that did not draw, a saved ipywidgets view that did not render, or a
  bertviz view (head view or model view) that drew no lines between its tokens;
- a live view of ``seqviz.web`` (the model runs in the page) that did not start, whose numbers differ
  from seqviz's own for its first input by more than 1e-4 (the spec's ``expected``), that did not
  answer an input, or that showed a message for a good input or none for unknown words;
- on a 390 px phone screen (a second look at each page that has a live view): a live view with a part reaching past
  the screen's edge outside a strip of the view that scrolls sideways (its text box, its controls, its picture),
  where a reader could neither see nor scroll to it;
- a solution visible before its dropdown is opened, and in the course build (`make book SOLUTIONS=0`) any
  solution left on a page;
- a chapter (a page under notebooks/) without its Colab launch link;
- a page whose own HTML exceeds 1.5 MB;
- both editions (the Chinese one in ``zh/``, ``make book-zh``): a page without its language switch, or whose switch
  points at a page that does not exist;
- a chapter of the Chinese edition with a code output that still shows an English phrase (``scripts/zh_outputs.py``:
  a table, a printed line or a list the code wrote, not its data);
- a character the page shows (its text and its figures' SVG text) that none of the fonts Chromium drew it with
  has: a missing-glyph box. Chromium says which fonts drew each element (``CSS.getPlatformFontsForNode``); their
  files' character maps (fontTools) must hold every character of the element. The browser sees the system's fonts
  and the Noto Sans CJK the project installs (``seqviz.i18n.cjk_font_file``), the font a Chinese reader's system
  has in one form or another; web fonts the site serves itself (icons, MathJax) are not checked.

Load time (to network idle) is measured against its 3 s budget and reported (SLOW), never failed:
like every speed budget it depends on what else the machine is doing. So is the update time of every
live view (each control moved as a reader would: a new sentence typed, each slider to both ends and to
its middle, other entries of each menu), against its 50 ms median budget; the latencies go to
``benchmarks/results/page_views.csv`` and ``.md``.

It saves a screenshot of every page under ``_build/screenshots/`` and prints, per page, its
HTML size, load time and what it found. Chromium is Debian's (``/usr/bin/chromium``),
driven by Python playwright; nothing is downloaded.

Usage: ``python scripts/browser_check.py [--html _build/html] [--pages notebooks/01*]``
"""

from __future__ import annotations

import argparse
import csv
import fnmatch
import statistics
import sys
import time
import unicodedata
from pathlib import Path
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
from view_driver import CHROMIUM, DRIVE, FLAGS, block_other_hosts, in_order, serve  # noqa: E402  (shared with the live checks)
from zh_outputs import html_blocks  # noqa: E402  (the Chinese chapters' outputs that still show English)

MAX_HTML_BYTES = 1.5e6
MAX_LOAD_SECONDS = 3.0
MAX_UPDATE_MS = 50.0   # a live view's median update, from the input event to the laid-out picture
MAX_DIFFERENCE = 1e-4  # the page's numbers against seqviz's (float32; tests/test_web_*.py hold 2e-5 and tighter)
UNKNOWN_WORDS = "zqxv blorfen ☃"   # the snowman: unknown to a character-level view too
SKIP = {"search.html", "genindex.html", "index.html",  # index.html only redirects to the intro
        "zh/search.html", "zh/genindex.html", "zh/index.html"}

# What a live view says of words its model does not know, in each edition (seqviz/i18n/zh/web.json)
NEVER_SEEN = ("never seen", "从没见过")

# Runs in the page once it is idle; returns what was found.
INSPECT = """() => {
  const visible = (el) => { const r = el.getBoundingClientRect(); const s = getComputedStyle(el);
    return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none'; };
  const plots = [...document.querySelectorAll('.plotly-graph-div')];
  const views = [...document.querySelectorAll('script[type="application/vnd.jupyter.widget-view+json"]')];
  const rendered = views.filter((s) => { const box = s.parentElement;
    return box && box.querySelector('.jupyter-widgets, .widget-container, .lm-Widget, .p-Widget'); });
  const heads = [...document.querySelectorAll('[id^="bertviz"]')];
  const solutions = [...document.querySelectorAll('.solution.dropdown, div.dropdown.solution')];
  const leaks = solutions.filter((sol) => [...sol.children].some((child) =>
    !child.classList.contains('admonition-title') && !child.matches('button, .toggle-button') && visible(child)));
  const gated = [...document.querySelectorAll('.cell.tag_solution')].filter(visible);
  return {
    plots: plots.length, drawn: plots.filter((p) => p.querySelector('.main-svg')).length,
    views: views.length, rendered: rendered.length,
    heads: heads.length, headsDrawn: heads.filter((h) => h.querySelectorAll('svg line').length > 0).length,
    solutions: solutions.length, leaks: leaks.length + gated.length,
    // the course build (SOLUTIONS=0, book/_ext/seqviz_course.py): no solution of any kind may be on the page
    courseBuild: document.querySelector('meta[name="seqviz-solutions"][content="0"]') !== null,
    anySolution: document.querySelectorAll('.solution, .tag_solution, [id^="solution-content"]').length,
    colab: document.querySelectorAll('a[href*="colab.research.google.com"]').length,
    web: document.querySelectorAll('.seqviz-web').length,
    webMounted: document.querySelectorAll('.seqviz-web.seqviz-web-mounted').length,
    switches: [...document.querySelectorAll('a.seqviz-language')].map((a) => a.href),
    untranslated: document.querySelectorAll('.seqviz-zh-untranslated').length,
    // a figure printed as its repr instead of drawn (the kernel had no inline backend: MPLBACKEND set in the build)
    figureReprs: (document.body.innerText.match(/<Figure size [0-9.]+x[0-9.]+ with/g) || []).length,
    // a glued value followed by a space before its punctuation ("92 % ."), or a glued sentence showing raw Markdown
    gluedSpace: [...document.querySelectorAll('span.pasted-text')].filter((span) => {
      const next = span.nextSibling;
      const after = next && next.nodeType === 3 ? next.textContent : '';
      return /^\\s+[.,;:!?)\\]]/.test(after) || (/\\s$/.test(span.textContent) && /^[.,;:!?)\\]]/.test(after));
    }).map((span) => (span.textContent + (span.nextSibling ? span.nextSibling.textContent : '')).slice(0, 80)),
    gluedMarkup: [...document.querySelectorAll('span.pasted-text')].map((span) => span.textContent)
      .filter((text) => /\\$[^$]+\\$|`[^`]+`|(^|[^\\w*])\\*[^*\\s][^*]*\\*(?![\\w*])/.test(text)).map((t) => t.slice(0, 80)),
  };
}"""

PHONE = {"width": 390, "height": 844}   # a phone's screen, CSS px

# Runs in the page (at PHONE's width): each live view's first visible part that reaches past the view's own column
# (or the screen's edge) without a scrolling strip (overflow-x auto or scroll, itself on the screen) between it and
# the view: the page cuts such a part off, or the reader must scroll the whole page sideways to find it.
CUT_OFF = """() => {
  const width = document.documentElement.clientWidth, found = [];
  const inStrip = (el, root) => {
    for (let a = el.parentElement; a && a !== root.parentElement; a = a.parentElement) {
      const x = getComputedStyle(a).overflowX, r = a.getBoundingClientRect();
      if ((x === 'auto' || x === 'scroll') && r.left >= -1 && r.right <= width + 1) return true;
    }
    return false;
  };
  document.querySelectorAll('.seqviz-web').forEach((root, k) => {
    const R = root.getBoundingClientRect(), lo = Math.max(0, R.left), hi = Math.min(width, R.right);
    for (const el of [root, ...root.querySelectorAll('*')]) {
      const r = el.getBoundingClientRect(), s = getComputedStyle(el);
      if (r.width === 0 || r.height === 0 || s.display === 'none' || s.visibility === 'hidden') continue;
      const past = el === root ? r.left < -1 || r.right > width + 1 : r.left < lo - 1 || r.right > hi + 1;
      if (past && !inStrip(el, root)) {
        const cls = (el.getAttribute('class') || '').split(' ')[0];
        found.push({view: k + 1, name: root.dataset.view, part: el.tagName.toLowerCase() + (cls ? '.' + cls : ''),
                    left: Math.round(r.left), right: Math.round(r.right), column: [Math.round(lo), Math.round(hi)],
                    width});
        break;
      }
    }
  });
  return found;
}"""


def phone_problems(page) -> list[str]:
    """The live views of ``page`` (shown at PHONE's width) that a phone cuts off: one line each."""
    return [f"on a {c['width']} px screen, live view {c['view']} ({c['name']}): its {c['part']} spans "
            f"{c['left']}..{c['right']} px, past the view's column ({c['column'][0]}..{c['column'][1]} px), "
            "outside any strip that scrolls" for c in page.evaluate(CUT_OFF)]


# Runs in the page: every visible element with text of its own that is not plain ASCII gets a number (the glyph
# check asks Chromium which fonts drew it); returns their texts.
MARK_TEXT = r"""() => {
  const out = [];
  for (const el of document.querySelectorAll('body *')) {
    if (['SCRIPT', 'STYLE', 'NOSCRIPT', 'svg'].includes(el.tagName)) continue;
    const own = [...el.childNodes].filter((n) => n.nodeType === 3).map((n) => n.textContent).join('');
    if (!/[^\x00-\x7f]/.test(own)) continue;
    const r = el.getBoundingClientRect(), s = getComputedStyle(el);
    if (r.width === 0 || r.height === 0 || s.visibility === 'hidden' || s.display === 'none') continue;
    el.setAttribute('data-seqviz-glyphs', String(out.length));
    out.push([own, [s.fontFamily, s.fontStyle, s.fontWeight, s.fontStretch, (el.closest('[lang]') || {}).lang || ''].join('|')]);
  }
  return out;
}"""

class FontFiles:
    """Which characters each font Chromium may draw with holds: its file found by PostScript or family name."""

    DIRS = ("/usr/share/fonts", "/usr/local/share/fonts", str(Path.home() / ".fonts"),
            str(Path.home() / ".local/share/fonts"))

    def __init__(self, extra_dirs=()):
        from fontTools.ttLib import TTCollection, TTFont

        self.names, self.cmaps = {}, {}
        for folder in [*self.DIRS, *map(str, extra_dirs)]:
            for path in sorted(Path(folder).rglob("*")) if Path(folder).is_dir() else []:
                if path.suffix.lower() not in (".ttf", ".otf", ".ttc", ".otc"):
                    continue
                try:
                    fonts = TTCollection(str(path), lazy=True).fonts if path.suffix.lower() in (".ttc", ".otc") \
                        else [TTFont(str(path), lazy=True)]
                except Exception:  # noqa: BLE001 - an unreadable font file is not the page's problem
                    continue
                for index, font in enumerate(fonts):
                    for record in font["name"].names:
                        if record.nameID in (1, 4, 6, 16):
                            try:
                                self.names.setdefault(record.toUnicode(), (str(path), index))
                            except UnicodeDecodeError:
                                pass

    def cmap(self, font: dict) -> set[int] | None:
        """The code points of a font Chromium reports (None: not a file here, a web font of the site)."""
        key = self.names.get(font.get("postScriptName") or "") or self.names.get(font.get("familyName") or "")
        if key is None:
            return None
        if key not in self.cmaps:
            from fontTools.ttLib import TTFont

            self.cmaps[key] = set(TTFont(key[0], fontNumber=key[1], lazy=True).getBestCmap() or {})
        return self.cmaps[key]


def missing_glyphs(page, fonts: FontFiles) -> list[str]:
    """Characters of the page that no font Chromium drew their element with holds (missing-glyph boxes).

    Chromium picks the fonts for a character from the element's CSS font (family, style, weight, stretch) and the
    character alone: once a character was checked under one CSS font, every other element with that CSS font
    draws it the same way, so only elements with a character new to their CSS font are asked about.
    """
    marked = page.evaluate(MARK_TEXT)
    if not marked:
        return []
    cdp = page.context.new_cdp_session(page)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    root = cdp.send("DOM.getDocument", {"depth": -1})["root"]["nodeId"]
    nodes = cdp.send("DOM.querySelectorAll", {"nodeId": root, "selector": "[data-seqviz-glyphs]"})["nodeIds"]
    missing: dict[str, str] = {}
    checked: dict[str, set[str]] = {}   # CSS font -> characters already checked under it
    covers: dict[tuple, set[int]] = {}  # the fonts Chromium used -> the characters they hold
    for node, (text, css_font) in zip(nodes, marked):
        chars = {c for c in text if not c.isspace() and unicodedata.category(c) not in ("Cf", "Cc")}
        seen = checked.setdefault(css_font, set())
        if not node or chars <= seen:   # a zero-width or control character draws nothing: no glyph to miss
            continue
        used = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
        seen |= chars
        if any(f.get("isCustomFont") for f in used):
            continue  # the site's own web font (icons, MathJax): its glyphs are its business
        key = tuple(sorted((f.get("postScriptName", ""), f.get("familyName", "")) for f in used))
        if key not in covers:
            cmaps = [fonts.cmap(f) for f in used]
            covers[key] = set().union(*cmaps) if used and all(c is not None for c in cmaps) else None
        covered = covers[key]
        if covered is None:
            continue
        for char in sorted(chars):
            if char not in missing and ord(char) not in covered:
                missing[char] = f"U+{ord(char):04X} in {text.strip()[:40]!r} (fonts: "\
                                f"{', '.join(f['familyName'] for f in used)})"
    cdp.detach()
    return list(missing.values())


def font_environment(tmp: Path) -> dict:
    """Chromium's environment: fontconfig sees the system's fonts and the project's Noto Sans CJK."""
    import os

    sys.path.insert(0, str(ROOT))
    from seqviz.i18n import cjk_font_file

    font = cjk_font_file()
    extra = [font.parent] if font is not None else []
    conf = tmp / "fonts.conf"
    conf.write_text('<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n'
                    '  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>\n'
                    + "".join(f"  <dir>{d}</dir>\n" for d in extra)
                    + f"  <cachedir>{tmp / 'fontcache'}</cachedir>\n</fontconfig>\n")
    return {**os.environ, "FONTCONFIG_FILE": str(conf)}, extra


def pages(html: Path, patterns: list[str]) -> list[Path]:
    found = []
    for path in sorted(html.rglob("*.html")):
        rel = path.relative_to(html).as_posix()
        if rel.removeprefix("zh/").startswith(("_static/", "_sources/", "_images/")) or rel in SKIP:  # both editions
            continue
        if patterns and not any(fnmatch.fnmatch(rel, p) for p in patterns):
            continue
        found.append(path)
    return found


def check_page(browser, base: str, html: Path, path: Path, shots: Path, fonts: FontFiles | None = None
               ) -> tuple[dict, list[str]]:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    rel = path.relative_to(html).as_posix()
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors, external = [], []
    page.on("console", lambda m: errors.append(f"console: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(f"page error: {e}"))

    block_other_hosts(page, external)
    start = time.perf_counter()
    page.goto(f"{base}/{rel}", wait_until="networkidle", timeout=30_000)
    load = time.perf_counter() - start
    page.wait_for_load_state("load")
    page.wait_for_timeout(300)  # let plotly and the widget manager finish drawing
    try:  # bertviz draws once require.js has loaded d3 and jQuery: wait for its lines (or report them missing)
        page.wait_for_function("() => [...document.querySelectorAll('[id^=\"bertviz\"]')]"
                               ".every((h) => h.querySelector('svg line'))", timeout=10_000)
    except PlaywrightTimeout:
        pass
    found = page.evaluate(INSPECT)
    glyphs = missing_glyphs(page, fonts) if fonts is not None else []
    web = [page.evaluate(DRIVE, [i, UNKNOWN_WORDS]) for i in range(found["webMounted"])]
    shot = shots / (rel.replace("/", "__").removesuffix(".html") + ".jpg")
    page.screenshot(path=str(shot), full_page=True, type="jpeg", quality=80)  # a PNG of a long page: 2.5x the time
    page.close()
    phone = []
    if found["web"]:   # the same page on a phone's screen: every live view must fit it, or scroll inside itself
        small = browser.new_page(viewport=PHONE)
        block_other_hosts(small, external)
        small.goto(f"{base}/{rel}", wait_until="networkidle", timeout=30_000)
        small.wait_for_load_state("load")
        small.wait_for_timeout(300)
        phone = phone_problems(small)
        small.screenshot(path=str(shot.with_name(shot.stem + f"-{PHONE['width']}.jpg")), full_page=True, type="jpeg",
                         quality=80)
        small.close()
    size = path.stat().st_size
    problems = [*errors, *(f"third-party request: {u}" for u in external), *phone]
    if found["drawn"] < found["plots"]:
        problems.append(f"{found['plots'] - found['drawn']} of {found['plots']} plotly figures did not draw")
    if found["rendered"] < found["views"]:
        problems.append(f"{found['views'] - found['rendered']} of {found['views']} widget views did not render")
    if found["headsDrawn"] < found["heads"]:
        problems.append(f"{found['heads'] - found['headsDrawn']} of {found['heads']} bertviz views drew no lines")
    if found["webMounted"] < found["web"]:
        problems.append(f"{found['web'] - found['webMounted']} of {found['web']} live views did not start")
    for k, drive in enumerate(web):
        name = f"live view {k + 1} ({drive['view']})"
        if "problem" in drive:
            problems.append(f"{name}: {drive['problem']}")
            continue
        if drive["difference"] > MAX_DIFFERENCE:
            problems.append(f"{name}: its numbers differ from seqviz's by {drive['difference']:.1e}")
        problems += [f"{name}: a message for a good input ({m})" for m in drive["messages"]]
        if drive["unknownMessage"] is not None and not any(words in drive["unknownMessage"] for words in NEVER_SEEN):
            problems.append(f"{name}: unknown words got no message ({drive['unknownMessage']!r})")
    if found["gluedSpace"]:
        problems.append(f"{len(found['gluedSpace'])} glued value(s) followed by a space before punctuation: "
                        + "; ".join(repr(t) for t in found["gluedSpace"][:3]))
    if found["gluedMarkup"]:
        problems.append(f"{len(found['gluedMarkup'])} glued sentence(s) show raw Markdown: "
                        + "; ".join(repr(t) for t in found["gluedMarkup"][:3]))
    if found["figureReprs"]:
        problems.append(f"{found['figureReprs']} matplotlib figure(s) printed as '<Figure size ...>' instead of drawn")
    if found["leaks"]:
        problems.append(f"{found['leaks']} solution(s) visible before their dropdown is opened")
    if found["courseBuild"] and found["anySolution"]:
        problems.append(f"course build (SOLUTIONS=0): {found['anySolution']} solution(s) left on the page")
    chapter = rel.startswith(("notebooks/", "zh/notebooks/")) and not found["untranslated"]  # a notice page: none
    if chapter and not found["colab"] and not found["courseBuild"]:
        problems.append("no Colab launch link")
    if (html / "zh").is_dir():  # both editions built: each page links to itself in the other
        if len(found["switches"]) != 1:
            problems.append(f"{len(found['switches'])} language switches (expected one)")
        for href in found["switches"]:
            target = html / urlparse(href).path.lstrip("/")
            if not target.is_file():
                problems.append(f"the language switch points at {urlparse(href).path}, which does not exist")
    problems += [f"missing glyph: {g}" for g in glyphs]
    if rel.startswith("zh/notebooks/") and not found["untranslated"]:  # a Chinese chapter: its outputs in Chinese
        english = html_blocks(path.read_text(encoding="utf-8"))
        problems += [f"an output still in English (cell {b['cell']}, {b['kind']}): " + "; ".join(b["phrases"][:3])
                     + " (seqviz/i18n/zh/, or scripts/zh_outputs.py's DATA_LINES if it is data)" for b in english]
    if size > MAX_HTML_BYTES:
        problems.append(f"HTML is {size / 1e6:.2f} MB (budget {MAX_HTML_BYTES / 1e6} MB)")
    row = {"page": rel, "kb": size / 1e3, "load_s": load, "errors": len(errors), "third_party": len(external),
           "glyphs_missing": len(glyphs),
           **found, "live": web, "screenshot": shot.relative_to(ROOT).as_posix() if shot.is_relative_to(ROOT) else str(shot)}
    return row, problems


def live_row(page: str, k: int, drive: dict) -> dict:
    ms = sorted(drive["ms"])
    return {"page": page, "view": f"{k + 1}: {drive['view']}", "view_kb": drive["bytes"] / 1e3, "updates": len(ms),
            "median_ms": statistics.median(ms) if ms else float("nan"), "max_ms": ms[-1] if ms else float("nan"),
            "numbers_compared": drive["compared"], "largest_difference": drive["difference"]}


def report_live(rows: list[dict], results: Path):
    """Print the live views' table and write it to ``page_views.csv`` and ``.md`` in ``results``."""
    header = list(rows[0])
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for r in rows:
        lines.append("| " + " | ".join(f"{v:.3g}" if isinstance(v, float) else str(v) for v in r.values()) + " |")
    print("\nLive views in the pages (update: from the input event to the laid-out picture, inside the page):")
    print("\n".join(lines))
    over = [r for r in rows if r["median_ms"] > MAX_UPDATE_MS]
    for r in over:
        print(f"    SLOW {r['page']} view {r['view']}: median update {r['median_ms']:.1f} ms (budget {MAX_UPDATE_MS} ms)")
    print(f"live views over the {MAX_UPDATE_MS:.0f} ms median update budget: {len(over)} of {len(rows)}")
    results.mkdir(parents=True, exist_ok=True)
    with open(results / "page_views.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=header)
        writer.writeheader()
        writer.writerows(rows)
    (results / "page_views.md").write_text("\n".join(lines) + "\n")


def _worker(todo, done, html: str, shots: str) -> None:
    """One worker: its own server, Chromium and fonts; checks the pages it takes from ``todo`` until a None."""
    import tempfile

    from playwright.sync_api import sync_playwright

    html, shots = Path(html), Path(shots)
    env, extra_fonts = font_environment(Path(tempfile.mkdtemp(prefix="seqviz-fonts-")))
    fonts = FontFiles(extra_fonts)
    server = serve(html)
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS, env=env)
            for index, rel in iter(todo.get, None):
                try:
                    done.put((index, check_page(browser, base, html, html / rel, shots, fonts)))
                except Exception as error:  # noqa: BLE001  (a page that breaks the checker fails, the rest go on)
                    done.put((index, ({"page": rel, "broken": f"{type(error).__name__}: {error}"}, [])))
            browser.close()
    finally:
        server.shutdown()


def checked(html: Path, todo: list[Path], shots: Path, jobs: int):
    """Yield ``(row, problems)`` for every page, in order, checked by ``jobs`` worker processes at once."""
    pages = [path.relative_to(html).as_posix() for path in todo]
    for index, result in in_order(_worker, (str(html), str(shots)), pages, jobs):
        if index is None:
            continue
        row, problems = result
        if "broken" in row:
            row, problems = _broken_row(row["page"]), [f"the check itself failed: {row['broken']}"]
        yield row, problems


def _broken_row(page: str) -> dict:
    return {"page": page, "kb": 0, "load_s": 0.0, "errors": "?", "third_party": "?", "drawn": 0, "plots": 0,
            "rendered": 0, "views": 0, "headsDrawn": 0, "heads": 0, "solutions": 0, "leaks": 0, "colab": False,
            "glyphs_missing": "?", "live": []}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--html", default=str(ROOT / "_build" / "html"))
    parser.add_argument("--shots", default=None, help="screenshot folder (default: <html>/../screenshots)")
    parser.add_argument("--pages", nargs="*", default=[], help="glob patterns of pages to check (default: all)")
    parser.add_argument("--jobs", type=int, default=2, help="pages checked at once, each worker with its own Chromium")
    args = parser.parse_args(argv)
    html = Path(args.html).resolve()
    if not (html / "index.html").exists():
        print(f"no built book at {html}: run `make book` or `make book-quick` first")
        return 2
    shots = Path(args.shots) if args.shots else html.parent / "screenshots"
    shots.mkdir(parents=True, exist_ok=True)
    import playwright.sync_api  # noqa: F401  (fails here, not in a worker, where playwright is missing)

    switch = "seqviz-language" in (html / "index.html").read_text(errors="replace")  # the book's own theme adds it
    if switch and not (html / "zh" / "index.html").exists():
        print(f"no Chinese edition at {html / 'zh'}: run `make book-zh` (or `make book-zh-quick`) after the English "
              "book; the language switch of every English page points into it")
        return 2
    todo = pages(html, args.pages)
    jobs = max(1, min(args.jobs, len(todo)))
    failures = 0
    print("| page | HTML kB | load s | console errors | third-party requests | plots drawn | widgets rendered "
          "| bertviz drawn | solutions (shown early) | Colab link | missing glyphs |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    heads = heads_drawn = 0
    slow, live_rows = [], []
    for row, problems in checked(html, todo, shots, jobs):   # in page order, whatever order they finish in
        failures += bool(problems)
        print(f"| {row['page']} | {row['kb']:.0f} | {row['load_s']:.2f} | {row['errors']} | "
              f"{row['third_party']} | {row['drawn']}/{row['plots']} | {row['rendered']}/{row['views']} | "
              f"{row['headsDrawn']}/{row['heads']} | {row['solutions']} ({row['leaks']}) | "
              f"{'yes' if row['colab'] else 'no'} | {row['glyphs_missing']} |", flush=True)
        heads, heads_drawn = heads + row["heads"], heads_drawn + row["headsDrawn"]
        live_rows += [live_row(row["page"], k, drive) for k, drive in enumerate(row["live"]) if "ms" in drive]
        for problem in problems:
            print(f"    FAIL {row['page']}: {problem}")
        if row["load_s"] > MAX_LOAD_SECONDS:   # a time: reported against its budget, never a failure
            slow.append(row["page"])
            print(f"    SLOW {row['page']}: load to network idle took {row['load_s']:.2f} s "
                  f"(budget {MAX_LOAD_SECONDS} s)")
    print(f"bertviz views drawn (lines between tokens): {heads_drawn} of {heads}")
    if live_rows:
        report_live(live_rows, ROOT / "benchmarks" / "results")
    print(f"pages over the {MAX_LOAD_SECONDS} s load budget: {len(slow)} (a timing depends on what else the machine "
          f"runs, here {jobs} page(s) at once: measured and reported, as every speed budget is, not asserted)")
    print(f"screenshots in {shots}")
    print(f"browser check: {'FAILED on ' + str(failures) + ' page(s)' if failures else 'all pages passed'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
