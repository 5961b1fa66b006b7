"""The scanner of the Chinese chapters' outputs (scripts/zh_outputs.py), which the browser check runs on every
Chinese chapter: an English phrase the code printed is found; Chinese, data and code are not."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
import zh_outputs  # noqa: E402


def page(*cells):
    return "<html><body>" + "".join(f"<div class='cell docutils container'>{c}</div>" for c in cells) + "</body></html>"


def stream(text, code="print(x)"):
    return (f"<div class='cell_input docutils container'><pre>{code}</pre></div>"
            f"<div class='cell_output docutils container'><div class='output stream highlight-myst-ansi'>"
            f"<div class='highlight'><pre>{text}</pre></div></div></div>")


def table(header, *rows):
    cells = "".join(f"<th><p>{h}</p></th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td><p>{c}</p></td>" for c in r) + "</tr>" for r in rows)
    return (f"<div class='cell_output docutils container'><div class='pst-scrollable-table-container'><table>"
            f"<thead><tr>{cells}</tr></thead><tbody>{body}</tbody></table></div></div>")


def test_an_english_line_or_header_is_found():
    found = zh_outputs.html_blocks(page(stream("beam size 1 gives greedy's answer on 200 of 200 sentences"),
                                        table(["模型", "largest gradient norm"], ["RNN", "3.5"])))
    assert [b["kind"] for b in found] == ["stream", "table"]
    assert found[0]["phrases"] == ["beam size 1"] or "gives greedy's answer on" in found[0]["phrases"]
    assert found[1]["phrases"] == ["largest gradient norm"]


def test_chinese_data_code_and_names_are_not():
    found = zh_outputs.html_blocks(page(
        stream("在 200 个句子中，束宽 1 在 200 个句子上给出与贪心解码相同的答案"),
        stream("    def _scan(self, projected, state, w_hh, b_hh, record):\n        for t in range(T):",
               code="print(inspect.getsource(RNN._scan))"),
        stream("the child is bitten by the cat         -> cat"),             # a sentence of the task
        stream("Herman Melville，《白鲸》（Moby-Dick，1851），The Stdlib Authors"),  # names
        stream("源句：zero five four five zero | 正确答案：0 5 4 5 0"),         # spelled digits
        table(["英文", "一个参考译文"], ["go now.", "va, maintenant."]),         # data columns
        stream("“She sat on the bank and watched the river.”与“She paid the money.”：余弦相似度 0.62")))
    assert found == []


def test_executed_notebooks_are_read_too(tmp_path):
    import json
    notebook = {"cells": [
        {"cell_type": "code", "metadata": {}, "source": ["print(x)"],
         "outputs": [{"output_type": "stream", "name": "stdout", "text": ["the loss scores 15% of the tokens\n"]}]},
        {"cell_type": "code", "metadata": {"tags": ["remove-cell"]}, "source": ["print(y)"],
         "outputs": [{"output_type": "stream", "name": "stdout", "text": ["a hidden cell prints English\n"]}]},
        {"cell_type": "code", "metadata": {}, "source": ["display(Markdown(t))"],
         "outputs": [{"output_type": "display_data", "metadata": {},
                      "data": {"text/markdown": ["| 模型 | mean output length |\n|---|---:|\n| 贪心 | 4.6 |"],
                               "text/plain": ["<IPython.core.display.Markdown object>"]}}]}],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path = tmp_path / "05_x.ipynb"
    path.write_text(json.dumps(notebook), encoding="utf-8")
    found = zh_outputs.scan([path])["05_x"]
    assert [(b["cell"], b["kind"]) for b in found] == [(0, "stream"), (2, "markdown")]
    assert zh_outputs.main([str(path), "--quiet"]) == 1
