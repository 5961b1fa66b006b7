"""activation_bytes: the one count of what a training step keeps for backward, checked by hand."""

import pytest
import torch
from torch import nn

from seqviz.memory import activation_bytes

F32 = 4  # bytes per float32


def test_linear_tanh_by_hand():
    # y = tanh(x W^T + b): backward needs x (for dW) and tanh's output (for tanh'); W itself is a parameter
    torch.manual_seed(0)
    layer, x = nn.Linear(3, 5), torch.randn(4, 3)
    assert activation_bytes(lambda: torch.tanh(layer(x)).sum()) == (4 * 3 + 4 * 5) * F32


def test_a_tensor_saved_twice_counts_once_and_parameters_never():
    # with x requiring grad, addmm also saves W^T (a view of a parameter): not counted
    torch.manual_seed(0)
    layer, x = nn.Linear(3, 5), torch.randn(4, 3)
    h = torch.randn(4, 5, requires_grad=True) * 1.0  # a non-leaf activation
    # h is saved by both multiplications: one storage
    assert activation_bytes(lambda: (h * h).sum() + torch.tanh(layer(x)).sum()) == (4 * 5 + 4 * 3 + 4 * 5) * F32


def test_rnn_by_hand_and_linear_in_length():
    # nn.RNN on a CPU: x (for dW_ih), h_0 ... h_T (tanh outputs and inputs of the next W_hh product)
    torch.manual_seed(0)
    B, I, H = 2, 3, 5
    rnn = nn.RNN(I, H, batch_first=True)
    for T in (1, 4, 9):
        x = torch.randn(B, T, I)
        expected = (B * T * I + (T + 1) * B * H) * F32
        assert activation_bytes(lambda: rnn(x)[0].sum()) == expected


def test_attention_weights_grow_with_the_square_of_the_length():
    x = torch.randn(2, 16, 8, requires_grad=True)  # a leaf that requires grad: not counted, like a weight
    small = activation_bytes(lambda: (x[:, :8] @ x[:, :8].transpose(1, 2)).softmax(-1).sum())
    big = activation_bytes(lambda: (x @ x.transpose(1, 2)).softmax(-1).sum())
    assert small == 2 * 8 * 8 * F32 and big == 2 * 16 * 16 * F32  # the softmax's output, (B, T, T)


def test_nothing_saved_without_grad_and_result_returned():
    layer, x = nn.Linear(3, 5), torch.randn(4, 3)
    with torch.no_grad():
        assert activation_bytes(lambda: layer(x)) == 0
    loss, nbytes = activation_bytes(lambda: torch.tanh(layer(x)).sum(), return_result=True)
    loss.backward()
    assert nbytes > 0 and layer.weight.grad is not None


def test_bad_input():
    with pytest.raises(ValueError, match="function"):
        activation_bytes(torch.randn(3))
