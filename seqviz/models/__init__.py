"""Every ``nn.Module`` of the book, from scratch, each proven equal to its ``torch.nn`` counterpart by the tests.

Recurrent (chapters 2-4): ``recurrent`` (RecurrentBase), ``rnn``, ``lstm``, ``gru`` (plain loops), ``_fused``
(their fast path), ``cells`` (the table of cells), ``tbptt``; classifiers (chapters 1-4): ``classifier``;
encoder-decoders (5-7): ``attention``, ``seq2seq``; Transformers (8-10): ``mha``, ``transformer``, ``lm``
(the decoder-only Transformer and the language models), ``bert``; by name (8, 10): ``encoders``, ``forecast``;
the Llama-style decoder of a real pretrained model (9b): ``llama``.
"""

from .attention import AdditiveAttention, masked_softmax, padding_mask
from .bert import BertClassifier, BertMini, mlm_accuracy, nsp_accuracy, pretraining_loss
from .cells import CELLS, make_recurrent, seqviz_twin
from .classifier import BagOfWords, CausalCNN, SequenceClassifier, WindowMLP, last_step
from .encoders import KINDS, make_block, make_encoder
from .forecast import Forecaster
from .gru import GRU
from .llama import DecoderConfig, LlamaDecoder
from .lm import GRULM, CausalTransformerEncoder, TransformerLM, cache_bytes
from .lstm import LSTM
from .mha import (LearnedPositionalEncoding, MultiHeadAttention, SinusoidalPositionalEncoding, causal_mask,
                  positional_encoding, scaled_dot_product_attention)
from .recurrent import RecurrentBase
from .rnn import RNN
from .seq2seq import Encoder, Seq2Seq, Tagger, reverse_padded, sequence_accuracy, sequence_loss, token_accuracy
from .tbptt import TruncatedBPTT
from .transformer import TransformerDecoderLayer, TransformerEncoderLayer, TransformerSeq2Seq

__all__ = ["BagOfWords", "CELLS", "CausalCNN", "GRU", "LSTM", "RNN", "RecurrentBase", "SequenceClassifier",
           "TruncatedBPTT", "WindowMLP", "last_step", "make_recurrent", "seqviz_twin",
           # chapters 5-7
           "AdditiveAttention", "Encoder", "Seq2Seq", "Tagger", "masked_softmax", "padding_mask", "reverse_padded",
           "sequence_accuracy", "sequence_loss", "token_accuracy",
           # chapter 8
           "LearnedPositionalEncoding", "MultiHeadAttention", "SinusoidalPositionalEncoding",
           "TransformerDecoderLayer", "TransformerEncoderLayer", "TransformerSeq2Seq", "causal_mask",
           "make_block", "positional_encoding", "scaled_dot_product_attention",
           # chapter 9
           "BertClassifier", "BertMini", "mlm_accuracy", "nsp_accuracy", "pretraining_loss",
           # chapter 9b
           "DecoderConfig", "LlamaDecoder",
           # chapter 10
           "CausalTransformerEncoder", "Forecaster", "GRULM", "KINDS", "TransformerLM", "cache_bytes",
           "make_encoder"]
