"""The pages around the chapters say the same thing about where each chapter's live views run, and every plotly
figure of the book carries the script that rearranges it on a phone.

Which chapters have page views (they run in the browser, no kernel) and which have kernel-side widgets is read
from the chapters themselves: a chapter that imports from ``seqviz.web`` has page views, one that calls
``live(`` has widgets. ``book/intro.md`` and ``book/setup.md`` must both name exactly those chapters.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _chapter(path: Path) -> str:
    return path.stem.split("_")[0].lstrip("0") or "0"


def _kinds() -> tuple[set[str], set[str]]:
    page, kernel = set(), set()
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        code = "\n".join("".join(c["source"]) for c in json.loads(path.read_text(encoding="utf-8"))["cells"]
                         if c["cell_type"] == "code")
        if re.search(r"from seqviz\.web import|seqviz\.web\.", code):
            page.add(_chapter(path))
        if re.search(r"\blive\(", code):
            kernel.add(_chapter(path))
    return page, kernel


def _listed(sentence: str) -> set[str]:
    return set(re.findall(r"\b(\d+[a-z]?)\b", sentence))


def test_intro_and_setup_name_the_chapters_whose_views_run_in_the_page():
    page, kernel = _kinds()
    assert page and kernel
    for name in ("intro.md", "setup.md"):
        text = re.sub(r"\s+", " ", (ROOT / "book" / name).read_text(encoding="utf-8"))
        page_sentence = re.search(r"live views\*? of chapters ([\d, a-z]+?and \d+[a-z]?)", text)
        kernel_sentence = re.search(r"widgets of chapters ([\d, a-z]+?and \d+[a-z]?)", text)
        assert page_sentence and kernel_sentence, f"{name} does not say which chapters' views run where"
        assert _listed(page_sentence[1]) == page, f"{name}: page views of {page_sentence[1]}, the chapters: {page}"
        assert _listed(kernel_sentence[1]) == kernel, f"{name}: widgets of {kernel_sentence[1]}, chapters: {kernel}"


def test_every_book_figure_rearranges_itself_on_a_narrow_screen():
    import plotly.graph_objects as go

    from seqviz.viz.book import NARROW_SCRIPT, book_html

    html = book_html(go.Figure(go.Scatter(x=[1, 2], y=[3, 4], name="a"), layout=dict(title="A title")))
    assert "gd.clientWidth < 560" in html and "{plot_id}" not in html  # plotly filled in the figure's id
    assert "wrap(title, chars)" in NARROW_SCRIPT and "legend.orientation" in NARROW_SCRIPT


def test_a_phone_rewraps_every_title_to_its_width_chinese_counted_double(node, tmp_path):
    """The narrow-screen script's wrap, run under node: English by words, Chinese by characters (each as wide as
    two letters, a closing mark kept on its line), every line within the phone's width."""
    import subprocess

    from seqviz.viz.book import NARROW_SCRIPT

    body = NARROW_SCRIPT[NARROW_SCRIPT.index("  var HAN"):NARROW_SCRIPT.index("  function fit()")]
    titles = ["Which inputs can move the answer? Blank: none at all",
              "截断时的回忆准确率：截断无法学到其窗口之外的内容，无论窗口多长",
              "长短期记忆网络 LSTM 与 GRU 的准确率（3 次的平均）随距离的变化"]
    script = tmp_path / "wrap.js"
    script.write_text(body + f"console.log(JSON.stringify({json.dumps(titles)}.map((t) => "
                      "wrap(t, 35).map((l) => [l, units(l)]))));", encoding="utf-8")
    wrapped = json.loads(subprocess.run([node, str(script)], capture_output=True, text=True, check=True).stdout)
    assert [line for line, _ in wrapped[0]] == ["Which inputs can move the answer?", "Blank: none at all"]
    for title, lines in zip(titles, wrapped):
        assert len(lines) > 1 and all(width <= 35 for _, width in lines), lines
        assert "".join(line for line, _ in lines).replace(" ", "") == title.replace(" ", "")
        assert not any(line[0] in "，。：；、？！）" for line, _ in lines)
