"""Probe every checker with the answers that once fooled or crashed them (issue 28, item 5): a tally.

    python instructor/probe_checkers.py

- false accepts: wrong answers a checker passed (a mask probability of 0.16, a (1, 4) tensor for four biases,
  clipping without its epsilon);
- false rejects: the reference answer's value in another container (a list, a numpy array, a tuple as a list);
- crashes shown as feedback: a checker's own failure on an absurd answer ("Checking your answer raised ...").
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from seqviz.exercises import EXERCISES, run_checker  # noqa: E402

try:  # this repository's layout: the references live in the instructor's material
    from instructor.exercises import SOLUTIONS

    def reference(key):
        return SOLUTIONS[key].reference()
except ImportError:  # the layout before: references in the package
    def reference(key):
        return EXERCISES[key].reference()


def as_lists(value):
    if isinstance(value, torch.Tensor):
        return value.tolist()
    if isinstance(value, (tuple, list)):
        return [as_lists(v) for v in value]
    return value


def as_numpy(value):
    if isinstance(value, torch.Tensor):
        return value.detach().numpy()
    if isinstance(value, (tuple, list)) and any(isinstance(v, torch.Tensor) for v in value):
        return type(value)(as_numpy(v) for v in value)
    if isinstance(value, float):
        return np.float64(value)
    if isinstance(value, bool):
        return np.bool_(value)
    if isinstance(value, int):
        return np.int64(value)
    return value


def other_containers(key):
    ref = reference(key)
    if callable(ref):
        def wrap(convert):
            return lambda *a, **k: convert(ref(*a, **k))
        return {"list": wrap(as_lists), "numpy": wrap(as_numpy)}
    return {"list": as_lists(ref), "numpy": as_numpy(ref)}


def clip_without_eps(grads, max_norm):
    total = torch.linalg.vector_norm(torch.stack([g.norm() for g in grads]))
    return [g * min(1.0, max_norm / float(total)) for g in grads]


def mask_016(ids, mask_id, vocab_size, special_ids, generator):
    special = torch.zeros(vocab_size, dtype=torch.bool)
    special[list(special_ids)] = True
    chosen = (torch.rand(ids.shape, generator=generator) < 0.16) & ~special[ids]
    fate = torch.rand(ids.shape, generator=generator)
    ordinary = (~special).nonzero().flatten()
    random_ids = ordinary[torch.randint(len(ordinary), ids.shape, generator=generator)]
    inputs = torch.where(chosen & (fate < 0.8), mask_id, ids)
    inputs = torch.where(chosen & (fate >= 0.8) & (fate < 0.9), random_ids, inputs)
    return inputs, torch.where(chosen, ids, -100)


FALSE_ACCEPTS = {"ch09.ex1": mask_016, "ch04.ex3": torch.tensor([[-10.0, 10.0, 0.0, 0.0]]),
                 "ch03.ex4": clip_without_eps}

ABSURD = [10**400, -(10**400), 1e308 * 10, "x", [[]], {}, object(), (1, 2, 3), torch.zeros(0),
          lambda *a, **k: 10**400, lambda *a, **k: "x", lambda *a, **k: None, lambda *a, **k: [],
          lambda *a, **k: (None, None), lambda *a, **k: (None, None, None), lambda *a, **k: object(),
          lambda *a, **k: torch.zeros(0), lambda *a, **k: torch.zeros(100, 100), lambda *a, **k: np.zeros(3),
          lambda *a, **k: [10**400] * 3, lambda *a, **k: (torch.zeros(3), torch.zeros(3)),
          lambda *a, **k: (torch.zeros(3), torch.zeros(3), torch.zeros(3)),
          lambda *a, **k: (torch.tensor([0.5, 1.5]), torch.tensor([7, 9]), torch.tensor([0.1, 0.2])),
          lambda *a, **k: {"a": 1}, lambda *a, **k: torch.full((3,), 10**30)]


def swapped_beam(live, nxt, beam):
    parents, tokens, totals = reference("ch06.ex2")(live, nxt, beam)
    return tokens, parents, totals


def main():
    accepts = [(k, m) for k, a in FALSE_ACCEPTS.items() for ok, m in [run_checker(k, a)] if ok]
    rejects, crashes = [], []
    for key in sorted(EXERCISES):
        for name, answer in other_containers(key).items():
            ok, message = run_checker(key, answer)
            if not ok:
                rejects.append((key, name, message[:100]))
        battery = ABSURD + ([swapped_beam] if key == "ch06.ex2" else [])
        for i, answer in enumerate(battery):
            ok, message = run_checker(key, answer)
            own = "your function raised" in message.lower() or "your answer raised" in message.lower()
            if "Checking your answer raised" in message or "could not make sense" in message or \
                    ("raised" in message and not own):
                crashes.append((key, i, message[:110]))
    print(f"false accepts: {len(accepts)}")
    for a in accepts:
        print("  ", a[0], a[1][:80])
    print(f"false rejects: {len(rejects)}")
    for r in rejects:
        print("  ", *r)
    print(f"checker crashes shown as feedback: {len(crashes)}")
    for c in crashes:
        print("  ", *c)
    return len(accepts), len(rejects), len(crashes)


if __name__ == "__main__":
    main()
