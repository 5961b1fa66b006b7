"""From-scratch models, each proven equal to its ``torch.nn`` counterpart by the tests."""

from .classifier import BagOfWords, CausalCNN, SequenceClassifier, last_step
from .recurrent import RecurrentBase
from .rnn import RNN

__all__ = ["BagOfWords", "CausalCNN", "RNN", "RecurrentBase", "SequenceClassifier", "last_step"]
