"""The grader's side of the evaluator: a student's function as a callable that runs elsewhere.

``Evaluator(folder, command_prefix)`` starts ``evaluator.py`` (sandboxed by ``command_prefix``);
``evaluator.load(key, forbidden)`` returns the answer: its value (decoded plain data) or a :class:`RemoteFunction`
that sends each call's arguments as JSON and decodes the result. A call past ``call_timeout`` seconds, a crash or a
reply that is not JSON stops the evaluator; the next ``load`` starts a fresh one, so one exercise never costs
another its points.
"""

from __future__ import annotations

import base64
import json
import os
import selectors
import signal
import subprocess
import sys
import time
from pathlib import Path

import torch

from seqviz.exercises.plain import decode, encode

EVALUATOR = Path(__file__).with_name("evaluator.py")
READ_LIMIT = 25_000_000


def _limit_files():
    import resource

    resource.setrlimit(resource.RLIMIT_FSIZE, (2**30, 2**30))  # the evaluator writes no file; an answer may not


class EvaluatorFailed(Exception):
    """The answer stopped the evaluator (a time limit, a crash): the message says which."""

    @property
    def feedback(self) -> str:  # what run_checker shows when this ends a check
        return f"Your answer could not be graded: {self}."


class Evaluator:
    def __init__(self, folder: Path, prefix: list[str], env: dict, call_timeout: float = 10.0,
                 start_timeout: float = 120.0, script: Path = EVALUATOR):
        self.folder, self.prefix, self.env, self.script = Path(folder), prefix, env, Path(script)
        self.call_timeout, self.start_timeout = call_timeout, start_timeout
        self.process = None
        self.tripped: set[str] = set()

    # -- the process -------------------------------------------------------------------------------------------

    def _start(self):
        # -I: neither the script's folder nor the working directory nor PYTHONPATH on sys.path
        command = self.prefix + [sys.executable, "-I", str(self.script), str(self.folder)]
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, env=self.env, cwd=str(self.folder),
                                        start_new_session=True, preexec_fn=_limit_files)
        self._selector = selectors.DefaultSelector()
        self._selector.register(self.process.stdout, selectors.EVENT_READ)
        self._buffer = b""
        ready = self._read(self.start_timeout)
        if not ready.get("ready"):
            raise EvaluatorFailed("the evaluator did not start")

    def close(self):
        if self.process is not None:
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            self.process.wait()
            self.process.stdin.close()
            self.process.stdout.close()
            self.process = None

    def _send(self, message: dict):
        try:
            self.process.stdin.write((json.dumps(message) + "\n").encode())
            self.process.stdin.flush()
        except (BrokenPipeError, OSError):
            self.close()
            raise EvaluatorFailed("the evaluator stopped (the answer ended its process)") from None

    def _read(self, timeout: float) -> dict:
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not self._selector.select(left):
                self.close()
                raise EvaluatorFailed(f"it ran past the time limit of {timeout:g} s per call and was stopped")
            chunk = os.read(self.process.stdout.fileno(), 1 << 20)
            if not chunk:
                self.close()
                raise EvaluatorFailed("the evaluator stopped (the answer crashed or ended its process)")
            self._buffer += chunk
            if len(self._buffer) > READ_LIMIT:
                self.close()
                raise EvaluatorFailed("the answer's result is too large to grade")
        line, self._buffer = self._buffer.split(b"\n", 1)
        try:
            message = json.loads(line)
        except json.JSONDecodeError:
            self.close()
            raise EvaluatorFailed("the evaluator's reply was not readable (the answer wrote into it)") from None
        if not isinstance(message, dict):
            self.close()
            raise EvaluatorFailed("the evaluator's reply was not readable")
        self.tripped.update(str(t) for t in message.get("tripped", []) if isinstance(t, str))
        return message

    # -- answers -----------------------------------------------------------------------------------------------

    def load(self, key: str, forbidden=(), name: str | None = None):
        """The answer to ``key`` (saved as ``<name or key>.pkl``): a plain value, or a :class:`RemoteFunction`
        (EvaluatorFailed if unreadable)."""
        if self.process is None:
            self._start()
        self._send({"op": "load", "key": name or key, "forbidden": list(forbidden)})
        message = self._read(self.call_timeout + 20)
        if message.get("done"):
            raise EvaluatorFailed("loading the answer ended the evaluator")
        if not message.get("ok"):
            raise EvaluatorFailed(f"the answer could not be loaded: {message.get('error', '?')}")
        if message.get("callable"):
            return RemoteFunction(self, str(message.get("name") or "your function"))
        return decode(message.get("value"))

    def finish(self):
        """End the current exercise's child (its tripwires and answer go with it)."""
        if self.process is None:
            return
        try:
            self._send({"op": "done"})
            while not self._read(self.call_timeout).get("done"):
                pass
        except EvaluatorFailed:
            pass

    def call(self, args, kwargs):
        self._send({"op": "call", "args": encode(list(args)), "kwargs": encode(dict(kwargs)),
                    "rng": base64.b64encode(torch.random.get_rng_state().numpy().tobytes()).decode()})
        message = self._read(self.call_timeout)
        if message.get("done"):
            raise EvaluatorFailed("the answer crashed its process")
        if not message.get("ok"):
            raise StudentError(str(message.get("error", "an error")))
        return decode(message.get("result"))


class StudentError(Exception):
    """The student's function raised: the message is "ValueError: ..." as the evaluator saw it."""

    @property
    def as_raised(self) -> str:
        return str(self)


class RemoteFunction:
    """The student's function, called in the evaluator: arguments and results travel as plain data."""

    def __init__(self, evaluator: Evaluator, name: str):
        self.evaluator, self.__name__ = evaluator, name

    def __call__(self, *args, **kwargs):
        return self.evaluator.call(args, kwargs)
