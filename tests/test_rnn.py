"""The from-scratch RNN equals torch.nn.RNN: outputs, final states and every gradient."""

import pytest
import torch
from torch import nn

from seqviz.models import RNN

CONFIGS = [  # (num_layers, bidirectional, batch, time, nonlinearity)
    (1, False, 3, 5, "tanh"),
    (2, False, 2, 4, "relu"),
    (3, False, 2, 3, "tanh"),
    (1, True, 2, 5, "tanh"),
    (2, True, 3, 4, "relu"),
    (3, True, 1, 3, "tanh"),
    (1, False, 1, 1, "tanh"),  # batch 1, T = 1
    (2, True, 1, 1, "relu"),
]


def pair(num_layers, bidirectional, nonlinearity, input_size=4, hidden_size=6, bias=True):
    ref = nn.RNN(input_size, hidden_size, num_layers=num_layers, nonlinearity=nonlinearity, bias=bias,
                 bidirectional=bidirectional, batch_first=True)
    ours = RNN(input_size, hidden_size, num_layers=num_layers, nonlinearity=nonlinearity, bias=bias,
               bidirectional=bidirectional).copy_from(ref)
    return ours, ref


@pytest.mark.parametrize("num_layers,bidirectional,batch,time,nonlinearity", CONFIGS)
def test_matches_torch_outputs_states_and_gradients(num_layers, bidirectional, batch, time, nonlinearity):
    ours, ref = pair(num_layers, bidirectional, nonlinearity)
    x = torch.randn(batch, time, 4)
    h0 = torch.randn(num_layers * (2 if bidirectional else 1), batch, 6)
    x1, x2 = x.clone().requires_grad_(), x.clone().requires_grad_()
    out1, h1 = ours(x1, h0)
    out2, h2 = ref(x2, h0)
    torch.testing.assert_close(out1, out2, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(h1, h2, atol=1e-5, rtol=1e-5)
    weights = torch.randn_like(out1)
    ((out1 * weights).sum() + h1.pow(2).sum()).backward()
    ((out2 * weights).sum() + h2.pow(2).sum()).backward()
    torch.testing.assert_close(x1.grad, x2.grad, atol=1e-5, rtol=1e-5)
    ref_params = dict(ref.named_parameters())
    for name, param in ours.named_parameters():
        torch.testing.assert_close(param.grad, ref_params[name].grad, atol=1e-5, rtol=1e-5, msg=name)


def test_without_bias_and_default_state():
    ours, ref = pair(2, True, "tanh", bias=False)
    x = torch.randn(2, 3, 4)
    torch.testing.assert_close(ours(x)[0], ref(x)[0], atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("nonlinearity", ["tanh", "relu", "linear"])
def test_gradcheck_float64(nonlinearity):
    model = RNN(3, 4, num_layers=2, nonlinearity=nonlinearity, bidirectional=True).double()
    x = torch.randn(2, 3, 3, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda inp: model(inp)[0], (x,), eps=1e-6, atol=1e-5)


def test_linear_rnn_is_matrix_power():
    model = RNN(2, 3, nonlinearity="linear", bias=False)
    x = torch.zeros(1, 4, 2)
    x[0, 0] = torch.tensor([1.0, -2.0])
    out, _ = model(x)
    w_ih, w_hh = model.weight_ih_l0, model.weight_hh_l0
    expected = torch.linalg.matrix_power(w_hh, 3) @ (w_ih @ x[0, 0])
    torch.testing.assert_close(out[0, -1], expected, atol=1e-6, rtol=1e-5)


def test_trace_leaves_outputs_unchanged_and_has_the_documented_layout():
    model = RNN(4, 5, num_layers=2, bidirectional=True)
    x = torch.randn(3, 6, 4)
    out, h = model(x)
    out_t, h_t, trace = model(x, return_trace=True)
    assert torch.equal(out, out_t) and torch.equal(h, h_t)
    assert set(trace) == {"h"} and trace["h"].shape == (4, 3, 6, 5)
    torch.testing.assert_close(trace["h"][2], out[..., :5])  # layer 1 forward = top output, first half
    torch.testing.assert_close(trace["h"][3], out[..., 5:])  # layer 1 backward, time in input order
    torch.testing.assert_close(trace["h"][1][:, 0], h[1])  # layer 0 backward ends at t = 0


def test_same_seed_same_numbers():
    import seqviz as sv

    def run():
        sv.seed_everything(123)
        model = RNN(3, 4)
        return model(torch.randn(2, 5, 3))[0]

    assert torch.equal(run(), run())
    sv.seed_everything(124)
    assert not torch.equal(run(), RNN(3, 4)(torch.randn(2, 5, 3))[0])


def test_dropout_between_layers_only_in_training():
    model = RNN(3, 4, num_layers=2, dropout=0.5)
    x = torch.randn(2, 5, 3)
    model.eval()
    assert torch.equal(model(x)[0], model(x)[0])
    model.train()
    assert not torch.equal(model(x)[0], model(x)[0])


def test_to_builtin_round_trip():
    model = RNN(3, 4, num_layers=2, bidirectional=True, nonlinearity="relu")
    x = torch.randn(2, 5, 3)
    torch.testing.assert_close(model(x)[0], model.to_builtin()(x)[0], atol=1e-5, rtol=1e-5)
    with pytest.raises(ValueError, match="linear"):
        RNN(3, 4, nonlinearity="linear").to_builtin()


@pytest.mark.parametrize("bad,pattern", [
    (torch.randn(5, 3), r"\(batch, time, 3\).*got \(5, 3\)"),
    (torch.randn(2, 5, 7), r"input size 3.*got 7"),
    (torch.randn(2, 0, 3), r"empty"),
    (torch.randint(0, 3, (2, 5, 3)), r"floating-point"),
    (torch.randn(2, 5, 3, dtype=torch.float64), r"float32.*float64"),
    ([[1.0, 2.0, 3.0]], r"torch.Tensor"),
])
def test_bad_input_is_a_clear_value_error(bad, pattern):
    with pytest.raises(ValueError, match=pattern):
        RNN(3, 4)(bad)


def test_bad_state_and_constructor_arguments():
    model = RNN(3, 4, num_layers=2)
    with pytest.raises(ValueError, match=r"\(2, 1, 4\).*got \(1, 1, 4\)"):
        model(torch.randn(1, 2, 3), torch.zeros(1, 1, 4))
    with pytest.raises(ValueError, match="nonlinearity"):
        RNN(3, 4, nonlinearity="sigmoid")
    with pytest.raises(ValueError, match="hidden_size"):
        RNN(3, 0)
    with pytest.raises(ValueError, match="hidden_size is 4 here but 5"):
        RNN(3, 4).copy_from(nn.RNN(3, 5, batch_first=True))
    with pytest.raises(ValueError, match="torch.nn.RNN.*got LSTM"):
        RNN(3, 4).copy_from(nn.LSTM(3, 4, batch_first=True))
    with pytest.raises(ValueError, match="nonlinearity"):
        RNN(3, 4, nonlinearity="relu").copy_from(nn.RNN(3, 4, batch_first=True))
