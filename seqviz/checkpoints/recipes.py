"""The long runs of ``make checkpoints``: one :class:`Recipe` per shipped model, in one table (:data:`RECIPES`).

A recipe fixes everything a run depends on: the data and its split, the vocabulary, the architecture, the
optimiser and its schedule, the number of steps and the seed. The steps are fixed (not a wall-clock stop), so a
rerun with the same thread count gives the same weights on the same CPU, and on another CPU weights that differ only
in the last bits of rounding (final losses and BLEU within 0.3%); ``wall_budget_s`` is the time the run
was sized to take on a quiet 2-core machine with one thread per model, stated in its manifest beside the time it
really took.

Families (``names(family=...)`` lists each, smallest first):

- ``charlm-lstm`` (s, m, l) and ``charlm-transformer`` (s, m, l): character language models on *Moby-Dick*,
  roughly matched in parameters pair by pair, every one trained on the same 2,000 steps of 4,096 characters;
  the largest of each reads windows of 256 characters (chapter 4b, and the scaling curves of the chapter on why
  Transformers won);
- ``charlm-lstm-depth``: LSTMs of 2 and 3 layers at the small model's width and budget (``charlm-lstm-s`` is the
  one-layer model of the comparison; chapter 4b);
- ``wordlm-lstm``: a word-level LSTM, with the vocabulary of chapter 4b's word models (chapter 4b);
- ``translate``: English -> French on the large Tatoeba slice, with subword vocabularies: a GRU
  encoder-decoder without attention, one with attention, and a Transformer (chapters 5-7).
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["CHAR_STEPS", "RECIPES", "Recipe"]

CHAR_STEPS = 2000  # every character model: 2,000 steps of 4,096 characters (8.2 M characters, 8.6 passes)


@dataclass(frozen=True)
class Recipe:
    """One long run. ``model`` names a class of :mod:`seqviz.models`; ``kwargs`` are its constructor's arguments
    except the vocabulary sizes (and a translator's bos/eos ids), which come from the vocabulary."""

    name: str
    family: str
    task: str  # "charlm", "wordlm" or "translate"
    model: str
    kwargs: dict
    steps: int
    batch_size: int
    lr: float
    warmup: int
    wall_budget_s: float
    context: int | None = None  # a language model's window, in tokens
    decay: str = "cosine"
    floor: float = 0.1  # the learning rate at the last step, as a share of the peak
    betas: tuple[float, float] = (0.9, 0.99)
    clip_norm: float = 1.0
    label_smoothing: float = 0.0
    eval_every: int = 50  # a row of log.csv (validation loss) every this many steps
    sample_every: int = 250  # language models: a sample in log.csv every this many steps
    bleu_every: int = 0  # translators: a validation BLEU in log.csv every this many steps
    seed: int = 0
    vocab: dict = field(default_factory=dict)  # how the vocabulary is built (see trainer.build_vocab)
    notes: str = ""

    @property
    def dropout(self) -> float:
        return float(self.kwargs.get("dropout", 0.0))


def _lstm(name, family, hidden, layers=1, context=128, batch=32, dropout=0.0, budget=0.0, **extra):
    return Recipe(name, family, "charlm", "GRULM", dict(hidden_size=hidden, num_layers=layers, cell="lstm",
                                                        dropout=dropout),
                  steps=CHAR_STEPS, batch_size=batch, context=context, lr=3e-3, warmup=100, wall_budget_s=budget,
                  vocab={"level": "char"}, **extra)


def _transformer(name, d, layers, context=128, batch=32, dropout=0.0, lr=1e-3, budget=0.0, **extra):
    return Recipe(name, "charlm-transformer", "charlm", "TransformerLM",
                  dict(d_model=d, num_heads=4, num_layers=layers, dim_feedforward=4 * d, max_len=512,
                       norm_first=True, dropout=dropout),
                  steps=CHAR_STEPS, batch_size=batch, context=context, lr=lr, warmup=200, wall_budget_s=budget,
                  vocab={"level": "char"}, **extra)


_TRANSLATE_VOCAB = {"level": "bpe", "source_merges": 1500, "target_merges": 2000, "max_pieces": 24}

RECIPES: dict[str, Recipe] = {r.name: r for r in [
    _lstm("charlm-lstm-s", "charlm-lstm", 128, budget=70, eval_every=25),
    _lstm("charlm-lstm-m", "charlm-lstm", 256, dropout=0.1, budget=240),
    _lstm("charlm-lstm-l", "charlm-lstm", 384, context=256, batch=16, dropout=0.1, budget=440),
    _transformer("charlm-transformer-s", 64, 3, lr=2e-3, budget=250),
    _transformer("charlm-transformer-m", 128, 3, dropout=0.1, budget=780),
    _transformer("charlm-transformer-l", 192, 3, context=256, batch=16, dropout=0.1, budget=1600),
    _lstm("charlm-lstm-depth-2", "charlm-lstm-depth", 128, layers=2, budget=110),
    _lstm("charlm-lstm-depth-3", "charlm-lstm-depth", 128, layers=3, budget=160),
    Recipe("wordlm-lstm", "wordlm-lstm", "wordlm", "GRULM",
           dict(hidden_size=192, num_layers=1, cell="lstm", dropout=0.4, tie_embeddings=True),
           steps=3000, batch_size=32, context=64, lr=3e-3, warmup=100, wall_budget_s=300,
           vocab={"level": "word", "min_count": 10}, sample_every=500,
           notes="the vocabulary of chapter 4b's word models: the words seen at least 10 times in training"),
    Recipe("translate-gru", "translate", "translate", "Seq2Seq",
           dict(embed_size=128, hidden_size=256, attention=False, dropout=0.2),
           steps=2500, batch_size=128, lr=2e-3, warmup=100, wall_budget_s=380, label_smoothing=0.1,
           eval_every=50, bleu_every=250, vocab=_TRANSLATE_VOCAB),
    Recipe("translate-gru-attn", "translate", "translate", "Seq2Seq",
           dict(embed_size=128, hidden_size=192, attention=True, dropout=0.2),
           steps=2500, batch_size=128, lr=2e-3, warmup=100, wall_budget_s=850, label_smoothing=0.1,
           eval_every=50, bleu_every=250, vocab=_TRANSLATE_VOCAB),
    Recipe("translate-transformer", "translate", "translate", "TransformerSeq2Seq",
           dict(d_model=192, num_heads=4, num_encoder_layers=3, num_decoder_layers=3, dim_feedforward=512,
                dropout=0.1, max_len=64, norm_first=True, tie_embeddings=True),
           steps=2500, batch_size=128, lr=1e-3, warmup=200, wall_budget_s=1000, label_smoothing=0.1,
           betas=(0.9, 0.98), eval_every=50, bleu_every=250, vocab=_TRANSLATE_VOCAB),
]}
