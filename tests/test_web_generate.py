"""Chapter 4b's generation view in the page writes what seqviz writes (headless Chromium, network cut off).

Random-weight GRULMs (rnn, lstm, gru; one and two layers), over characters and over words of Moby-Dick: the
page's mulberry32 equals :func:`seqviz.web.generate.mulberry32`; the tokens it samples equal
``seqviz.decode.sample(model, prompt, steps, temperature, top_k, uniforms=mulberry32(seed, steps))``
exactly, and every step's distribution equals seqviz's within 2e-6 absolute (the page accumulates in
doubles and stores float32, PyTorch accumulates in float32; the probabilities themselves are in float64 on
both sides). Then: the prompt is read as seqviz reads it, bad input gives a message, updates stay well under
50 ms, and a chapter-sized model writes 200 characters in slices.
"""

from __future__ import annotations

import statistics

import numpy as np
import pytest
import torch

from seqviz.data import Vocab
from seqviz.data.real import book_text, tokenize
from seqviz.decode import sample
from seqviz.models import GRULM
from seqviz.web import generate_view
from seqviz.web.generate import mulberry32, prompt_tokens
from web_page import browser, message, needs_chromium, numbers, open_views, type_into  # noqa: F401

TOL = 2e-6
TEXT = book_text("train")[5000:9000]
CHARACTERS = sorted(set(book_text("train")))   # Moby-Dick's 83 characters (the vocabulary adds 4 specials)
CHAR_PROMPT = "And still deeper the meaning"
WORD_PROMPT = "And still deeper the meaning of that story"


def make_lm(cell, layers, level, hidden=16, seed=0, sharp=4.0):
    torch.manual_seed(seed)
    vocab = Vocab(CHARACTERS) if level == "char" else Vocab.build([tokenize(TEXT)])
    model = GRULM(len(vocab), hidden, layers, cell=cell).eval()
    with torch.no_grad():   # logits further apart, as a trained model's are: sampling is not a coin toss
        model.out.weight.mul_(sharp)
    return model, vocab


def view_of(page, index=0):
    return f"document.querySelectorAll('.seqviz-web')[{index}].seqvizView"


def finished(page, index=0):
    page.wait_for_function(f"() => {{ const n = {view_of(page, index)}.numbers(); return n.error || n.done; }}")
    return numbers(page, index)


def seqviz_sample(model, vocab, prompt, level, lower, steps, temperature, top_k, seed):
    ids = [vocab.stoi[t] for t in prompt_tokens(prompt, level, lower)]
    return sample(model, ids, steps, temperature=temperature, top_k=top_k, uniforms=mulberry32(seed, steps))


def check_page(page, model, vocab, prompt, level, steps, temperature, top_k, seed):
    """The page's tokens == seqviz's, its distributions within TOL; returns the largest difference."""
    shown, lower = finished(page), level == "word"   # the word vocabulary is lower-case, the characters not
    drawn = seqviz_sample(model, vocab, prompt, level, lower, steps, temperature, top_k, seed)
    assert shown["prompt"] == prompt_tokens(prompt, level, lower)
    assert shown["ids"] == drawn.ids, (temperature, top_k, seed)
    assert shown["tokens"] == [vocab.itos[i] for i in drawn.ids]
    dists = np.array(page.evaluate(f"seqviz.nn.toLists({view_of(page)}.distributions())"))
    diff = float(np.abs(dists - drawn.distributions.numpy()).max())
    diff = max(diff, float(np.abs(np.array(shown["probs"]) - drawn.probs).max()))
    assert diff < TOL, diff
    assert shown["mean_log_prob"] == pytest.approx(drawn.mean_log_prob, abs=1e-5)
    return diff


CASES = [("rnn", 1, "char"), ("lstm", 2, "char"), ("gru", 1, "char"), ("gru", 2, "char"),
         ("lstm", 1, "word"), ("gru", 2, "word"), ("rnn", 2, "word")]


@needs_chromium
@pytest.mark.parametrize("cell,layers,level", CASES)
def test_generate_view_samples_seqviz_tokens(browser, cell, layers, level):
    model, vocab = make_lm(cell, layers, level)
    prompt, steps = (CHAR_PROMPT, 60) if level == "char" else (WORD_PROMPT, 30)
    view = generate_view(model, vocab, prompt, level=level, steps=steps, temperature=0.8, seed=3)
    page = open_views(browser, view)
    largest = check_page(page, model, vocab, prompt, level, steps, 0.8, None, 3)
    expected = view.spec["expected"]   # what the browser check compares on every built page
    shown = numbers(page)
    assert shown["ids"] == expected["ids"] and np.abs(np.subtract(shown["first"], expected["first"])).max() < TOL
    for control, value, settings in (("temperature", 1.5, (1.5, None, 3)), ("top_k", "3", (1.5, 3, 3)),
                                     ("seed", 11, (1.5, 3, 11)), ("temperature", 0.3, (0.3, 3, 11)),
                                     ("top_k", "1", (0.3, 1, 11)), ("top_k", "all", (0.3, None, 11))):
        type_into(page, 0, control, value)
        largest = max(largest, check_page(page, model, vocab, prompt, level, steps, *settings))
    other = "It is the image of the ungraspable phantom"
    type_into(page, 0, "prompt", other)
    largest = max(largest, check_page(page, model, vocab, other, level, steps, 0.3, None, 11))
    type_into(page, 0, "top_k", "1")
    assert finished(page)["probs"] == [1.0] * steps   # greedy: every token had all the mass
    print(f"{cell} x{layers} {level}: largest difference page - seqviz {largest:.1e}")
    assert page.errors == []
    page.close()


@needs_chromium
def test_the_prompt_is_read_as_seqviz_reads_it(browser):
    lines = [line for line in book_text("train")[:60000].split("\n") if line.strip()][100:160]
    for level in ("char", "word"):
        model, vocab = make_lm("gru", 1, level)
        page = open_views(browser, generate_view(model, vocab, "And" if level == "char" else "and", level=level,
                                                 steps=3))
        spec = page.evaluate("JSON.parse(document.querySelector('script.seqviz-web-spec').textContent).vocab")
        for lower in (False, True):
            got = page.evaluate("""([spec, lines, lower]) => lines.map((l) =>
                (lower ? l.toLowerCase() : l).match(new RegExp(spec.pattern, spec.flags)))""", [spec, lines, lower])
            assert got == [prompt_tokens(line, level, lower) for line in lines]
        assert spec["lower"] is (level == "word")   # characters keep their case; the word vocabulary is lower-case
        page.close()


@needs_chromium
def test_bad_prompts_get_a_message_and_the_view_recovers(browser):
    model, vocab = make_lm("lstm", 1, "char")
    page = open_views(browser, generate_view(model, vocab, CHAR_PROMPT, steps=20, max_prompt=40))
    for bad, words in (("", "type a prompt"), ("Moby-Dick § 1", "never seen '§'"), ("x" * 41, "at most 40"),
                       ("café ☃", "never seen 'é', '☃'")):
        type_into(page, 0, "prompt", bad)
        assert words in message(page), (bad, message(page))
        assert numbers(page) == {"error": message(page).removeprefix("⚠ ")}
        type_into(page, 0, "seed", 4)   # a slider after an error: still the message, no exception
        assert words in message(page)
    type_into(page, 0, "prompt", "And")
    assert message(page) == "" and finished(page)["prompt"] == ["A", "n", "d"]
    word_model, word_vocab = make_lm("gru", 1, "word")
    page2 = open_views(browser, generate_view(word_model, word_vocab, WORD_PROMPT, level="word", steps=5))
    type_into(page2, 0, "prompt", "the zqxv blorfen")
    assert "never seen 'zqxv', 'blorfen'" in message(page2)
    type_into(page2, 0, "prompt", "THE MEANING, of it.")   # the word vocabulary is lower-case: so is the prompt
    assert message(page2) == "" and finished(page2)["prompt"] == ["the", "meaning", ",", "of", "it", "."]
    assert page.errors == [] and page2.errors == []
    page.close()
    page2.close()


@needs_chromium
@pytest.mark.parametrize("cell,layers,hidden", [("gru", 1, 128), ("lstm", 2, 128), ("gru", 2, 256)])
def test_a_chapter_sized_model_writes_200_characters_without_stalling_the_page(browser, cell, layers, hidden):
    torch.manual_seed(0)
    vocab = Vocab(CHARACTERS)
    model = GRULM(len(vocab), hidden, layers, cell=cell).eval()
    view = generate_view(model, vocab, CHAR_PROMPT, steps=200)
    page = open_views(browser, view)
    whole = page.evaluate(f"{view_of(page)}.timings[0]")   # the first text, written at once
    for i, (control, value) in enumerate([("temperature", 0.5), ("seed", 1), ("top_k", "10"), ("seed", 2),
                                          ("prompt", "It is the image of"), ("temperature", 1.2)] * 2):
        page.evaluate(f"{view_of(page)}.timings.length = 0")
        type_into(page, 0, control, value)
        finished(page)
        slices = page.evaluate(f"{view_of(page)}.timings")
        if i == 0:
            first = slices
    updates = page.evaluate(f"{view_of(page)}.timings")
    drawn = seqviz_sample(model, vocab, "It is the image of", "char", False, 200, 1.2, 10, 2)
    assert numbers(page)["ids"] == drawn.ids
    kb = len(view.html()) / 1e3
    print(f"{cell} x{layers} hidden {hidden}: page {kb:.0f} kB; 200 characters at once {whole:.0f} ms; "
          f"in slices {sum(first):.0f} ms over {len(first)} updates, median update {statistics.median(first):.1f} ms, "
          f"max {max(first):.1f} ms (last run: {len(updates)} updates, median {statistics.median(updates):.1f} ms)")
    # written in slices of about 15 ms (the 50 ms budget itself: the browser check, page_views.csv): one update
    # alone can only be a short one, never the whole long generation at once
    assert len(first) > 1 or first[0] < 50
    assert page.errors == []
    page.close()


def test_generate_view_checks_its_arguments():
    model, vocab = make_lm("gru", 1, "char")
    spec = generate_view(model, vocab, CHAR_PROMPT, steps=10, top_k=3, seed=20, temperature=0.35).spec
    assert set(spec["weights"]) == set(model.state_dict())
    assert spec["options"]["top_k_menu"] == [1, 3, 10, None] and spec["vocab"]["lower"] is False
    drawn = seqviz_sample(model, vocab, CHAR_PROMPT, "char", False, 10, 0.35, 3, 20)
    assert spec["expected"]["ids"] == drawn.ids and spec["expected"]["probs"] == drawn.probs
    tiny = GRULM(6, 4)
    assert generate_view(tiny, Vocab(list("ab")), "ab", steps=2).spec["options"]["top_k_menu"] == [1, 3, None]
    for kwargs, match in (({"level": "byte"}, "level must be 'char' or 'word'"), ({"steps": 0}, "steps must be"),
                          ({"temperature": 0.0}, "temperature must be on the slider"),
                          ({"temperature": 0.33}, "temperature must be on the slider"),
                          ({"top_k": 5}, r"top_k must be one of the menu's \[1, 3, 10, None\]"),
                          ({"seed": 21}, r"seed must be an int in 0..20")):
        with pytest.raises(ValueError, match=match):
            generate_view(model, vocab, CHAR_PROMPT, **kwargs)
    with pytest.raises(ValueError, match="first prompt must be"):
        generate_view(model, vocab, "§")
    with pytest.raises(ValueError, match="first prompt must be"):
        generate_view(model, vocab, "")
    with pytest.raises(ValueError, match="GRULM"):
        generate_view(torch.nn.Linear(2, 2), vocab, "a")
    with pytest.raises(ValueError, match="vocab must be the model's vocabulary"):
        generate_view(model, Vocab(list("ab")), "a")
    with pytest.raises(ValueError, match="expected an int seed"):
        mulberry32(-0.5, 2)


def test_generate_view_takes_a_model_on_the_accelerator():
    from emulated_accelerator import emulated_accelerator

    model, vocab = make_lm("lstm", 2, "char")
    expected = generate_view(model, vocab, CHAR_PROMPT, steps=12, seed=5).spec
    with emulated_accelerator():
        model.to("cuda")
        got = generate_view(model, vocab, CHAR_PROMPT, steps=12, seed=5).spec
    assert got["expected"]["ids"] == expected["expected"]["ids"] and got["weights"] == expected["weights"]
    assert np.abs(np.subtract(got["expected"]["first"], expected["expected"]["first"])).max() < 1e-6
