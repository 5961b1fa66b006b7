"""Chapter 10's decision guide, answered from evidence that says where it comes from.

- :func:`collect_evidence`: the numbers the guide reads, from chapter 10's measured rows (the task table, the
  training cost against length, the cost per generated token), the fine-tuning rerun, the language-model race and,
  when given, the book's long runs, plus the published findings of :mod:`.literature`; each an :class:`Evidence`
  with its value, a one-line summary and its regime (:data:`REGIMES`: measured here, the book's long runs, from the
  literature);
- :func:`recommend`: (task, data, length, compute, latency) -> a model, the reasons, the evidence that decided it
  and its regime (:func:`regime_of`): a situation this run measured is answered from its numbers, one it did not
  (large data, a GPU, long training, lengths beyond those measured) from the long runs or the literature, cited;
- :func:`advice_checked`: the source articles' advice, row by row, with this run's verdict and the verdict at scale.

Four modules: :mod:`.evidence` (the numbers), :mod:`.literature` (the published findings), :mod:`.rules` (the
answer), :mod:`.sources` (the articles' advice checked). The HTML view of an answer is :func:`seqviz.viz.guide_html`.
It reads the runs of :mod:`seqviz.experiments`. Used by chapter 10.
"""

from .evidence import (GUIDE_OPTIONS, LITERATURE, LONG_RUNS, MEASURED, REGIMES, TOLERANCE, Evidence, check_evidence,
                       collect_evidence, evidence_names, long_run_evidence, machine_words,
                       race_evidence)
from .literature import FINDINGS, Finding, literature_evidence
from .rules import (CHANCE, RECURRENT, SOLVED_MARGIN, UNSOLVED, best_of, faster, recommend, regime_of,
                    regime_words, same, situation_words, unsolved)
from .sources import SOURCES, VERDICTS, advice_checked, advice_list, verdicts_apart

__all__ = ["CHANCE", "FINDINGS", "Finding", "GUIDE_OPTIONS", "Evidence", "LITERATURE", "LONG_RUNS", "MEASURED",
           "RECURRENT", "REGIMES", "SOLVED_MARGIN", "SOURCES", "TOLERANCE", "UNSOLVED", "VERDICTS", "advice_checked",
           "advice_list",
           "best_of", "check_evidence", "collect_evidence", "evidence_names", "faster", "literature_evidence",
           "long_run_evidence", "machine_words", "race_evidence", "recommend", "regime_of", "regime_words", "same",
           "situation_words", "unsolved", "verdicts_apart"]
