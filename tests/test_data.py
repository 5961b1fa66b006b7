"""Vocabularies, padding and the synthetic tasks."""

from collections import Counter

import pytest
import torch

from seqviz.data import (
    Vocab, agreement_task, agreement_vocab, pad_batch, recall_task,
    to_tensors, who_did_it_task, who_did_it_vocab,
)
from seqviz.data.tasks import ANIMALS, NOUNS


def test_vocab_round_trip_and_specials_first():
    vocab = Vocab(["b", "a", "b"])
    assert vocab.itos[:4] == ["<pad>", "<unk>", "<bos>", "<eos>"] and len(vocab) == 6
    assert vocab.decode(vocab.encode(["a", "b"])) == ["a", "b"]
    assert vocab.pad_id == 0


def test_unknown_tokens_are_an_error_or_unk():
    with pytest.raises(ValueError, match="unknown token 'Dog'.*did you mean 'dog'"):
        Vocab(["dog"]).encode(["Dog"])
    assert Vocab(["dog"], unknown="unk").encode(["cat"]) == [1]
    with pytest.raises(ValueError, match="outside the vocabulary"):
        Vocab(["dog"]).decode([99])


def test_pad_batch_and_errors():
    ids, lengths = pad_batch([[5, 6, 7], [8]], pad_id=0)
    assert ids.tolist() == [[5, 6, 7], [8, 0, 0]] and lengths.tolist() == [3, 1]
    with pytest.raises(ValueError, match="empty"):
        pad_batch([[1], []])
    with pytest.raises(ValueError, match="no sequences"):
        pad_batch([])


def test_who_did_it_labels_the_doer_in_both_voices():
    for example in who_did_it_task(200, passive=0.5, adjectives=0.5, seed=1):
        doer = ANIMALS[example.label]
        if "by" in example.tokens:  # passive: the doer comes after "by"
            assert example.tokens[-1] == doer
        else:
            assert doer in example.tokens[: example.tokens.index(example.info["verb"])]
    assert set(who_did_it_vocab().encode(["the", "dog", "bites"])) .isdisjoint({1})


def test_recall_task_labels_and_errors():
    x, y = recall_task(50, length=9, distance=3, num_symbols=5, seed=2)
    assert x.shape == (50, 9) and torch.equal(y, x[:, 5]) and int(x.max()) < 5
    with pytest.raises(ValueError, match="distance < length"):
        recall_task(5, length=3, distance=3)


@pytest.mark.parametrize("distance", [0, 1, 2, 3, 4, 5, 7, 10, 23])
def test_agreement_distance_labels_and_attractors(distance):
    examples = agreement_task(300, distance, attractors="opposite", seed=3)
    singular = {s for s, _ in NOUNS}
    plural = {p for _, p in NOUNS}
    labels = Counter(e.label for e in examples)
    assert labels[0] == labels[1] == 150  # balanced
    for e in examples:
        assert len(e.tokens) == 2 + distance  # determiner, subject, exactly `distance` filler tokens
        subject = e.tokens[1]
        assert (subject in plural) == bool(e.label)
        filler_nouns = [t for t in e.tokens[2:] if t in singular | plural]
        assert all((t in plural) != bool(e.label) for t in filler_nouns)  # attractors: the other number
    if distance >= 3:
        assert all(any(t in singular | plural for t in e.tokens[2:]) for e in examples)
    vocab = agreement_vocab()
    ids, lengths, labels_t = to_tensors(examples, vocab)
    assert ids.shape == (300, 2 + distance) and (ids != vocab.stoi["<unk>"]).all()


def test_random_attractors_leave_the_subject_as_the_only_clue():
    singular = {s for s, _ in NOUNS}
    plural = {p for _, p in NOUNS}
    examples = agreement_task(2000, 8, seed=6)  # the default: attractors="random"
    last_nouns = [[t for t in e.tokens[2:] if t in singular | plural][-1] for e in examples]
    agree = sum((noun in plural) == bool(e.label) for noun, e in zip(last_nouns, examples)) / len(examples)
    assert 0.45 < agree < 0.55, agree  # the nearest noun says nothing about the verb


def test_agreement_is_deterministic_and_validates():
    a = [e.tokens for e in agreement_task(20, 6, seed=4)]
    assert a == [e.tokens for e in agreement_task(20, 6, seed=4)]
    assert a != [e.tokens for e in agreement_task(20, 6, seed=5)]
    with pytest.raises(ValueError, match="distance"):
        agreement_task(10, -1)
    with pytest.raises(ValueError, match="attractors"):
        agreement_task(10, 3, attractors="none")
    with pytest.raises(ValueError, match="positive int"):
        agreement_task(0, 3)
