"""The experiments layer: the chapter runners that train models and measure them.

One module per concept; each runner that builds a model takes ``device=None`` (meaning
:func:`~seqviz.config.pick_device`), each that receives one runs where it is. Nothing here defines a model
(:mod:`seqviz.models`), times or counts by itself (:mod:`seqviz.measure`) or draws (:mod:`seqviz.viz`).

- :mod:`~seqviz.experiments.seeds`: results over seeds (``SeedTable``, ``repeat_over_seeds``), chapter 9;
- :mod:`~seqviz.experiments.distance`: memory against distance on the agreement task, chapters 4 and 10;
- :mod:`~seqviz.experiments.translation`: translators trained and scored, chapters 5, 7 and 8;
- :mod:`~seqviz.experiments.real_translation`: real English-French sentences, BLEU, greedy and beam, chapters 5-7;
- :mod:`~seqviz.experiments.attention`: softmax saturation and its gradients against width, chapter 8;
- :mod:`~seqviz.experiments.cost`: time and memory against length and batch, chapters 8 and 10;
- :mod:`~seqviz.experiments.rows`: chapter 10's table, the same tasks for every kind of model;
- :mod:`~seqviz.experiments.finetune`: chapter 9's pretraining experiment, rerun for chapter 10's guide;
- :mod:`~seqviz.experiments.language`: language models on real text, perplexity, n-gram baselines, readable units,
  chapter 4b;
- :mod:`~seqviz.experiments.real_translation`: the encoder-decoder on real English-French pairs, BLEU (sacrebleu),
  chapters 5-7;
- :mod:`~seqviz.experiments.lm_race`: recurrent and Transformer LMs on one clock, perplexity against context, chapter 10;
- :mod:`~seqviz.experiments.parallel`: training throughput against length, the cost of a generated token with and
  without the key/value cache, chapter 9b;
- :mod:`~seqviz.experiments.context`: loss by position in the context and loss per character, any causal LM,
  chapter 9b;
- :mod:`~seqviz.experiments.scaling`: loss against training compute from training logs, frontiers, power laws and
  their crossing, chapter 9b.
"""

from .attention import attention_entropy, attention_gradients, softmax_attention_gradients
from .context import (binned_losses, bins_table, character_bins, character_curve, loss_by_position,
                      loss_per_character, text_windows, token_characters, token_losses)
from .cost import cost_vs_batch, cost_vs_length, step_cost, streaming_cost
from .distance import DistanceTable, TrainSizeTable, accuracy_vs_distance, accuracy_vs_train_size, retest
from .finetune import finetune_evidence
from .language import LMRun, encode_text, ngram_perplexity, perplexity, text_vocab, train_lm
from .parallel import generation_cost, training_throughput
from .real_translation import RealTranslator, Translations, bleu, train_real_translator, translate
from .scaling import FamilyFit, compare_families, compute_frontier, family_fit, log_points
from .rows import agreement_rows, forecast_rows, translation_rows
from .seeds import SeedTable, repeat_over_seeds
from .translation import TranslationRuns, accuracy_by_length, exact_match, learning_curve, train_translators

__all__ = ["FamilyFit", "binned_losses", "bins_table", "character_bins", "character_curve", "compare_families",
           "compute_frontier", "family_fit", "generation_cost", "log_points", "loss_by_position", "loss_per_character", "text_windows",
           "token_characters", "token_losses", "training_throughput",
           "DistanceTable", "LMRun", "RealTranslator", "SeedTable", "TrainSizeTable", "TranslationRuns",
           "Translations", "accuracy_by_length", "accuracy_vs_distance", "accuracy_vs_train_size", "agreement_rows",
           "attention_entropy", "attention_gradients", "bleu", "cost_vs_batch", "cost_vs_length", "encode_text",
           "exact_match", "finetune_evidence", "forecast_rows", "learning_curve", "ngram_perplexity", "perplexity",
           "repeat_over_seeds", "retest", "softmax_attention_gradients", "step_cost", "streaming_cost", "text_vocab",
           "train_lm", "train_real_translator", "train_translators", "translate", "translation_rows"]
