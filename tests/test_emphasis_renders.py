"""Bold and italic render as emphasis in both editions, never as literal asterisks.

CommonMark (markdown-it, which MyST builds on) closes ``**`` only where the run is "right-flanking": a closing
``**`` that follows punctuation must itself be followed by a space or punctuation. English prose always has the
space; Chinese has none, so ``**直线。**在对数坐标下`` printed its asterisks (32 such spans in seven Chinese
chapters, found in the rendered chapter 3). The fix is the house style in zh/TRANSLATING.md: the full stop goes
after the bold, ``**直线**。在``. This test renders every prose cell and page as the build parses it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted([*ROOT.glob("notebooks/*.ipynb"), *ROOT.glob("zh/notebooks/*.ipynb"), *ROOT.glob("book/*.md"),
                *ROOT.glob("zh/book/*.md")])
_MD = MarkdownIt("commonmark")
_CODE = re.compile(r"<code>.*?</code>|<pre>.*?</pre>", re.S)
# a bold marker left as text anywhere; a single asterisk only beside Chinese text or quotes (the book writes a
# literal * as a table's footnote mark: "33 s*")
_LEFT_OVER = re.compile(r"\*\*+|__|(?<=[\u2018-\u201f\u3000-\u303f\u3400-\u9fff\uff00-\uffef])\*|\*(?=[\u2018-\u201f\u3000-\u303f\u3400-\u9fff\uff00-\uffef])")
_MATH = re.compile(r"\$\$.*?\$\$|\$[^$\n]+\$", re.S)   # MyST's dollar math, which plain CommonMark does not know


def literal_asterisks(markdown: str) -> list[str]:
    """The places where ``*``, ``**`` or ``__`` survive rendering as text (outside code and math), with context.
    A formula stands in as one letter, so that the emphasis around it parses as it does in the build."""
    html = _CODE.sub("", _MD.render(_MATH.sub("x", markdown)))
    return [html[max(0, m.start() - 24):m.end() + 12].replace("\n", " ") for m in _LEFT_OVER.finditer(html)]


def prose(path: Path) -> list[tuple[str, str]]:
    if path.suffix == ".md":
        return [(path.name, path.read_text())]
    cells = json.loads(path.read_text())["cells"]
    return [(f"cell {i} (id {c.get('id')})", "".join(c["source"])) for i, c in enumerate(cells)
            if c["cell_type"] == "markdown"]


def test_the_check_sees_literal_asterisks_after_chinese_punctuation():
    assert literal_asterisks("- **直线。**在对数坐标下，每条曲线") != []
    assert literal_asterisks("- **直线**。在对数坐标下，每条曲线") == []
    assert literal_asterisks("**Straight lines.** On a log axis") == []
    assert literal_asterisks("use `a**b` in code") == []
    assert literal_asterisks("弱点：*“今天早上……不见了。”*读者") != []   # italics too
    assert literal_asterisks("弱点：“*今天早上……不见了。*”读者") == []
    assert literal_asterisks("**$z$ 接近 1 时保留旧状态**。$a * b$") == []


@pytest.mark.parametrize("path", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_bold_span_renders_as_bold(path):
    problems = [f"{where}: ...{hit}..." for where, text in prose(path) for hit in literal_asterisks(text)]
    assert not problems, (f"{path.relative_to(ROOT)}: asterisks printed as text (put the punctuation after the "
                          f"closing **: '**直线**。'):\n  " + "\n  ".join(problems))
