"""The book's long-run models, trained by ``make checkpoints`` and shipped in the package: one loader for all.

A chapter trains its small models live (watching training is part of the lesson) and sets beside them what the
same kind of model becomes with an hour of CPU: a checkpoint, trained from a fixed seed by
``scripts/make_checkpoints.py`` (recipes in :mod:`seqviz.checkpoints.recipes`), whose folder
``seqviz/checkpoints/<name>/`` holds ``weights.pt`` (float16 where that changes the final metric by less than
the trainer's tolerance, float32 otherwise), ``vocab.json``, ``log.csv`` (the training log) and
``manifest.json`` (commit, seed, data and vocabulary hashes, architecture, thread count, wall budget and
measured wall time, FLOPs, final metrics).

::

    from seqviz.checkpoints import load, names
    names()                          # every shipped checkpoint
    names(family="charlm-lstm")      # one family, smallest first
    ck = load("charlm-lstm-l")       # the model in eval mode, on sv.pick_device() unless device= is given
    ck.model, ck.vocab, ck.manifest, ck.log
    ck.evaluate("valid")             # re-evaluated now, on the shipped data: {"loss", "ppl", "tokens"}
    ck.evaluate("test", max_sentences=500)   # a translator: {"bleu", "exact", "sentences"}
    ck.initial_model()               # the same model before training (same seed): the untrained baseline
    ck.loss_by_position("valid")     # a language model's mean loss at each position of its context
    ck.translate("test", beam_size=5, length_penalty=0.7)   # a translator's Translations (BLEU, by length ...)

A missing or unreadable file, or a manifest that does not match this code (the recipe's architecture, the
vocabulary the code builds from the shipped text, the shipped data's hash, the tensors the weights hold) is one
``ValueError`` that names the file and what differs and says how to rebuild it.

Used by chapters 4b to 7, the chapter on why Transformers won, and chapter 10.
"""

from __future__ import annotations

import copy
import csv
import functools
import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import torch

from ..config import pick_device
from ..data import real
from ..data.subwords import SubwordBPE
from ..experiments import real_translation as rt
from ..experiments.language import loss_by_position, mean_loss
from . import trainer
from .recipes import RECIPES, Recipe

__all__ = ["FOLDER", "Checkpoint", "families", "load", "names"]

FOLDER = Path(__file__).parent
REBUILD = "run `make checkpoints` to rebuild it"
FILES = ("manifest.json", "weights.pt", "vocab.json", "log.csv")


def _fail(path, what: str) -> ValueError:
    return ValueError(f"checkpoint file {path}: {what}; {REBUILD}")


def _shipped(name: str) -> bool:
    return (FOLDER / name / "manifest.json").is_file()


def names(family: str | None = None) -> list[str]:
    """The shipped checkpoints (every recipe whose folder has a manifest), or those of one ``family``, smallest
    first (by parameter count in the recipe's order, which lists each family from small to large)."""
    if family is not None and family not in families():
        raise ValueError(f"family must be one of {families()}, got {family!r}")
    return [n for n, r in RECIPES.items() if (family is None or r.family == family) and _shipped(n)]


def families() -> list[str]:
    """Every family of :data:`~seqviz.checkpoints.recipes.RECIPES`, in order."""
    return list(dict.fromkeys(r.family for r in RECIPES.values()))


def _number(value: str):
    if value == "":
        return None
    try:
        as_float = float(value)
    except ValueError:
        return value
    return int(value) if value.lstrip("-").isdigit() else as_float


def _read_log(path: Path) -> list[dict]:
    try:
        with open(path, newline="", encoding="utf-8") as f:
            rows = [{k: (_number(v) if k != "sample" else v) for k, v in row.items()} for row in csv.DictReader(f)]
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        raise _fail(path, f"cannot be read ({error})") from None
    if not rows or "step" not in rows[0] or "valid_loss" not in rows[0]:
        raise _fail(path, "is not a training log (expected a CSV with step, ..., valid_loss columns)")
    return rows


def _read_json(path: Path) -> dict:
    if not path.is_file():
        raise _fail(path, "is missing")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise _fail(path, f"is not valid JSON ({error})") from None
    if not isinstance(data, dict):
        raise _fail(path, f"should hold a JSON object, holds a {type(data).__name__}")
    return data


def _check_manifest(folder: Path, manifest: dict, recipe: Recipe, vocab: dict) -> None:
    """The manifest against this code: the recipe's architecture, the vocabulary and the shipped data."""
    path = folder / "manifest.json"
    for key in ("name", "architecture", "vocab_sha256", "data", "final"):
        if key not in manifest:
            raise _fail(path, f"has no {key!r} entry")
    if manifest["name"] != recipe.name:
        raise _fail(path, f"belongs to {manifest['name']!r}, not {recipe.name!r}")
    shipped_hash = trainer.vocab_sha256(vocab)
    if manifest["vocab_sha256"] != shipped_hash:
        raise _fail(folder / "vocab.json", f"has vocabulary hash {shipped_hash[:12]}..., the manifest says "
                                           f"{str(manifest['vocab_sha256'])[:12]}...")
    if recipe.vocab["level"] in ("char", "word"):  # cheap to rebuild: the code's vocabulary must be the shipped one
        built_hash, built_size = _built_vocab(recipe.vocab["level"], recipe.vocab.get("min_count", 1),
                                              real.file_sha256(real.SOURCES["book"]["file"]))
        if built_hash != shipped_hash:
            raise _fail(folder / "vocab.json", f"differs from the vocabulary the code builds from "
                                               f"{manifest['data'].get('file')} ({built_size} tokens "
                                               f"against {len(vocab.get('itos', []))} shipped)")
    expected = trainer.architecture(recipe, vocab)
    if manifest["architecture"] != expected:
        got, want = manifest["architecture"], expected
        if got.get("class") != want["class"]:
            what = f"architecture class {got.get('class')!r}, the code's recipe builds {want['class']!r}"
        else:
            keys = sorted(set(got.get("kwargs", {})) | set(want["kwargs"]))
            diff = [f"{k}={got.get('kwargs', {}).get(k)!r} (code: {want['kwargs'].get(k)!r})" for k in keys
                    if got.get("kwargs", {}).get(k) != want["kwargs"].get(k)]
            what = f"architecture differs from the code's recipe: {', '.join(diff)}"
        raise _fail(path, what)
    data = manifest["data"]
    try:
        now = real.file_sha256(data.get("file"))
    except ValueError:
        raise _fail(path, f"names a data file {data.get('file')!r} the package does not ship") from None
    if data.get("sha256") != now:
        raise _fail(path, f"was trained on {data.get('file')} with hash {str(data.get('sha256'))[:12]}..., the "
                          f"shipped file's hash is {now[:12]}...")


@functools.lru_cache(maxsize=None)
def _built_vocab(level: str, min_count: int, data_sha256: str) -> tuple[str, int]:
    """(hash, size) of the vocabulary the code builds from the shipped novel (once per process and data file)."""
    recipe = next(r for r in RECIPES.values() if r.vocab.get("level") == level
                  and r.vocab.get("min_count", 1) == min_count)
    built = trainer.build_vocab(recipe)
    return trainer.vocab_sha256(built), len(built["itos"])


def _load_weights(folder: Path, model: torch.nn.Module) -> None:
    path = folder / "weights.pt"
    if not path.is_file():
        raise _fail(path, "is missing")
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as error:  # a truncated or foreign file: torch raises many kinds
        raise _fail(path, f"cannot be read as weights ({type(error).__name__}: {str(error)[:120]})") from None
    if not isinstance(state, dict) or not all(isinstance(v, torch.Tensor) for v in state.values()):
        raise _fail(path, "does not hold a dictionary of tensors")
    ours = {k: tuple(v.shape) for k, v in model.state_dict().items()}
    theirs = {k: tuple(v.shape) for k, v in state.items()}
    if ours != theirs:
        missing, extra = sorted(set(ours) - set(theirs)), sorted(set(theirs) - set(ours))
        shapes = [f"{k} {theirs[k]} (code: {ours[k]})" for k in sorted(set(ours) & set(theirs)) if ours[k] != theirs[k]]
        parts = ([f"lacks {', '.join(missing[:4])}"] if missing else []) + \
                ([f"has extra {', '.join(extra[:4])}"] if extra else []) + \
                ([f"has shapes {'; '.join(shapes[:4])}"] if shapes else [])
        raise _fail(path, "does not fit the model the code builds: it " + ", ".join(parts))
    if not all(torch.isfinite(v.float()).all() for v in state.values() if v.is_floating_point()):
        raise _fail(path, "holds values that are not finite")
    model.load_state_dict({k: v.float() if v.is_floating_point() else v for k, v in state.items()})


@dataclass
class Checkpoint:
    """A shipped long-run model (see :func:`load`).

    ``model`` (eval mode), ``vocab`` (a :class:`~seqviz.data.Vocab` for a language model; for a translator the
    pair ``(source, target)`` of piece vocabularies), ``manifest`` (dict), ``log`` (the rows of ``log.csv``,
    numbers as int/float, blank cells None), ``recipe``; ``translator`` (a translator's
    :class:`~seqviz.experiments.real_translation.RealTranslator`, words in and out) and ``bpe``
    (``(source, target)`` :class:`~seqviz.data.subwords.SubwordBPE`) or None.
    """

    name: str
    family: str
    model: torch.nn.Module
    vocab: object
    manifest: dict
    log: list[dict]
    recipe: Recipe
    vocab_data: dict = field(repr=False, default_factory=dict)
    translator: rt.RealTranslator | None = None
    bpe: tuple | None = None

    @property
    def task(self) -> str:
        return self.recipe.task

    @property
    def context(self) -> int | None:
        return self.recipe.context

    def ids(self, split: str = "valid", max_tokens: int | None = None) -> torch.Tensor:
        """A language model's split of *Moby-Dick* as ids (the first ``max_tokens`` + 1)."""
        self._need("charlm", "wordlm")
        ids = trainer.lm_ids(self.recipe, self.vocab_data, real._check_split(split))
        return ids if max_tokens is None else ids[: _positive("max_tokens", max_tokens) + 1]

    def pairs(self, split: str = "test") -> list:
        """A translator's split of the large Tatoeba slice, as word pairs."""
        self._need("translate")
        return trainer.translation_pairs(real._check_split(split))

    def evaluate(self, split: str = "valid", max_tokens: int | None = None, *, max_sentences: int | None = None,
                 beam_size: int = 1, length_penalty: float = 0.0) -> dict:
        """Re-evaluate the shipped weights now, on the shipped data's ``split``.

        A language model: ``{"loss" (nats per token), "ppl", "tokens"}`` over contiguous windows of its
        training context, each read from a blank state, on the first ``max_tokens`` tokens of the split (all
        of it by default; what the manifest's ``final`` reports). A translator: ``{"bleu", "exact",
        "sentences"}`` (corpus BLEU, sacrebleu 13a, every translation of an English sentence a reference) on
        the first ``max_sentences`` distinct English sentences, greedy or with a beam."""
        if self.task == "translate":
            if max_tokens is not None:
                raise ValueError("a translator is evaluated on sentences: use max_sentences=, not max_tokens=")
            result = self.translate(split, limit=max_sentences, beam_size=beam_size, length_penalty=length_penalty)
            return {"bleu": result.bleu(), "exact": result.exact_match(), "sentences": len(result)}
        if max_sentences is not None or beam_size != 1:
            raise ValueError("a language model is evaluated on tokens: use max_tokens=")
        ids = self.ids(split, max_tokens)
        if len(ids) < self.context + 1:
            raise ValueError(f"max_tokens must be at least the context, {self.context}, got {max_tokens}")
        loss = mean_loss(self.model, ids, self.context, batch_size=32)
        return {"loss": loss, "ppl": math.exp(loss), "tokens": (len(ids) - 1) // self.context * self.context}

    def initial_model(self) -> torch.nn.Module:
        """The model as it was before its first training step: the same code, the same seed (the baseline
        for what training taught it), in eval mode where this checkpoint's model is."""
        with torch.random.fork_rng(devices=[]):  # the caller's random numbers are left as they were
            torch.manual_seed(self.recipe.seed)  # what seed_everything did before the trainer built the model
            model = trainer.build_model(self.manifest["architecture"])
        return model.to(next(self.model.parameters()).device).eval()

    def loss_by_position(self, split: str = "valid", max_tokens: int | None = None) -> torch.Tensor:
        """A language model's mean loss at each position of its context window, (context,) float64."""
        ids = self.ids(split, max_tokens)
        return loss_by_position(self.model, ids, self.context, batch_size=32)

    def translate(self, split_or_pairs="test", **kwargs) -> rt.Translations:
        """A translator's :func:`~seqviz.experiments.real_translation.translate` of a split (of the large
        slice) or a list of word pairs."""
        self._need("translate")
        return rt.translate(self.translator, split_or_pairs, **kwargs)

    def _need(self, *tasks):
        if self.task not in tasks:
            raise ValueError(f"{self.name} is a {self.task} checkpoint; this needs one of {tasks}")


def _positive(name, value):
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive int or None, got {value!r}")
    return value


def load(name: str, device=None) -> Checkpoint:
    """The shipped checkpoint ``name`` (see :func:`names`), checked against this code, its model in eval mode on
    ``device`` (default :func:`~seqviz.config.pick_device`)."""
    if name not in RECIPES:
        raise ValueError(f"no checkpoint named {name!r}; the recipes are {list(RECIPES)}")
    device = torch.device(device) if device is not None else pick_device()
    return _load_cpu(name).to(device)


@functools.lru_cache(maxsize=None)
def _cached(name: str, stamp: tuple) -> Checkpoint:
    recipe, folder = RECIPES[name], FOLDER / name
    manifest = _read_json(folder / "manifest.json")
    vocab_data = _read_json(folder / "vocab.json")
    try:
        if recipe.task == "translate":
            vocab = (trainer.vocab_from_json(vocab_data["source"]), trainer.vocab_from_json(vocab_data["target"]))
            bpe = (SubwordBPE.from_dict(vocab_data["source"]), SubwordBPE.from_dict(vocab_data["target"]))
        else:
            vocab, bpe = trainer.vocab_from_json(vocab_data), None
    except (KeyError, TypeError, ValueError) as error:
        raise _fail(folder / "vocab.json", f"is not a vocabulary ({type(error).__name__}: {error})") from None
    _check_manifest(folder, manifest, recipe, vocab_data)
    model = trainer.build_model(manifest["architecture"])
    _load_weights(folder, model)
    model.eval()
    log = _read_log(folder / "log.csv")
    return Checkpoint(name, recipe.family, model, vocab, manifest, log, recipe, vocab_data, None, bpe)


def _load_cpu(name: str) -> "_Loaded":
    folder = FOLDER / name
    if not (folder / "manifest.json").is_file():
        raise _fail(folder / "manifest.json", "is missing (this checkpoint has not been built)")
    stamp = tuple((f, (folder / f).stat().st_mtime_ns, (folder / f).stat().st_size) if (folder / f).is_file()
                  else (f, None, None) for f in FILES)
    return _Loaded(_cached(name, stamp))


class _Loaded:
    """A cached CPU checkpoint, copied onto a device for each caller (chapters 5-7 load the same ones)."""

    def __init__(self, checkpoint: Checkpoint):
        self.checkpoint = checkpoint

    def to(self, device) -> Checkpoint:
        ck = self.checkpoint
        model = ck.model if device.type == "cpu" else _copy_to(ck.model, device)
        translator = None
        if ck.task == "translate":
            translator = trainer.translator_of(model, ck.vocab_data)
        return Checkpoint(ck.name, ck.family, model, ck.vocab, ck.manifest, ck.log, ck.recipe, ck.vocab_data,
                          translator, ck.bpe)


def _copy_to(model, device):
    return copy.deepcopy(model).to(device).eval()
