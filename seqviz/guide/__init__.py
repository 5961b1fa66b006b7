"""Chapter 10's decision guide, derived from measurements rather than typed rules.

- :func:`collect_evidence`: the numbers the guide reads, from chapter 10's measured rows (the task
  table, the training cost against length, the cost per generated token) and the fine-tuning run,
  each as an :class:`Evidence` with its value and a one-line summary;
- :func:`recommend`: (task, data, length, compute, latency) -> a model and the measured numbers
  that decided it. Each branch compares two measured numbers (:func:`seqviz.book.compare_word`
  with a stated tolerance); no answer is fixed in advance;
- :func:`seed_guide`: the decision guide and final checklist of seed 002 (section 8), row by row,
  each marked *supported*, *contradicted* or *not tested here* by the same evidence.

Three modules: :mod:`.evidence` (the numbers), :mod:`.rules` (the answer), :mod:`.seeds` (the seeds' advice
checked). The HTML view of an answer is :func:`seqviz.viz.guide_html`.

The seeds' guide follows Devlin et al. (2019) for fine-tuning, Beltagy et al. (2020, Longformer),
Zaheer et al. (2020, BigBird), Kitaev et al. (2020, Reformer), Sanh et al. (2019, DistilBERT),
Jiao et al. (2020, TinyBERT), Zhou et al. (2021, Informer) and Wu et al. (2021, Autoformer);
those models are named, not run, here. It reads the runs of :mod:`seqviz.experiments`. Used by chapter 10.
"""

from .evidence import GUIDE_OPTIONS, TOLERANCE, Evidence, collect_evidence
from .rules import RECURRENT, best_of, recommend, same
from .seeds import VERDICTS, seed_guide

__all__ = ["GUIDE_OPTIONS", "Evidence", "RECURRENT", "TOLERANCE", "VERDICTS", "best_of", "collect_evidence",
           "recommend", "same", "seed_guide"]
