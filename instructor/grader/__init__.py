"""The grader: scores a student's kernel cannot reach (``scripts/grade.py``, ``make grade``).

A submission is graded in three processes, each seeing only what it needs:

1. **The student's kernel** (``kernel.py``, sandboxed: no network; the course, the instructor's material, the
   submissions and the results hidden): runs the submitted notebook as it is, with one cell added after each
   exercise's check cell that saves the answer (``capture.py``: the value, or the function with what it needs,
   by ``cloudpickle``) into a folder the grader chose. It computes no score and reports nothing else.
2. **The evaluator** (``evaluator.py``, sandboxed the same way, a fresh process): installs tripwires on the
   library functions an exercise asks the student to write (``Solution.forbidden``), then loads one answer and
   calls it on the arguments the grader sends, answering with plain JSON values (:mod:`seqviz.exercises.plain`):
   never a pickle, never code, back to the grader.
3. **The grader** (this process): draws the hidden cases, computes every expected value with the references of the
   course material, runs the public check and the hidden test on the answer through the evaluator
   (``remote.py``), reads the source of the student's answer cells from the submitted file for forbidden names,
   and caps each exercise at its points (``judge.py``). Displayed outputs, the student's ``check``, anything the
   kernel patched (``torch.allclose``, ``numpy.testing``, ``sys.settrace``, an import hook, a fake ``seqviz``)
   never enter a score.
"""
