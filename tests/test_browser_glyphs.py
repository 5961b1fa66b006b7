"""The browser check's glyph test (scripts/browser_check.py): a character no font draws is found, Chinese is not.

Chromium draws a page with the system's fonts and the project's Noto Sans CJK (fontconfig, as the browser check
sets it up); every element's characters are looked up in the character maps of the fonts Chromium says it used.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import browser_check  # noqa: E402

pytestmark = pytest.mark.browser
PAGE = """<!doctype html><html lang="{lang}"><head><meta charset="utf-8"></head><body
style="font-family: sans-serif"><p>{text}</p><svg width="300" height="40"><text x="5" y="20">{svg}</text></svg>
</body></html>"""


@pytest.fixture(scope="module")
def browser_page():
    from playwright.sync_api import sync_playwright

    tmp = Path(tempfile.mkdtemp(prefix="seqviz-glyphs-"))
    env, extra = browser_check.font_environment(tmp)
    fonts = browser_check.FontFiles(extra)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=browser_check.CHROMIUM, args=browser_check.FLAGS, env=env)

        def check(text: str, svg: str = "", lang: str = "zh-CN") -> list[str]:
            page = browser.new_page()
            page.set_content(PAGE.format(lang=lang, text=text, svg=svg))
            found = browser_check.missing_glyphs(page, fonts)
            page.close()
            return found

        yield check
        browser.close()


def test_chinese_text_and_svg_labels_have_their_glyphs(browser_page):
    assert browser_page("循环神经网络的准确率：99.0%，词袋模型停在“一半”。", svg="谁干的？训练过程中的测试准确率") == []


def test_a_character_no_font_has_is_reported(browser_page):
    missing = browser_page("便签\ue000", svg="")  # a private-use code point: no font draws it
    assert len(missing) == 1 and missing[0].startswith("U+E000")
    assert browser_page("ok", svg="传送带\U000f0001")[0].startswith("U+F0001")  # in a figure's SVG text too
