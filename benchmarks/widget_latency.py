"""Update latency of every chapter's kernel-side live widget against the 100 ms budget (CONTRIBUTING.md,
"Budgets").

The views that run in the reader's browser (seqviz.web: chapters 2, 4, 4b, 6, 7, 8 and 9) are timed in the page
by ``scripts/browser_check.py`` (``benchmarks/results/page_views.csv``) and in JupyterLab by
``scripts/live_check.py``. Each remaining live view is rebuilt here with the same plotting code and sizes as in the
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


CASES = {"ch01 who did it": ch01_doer, "ch03 gradient norms": ch03_gradients, "ch05 word senses": ch05_senses,
         "ch10 decision guide": ch10_guide}


# A typed sentence per view with a text box: each one new, so nothing is served from a cache.
def _sentences(words: list[str], count: int) -> list[str]:
    """``count`` different sentences made from ``words`` (rotations, one word dropped)."""
    out = []
    for i in range(count):
        rotated = words[i % len(words):] + words[:i % len(words)]
        out.append(" ".join(rotated[:len(words) - 1 - (i // len(words)) % 2]))
    return out


TYPED = {"ch01 who did it": ("sentence", WORDS[:5]), "ch05 word senses": ("sentence", WORDS[:5])}


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
