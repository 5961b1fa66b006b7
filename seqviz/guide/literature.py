"""What the field has published about the situations this book does not measure: large data, GPUs, long training,
inputs of thousands of tokens, models the book does not build. Each :data:`FINDINGS` entry is one result, in our
words, with its citation (the key of ``book/references.bib``); :func:`literature_evidence` turns them into
:class:`~seqviz.guide.regimes.Evidence` whose regime is "from the literature". The guide answers such situations
from these, never from a short CPU run. Used by chapter 10.
"""

from __future__ import annotations

from dataclasses import dataclass

from .regimes import LITERATURE, Evidence

__all__ = ["FINDINGS", "Finding", "literature_evidence"]


@dataclass(frozen=True)
class Finding:
    """One published result: ``cite`` as the text names it, ``key`` its entry in ``book/references.bib``, ``claim``
    what it found, in one sentence."""

    cite: str
    key: str
    claim: str


FINDINGS: dict[str, Finding] = {
    "translation": Finding(
        "Vaswani et al. (2017)", "vaswani2017attention",
        "on the WMT 2014 English-German and English-French benchmarks the Transformer translated better than the best "
        "recurrent and convolutional systems, for a fraction of their training cost on GPUs"),
    "tuned_rnn_translation": Finding(
        "Chen et al. (2018)", "chen2018best",
        "a recurrent translator given the Transformer's training recipe (multi-head attention, layer normalisation, "
        "label smoothing, large synchronous batches) matched the Transformer's quality: much of the gap was the recipe"),
    "parallel": Finding(
        "Vaswani et al. (2017)", "vaswani2017attention",
        "a self-attention layer needs a constant number of sequential operations, a recurrent layer one per "
        "position, so on parallel hardware attention trains far faster per token"),
    "scaling": Finding(
        "Kaplan et al. (2020)", "kaplan2020scaling",
        "trained on billions of tokens, Transformer language models pulled ahead of LSTMs as both grew, because "
        "they kept using their context where an LSTM's gains stopped after about the first hundred tokens"),
    "tuned_lstm": Finding(
        "Melis et al. (2018)", "melis2018state",
        "on small language-modelling benchmarks, standard LSTMs with carefully tuned hyper-parameters beat more recent "
        "architectures: at that scale tuning moved the results more than the architecture did"),
    "lstm_context": Finding(
        "Khandelwal et al. (2018)", "khandelwal2018sharp",
        "LSTM language models used about the last 200 tokens of their context, and the order of the words only "
        "within the last 50 or so"),
    "bert": Finding(
        "Devlin et al. (2019)", "devlin2019bert",
        "a Transformer encoder pretrained on unlabelled text, then fine-tuned, set the state of the art on eleven "
        "language-understanding tasks, several with only a few thousand labelled examples"),
    "roberta": Finding(
        "Liu et al. (2019)", "liu2019roberta",
        "pretraining the same encoder longer, on more text, improved it further on GLUE, SQuAD and RACE"),
    "ulmfit": Finding(
        "Howard and Ruder (2018)", "howard2018universal",
        "an LSTM language model pretrained and then fine-tuned on 100 labelled examples matched a model trained from "
        "scratch on 100 times as many: pretraining pays with few labels whatever the architecture"),
    "crf": Finding(
        "Lample et al. (2016)", "lample2016neural",
        "a bidirectional LSTM with a CRF output layer reached the state of the art in named-entity recognition "
        "without hand-built features"),
    "pretrained_seq2seq": Finding(
        "Lewis et al. (2020); Raffel et al. (2020)", "lewis2020bart",
        "pretrained Transformer encoder-decoders (BART, T5), fine-tuned, led summarisation, translation and "
        "question-answering benchmarks"),
    "decoder_only": Finding(
        "Radford et al. (2019)", "radford2019gpt2",
        "a decoder-only Transformer language model trained on a large web corpus performed many generation tasks "
        "with no task-specific training"),
    "sparse_attention": Finding(
        "Beltagy et al. (2020); Zaheer et al. (2020); Kitaev et al. (2020)", "beltagy2020longformer",
        "windowed, sparse or hashed attention (Longformer, BigBird, Reformer) cuts attention's n^2 cost to about n "
        "(n log n for Reformer), which made inputs of thousands of tokens practical"),
    "recurrent_at_scale": Finding(
        "Gu and Dao (2023); Peng et al. (2023)", "gu2023mamba",
        "recurrent models designed to train in parallel (Mamba, a state-space model; RWKV) matched Transformers of "
        "the same size in language modelling, at billions of parameters, with a constant cost per generated token"),
    "kv_cache": Finding(
        "Pope et al. (2022)", "pope2022inference",
        "serving a large Transformer decoder, the key/value cache, which grows with the context and the batch, "
        "takes much of the memory and of the memory traffic"),
    "forecast_linear": Finding(
        "Zeng et al. (2023)", "zeng2023transformers",
        "on the standard long-horizon forecasting benchmarks a one-layer linear model beat the Transformers built for "
        "them (Informer, Autoformer and others)"),
    "forecast_transformers": Finding(
        "Zhou et al. (2021); Wu et al. (2021)", "zhou2021informer",
        "Transformers built for long-horizon forecasting (Informer, Autoformer) beat LSTM-based forecasters on "
        "those benchmarks"),
    "gru_lstm": Finding(
        "Chung et al. (2014); Jozefowicz et al. (2015)", "chung2014empirical",
        "GRU and LSTM were about as good as each other on music, speech and text, both far better than a plain RNN; "
        "over thousands of variants the GRU beat the LSTM on most tasks but not in language modelling"),
    "lstm_variants": Finding(
        "Greff et al. (2017)", "greff2017lstm",
        "none of eight LSTM variants, the GRU-like coupled gates among them, was significantly better than the "
        "standard LSTM"),
    "lstm_counting": Finding(
        "Weiss et al. (2018)", "weiss2018practical",
        "in finite precision an LSTM can count, and so recognise patterns such as n a's followed by n b's, where a "
        "GRU cannot"),
    "length_generalisation": Finding(
        "Press et al. (2022); Delétang et al. (2023)", "press2022train",
        "Transformers with sinusoidal positions degrade on inputs longer than those they were trained on, and on "
        "many formal tasks LSTMs generalised to longer inputs where Transformers did not"),
    "warmup": Finding(
        "Popel and Bojar (2018); Xiong et al. (2020)", "popel2018training",
        "the Transformer's training is sensitive to its learning rate and warm-up; the original post-LN block needs "
        "the warm-up, the pre-LN block much less"),
    "distillation": Finding(
        "Sanh et al. (2019); Jiao et al. (2020)", "sanh2019distilbert",
        "a distilled BERT kept 97% of its language-understanding score with 40% fewer parameters, running 60% "
        "faster; TinyBERT went smaller still"),
    "compression": Finding(
        "Han et al. (2016)", "han2016deep",
        "pruning and quantisation cut the storage of image networks 35 to 49 times without losing accuracy"),
}


def literature_evidence() -> dict:
    """Every finding as ``{"lit:<name>": Evidence}`` with regime "from the literature" (``value`` None: nothing
    here is measured by this book)."""
    return {f"lit:{name}": Evidence(None, f.claim, f.cite, regime=LITERATURE, cite=(f.cite,))
            for name, f in FINDINGS.items()}
