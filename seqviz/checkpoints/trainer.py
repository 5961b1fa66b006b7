"""Train one :class:`~seqviz.checkpoints.recipes.Recipe` and write its folder: weights, ``log.csv``, manifest.

Everything a run reads is shipped (the texts of :mod:`seqviz.data.real`), and every random choice follows from
the recipe's seed: the minibatches (``fit``'s own generator), the initial weights and the dropout masks
(``seed_everything``), the samples in the log (a generator of their own). With the same thread count a rerun
gives the same weights and the same log, whatever the machine's load; only the clock columns differ.

The log's columns: ``step``; ``seconds`` and ``cpu_seconds``, training time so far on the wall clock and in
CPU time (evaluations excluded; a one-thread job's CPU seconds are what its wall seconds would be on a quiet
machine); ``tokens`` (the tokens predicted so far: characters or words, or French pieces including each
sentence's end) and ``flops`` (training FLOPs so far, :func:`flops_per_token`); ``train_loss`` (the mean
training loss of the steps since the previous row; label-smoothed for translators), ``valid_loss`` (nats per
token on the validation slice the manifest names), ``lr``; for language models a ``sample`` every
``sample_every`` steps, for translators ``valid_bleu`` every ``bleu_every`` steps.

Used by ``scripts/make_checkpoints.py`` and by the test that retrains a model's first steps.
"""

from __future__ import annotations

import copy
import csv
import datetime
import hashlib
import io
import json
import math
import os
import subprocess
from pathlib import Path

import torch

from .. import models
from ..config import seed_everything
from ..data import BOS, EOS, SPECIALS, UNK, Pair, Vocab, pairs_to_tensors, real, trim_padding
from ..data.subwords import SubwordBPE as BPE
from ..data.text import encode_text, text_vocab, windows
from ..experiments import real_translation as rt
from ..experiments.language import mean_loss
from ..measure import Stopwatch, count_parameters
from ..models import sequence_loss
from ..sampling import sample
from ..train import fit, length_buckets, warmup_schedule
from .recipes import Recipe

__all__ = ["LOG_COLUMNS", "PROMPT", "build_model", "build_vocab", "flops_per_token", "lm_ids", "train",
           "translation_pairs", "vocab_sha256"]

PROMPT = "The whale "  # every language model's samples in the log continue this
SAMPLE_LENGTH = 200  # characters (or words) per sample, at most the context: no model writes past what it trained on
SAMPLE_TEMPERATURE = 0.8
LOG_VALID_TOKENS = 32_768  # a language model's log scores the first this many validation tokens
LOG_VALID_PAIRS = 2_000  # a translator's log scores the first this many validation pairs (teacher-forced loss)
LOG_BLEU_SENTENCES = 500  # ... and translates the first this many distinct validation sentences (BLEU)
FP16_TOLERANCE = {"loss": 2e-3, "bleu": 0.3}  # float16 is shipped if the final metric moves less than this
LOG_COLUMNS = ("step", "seconds", "cpu_seconds", "tokens", "flops", "train_loss", "valid_loss", "lr", "sample",
               "valid_bleu")


# -- vocabularies ---------------------------------------------------------------------------------------------

def _vocab_json(vocab: Vocab) -> dict:
    return {"itos": list(vocab.itos), "specials": list(vocab.specials), "unknown": vocab.unknown}


def vocab_from_json(data: dict) -> Vocab:
    """The :class:`~seqviz.data.Vocab` written by :func:`_vocab_json`."""
    specials = list(data["specials"])
    if list(data["itos"][: len(specials)]) != specials:
        raise ValueError("the vocabulary's first tokens are not its special tokens")
    vocab = Vocab(data["itos"][len(specials):], specials=specials, unknown=data["unknown"])
    if vocab.itos != list(data["itos"]):
        raise ValueError("the vocabulary lists a token twice")
    return vocab


def vocab_sha256(data: dict) -> str:
    """The SHA-256 of a vocabulary's JSON form (sorted keys), the ``vocab_sha256`` of a manifest."""
    return hashlib.sha256(json.dumps(data, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()


def translation_pairs(split: str) -> list[Pair]:
    """The large Tatoeba slice's pairs of one split, as words (the long-run translators' data)."""
    return real.sentence_pairs(split, size="large")


def build_vocab(recipe: Recipe) -> dict:
    """The vocabulary of ``recipe`` as JSON-ready data: built from the shipped training text by this code
    (the loader compares its hash with the manifest's)."""
    level = recipe.vocab["level"]
    if level in ("char", "word"):
        vocab = text_vocab(real.book_text("train"), level, recipe.vocab.get("min_count", 1))
        return {"level": level, **_vocab_json(vocab)}
    if level == "bpe":
        pairs = translation_pairs("train")
        source = BPE.learn([w for p in pairs for w in p.source], recipe.vocab["source_merges"])
        target = BPE.learn([w for p in pairs for w in p.target], recipe.vocab["target_merges"])
        pieces = [Pair(source.encode(p.source), target.encode(p.target)) for p in pairs]
        source_vocab = Vocab.build([p.source for p in pieces], 1, unknown="unk")
        target_vocab = Vocab.build([p.target for p in pieces], 1, unknown="unk")
        return {"level": "bpe", "max_pieces": recipe.vocab["max_pieces"],
                "source": {**source.to_dict(), **_vocab_json(source_vocab)},
                "target": {**target.to_dict(), **_vocab_json(target_vocab)}}
    raise ValueError(f"unknown vocabulary level {level!r} in recipe {recipe.name}")


# -- models ---------------------------------------------------------------------------------------------------

def architecture(recipe: Recipe, vocab: dict) -> dict:
    """``{"class", "kwargs"}``: the model class of :mod:`seqviz.models` and every constructor argument."""
    if recipe.task == "translate":
        target = vocab_from_json(vocab["target"])
        sizes = {"src_vocab_size": len(vocab["source"]["itos"]), "tgt_vocab_size": len(target),
                 "bos_id": target.stoi[BOS], "eos_id": target.stoi[EOS]}
    else:
        sizes = {"vocab_size": len(vocab["itos"])}
    return {"class": recipe.model, "kwargs": {**sizes, **recipe.kwargs}}


def build_model(arch: dict) -> torch.nn.Module:
    """``seqviz.models.<class>(**kwargs)``, with one ``ValueError`` if the code has no such class or the
    class no longer takes those arguments."""
    cls = getattr(models, arch.get("class", ""), None)
    if not isinstance(cls, type) or not issubclass(cls, torch.nn.Module):
        raise ValueError(f"seqviz.models has no model class {arch.get('class')!r}")
    try:
        return cls(**arch["kwargs"])
    except TypeError as error:
        raise ValueError(f"seqviz.models.{arch['class']} does not accept the arguments {sorted(arch['kwargs'])}: "
                         f"{error}") from None


def _lookup_names(model: torch.nn.Module) -> set[str]:
    """Parameters that are only looked up (an embedding table), not multiplied, per token."""
    tied = getattr(model, "tie_embeddings", False)
    if isinstance(model, models.TransformerSeq2Seq):
        return {"src_embedding.weight"} | (set() if tied else {"tgt_embedding.weight"})
    if isinstance(model, models.Seq2Seq):
        return {"encoder.embedding.weight", "embedding.weight"}
    return set() if tied else {"embedding.weight"}


def flops_per_token(model: torch.nn.Module, context: int | None = None) -> dict:
    """Training FLOPs per token, Kaplan et al. (2020)'s estimate: 6 per weight a token is multiplied by (2 in the
    forward pass, 4 in the backward), plus, for a Transformer LM, 6 per layer, context position and width for
    the attention scores. An embedding table that is only looked up counts nothing (tied to the output layer, it
    counts as that layer). An encoder-decoder: ``encoder`` FLOPs per source token, ``decoder`` per target token
    (attention over the source not counted). Returns ``{"per_token"}`` or ``{"encoder", "decoder"}``."""
    skip = _lookup_names(model)
    if isinstance(model, (models.Seq2Seq, models.TransformerSeq2Seq)):
        encoder_prefixes = ("encoder.",) if isinstance(model, models.Seq2Seq) else ("encoder_layers.", "encoder_norm.")
        enc = sum(p.numel() for n, p in model.named_parameters() if n not in skip and n.startswith(encoder_prefixes))
        dec = sum(p.numel() for n, p in model.named_parameters()
                  if n not in skip and not n.startswith(encoder_prefixes))
        return {"encoder": 6 * enc, "decoder": 6 * dec}
    n = sum(p.numel() for name, p in model.named_parameters() if name not in skip)
    extra = 0
    if isinstance(model, models.TransformerLM):
        extra = 6 * len(model.decoder.layers) * (context or 0) * model.d_model
    return {"per_token": 6 * n + extra}


# -- data -----------------------------------------------------------------------------------------------------

def lm_ids(recipe: Recipe, vocab: dict, split: str) -> torch.Tensor:
    """A split of *Moby-Dick* as the recipe's token ids."""
    return encode_text(real.book_text(split), vocab_from_json(vocab), recipe.vocab["level"])


def _translation_data(vocab: dict, split: str):
    source, target = BPE.from_dict(vocab["source"]), BPE.from_dict(vocab["target"])
    pieces = [Pair(source.encode(p.source), target.encode(p.target)) for p in translation_pairs(split)]
    limit = vocab["max_pieces"]
    pieces = [p for p in pieces if len(p.source) <= limit and len(p.target) <= limit]
    return pairs_to_tensors(pieces, vocab_from_json(vocab["source"]), vocab_from_json(vocab["target"]))


def translator_of(model, vocab: dict) -> rt.RealTranslator:
    """The model as a :class:`~seqviz.experiments.real_translation.RealTranslator` that reads and writes words."""
    return rt.RealTranslator(model, vocab_from_json(vocab["source"]), vocab_from_json(vocab["target"]), [], 0.0,
                             bool(getattr(model, "use_attention", False)), BPE.from_dict(vocab["source"]),
                             BPE.from_dict(vocab["target"]), pairs_size="large")


def _teacher_forced_loss(model, data) -> float:
    """Mean cross-entropy (nats per French piece, no smoothing) of ``data`` = (src, lengths, tgt_in, tgt_out)."""
    was_training = model.training
    model.eval()
    total, count = 0.0, 0
    with torch.no_grad():
        for i in range(0, len(data[0]), 256):
            batch = trim_padding([t[i:i + 256] for t in data])
            logits = model(*batch[:3])
            real_tokens = int((batch[3] != 0).sum())
            total += float(sequence_loss(logits, batch[3])) * real_tokens
            count += real_tokens
    model.train(was_training)
    return total / count


# -- the run --------------------------------------------------------------------------------------------------

def _git_commit() -> str:
    """The trainer's commit, with "+changes" when the package or the scripts differ from it (a chapter being
    edited does not count: it cannot change a run)."""
    try:
        root = Path(__file__).resolve().parents[2]
        out = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10)
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no", "--",
                                "seqviz", "scripts", "pyproject.toml", ":(exclude)seqviz/checkpoints/*/*",
                                ":(exclude)seqviz/checkpoints/RUN.json"],
                               capture_output=True, text=True, timeout=10).stdout.strip()
        return out.stdout.strip() + ("+changes" if dirty else "") if out.returncode == 0 else "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def _load_average() -> list[float] | None:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def _final_metrics(recipe: Recipe, model, vocab: dict) -> dict:
    """The manifest's final metrics, on the whole validation and test splits."""
    if recipe.task == "translate":
        translator = translator_of(model, vocab)
        out = {}
        for split in ("valid", "test"):
            result = rt.translate(translator, split)
            out[f"{split}_bleu"], out[f"{split}_exact"] = result.bleu(), result.exact_match()
            out[f"{split}_sentences"] = len(result)
        out["valid_loss"] = _teacher_forced_loss(model, _translation_data(vocab, "valid"))
        return out
    out = {}
    for split in ("valid", "test"):
        ids = lm_ids(recipe, vocab, split)
        loss = mean_loss(model, ids, recipe.context, batch_size=32)
        out[f"{split}_loss"], out[f"{split}_ppl"] = loss, math.exp(loss)
        out[f"{split}_tokens"] = (len(ids) - 1) // recipe.context * recipe.context
    return out


def _state_dict_bytes(model) -> bytes:
    buffer = io.BytesIO()
    torch.save(model.state_dict(), buffer)
    return buffer.getvalue()


def train(recipe: Recipe, folder: Path | str | None = None, *, stop_after: int | None = None,
          progress: bool = True) -> dict:
    """Train ``recipe`` from its seed; write ``weights.pt``, ``vocab.json``, ``log.csv`` and ``manifest.json``
    into ``folder`` (unless None). ``stop_after`` ends the run after that many steps (the schedule still spans
    the recipe's steps): the test that retrains a model's first steps. Returns ``{"rows", "model", "vocab",
    "manifest"}`` (no manifest when stopped early)."""
    started, load_before, commit = datetime.datetime.now(datetime.timezone.utc), _load_average(), _git_commit()
    total = Stopwatch(running=True)
    vocab = build_vocab(recipe)
    arch = architecture(recipe, vocab)
    seed_everything(recipe.seed)
    model = build_model(arch)
    flops = flops_per_token(model, recipe.context)

    if recipe.task == "translate":
        data = _translation_data(vocab, "train")
        valid_data = [t[:LOG_VALID_PAIRS] for t in _translation_data(vocab, "valid")]
        translator = translator_of(model, vocab)
        valid_pairs = translation_pairs("valid")
        buckets = length_buckets(data[1] + (data[3] != 0).sum(1), recipe.batch_size)
        last = {}

        def sampler(generator, size):
            last["index"] = buckets(generator, size)
            return last["index"]

        def batch_counts():
            index = last["index"]
            return int(data[1][index].sum()), int((data[3][index] != 0).sum())

        def loss_fn(logits, targets):
            return sequence_loss(logits, targets, label_smoothing=recipe.label_smoothing)

        def valid_loss(m):
            return _teacher_forced_loss(m, valid_data)

        train_data, fit_extra = data, {"sampler": sampler, "collate": trim_padding}
        data_file, data_split = real.SOURCES["pairs_large"]["file"], "train/valid/test by CRC-32 of the English"
    else:
        train_ids = lm_ids(recipe, vocab, "train")
        valid_ids = lm_ids(recipe, vocab, "valid")[: LOG_VALID_TOKENS + 1]
        train_data = windows(train_ids, recipe.context, stride=max(1, recipe.context // 8))
        fit_extra = {}
        itos = vocab["itos"]
        prompt = [vocab_from_json(vocab).id(t) for t in (PROMPT if recipe.vocab["level"] == "char"
                                                        else real.tokenize(PROMPT))]

        def batch_counts():
            return 0, recipe.batch_size * recipe.context

        def loss_fn(logits, targets):
            return torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))

        def valid_loss(m):
            return mean_loss(m, valid_ids, recipe.context, batch_size=32)

        data_file, data_split = real.SOURCES["book"]["file"], "train: first 80 % of lines; valid: next 10 %; test: last 10 %"

    rows: list[dict] = []
    state = {"tokens": 0, "flops": 0, "losses": []}
    clock = Stopwatch(running=False)

    def log_row(step: int, m, lr: float | None):
        row = {"step": step, "seconds": round(clock.wall, 3), "cpu_seconds": round(clock.cpu, 3),
               "tokens": state["tokens"], "flops": state["flops"],
               "train_loss": sum(state["losses"]) / len(state["losses"]) if state["losses"] else None,
               "valid_loss": valid_loss(m), "lr": lr}
        if recipe.task == "translate":
            if recipe.bleu_every and (step % recipe.bleu_every == 0 or step == recipe.steps):
                row["valid_bleu"] = rt.translate(translator, valid_pairs, limit=LOG_BLEU_SENTENCES).bleu()
        elif step % recipe.sample_every == 0 or step == recipe.steps:
            m.eval()
            drawn = sample(m, prompt, min(SAMPLE_LENGTH, recipe.context - len(prompt)), temperature=SAMPLE_TEMPERATURE,
                           generator=torch.Generator().manual_seed(recipe.seed))
            joiner = "" if recipe.vocab["level"] == "char" else " "
            row["sample"] = PROMPT + joiner.join(itos[i] for i in drawn.ids)
        m.train()
        state["losses"] = []
        rows.append(row)

    def on_step(step, m, record):
        source_tokens, target_tokens = batch_counts()
        state["tokens"] += target_tokens
        state["flops"] += flops.get("per_token", 0) * target_tokens + flops.get("encoder", 0) * source_tokens \
            + flops.get("decoder", 0) * target_tokens
        state["losses"].append(record["loss"])
        if step % recipe.eval_every == 0 or step == recipe.steps:
            clock.pause()
            log_row(step, m, record.get("lr"))
            clock.resume()
        return stop_after is not None and step >= stop_after

    optimizer = torch.optim.Adam(model.parameters(), lr=recipe.lr, betas=recipe.betas)
    log_row(0, model, None)
    clock.resume()
    fit(model, train_data, loss_fn, steps=recipe.steps, batch_size=recipe.batch_size, optimizer=optimizer,
        clip_norm=recipe.clip_norm, device="cpu", seed=recipe.seed, progress=progress, callbacks=[on_step],
        desc=recipe.name, schedule=warmup_schedule(recipe.warmup, recipe.steps, recipe.decay, recipe.floor),
        **fit_extra)
    clock.pause()
    model.eval()
    result = {"rows": rows, "model": model, "vocab": vocab}
    if stop_after is not None and stop_after < recipe.steps:
        return result

    # float16 if the final metric barely moves, float32 otherwise
    full = _final_metrics(recipe, model, vocab)
    half = copy.deepcopy(model).half().float()
    halved = _final_metrics(recipe, half, vocab)
    key, tolerance = ("test_bleu", FP16_TOLERANCE["bleu"]) if recipe.task == "translate" \
        else ("valid_loss", FP16_TOLERANCE["loss"])
    use_half = abs(halved[key] - full[key]) <= tolerance
    shipped = copy.deepcopy(model).half() if use_half else model
    final = halved if use_half else full
    total.pause()
    manifest = {
        "name": recipe.name, "family": recipe.family, "task": recipe.task,
        "architecture": arch, "parameters": count_parameters(model), "seed": recipe.seed,
        "git_commit": commit, "torch": torch.__version__,
        "data": {"file": data_file, "sha256": real.file_sha256(data_file), "split": data_split,
                 "log_valid": (f"the first {LOG_VALID_PAIRS:,} validation pairs (loss) and the first "
                               f"{LOG_BLEU_SENTENCES} distinct validation sentences (BLEU, greedy)")
                 if recipe.task == "translate" else f"the first {LOG_VALID_TOKENS:,} validation tokens"},
        "vocab": {k: v for k, v in recipe.vocab.items()}, "vocab_size": len(vocab["itos"]) if "itos" in vocab
        else {"source": len(vocab["source"]["itos"]), "target": len(vocab["target"]["itos"])},
        "vocab_sha256": vocab_sha256(vocab), "threads": torch.get_num_threads(),
        "wall_budget_s": recipe.wall_budget_s, "wall_s": round(total.wall, 1), "cpu_s": round(total.cpu, 1),
        "train_wall_s": round(clock.wall, 1), "train_cpu_s": round(clock.cpu, 1),
        "steps": recipe.steps, "batch_size": recipe.batch_size, "context": recipe.context,
        "tokens_seen": state["tokens"], "flops": state["flops"],
        "flops_per_token": flops, "flops_counted": (
            "6 x (weights each token is multiplied by) per predicted token (Kaplan et al. 2020), plus 6 x layers x "
            "context x width for a Transformer's attention scores; embedding lookups count nothing; an "
            "encoder-decoder counts its encoder per source token and its decoder per target token"),
        "optimizer": {"name": "Adam", "lr": recipe.lr, "betas": list(recipe.betas), "warmup": recipe.warmup,
                      "schedule": f"linear warm-up, then {recipe.decay} to {recipe.floor:g} x lr",
                      "dropout": recipe.dropout, "clip_norm": recipe.clip_norm,
                      "label_smoothing": recipe.label_smoothing},
        "dtype": "float16" if use_half else "float32",
        "final": final, "final_float32": full,
        "machine": {"cpu_count": os.cpu_count(), "load_before": load_before, "load_after": _load_average()},
        "created": started.isoformat(timespec="seconds"),
        "notes": recipe.notes,
    }
    result["manifest"] = manifest
    if folder is not None:
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "weights.pt").write_bytes(_state_dict_bytes(shipped))
        (folder / "vocab.json").write_text(json.dumps(vocab, ensure_ascii=False, sort_keys=True), encoding="utf-8")
        write_log(folder / "log.csv", rows)
        (folder / "manifest.json").write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n",
                                              encoding="utf-8")
    return result


def write_log(path: Path, rows: list[dict]) -> None:
    columns = [c for c in LOG_COLUMNS if any(c in r for r in rows)]
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, columns, extrasaction="ignore")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: ("" if row.get(k) is None else
                                 (f"{row[k]:.6g}" if isinstance(row[k], float) else row[k])) for k in columns})
