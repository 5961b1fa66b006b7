"""The evaluator: calls one student's answers on the grader's arguments, in its own sandboxed process.

    python evaluator.py CAPTURE_DIR        (started by ``remote.Evaluator``; speaks JSON lines on stdin/stdout)

Requests, one at a time (the grader waits for each reply):

- ``{"op": "load", "key": "ch08.ex3", "forbidden": ["seqviz.models.mha.positional_encoding"]}``: a child process
  is forked for this exercise; it replaces every forbidden library function (everywhere it is bound) by a
  tripwire, then unpickles ``CAPTURE_DIR/<key>.pkl``: library functions pickled by name now resolve to the
  tripwire. Reply: ``{"ok": true, "callable": true}`` or ``{"ok": true, "callable": false, "value": ...}``.
- ``{"op": "call", "args": [...], "kwargs": {...}, "rng": ...}``: the answer called on the decoded arguments (the
  grader's torch random state first, when given). Reply: the result as plain JSON (:mod:`seqviz.exercises.plain`),
  or the exception's name and message, and the tripwires that fired.
- ``{"op": "done"}``: the child exits; the next ``load`` forks a fresh one.

It imports nothing of the instructor's material (hidden from it by the sandbox): it holds no reference answer.
"""

import base64
import importlib
import json
import os
import sys

LIMIT = 20_000_000  # characters of JSON in one reply: a larger result is refused


class ForbiddenCall(BaseException):  # not an Exception: an answer's "except Exception" does not swallow it
    pass


TRIPPED = []


def resolve(name):
    """(owner, attribute, object) for a dotted name such as "torch.nn.utils.clip_grad_norm_"; None if absent."""
    parts = name.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            owner = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for part in parts[cut:-1]:
                owner = getattr(owner, part)
            return owner, parts[-1], getattr(owner, parts[-1])
        except AttributeError:
            return None
    return None


def install_tripwires(names):
    for name in names:
        found = resolve(name)
        if found is None:
            continue
        owner, attribute, original = found

        def tripwire(*args, _name=name, **kwargs):
            TRIPPED.append(_name)
            raise ForbiddenCall(f"{_name} is a library function this exercise asks you to write yourself")

        setattr(owner, attribute, tripwire)
        for module in list(sys.modules.values()):  # every other name it is bound to (re-exports, aliases)
            namespace = getattr(module, "__dict__", None) or {}
            for key, value in list(namespace.items()):
                if value is original:
                    setattr(module, key, tripwire)


def reply(channel, message):
    text = json.dumps(message)
    if len(text) > LIMIT:
        text = json.dumps({"ok": False, "error": f"the result is too large to grade ({len(text):,} characters "
                                                 "of data)", "tripped": sorted(set(TRIPPED))})
    channel.write(text + "\n")
    channel.flush()


def serve_exercise(request, folder, channel_in, channel_out):
    """In the forked child: tripwires, the answer, then calls until "done"."""
    from seqviz.exercises.plain import decode, encode

    install_tripwires(request.get("forbidden", []))
    path = os.path.join(folder, request["key"] + ".pkl")
    try:
        import cloudpickle

        with open(path, "rb") as handle:
            answer = cloudpickle.loads(handle.read())
    except BaseException as error:  # noqa: BLE001 - anything is a message for the grader
        reply(channel_out, {"ok": False, "error": f"{type(error).__name__}: {error}"[:500],
                            "tripped": sorted(set(TRIPPED))})
        answer = None
    else:
        is_function = callable(answer) and not isinstance(answer, type) and type(answer).__name__ != "Tensor"
        reply(channel_out, {"ok": True, "callable": is_function, "value": None if is_function else encode(answer),
                            "name": getattr(answer, "__name__", "") if is_function else "",
                            "tripped": sorted(set(TRIPPED))})
    while True:
        line = channel_in.readline()
        if not line:
            return
        request = json.loads(line)
        if request["op"] != "call":
            return
        try:
            import torch

            if request.get("rng"):
                state = base64.b64decode(request["rng"])
                torch.random.set_rng_state(torch.frombuffer(bytearray(state), dtype=torch.uint8))
            result = answer(*decode(request["args"]), **decode(request["kwargs"]))
            reply(channel_out, {"ok": True, "result": encode(result), "tripped": sorted(set(TRIPPED))})
        except ForbiddenCall as error:
            reply(channel_out, {"ok": False, "error": f"ForbiddenCall: {error}", "tripped": sorted(set(TRIPPED))})
        except RecursionError:
            reply(channel_out, {"ok": False, "error": "RecursionError: maximum recursion depth exceeded",
                                "tripped": sorted(set(TRIPPED))})
        except BaseException as error:  # noqa: BLE001 - SystemExit, KeyboardInterrupt: still the answer's
            reply(channel_out, {"ok": False, "error": f"{type(error).__name__}: {error}"[:500],
                                "tripped": sorted(set(TRIPPED))})


def main():
    folder = sys.argv[1]
    channel_in = sys.stdin
    channel_out = os.fdopen(os.dup(1), "w")  # the replies; the answer's own prints go nowhere
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    sys.stdout = open(os.devnull, "w")
    import numpy  # noqa: F401  (imported once, before any fork)
    import torch  # noqa: F401

    import seqviz.exercises.plain  # noqa: F401

    reply(channel_out, {"ok": True, "ready": True})
    while True:
        line = channel_in.readline()
        if not line:
            return 0
        request = json.loads(line)
        if request.get("op") != "load":
            continue
        pid = os.fork()
        if pid == 0:
            try:
                serve_exercise(request, folder, channel_in, channel_out)
            finally:
                os._exit(0)
        os.waitpid(pid, 0)
        reply(channel_out, {"ok": True, "done": request["key"]})


if __name__ == "__main__":
    sys.exit(main())
