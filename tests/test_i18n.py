"""The Chinese edition's catalogue and font: sentences, labels and feedback in Chinese from the English code.

- the packaged catalogue loads, and a translation that drops a placeholder or disagrees with another file is refused;
- a key matches its filled text as a pattern, placeholders translated in turn; data it does not know stays;
- ``say``/``glue``/``translate``: Chinese in zh, English in en, a missing text reported once on stderr;
- every ``say`` sentence of every English chapter that has a Chinese translation has a Chinese entry;
- every ``check()`` message of a translated chapter (reference and wrong answers) is translated;
- a plotly figure's labels are translated, its data left alone, twice the same;
- matplotlib draws Chinese without a missing glyph in zh (and, in English, would warn: the test can fail).
"""

from __future__ import annotations

import importlib.util
import json
import warnings
from pathlib import Path

import plotly.graph_objects as go
import pytest

import seqviz as sv
from seqviz import i18n
from seqviz.exercises import run_checker

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("sync_zh", ROOT / "scripts" / "sync_zh.py")
sync_zh = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sync_zh)
TRANSLATED = sorted(p.relative_to(ROOT / "zh").with_suffix("").as_posix()
                    for p in (ROOT / "zh" / "notebooks").glob("*.ipynb"))


def test_the_packaged_catalogue_loads_and_keeps_placeholders():
    catalogue = i18n.catalogue("zh")
    assert len(catalogue.entries) > 50
    for key, value in catalogue.entries.items():
        assert i18n.placeholders(key) == i18n.placeholders(value), key


def test_a_bad_catalogue_is_refused(tmp_path):
    (tmp_path / "a.json").write_text(json.dumps({"{n} layers": "层"}), encoding="utf-8")
    with pytest.raises(ValueError, match="placeholders"):
        i18n.read_catalogue("zh", tmp_path)
    (tmp_path / "a.json").write_text(json.dumps({"chance": "随机水平"}), encoding="utf-8")
    (tmp_path / "b.json").write_text(json.dumps({"chance": "机会"}), encoding="utf-8")
    with pytest.raises(ValueError, match="differently"):
        i18n.read_catalogue("zh", tmp_path)
    (tmp_path / "b.json").write_text(json.dumps({"{x}": "{x}"}), encoding="utf-8")
    with pytest.raises(ValueError, match="only placeholders"):
        i18n.read_catalogue("zh", tmp_path)


def test_a_key_matches_its_filled_text_and_translates_what_it_captured():
    catalogue = i18n.Catalogue("zh", {"{model}: {answer} ({p})": "{model}：{answer}（{p}）", "bag of words": "词袋模型",
                                      "CNN, {n} layers (r = {r})": "卷积网络，{n} 层（r = {r}）"})
    assert catalogue.lookup("bag of words: dog (50%)") == "词袋模型：dog（50%）"  # dog is data: kept
    assert catalogue.lookup("CNN, 4 layers (r = 9)") == "卷积网络，4 层（r = 9）"
    assert catalogue.lookup("CNN, 4 layer (r = 9)") is None
    assert catalogue.lookup("something else") is None


def test_say_glue_and_translate_follow_the_language(zh, capsys):
    sentences = {"some": "The RNN names the doer in {k} of the {n} sentences, the passive pair included."}
    assert sv.book.say("v", "some", sentences, k=5, n=6) == "循环神经网络在 6 个句子里认对了 5 个施事者，那对被动句也认对了。"
    assert sv.book.translate("accuracy") == "准确率"
    assert sv.book.translate("words nobody translated, twice") == "words nobody translated, twice"
    sv.book.translate("words nobody translated, twice")
    err = capsys.readouterr().err
    assert err.count("no zh translation of 'words nobody translated, twice'") == 1  # reported once
    assert "words nobody translated, twice" in sv.book.missing_translations()
    assert sv.book.translate("dog", strict=False) == "dog" and "dog" not in sv.book.missing_translations()
    for number in ("6 × 10¹⁴", "−4.5 × 10⁻⁵", "(0.26, 0.28)", "100.0%"):   # numbers are not English: kept, unreported
        assert sv.book.translate(number) == number
    assert "6 × 10¹⁴" not in capsys.readouterr().err
    sv.book.set_language("en")
    assert sv.book.translate("accuracy") == "accuracy"


def test_say_translates_the_words_a_cell_passes_but_not_data(zh):
    """A value such as side="above" comes out in the book's language; a value that is data stays as it is."""
    sentence = {"x": "Yet the running product in the second figure shrinks steadily, with slope {slope:.3f} per step "
                     "against the mean-field {pred:.3f}. That is the right rate to within {gap:.2f} per step, but the gap "
                     "compounds: by t = 1, {k} steps back, the mean-field line is {off:,.0f} times {side} the measured norm."}
    text = sv.book.say("v", "x", sentence, slope=-0.1, pred=-0.12, gap=0.02, k=39, off=12, side="above")
    assert "平均场偏高" in text and "above" not in text
    said = sv.book.say("v", "w", {"w": "Who did it? “{sentence}”"}, sentence="the dog bites the man")
    assert said == "谁干的？“the dog bites the man”"
    sv.book.set_language("en")
    assert "above the measured norm" in sv.book.say("v", "x", sentence, slope=-0.1, pred=-0.12, gap=0.02, k=39,
                                                     off=12, side="above")


def test_glue_data_true_keeps_the_runs_data_as_it_is(zh, capsys, monkeypatch):
    """A glued string that is data (a sampled sentence, a model's output) is glued untranslated and unreported; the
    same string glued as prose is looked up (and, missing, reported); a non-bool data is refused."""
    import myst_nb

    glued = {}
    monkeypatch.setattr(myst_nb, "glue", lambda name, value, display=False: glued.__setitem__(name, value))
    sv.book.glue("unit", "accuracy", data=True)          # in the catalogue, but glued as data: stays English
    sv.book.glue("label", "accuracy")                    # prose: translated
    sv.book.glue("output", "il est toujours avec moi zzq.", data=True)
    assert glued == {"unit": "accuracy", "label": "准确率", "output": "il est toujours avec moi zzq."}
    assert "il est toujours avec moi zzq." not in sv.book.missing_translations()
    assert "no zh translation" not in capsys.readouterr().err
    sv.book.glue("output", "il est toujours avec moi zzq.")   # the same string as prose: looked up, reported
    assert "il est toujours avec moi zzq." in sv.book.missing_translations()
    with pytest.raises(ValueError, match="data must be True"):
        sv.book.glue("x", "a token", data="yes")


# Entries whose translation is their key on purpose: names and symbols a figure writes, not the run's data.
SAME_IN_CHINESE = {"Transformer", "BLEU", "GPU", "Apple GPU", "MiB", "SmolLM2", "t", "10¹²", "linear", "relu", "tanh", "alpha", "h", "totals",
                   "||dL/dh_t||", "ρ(W_hh)", "σ_max(W_hh) · max f′(a_t)", "‖∂y_n / ∂x_(n−j)‖", "‖h_t − h_(t−1)‖",
                   "sinusoidal({P}, {d})", "P({name})"}


def test_the_catalogues_hold_no_data_keyed_by_value():
    """Data is glued with data=True, so no catalogue entry maps a sentence or a token of the run to itself."""
    catalogue = i18n.catalogue("zh")
    same = sorted(k for k, v in catalogue.entries.items() if k == v and k not in SAME_IN_CHINESE)
    assert not same, f"entries that only key data by value (glue it with sv.glue(..., data=True) instead): {same}"


def test_an_english_sentence_that_cites_a_chinese_title_is_still_translated(zh):
    english = ("Below ρ = 1 its gradient vanishes, above it explodes, and at ρ = 1 it stays roughly level (slope within "
               "±0.05 per step). This is the rule of 《从“序列”到“理解”的本质之旅》, and for these random matrices it "
               "holds.")
    assert sv.book.translate(english).startswith("ρ < 1 时它的梯度消失")
    assert not i18n.has_cjk(english) and i18n.has_cjk("这是中文。") and i18n.has_cjk("《为什么序列与众不同》")


def test_every_say_sentence_of_a_translated_chapter_has_chinese():
    assert TRANSLATED, "the pilot chapter is translated"
    catalogue = i18n.catalogue("zh")
    for page in TRANSLATED:
        notebook = json.loads((ROOT / f"{page}.ipynb").read_text(encoding="utf-8"))
        missing = [s for _, s in sync_zh.say_sentences(notebook) if s not in catalogue.entries]
        assert not missing, f"{page}: no Chinese for {missing}"


def test_say_sentences_are_found_in_the_code():
    notebook = {"cells": [{"cell_type": "code", "id": "a", "source": 'sv.book.say("x", o, {"a": "One {n}.", '
                                                                     '"b": "Two " "parts."}, n=1)'}]}
    assert sync_zh.say_sentences(notebook) == [("a", "One {n}."), ("a", "Two parts.")]


def _chapter_keys(page: str) -> list[str]:
    chapter = "ch" + Path(page).name.split("_")[0]
    from instructor.exercises import SOLUTIONS

    return sorted(k for k in SOLUTIONS if k.split(".")[0] == chapter)


@pytest.mark.parametrize("page", TRANSLATED)
def test_every_check_message_of_a_translated_chapter_is_chinese(page, zh):
    from instructor.exercises import SOLUTIONS

    keys = _chapter_keys(page)
    assert keys
    before = set(sv.book.missing_translations())
    for key in keys:
        answers = [SOLUTIONS[key].reference()] + [make() for make, _ in SOLUTIONS[key].wrong.values()] + [None]
        for answer in answers:
            _, message = run_checker(key, answer)
            translated = sv.book.translate(message)
            assert i18n.has_cjk(translated), f"{key}: {message!r} has no Chinese"
    assert set(sv.book.missing_translations()) == before


def test_a_plotly_figure_is_translated_and_its_data_left_alone(zh):
    from seqviz.viz._language import localize_figure

    fig = go.Figure(go.Heatmap(z=[[1, 2]], x=["the", "dog"], y=["bag of words"]))
    fig.add_trace(go.Scatter(x=[0, 1], y=[0, 1], name="RNN", hovertemplate="RNN<br>distance %{x}<extra></extra>"))
    fig.update_layout(title="Who did it? Test accuracy while training", xaxis_title="training step",
                      sliders=[dict(steps=[dict(label="the dog bites the man", method="update",
                                                args=[{}, {"title.text": "Who did it? “the dog bites the man”"}])],
                                    currentvalue=dict(prefix="sentence: "))])
    fig.add_hline(y=0.5, annotation_text="best without order")
    out = localize_figure(fig.to_dict())
    assert out["layout"]["title"]["text"] == "谁干的？训练过程中的测试准确率"
    assert out["layout"]["xaxis"]["title"]["text"] == "训练步"
    assert out["layout"]["annotations"][0]["text"] == "不看顺序时的最好成绩"
    assert out["data"][1]["name"] == "循环神经网络" and "距离 %{x}" in out["data"][1]["hovertemplate"]
    assert out["data"][0]["x"] == ["the", "dog"] and out["data"][0]["y"] == ["词袋模型"]
    slider = out["layout"]["sliders"][0]
    assert slider["currentvalue"]["prefix"] == "句子：" and slider["steps"][0]["label"] == "the dog bites the man"
    assert slider["steps"][0]["args"][1]["title.text"] == "谁干的？“the dog bites the man”"
    assert "Noto Sans CJK SC" in out["layout"]["font"]["family"]
    assert localize_figure(out) == out  # shown twice: the same
    assert fig.layout.title.text == "Who did it? Test accuracy while training"  # the figure itself is untouched


def _draw(text: str) -> list[str]:
    from matplotlib.figure import Figure

    from seqviz.viz._plumbing import figure_png

    fig = Figure(figsize=(3, 1))
    fig.subplots().set_title(text)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        figure_png(fig)
    return [str(w.message) for w in caught if "missing from font" in str(w.message)]


def test_the_packaged_font_is_the_one_found():
    """The PyPI package the Colab cell installs (seqviz[zh]) is what seqviz finds first, and matplotlib reads it."""
    spec = importlib.util.find_spec(i18n.FONT_PACKAGE)
    assert spec is not None, "noto-cjk-sans-otc is in requirements.txt: make install installs it"
    path = i18n.cjk_font_file()
    assert path.parent == Path(spec.submodule_search_locations[0]) and path.stat().st_size > 10e6
    from matplotlib import font_manager

    font_manager.fontManager.addfont(str(path))
    names = {f.name for f in font_manager.fontManager.ttflist if f.fname == str(path)}
    assert "Noto Sans CJK SC" in names


def test_matplotlib_draws_chinese_without_a_missing_glyph():
    assert i18n.cjk_font_file() is not None, "noto-cjk-sans-otc (requirements.txt) or a system Noto Sans CJK"
    import matplotlib

    with matplotlib.rc_context({"font.family": ["DejaVu Sans"]}):
        assert _draw("循环神经网络的准确率（RNN）"), "English settings draw Chinese as boxes: the test can fail"
    sv.book.set_language("zh")
    try:
        assert _draw("循环神经网络的准确率（RNN），−0.5") == []
        assert _draw("accuracy") == []  # translated on the way: 准确率
    finally:
        sv.book.set_language("en")
    assert matplotlib.rcParams["font.family"] != ["DejaVu Sans", "Noto Sans CJK SC"]  # English restored


def test_the_chinese_build_joins_wrapped_lines_and_the_spaces_beside_glued_chinese():
    """book/_ext/seqviz_book.py: a line break or a role's space between two Chinese characters is removed in the
    Chinese edition; beside a number or a Latin word the space stays; the English edition is left alone."""
    from types import SimpleNamespace

    from docutils import nodes

    ext_spec = importlib.util.spec_from_file_location("seqviz_book_ext", ROOT / "book" / "_ext" / "seqviz_book.py")
    ext = importlib.util.module_from_spec(ext_spec)
    ext_spec.loader.exec_module(ext)

    def paragraph():
        para = nodes.paragraph()
        para += [nodes.Text("它传回的信号是 21 倍。"), nodes.Text(" "), nodes.inline(text="长短期记忆网络"),
                 nodes.Text(" 无论穿过\n多少个词，"), nodes.inline(text="10"), nodes.Text(" 个词之后 LSTM 仍然\n在。")]
        return para

    zh, en = paragraph(), paragraph()
    ext._join_cjk_lines(SimpleNamespace(config=SimpleNamespace(seqviz_edition="zh")), zh)
    ext._join_cjk_lines(SimpleNamespace(config=SimpleNamespace(seqviz_edition="en")), en)
    assert zh.astext() == "它传回的信号是 21 倍。长短期记忆网络无论穿过多少个词，10 个词之后 LSTM 仍然在。"
    assert en.astext() == paragraph().astext()
