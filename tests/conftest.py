import pytest
import torch

import seqviz as sv

# Unit tests use tiny tensors, for which one thread is fastest and immune to a busy machine.
torch.set_num_threads(1)


@pytest.fixture(autouse=True)
def _seed():
    sv.seed_everything(0)
    yield
