"""scripts/view_driver.py's ``in_order``: the worker processes of the browser check and the live check.

Results come back in the items' order whatever order they finish in, each worker's last message after them, and
an item whose worker died is reported (``lost``) or raises, never waited for forever.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
from view_driver import in_order  # noqa: E402


def doubling(todo, done, delay):
    """A worker: the first item is slow, so that later items finish first."""
    for index, item in iter(todo.get, None):
        if item == "die":   # a crash, after what it already sent has reached the queue
            done.close()
            done.join_thread()
            os._exit(1)
        time.sleep(delay if index == 0 else 0)
        done.put((index, item * 2))
    done.put((None, f"worker {os.getpid()} done"))


def test_results_come_back_in_order_then_each_workers_message():
    got = list(in_order(doubling, (0.5,), [1, 2, 3, 4, 5], jobs=2))
    assert [r for i, r in got if i is not None] == [2, 4, 6, 8, 10]
    assert [i for i, _ in got[:5]] == [0, 1, 2, 3, 4]
    messages = [r for i, r in got if i is None]
    assert len(messages) == 2 and all(m.startswith("worker ") for m in messages)


def test_items_are_dealt_in_the_given_order():
    got = list(in_order(doubling, (0.0,), ["a", "b", "c"], jobs=1, deal=[2, 0, 1]))
    assert [r for i, r in got if i is not None] == ["aa", "bb", "cc"]   # yielded in the items' order


def test_an_item_whose_worker_died_is_lost_or_raises():
    got = dict(in_order(doubling, (0.0,), [1, "die", 3], jobs=1, lost=lambda i: f"lost {i}"))
    assert got[0] == 2 and got[1] == "lost 1" and got[2] == "lost 2"
    with pytest.raises(RuntimeError, match="every worker stopped before the last item"):
        list(in_order(doubling, (0.0,), [1, "die", 3], jobs=1))
