"""Small synthetic tasks, generated on the fly (nothing downloads).

- :func:`who_did_it_task` (chapter 1, 2): "the dog bites the man" -> who bites? Word
  order is the only clue, so a bag of words cannot beat 50%.
- :func:`recall_task` (chapter 1): recall the symbol ``distance`` steps before the end;
  a model whose receptive field is shorter than the distance is at chance.
- :func:`agreement_task` (chapters 2-4, 10): "the keys that the man left near the
  cabinet ... are": the verb's number depends on a subject ``distance`` tokens back,
  with distractor nouns of the other number in between (Linzen et al., 2016).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import torch

from .tokenizers import Vocab, pad_batch

# --- who did it ------------------------------------------------------------------

ANIMALS = ("dog", "man", "cat", "woman", "child", "horse", "fox", "bird")
ACTIONS = ("bites", "chases", "sees", "follows", "feeds", "pushes")
PASSIVE = {"bites": "bitten", "chases": "chased", "sees": "seen", "follows": "followed", "feeds": "fed", "pushes": "pushed"}
ADJECTIVES = ("big", "small", "old", "young", "angry", "sleepy")


@dataclass
class Example:
    """One sentence with its label; ``info`` holds task-specific positions."""

    tokens: list[str]
    label: int
    info: dict


def who_did_it_task(n: int, passive: float = 0.0, adjectives: float = 0.0, seed: int = 0) -> list[Example]:
    """Sentences like "the dog bites the man"; the label is the index in ``ANIMALS`` of the doer.

    ``passive`` is the share written as "the man is bitten by the dog" (the doer comes
    last); ``adjectives`` the chance that a noun gets an adjective. Both nouns appear in
    every sentence, so a model that ignores order is at 50% at best.
    """
    _check_count(n)
    if not 0.0 <= passive <= 1.0 or not 0.0 <= adjectives <= 1.0:
        raise ValueError(f"passive and adjectives are probabilities in [0, 1], got {passive}, {adjectives}")
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        doer, target = rng.sample(ANIMALS, 2)
        verb = rng.choice(ACTIONS)

        def np_(noun):
            return ["the", rng.choice(ADJECTIVES), noun] if rng.random() < adjectives else ["the", noun]

        if rng.random() < passive:
            tokens = [*np_(target), "is", PASSIVE[verb], "by", *np_(doer)]
        else:
            tokens = [*np_(doer), verb, *np_(target)]
        out.append(Example(tokens, ANIMALS.index(doer), {"doer": doer, "target": target, "verb": verb}))
    return out


def who_did_it_vocab() -> Vocab:
    words = ["the", "is", "by", *ANIMALS, *ACTIONS, *PASSIVE.values(), *ADJECTIVES]
    return Vocab(words, unknown="unk")


# --- recall -----------------------------------------------------------------------


def recall_task(n: int, length: int, distance: int, num_symbols: int = 8, seed: int = 0):
    """Random symbol strings ``x`` (n, length) and labels ``y = x[:, length - 1 - distance]``.

    ``distance`` 0 asks for the last symbol. Chance accuracy is ``1 / num_symbols``.
    """
    _check_count(n)
    if length < 1 or not 0 <= distance < length:
        raise ValueError(f"need length >= 1 and 0 <= distance < length, got length={length}, distance={distance}")
    if num_symbols < 2:
        raise ValueError(f"num_symbols must be >= 2, got {num_symbols}")
    g = torch.Generator().manual_seed(seed)
    x = torch.randint(num_symbols, (n, length), generator=g)  # (n, T)
    return x, x[:, length - 1 - distance].clone()


# --- long-range agreement ---------------------------------------------------------

NOUNS = (
    ("key", "keys"), ("book", "books"), ("dog", "dogs"), ("cabinet", "cabinets"), ("table", "tables"),
    ("man", "men"), ("child", "children"), ("box", "boxes"), ("letter", "letters"), ("painting", "paintings"),
    ("chair", "chairs"), ("teacher", "teachers"), ("car", "cars"), ("window", "windows"), ("bottle", "bottles"),
    ("lamp", "lamps"), ("door", "doors"), ("friend", "friends"), ("student", "students"), ("author", "authors"),
)
PREPOSITIONS = ("near", "on", "under", "behind", "beside", "by", "with", "from")
DETERMINERS = ("the", "my", "our", "his", "her", "their")
FILLER_ADJECTIVES = ("old", "red", "small", "heavy", "wooden", "new", "dusty", "broken")
PAST_VERBS = ("left", "saw", "liked", "found", "moved", "painted")
VERBS = ("is", "are")  # label 0 = singular ("is"), 1 = plural ("are")


def agreement_task(n: int, distance: int, attractors: str = "random", seed: int = 0) -> list[Example]:
    """Sentences "the keys <distance tokens> ..." whose label is the verb's number (0 is, 1 are).

    The input stops just before the verb: ``tokens`` is "det subject filler", and
    ``info["verb"]`` is the missing verb. The filler is exactly ``distance`` tokens of
    prepositional phrases ("near the old cabinet") and relative clauses ("that the man
    left"), whose nouns are distractors: each has a random number (``attractors="random"``,
    the default, so about half disagree with the subject) or always the other number
    (``"opposite"``). Half the subjects are plural.

    Why random is the default: with ``"opposite"`` every filler noun has the other number,
    so the nearest noun gives the answer away (flip its number) and a model never needs to
    remember the subject; chapter 3 measured a vanilla RNN at 100% at any distance that
    way. With random distractors the subject is the only reliable clue.
    """
    _check_count(n)
    if not isinstance(distance, int) or distance < 0:
        raise ValueError(f"distance must be an int >= 0, got {distance!r}")
    if attractors not in ("opposite", "random"):
        raise ValueError(f"attractors must be 'opposite' or 'random', got {attractors!r}")
    rng = random.Random(f"{seed}-{distance}-{attractors}")
    out = []
    for i in range(n):
        plural = i % 2
        subject = rng.choice(NOUNS)[plural]
        filler = _filler(distance, plural, attractors, rng)
        tokens = [rng.choice(DETERMINERS), subject, *filler]
        out.append(Example(tokens, plural, {"subject_index": 1, "verb": VERBS[plural], "distance": distance}))
    rng.shuffle(out)
    return out


def agreement_vocab() -> Vocab:
    """One vocabulary for every distance, so a model trained at one distance reads all."""
    words = [*DETERMINERS, *(w for pair in NOUNS for w in pair), *PREPOSITIONS, *FILLER_ADJECTIVES, *PAST_VERBS,
             "that", "here", "there", "over", "right", *VERBS]
    return Vocab(words, unknown="unk")


def _filler(length: int, subject_plural: int, attractors: str, rng: random.Random) -> list[str]:
    if length == 0:
        return []
    if length == 1:
        return [rng.choice(("here", "there"))]
    if length == 2:
        return rng.choice((["over", "there"], ["right", "here"]))
    parts, left = [], length  # split into phrases of 3, 4 or 5 tokens
    while left:
        size = left if left <= 5 else rng.choice([s for s in (3, 4, 5) if left - s not in (1, 2)])
        parts.append(size)
        left -= size
    words = []
    for size in parts:
        plural = 1 - subject_plural if attractors == "opposite" else rng.randrange(2)
        noun = rng.choice(NOUNS)[plural]
        if size == 4 and rng.random() < 0.3:  # a relative clause: "that the man left"
            words += ["that", rng.choice(DETERMINERS), noun, rng.choice(PAST_VERBS)]
        else:  # a prepositional phrase: "near the old cabinet"
            adjectives = [rng.choice(FILLER_ADJECTIVES) for _ in range(size - 3)]
            words += [rng.choice(PREPOSITIONS), rng.choice(DETERMINERS), *adjectives, noun]
    assert len(words) == length, (length, words)
    return words


# --- tensors ----------------------------------------------------------------------


def to_tensors(examples: list[Example], vocab: Vocab):
    """Encode examples as ``(ids (N, T), lengths (N,), labels (N,))``, right-padded."""
    if not examples:
        raise ValueError("to_tensors got no examples")
    ids, lengths = pad_batch([vocab.encode(e.tokens) for e in examples], vocab.pad_id)
    return ids, lengths, torch.as_tensor([e.label for e in examples], dtype=torch.long)


def _check_count(n):
    if not isinstance(n, int) or n < 1:
        raise ValueError(f"n must be a positive int (number of examples), got {n!r}")
