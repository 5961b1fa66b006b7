"""From-scratch models, each proven equal to its ``torch.nn`` counterpart by the tests."""

from .attention import AdditiveAttention, masked_softmax, padding_mask
from .bert import BertClassifier, BertMini, mlm_accuracy, nsp_accuracy, pretraining_loss
from .classifier import BagOfWords, CausalCNN, SequenceClassifier, last_step
from .gru import GRU
from .lstm import LSTM
from .mha import (LearnedPositionalEncoding, MultiHeadAttention, SinusoidalPositionalEncoding, causal_mask,
                  positional_encoding, scaled_dot_product_attention)
from .recurrent import RecurrentBase
from .rnn import RNN
from .seq2seq import Encoder, Seq2Seq, Tagger, reverse_padded, sequence_accuracy, sequence_loss, token_accuracy
from .transformer import TransformerDecoderLayer, TransformerEncoderLayer, TransformerSeq2Seq

__all__ = ["BagOfWords", "CausalCNN", "GRU", "LSTM", "RNN", "RecurrentBase", "SequenceClassifier", "last_step",
           # chapters 5-7
           "AdditiveAttention", "Encoder", "Seq2Seq", "Tagger", "masked_softmax", "padding_mask", "reverse_padded",
           "sequence_accuracy", "sequence_loss", "token_accuracy",
           # chapter 8
           "LearnedPositionalEncoding", "MultiHeadAttention", "SinusoidalPositionalEncoding",
           "TransformerDecoderLayer", "TransformerEncoderLayer", "TransformerSeq2Seq", "causal_mask",
           "positional_encoding", "scaled_dot_product_attention",
           # chapter 9
           "BertClassifier", "BertMini", "mlm_accuracy", "nsp_accuracy", "pretraining_loss"]

# TEMP re-exports (drop at merge): the models branch moves these definitions into seqviz.models
from ..choosing import KINDS, CausalTransformerEncoder, Forecaster, make_encoder  # noqa: E402
from ..compare import make_block  # noqa: E402
from ..streaming import GRULM, TransformerLM, cache_bytes  # noqa: E402
