"""Every bad input of the table in ``bad_inputs.py`` gets a clear error (or, where the input is fine but unusual,
the right answer), across the public surface: seqviz.web, sampling, decode, measure, guide, experiments, the
attention and mask guards of models, viz, gradients and trace.

A clear error is a ``ValueError`` or ``TypeError`` raised by a ``raise`` statement in seqviz, whose message matches
the case's pattern (the name of what was wrong); a raw traceback from torch or Python, or an input accepted
silently, fails. ``python tests/bad_inputs.py`` prints the tally by area.
"""

from __future__ import annotations

import re

import pytest

from bad_inputs import CASES, classify


@pytest.mark.parametrize("case", CASES, ids=[f"{c.area}: {c.what}" for c in CASES])
def test_a_bad_input_gets_a_clear_error(case):
    kind, detail = classify(case)
    assert kind == "clear", f"{case.area}: {case.what}: {kind} ({detail})"
    if case.match is not None and case.check is None:
        assert re.search(case.match, detail), f"{case.what}: the message does not name {case.match!r}: {detail}"


def test_the_table_covers_the_public_surface():
    areas = {c.area for c in CASES}
    assert {"web", "sampling", "decode", "measure", "guide", "experiments", "models", "viz", "gradients"} <= areas
    assert len(CASES) >= 300
