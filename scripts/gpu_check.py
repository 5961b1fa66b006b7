"""Run every model in ``seqviz.models`` forward and backward on a GPU under autocast.

Prints, per model, the time of one forward+backward step and the throughput in
tokens per second; on CUDA (or with ``--compare-cpu``) also the same step on the CPU in
float32 and the ratio CPU time / device time per model. Without a GPU it says so and exits 0. ``--device cpu`` runs the
same code path on the CPU (bfloat16 autocast), which the tests use.

Usage: ``python scripts/gpu_check.py [--device cuda|mps|cpu] [--quick] [--compare-cpu]``
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch  # noqa: E402
from torch import nn  # noqa: E402

import seqviz as sv  # noqa: E402
from seqviz import models  # noqa: E402


def factories(batch: int, length: int, width: int) -> dict:
    """name -> (model class, build(), make_inputs(device)) for every model in seqviz.models."""
    vocab = 100

    def dense(device):
        return (torch.randn(batch, length, width, device=device),)

    def ids(device):
        return (torch.randint(4, vocab, (batch, length), device=device),)

    table = {
        "RNN": (models.RNN, lambda: models.RNN(width, width, num_layers=2, bidirectional=True), dense),
        "SequenceClassifier": (models.SequenceClassifier,
                               lambda: models.SequenceClassifier(vocab, width, models.RNN(width, width), 2), ids),
        "BagOfWords": (models.BagOfWords, lambda: models.BagOfWords(vocab, width, 2), ids),
        "CausalCNN": (models.CausalCNN, lambda: models.CausalCNN(vocab, width, width, 3, 4, 2), ids),
        "WindowMLP": (models.WindowMLP, lambda: models.WindowMLP(vocab, width, length, width, 2), ids),
        # chapters 5-7: bidirectional tagger, encoder-decoder with and without Bahdanau attention
        "Encoder": (models.Encoder, lambda: models.Encoder(vocab, width, width, bidirectional=True), ids),
        "Tagger": (models.Tagger, lambda: models.Tagger(vocab, width, width, num_tags=5), ids),
        "AdditiveAttention": (models.AdditiveAttention, lambda: models.AdditiveAttention(width, width, width),
                              lambda device: (torch.randn(batch, width, device=device),
                                              torch.randn(batch, length, width, device=device))),
        "Seq2Seq": (models.Seq2Seq, lambda: models.Seq2Seq(vocab, vocab, width, width, attention=True,
                                                           teacher_forcing=0.5),
                    lambda device: (*ids(device), torch.full((batch,), length, device=device),
                                    torch.randint(4, vocab, (batch, max(2, length // 4)), device=device))),
    }
    # chapter 8: attention, positional encodings, Transformer layers and the small encoder-decoder
    table.update({
        "MultiHeadAttention": (models.MultiHeadAttention, lambda: models.MultiHeadAttention(width, 4),
                               lambda device: (dense(device)[0],) * 3),
        "SinusoidalPositionalEncoding": (models.SinusoidalPositionalEncoding,
                                         lambda: nn.Sequential(nn.Linear(width, width),
                                                               models.SinusoidalPositionalEncoding(length, width)),
                                         dense),
        "LearnedPositionalEncoding": (models.LearnedPositionalEncoding,
                                      lambda: models.LearnedPositionalEncoding(length, width), dense),
        "TransformerEncoderLayer": (models.TransformerEncoderLayer,
                                    lambda: models.TransformerEncoderLayer(width, 4, 2 * width), dense),
        "TransformerDecoderLayer": (models.TransformerDecoderLayer,
                                    lambda: models.TransformerDecoderLayer(width, 4, 2 * width, norm_first=True),
                                    lambda device: (dense(device)[0], dense(device)[0])),
        "TransformerSeq2Seq": (models.TransformerSeq2Seq,
                               lambda: models.TransformerSeq2Seq(vocab, vocab, width, 4, max_len=length + 1),
                               lambda device: (*ids(device), torch.full((batch,), length, device=device),
                                               torch.randint(4, vocab, (batch, max(2, length // 4)), device=device))),
    })
    # chapter 9: a tiny BERT (token ids, segment ids, padding mask) and a classifier on top of it
    def bert_inputs(device):
        mask = torch.ones(batch, length, dtype=torch.bool, device=device)
        mask[0, length // 2 + 1:] = False  # one padded sequence
        return (*ids(device), torch.randint(0, 2, (batch, length), device=device), mask)

    table.update({
        "BertMini": (models.BertMini, lambda: models.BertMini(vocab, width, 2, 4, max_len=length), bert_inputs),
        "BertClassifier": (models.BertClassifier,
                           lambda: models.BertClassifier(models.BertMini(vocab, width, 2, 4, max_len=length), 3),
                           bert_inputs),
    })
    for cls in (models.LSTM, models.GRU):  # chapter 4: the fused fast path by default
        table[cls.__name__] = (cls, lambda cls=cls: cls(width, width, num_layers=2, bidirectional=True), dense)
    # chapter 3: truncated BPTT; chapter 10: the decoder-only Transformer, the forecaster, the language models
    table.update({
        "TruncatedBPTT": (models.TruncatedBPTT,
                          lambda: models.TruncatedBPTT(models.LSTM(width, width), window=max(1, length // 2)), dense),
        "CausalTransformerEncoder": (models.CausalTransformerEncoder,
                                     lambda: models.CausalTransformerEncoder(width, width, 4, 2, max_len=length),
                                     dense),
        "Forecaster": (models.Forecaster, lambda: models.Forecaster("Transformer", width, 2, max_len=length),
                       lambda device: (torch.randn(batch, length, 1, device=device),)),
        "TransformerLM": (models.TransformerLM,
                          lambda: models.TransformerLM(vocab, width, 4, 2, 2 * width, max_len=length), ids),
        "GRULM": (models.GRULM, lambda: models.GRULM(vocab, width), ids),
    })
    # chapter 9b: the Llama-style decoder (RMSNorm, rotary positions, grouped-query attention, SwiGLU); width % 4 == 0
    table["LlamaDecoder"] = (models.LlamaDecoder, lambda: models.LlamaDecoder(models.DecoderConfig(
        vocab, width, 2 * width, num_layers=2, num_heads=2, num_kv_heads=1, max_len=max(8, length))), ids)
    return table


def model_classes() -> set[str]:
    """Every nn.Module class exported by seqviz.models (the check must cover them all)."""
    return {name for name in models.__all__
            if isinstance(getattr(models, name), type) and issubclass(getattr(models, name), nn.Module)
            and name != "RecurrentBase"}


def time_step(model, inputs, device, dtype, repeats, autocast=True):
    def step():
        with torch.autocast(device.type, dtype=dtype, enabled=autocast):
            out = model(*inputs)
            out = out[0] if isinstance(out, tuple) else out
            out = out["hidden"] if isinstance(out, dict) else out  # BertMini returns a dict
            loss = out.float().pow(2).mean()
        loss.backward()
        return loss

    step()  # warm-up
    if device.type == "cuda":
        torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(repeats):
        loss = step()
    if device.type == "cuda":
        torch.cuda.synchronize()
    return (time.perf_counter() - start) / repeats, loss.item()


def cpu_has_bf16() -> bool:
    """Whether oneDNN can run bfloat16 kernels on this CPU (False where the query itself is missing)."""
    try:
        return bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())
    except (AttributeError, RuntimeError):
        return False


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", default=None, help="cuda (default when present), mps or cpu")
    parser.add_argument("--quick", action="store_true", help="tiny sizes and one repeat")
    parser.add_argument("--compare-cpu", action=argparse.BooleanOptionalAction, default=None,
                        help="also time each model on the CPU (float32) and print CPU time / device time "
                             "(default: on for cuda)")
    args = parser.parse_args(argv)
    if args.device is None and not torch.cuda.is_available():
        print("No CUDA GPU found: nothing to check here (use --device cpu to run the same code on the CPU).")
        return 0
    device = sv.pick_device(args.device or "cuda")
    dtype = torch.bfloat16 if device.type == "cpu" else torch.float16
    # oneDNN's bfloat16 kernels (nn.LSTM's among them) need a CPU with bf16 instructions; without them
    # PyTorch raises "could not create a primitive descriptor", so such a CPU runs the check in float32.
    use_autocast = device.type != "cpu" or cpu_has_bf16()
    batch, length, width, repeats = (4, 12, 16, 1) if args.quick else (64, 256, 256, 10)
    name_hw = torch.cuda.get_device_name(device) if device.type == "cuda" else device.type
    mode = f"autocast {dtype}" if use_autocast else "float32 (this CPU has no bfloat16 support: autocast off)"
    print(f"device: {name_hw}; torch {torch.__version__}; {mode}; B={batch} T={length} width={width}")
    compare = device.type == "cuda" if args.compare_cpu is None else args.compare_cpu
    cpu_repeats = max(1, repeats // 5)  # the CPU is much slower at these sizes
    if compare:
        print("| model | ms per forward+backward | tokens/s | loss finite | CPU ms (float32) | CPU / device |\n"
              "|---|---|---|---|---|---|")
    else:
        print("| model | ms per forward+backward | tokens/s | loss finite |\n|---|---|---|---|")
    table = factories(batch, length, width)
    missing = model_classes() - set(table)
    if missing:
        print(f"models without a check: {sorted(missing)}")
        return 1
    failures = 0
    for name, (_, build, make_inputs) in table.items():
        sv.seed_everything(0)
        model = build().to(device)
        seconds, loss = time_step(model, make_inputs(device), device, dtype, repeats, autocast=use_autocast)
        finite = bool(torch.isfinite(torch.tensor(loss)))
        failures += not finite
        row = f"| {name} | {seconds * 1e3:.2f} | {batch * length / seconds:,.0f} | {finite} |"
        if compare:  # the same model, weights and inputs, on the CPU without autocast
            cpu = torch.device("cpu")
            cpu_seconds, _ = time_step(model.to(cpu).float(), [t.to(cpu) for t in make_inputs(device)], cpu,
                                       torch.float32, cpu_repeats, autocast=False)
            row += f" {cpu_seconds * 1e3:.2f} | {cpu_seconds / seconds:.1f}x |"
        print(row)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
