"""Update latency of every chapter's live widget against the 100 ms budget (DESIGN.md).

Each chapter's live view is rebuilt here with the same plotting code and sizes as in the
chapter but an untrained model of the chapter's size (the latency does not depend on
the weights). A control is moved back and forth, and where the view has a text box, a new
sentence is typed each time; each change is timed from the assignment to the control until
its new picture is in the Output widget (refitting sliders, reading the sentence, drawing,
PNG encoding). The table reports the median and the largest per view and interaction. The
browser's drawing afterwards is not timed: ``scripts/live_check.py`` measures that end to end.
Writes ``benchmarks/results/widget_latency.csv``.

Usage: ``python benchmarks/widget_latency.py [--quick]``
"""

from __future__ import annotations

import argparse
import contextlib
import io
import statistics
import time

from _common import RESULTS, write_csv

import matplotlib  # noqa: E402

matplotlib.use("Agg")

import ipywidgets as widgets  # noqa: E402
import torch  # noqa: E402

from seqviz.measure import markdown_table  # noqa: E402

BUDGET_MS = 100.0
WORDS = "the keys near the old cabinet are on the table".split()


def _rnn_reader(cell):
    from seqviz.models import GRU, LSTM, RNN

    model = {"RNN": RNN, "LSTM": LSTM, "GRU": GRU}[cell](16, 32)
    table = {w: torch.randn(16) for w in WORDS + ["keys", "key", "is"]}

    def embed(sentence):
        tokens = sentence.split()
        unknown = [t for t in tokens if t not in table]
        if unknown or not tokens:
            raise ValueError(f"unknown words {unknown}")
        return tokens, torch.stack([table[t] for t in tokens])[None]  # (1, T, 16)

    return model, embed


def ch02_sticky_note():
    from seqviz.viz import sticky_note_widget

    model, embed = _rnn_reader("RNN")

    def states(sentence):
        tokens, x = embed(sentence)
        with torch.no_grad():
            out = model(x)[0][0]  # (T, H)
        probs = torch.softmax(out[:, :2], -1)
        return tokens, out, probs

    view = sticky_note_widget(states, " ".join(WORDS), class_names=["is", "are"], track=1)
    return view, "step" if "step" in view.controls else list(view.controls)[-1], None


def ch03_gradients():
    from seqviz.models import RNN
    from seqviz.trace import hidden_grad_norms
    from seqviz.viz import DecayPicture, live

    x = torch.randn(8, 200, 32)
    picture = DecayPicture(xlabel="step t", ylabel="||dL/dh_t||")

    def render(radius, length):
        rnn = RNN(32, 32)
        with torch.no_grad():
            rnn.weight_hh_l0.mul_(radius / torch.linalg.matrix_norm(rnn.weight_hh_l0, 2))
        norms = hidden_grad_norms(rnn, x[:, :length], lambda out: out[:, -1].pow(2).sum())
        t = torch.arange(1, length + 1)
        return picture.show({"measured": (t, norms)}, {"predicted": (t, norms[-1] * radius ** (length - t))},
                            title=f"rho = {radius:.2f}")

    view = live(render, radius=widgets.FloatSlider(value=1.0, min=0.3, max=2.0, step=0.05),
                length=widgets.IntSlider(value=60, min=10, max=200, step=10))
    return view, "radius", [0.9, 1.1]


def ch04_gates():
    from seqviz.viz import gates_widget

    model, embed = _rnn_reader("LSTM")

    def read(sentence):
        tokens, x = embed(sentence)
        with torch.no_grad():
            _, _, trace = model(x, return_trace=True)
        return tokens, {k: trace[k][0, 0] for k in ("forget", "input", "output", "candidate", "c")}

    view = gates_widget(read, " ".join(WORDS), units=[0, 1, 2, 3])
    return view, "start", [1, 2]


def ch08_heads():
    from seqviz.data import encode_source, translation_vocabs
    from seqviz.models import TransformerSeq2Seq
    from seqviz.viz import head_view_widget

    src_vocab, tgt_vocab = translation_vocabs()
    model = TransformerSeq2Seq(len(src_vocab), len(tgt_vocab), 64, 4, 2, 1, 128, dropout=0.0, max_len=20).eval()

    def attend(sentence):
        ids = torch.tensor([encode_source(sentence, src_vocab)])
        with torch.no_grad():
            _, _, attention = model.encode(ids, return_trace=True)
        return sentence.split(), [a[0] for a in attention]

    view = head_view_widget(attend, num_layers=2, num_heads=4, sentence="three one four one five nine")
    return view, "head", ["2", "mean"]


def ch09_heads():
    from seqviz.models import BertMini
    from seqviz.viz import head_view_widget

    words = sorted(set(WORDS))
    model = BertMini(len(words) + 4, 64, 2, 4, 24).eval()  # chapter 9's tiny BERT: d 64, 2 layers, 4 heads

    def attend(sentence_a, sentence_b):
        tokens = ["[CLS]", *sentence_a.split(), "[SEP]", *sentence_b.split(), "[SEP]"]
        ids = torch.tensor([[words.index(t) + 4 if t in words else 1 for t in tokens]])
        segments = torch.tensor([[0] * (len(sentence_a.split()) + 2) + [1] * (len(sentence_b.split()) + 1)])
        with torch.no_grad():
            return tokens, model(ids, segments)["attentions"]

    view = head_view_widget(attend, num_layers=2, num_heads=4, sentence_a="the keys near the old cabinet",
                            sentence_b="are on the table")
    return view, "layer", [2, 1]


def _bars(classes):
    from seqviz.models import RNN
    from seqviz.viz import PredictionBarsPicture, live

    rnn = RNN(16, len(classes))
    bars = PredictionBarsPicture()
    table = {w: torch.randn(16) for w in WORDS}

    def render(sentence):
        with torch.no_grad():
            out = rnn(torch.stack([table[w] for w in sentence.split()])[None])[0][0, -1]
        return bars.show({"bag of words": out.flip(0).softmax(-1), "RNN": out.softmax(-1)}, classes,
                         title=f"“{sentence}”")

    return live(render, sentence=widgets.Text(value="the keys near the table"))


def ch01_doer():
    return _bars(["keys", "table", "cabinet"]), "sentence", ["the table near the keys", "the keys near the table"]


def ch05_senses():
    return _bars(["animal", "club", "river", "bank"]), "sentence", ["the old cabinet", "the keys are on the table"]


def ch10_guide():
    from seqviz.experiments import (agreement_rows, finetune_evidence, forecast_rows, step_cost, streaming_cost,
                                    translation_rows)
    from seqviz.guide import GUIDE_OPTIONS, collect_evidence, recommend
    from seqviz.viz import guide_html, live

    # the guide reads measured rows: tiny runs give rows of the right shape in a few seconds
    rows = agreement_rows(steps=2, n_train=64, n_test=16, distance=2, progress=False)
    rows += translation_rows(steps=2, n_train=64, n_test=8, progress=False)
    rows += forecast_rows(steps=2, n_series=4, progress=False)[0]
    evidence = collect_evidence(rows, step_cost([8, 16], min_time=0.001, repeats=1, progress=False),
                                streaming_cost([4, 8], min_time=0.001, repeats=1, progress=False),
                                finetune_evidence(pretrain_steps=2, finetune_steps=2, n_docs=20, n_pairs=40,
                                                  n_test=16, progress=False))

    def render(**choice):
        return guide_html(recommend(**choice, evidence=evidence), evidence)

    view = live(render, **{k: widgets.Dropdown(options=v, value=v[0]) for k, v in GUIDE_OPTIONS.items()})
    return view, "length", list(GUIDE_OPTIONS["length"][:2])


CASES = {"ch01 who did it": ch01_doer, "ch02 sticky note": ch02_sticky_note, "ch03 gradient norms": ch03_gradients,
         "ch04 gates": ch04_gates, "ch05 word senses": ch05_senses, "ch08 heads": ch08_heads,
         "ch09 heads (tiny BERT)": ch09_heads, "ch10 decision guide": ch10_guide}


# A typed sentence per view with a text box: each one new, so nothing is served from a cache.
DIGITS = "zero one two three four five six seven eight nine".split()


def _sentences(words: list[str], count: int) -> list[str]:
    """``count`` different sentences made from ``words`` (rotations, one word dropped)."""
    out = []
    for i in range(count):
        rotated = words[i % len(words):] + words[:i % len(words)]
        out.append(" ".join(rotated[:len(words) - 1 - (i // len(words)) % 2]))
    return out


TYPED = {"ch01 who did it": ("sentence", WORDS[:5]), "ch02 sticky note": ("sentence", WORDS),
         "ch04 gates": ("sentence", WORDS), "ch05 word senses": ("sentence", WORDS[:5]),
         "ch08 heads": ("sentence", DIGITS[3:9]), "ch09 heads (tiny BERT)": ("sentence_a", WORDS[:6])}


def measure(build, repeats: int, typed: tuple | None = None) -> dict[str, list[float]]:
    """Milliseconds of ``repeats`` real changes of one control, and of ``repeats`` typed sentences.

    Each time is the whole callback chain of one change (``control.value = ...``: a slider
    refitted to a new sentence, the model read, the picture drawn and encoded), measured
    around the assignment.
    """
    import matplotlib.pyplot as plt

    times: dict[str, list[float]] = {}
    with contextlib.redirect_stdout(io.StringIO()):
        view, name, values = build()
        control = view.controls[name]
        values = values or [control.min + 1, control.min + 2]  # a slider: move it by one step and back
        changes = [(control, values[i % len(values)]) for i in range(repeats)]
        kinds = {f"move '{name}'": changes}
        if typed is not None:
            box, words = typed
            kinds[f"type '{box}'"] = [(view.controls[box], text) for text in _sentences(words, repeats)]
        for kind, steps in kinds.items():
            times[kind] = []
            for target_control, target in steps:
                start = time.perf_counter()
                if target_control.value == target:
                    view.update()
                else:
                    target_control.value = target  # the observers refit and redraw
                times[kind].append((time.perf_counter() - start) * 1000)
                if view.output.outputs and "seqviz-live-" in str(view.output.outputs[0]["data"]):
                    raise RuntimeError(f"{kind} = {target!r} gave a message, not a picture: "
                                       f"{view.output.outputs[0]['data'].get('text/plain')}")
        view.close()
    plt.close("all")
    return times


def main(argv=None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="two updates per widget")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--out", default=str(RESULTS / "widget_latency.csv"))
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    repeats = 2 if args.quick else 9
    rows = []
    for name, build in CASES.items():
        torch.manual_seed(0)
        for interaction, times in measure(build, repeats, TYPED.get(name)).items():
            median = statistics.median(times)
            rows.append({"widget": name, "interaction": interaction, "median_ms": median, "max_ms": max(times),
                         "updates": len(times), "budget_ms": BUDGET_MS, "within_budget": median <= BUDGET_MS})
    print(f"live widget update (a change to its new picture), median of {repeats} updates, "
          f"{args.threads} thread(s)\n")
    print(markdown_table(rows))
    print(f"wrote {write_csv(args.out, rows)}")
    return rows


if __name__ == "__main__":
    main()
