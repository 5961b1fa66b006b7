"""Save one answer for the grader (copied into the student's kernel as ``seqviz_capture``; nothing else).

``save(key, value)`` writes ``$SEQVIZ_CAPTURE_DIR/<key>.pkl``: ``value`` pickled by ``cloudpickle`` (a function
travels with its code and the values it uses; modules and library functions by name, so that the evaluator, not
this kernel, decides what they are). A value that cannot be pickled leaves ``<key>.error`` saying why. Whatever
a submission does to this module only changes what it hands in as its answer.
"""

import os


def save(key, value):
    folder = os.environ.get("SEQVIZ_CAPTURE_DIR")
    if not folder:
        return
    path = os.path.join(folder, key)
    try:
        import cloudpickle

        data = cloudpickle.dumps(value)
    except BaseException as error:  # noqa: BLE001 - the reason goes to the grader
        with open(path + ".error", "w") as handle:
            handle.write(f"{type(error).__name__}: {error}"[:500])
        return
    with open(path + ".pkl", "wb") as handle:
        handle.write(data)
