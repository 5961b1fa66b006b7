"""hidden_grads / hidden_grad_norms: the total derivative dL/dh_t of the top layer.

The reference is an independent unrolled computation with torch's built-in modules: for
each step t, run the top layer up to t, restart it from a fresh leaf h_t (the cell state,
if any, held fixed), run the rest, and differentiate the loss with respect to that leaf.
"""

import pytest
import torch
from torch import nn

from seqviz.models import CELLS, RNN
from seqviz.trace import as_seqviz, hidden_grad_norms, hidden_grads

KINDS = ["RNN", "LSTM", "GRU"]


def make_pair(kind, num_layers, bidirectional, input_size=3, hidden_size=4):
    ref = getattr(nn, kind)(input_size, hidden_size, num_layers=num_layers, bidirectional=bidirectional,
                            batch_first=True).double()
    ours = CELLS[kind.lower()](input_size, hidden_size, num_layers=num_layers, bidirectional=bidirectional)
    return ours.double().copy_from(ref), ref


def single_layer(ref, layer, suffix, input_size):
    """A one-layer, one-direction built-in module holding ``ref``'s weights of one layer/direction."""
    cell = type(ref)(input_size, ref.hidden_size, batch_first=True).double()
    with torch.no_grad():
        for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
            getattr(cell, f"{name}_l0").copy_(getattr(ref, f"{name}_l{layer}{suffix}"))
    return cell


def reference_grads(ref, x, loss_fn):
    """(T, B, D*H): dL/dh_t of the top layer, one restart per step."""
    B, T, _ = x.shape
    D = 2 if ref.bidirectional else 1
    top = ref.num_layers - 1
    layer_input = x
    if top:
        lower = type(ref)(ref.input_size, ref.hidden_size, num_layers=top, bidirectional=ref.bidirectional,
                          batch_first=True).double()
        lower.load_state_dict({k: v for k, v in ref.state_dict().items() if int(k.split("_l")[1][0]) < top})
        layer_input = lower(x)[0].detach()
    size = layer_input.shape[-1]
    cells = [single_layer(ref, top, suffix, size) for suffix in ("", "_reverse")[:D]]
    seqs = [layer_input, layer_input.flip(1)]  # reading order of each direction
    full = [cell(seqs[d])[0].detach() for d, cell in enumerate(cells)]  # (B, T, H) in reading order
    is_lstm = isinstance(ref, nn.LSTM)
    grads = torch.zeros(T, B, D * ref.hidden_size, dtype=x.dtype)
    for d, cell in enumerate(cells):
        for s in range(T):  # s: position in reading order
            prefix, state = cell(seqs[d][:, : s + 1])
            h = state[0][0] if is_lstm else state[0]  # (B, H)
            h = h.detach().requires_grad_()
            parts = [prefix[:, :s].detach(), h.unsqueeze(1)]
            if s + 1 < T:
                restart = (h.unsqueeze(0), state[1].detach()) if is_lstm else h.unsqueeze(0)
                parts.append(cell(seqs[d][:, s + 1 :], restart)[0])
            mine = torch.cat(parts, dim=1)  # (B, T, H), reading order
            outs = [mine if e == d else full[e] for e in range(D)]
            outs = [o if e == 0 else o.flip(1) for e, o in enumerate(outs)]  # back to input order
            (g,) = torch.autograd.grad(loss_fn(torch.cat(outs, dim=-1)), h)
            t = s if d == 0 else T - 1 - s
            grads[t, :, d * ref.hidden_size : (d + 1) * ref.hidden_size] = g
    return grads


def a_loss(B, T, width):
    weights = torch.randn(B, T, width, dtype=torch.float64)
    return lambda out: (out * weights).sum() + 0.3 * (out[:, -1] ** 2).sum()  # every step, and nonlinear


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("num_layers,bidirectional", [(1, False), (2, False), (1, True), (2, True)])
def test_matches_an_independent_unrolled_computation(kind, num_layers, bidirectional):
    ours, ref = make_pair(kind, num_layers, bidirectional)
    B, T = 2, 5
    x = torch.randn(B, T, 3, dtype=torch.float64)
    loss_fn = a_loss(B, T, ours.hidden_size * (2 if bidirectional else 1))
    expected = reference_grads(ref, x, loss_fn)
    got = hidden_grads(ours, x, loss_fn)
    torch.testing.assert_close(got, expected, rtol=1e-9, atol=1e-10)
    norms = hidden_grad_norms(ours, x, loss_fn)
    torch.testing.assert_close(norms, torch.linalg.vector_norm(expected.flatten(1), dim=1))
    torch.testing.assert_close(hidden_grads(ref, x, loss_fn), expected, rtol=1e-9, atol=1e-10)  # built-in, copied


@pytest.mark.parametrize("T", [1, 2, 7, 30])
def test_linear_rnn_follows_powers_of_the_transposed_recurrent_matrix(T):
    # h_t = W_ih x_t + b + W_hh h_{t-1}; with the loss at the last step only, g = dL/dh_{T-1} and
    # dL/dh_t = (W_hh^T)^(T-1-t) g  (0-based t; T-1-t steps back, none at the last step).
    H, B = 5, 3
    rnn = RNN(2, H, nonlinearity="linear").double()
    with torch.no_grad():
        rnn.weight_hh_l0.copy_(torch.randn(H, H, dtype=torch.float64) / H**0.5 * 1.2)
    x = torch.randn(B, T, 2, dtype=torch.float64)
    g = torch.randn(B, H, dtype=torch.float64)
    norms = hidden_grad_norms(rnn, x, lambda out: (out[:, -1] * g).sum())
    w_t = rnn.weight_hh_l0.detach().T
    expected = torch.stack([
        torch.linalg.vector_norm((torch.linalg.matrix_power(w_t, T - 1 - t) @ g.T).T) for t in range(T)])
    torch.testing.assert_close(norms, expected, rtol=1e-10, atol=1e-12)
    assert norms[-1].item() == pytest.approx(torch.linalg.vector_norm(g).item())


def test_tanh_gradients_vanish_geometrically_with_a_small_recurrent_matrix():
    rnn = RNN(4, 16)
    with torch.no_grad():
        rnn.weight_hh_l0.mul_(0.5)
    norms = hidden_grad_norms(rnn, torch.randn(4, 40, 4), lambda out: out[:, -1].sum())
    assert norms.shape == (40,)
    assert norms[0] < 1e-6 * norms[-1]
    assert (norms[:-1] < norms[1:] * 1.0001).float().mean() > 0.9  # mostly increasing towards the loss


def test_leaves_the_model_and_its_gradients_untouched():
    rnn = RNN(3, 4, num_layers=2)
    x = torch.randn(2, 6, 3)
    before = rnn(x)[0].detach()
    hidden_grad_norms(rnn, x, lambda out: out.sum())
    assert all(p.grad is None for p in rnn.parameters())
    torch.testing.assert_close(rnn(x)[0], before)
    assert not hasattr(rnn, "_trace") and set(vars(rnn)) == set(vars(RNN(3, 4, num_layers=2)))


def test_torch_modules_are_copied_and_clear_errors():
    ref = nn.RNN(3, 4, nonlinearity="relu", batch_first=True)
    ours = as_seqviz(ref)
    assert isinstance(ours, RNN) and ours.nonlinearity == "relu"
    x = torch.randn(2, 5, 3)
    torch.testing.assert_close(ours(x)[0], ref(x)[0])
    with pytest.raises(ValueError, match="batch_first=True"):
        hidden_grad_norms(nn.RNN(3, 4), x, lambda out: out.sum())
    with pytest.raises(ValueError, match="recurrent model"):
        hidden_grad_norms(nn.Linear(3, 4), x, lambda out: out.sum())
    with pytest.raises(ValueError, match="scalar"):
        hidden_grad_norms(ours, x, lambda out: out[:, -1])
    with pytest.raises(ValueError, match=r"\(batch, time, 3\)"):
        hidden_grad_norms(ours, x[0], lambda out: out.sum())
    dropout = RNN(3, 4, num_layers=2, dropout=0.5)
    with pytest.raises(ValueError, match="eval"):
        hidden_grad_norms(dropout, x, lambda out: out.sum())
    assert hidden_grad_norms(dropout.eval(), x, lambda out: out.sum()).shape == (5,)
