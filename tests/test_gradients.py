"""seqviz.gradients: step Jacobians and their products, slopes, clipping, truncated BPTT."""

import math

import pytest
import torch
from torch import nn

from seqviz.gradients import (
    activation_slope,
    bound_log_slope,
    clip_by_norm,
    clip_by_value,
    fit_log_slope,
    predicted_log_slope,
    product_norms,
    recurrent_matrix,
    rnn_step_jacobians,
    tbptt_cost,
)
from seqviz.measure import activation_bytes
from seqviz.models import RNN, TruncatedBPTT
from seqviz.trace import hidden_grad_norms


@pytest.mark.parametrize("nonlinearity", ["tanh", "relu", "linear"])
def test_step_jacobians_equal_autograd(nonlinearity):
    rnn = RNN(3, 5, nonlinearity=nonlinearity).double()
    x = torch.randn(2, 4, 3, dtype=torch.float64)
    jac, slopes = rnn_step_jacobians(rnn, x)
    assert jac.shape == (2, 4, 5, 5) and slopes.shape == (2, 4, 5)
    h = rnn(x)[0].detach()  # (B, T, H)
    w_ih, w_hh = rnn.weight_ih_l0.detach(), rnn.weight_hh_l0.detach()
    b = (rnn.bias_ih_l0 + rnn.bias_hh_l0).detach()
    act = {"tanh": torch.tanh, "relu": torch.relu, "linear": lambda z: z}[nonlinearity]
    for batch in range(2):
        for t in range(4):
            prev = h[batch, t - 1] if t else torch.zeros(5, dtype=torch.float64)
            step = lambda state: act(w_ih @ x[batch, t] + b + w_hh @ state)  # noqa: E731
            expected = torch.autograd.functional.jacobian(step, prev)  # (H, H): dh_t/dh_{t-1}
            torch.testing.assert_close(jac[batch, t], expected)


def test_product_norms_equal_the_explicit_products():
    jac = torch.randn(2, 6, 4, 4, dtype=torch.float64) * 0.6
    norms = product_norms(jac)
    assert norms.shape == (2, 6) and norms.dtype == torch.float64
    for t in range(6):
        product = torch.eye(4, dtype=torch.float64).expand(2, 4, 4)
        for s in range(5, t, -1):  # J_5 J_4 ... J_{t+1}
            product = product @ jac[:, s]
        torch.testing.assert_close(norms[:, t], torch.linalg.matrix_norm(product, ord=2))


def test_product_norms_survive_long_products():
    jac = (0.01 * torch.eye(3)).expand(1, 400, 3, 3)  # 0.01^399 = 1e-798 would underflow float64
    norms = product_norms(jac)
    assert norms[0, -1] == 1 and norms[0, -2] == pytest.approx(0.01)
    assert torch.isfinite(norms).all()


def test_fit_log_slope_recovers_a_geometric_rate_and_skips_zeros():
    steps_back = torch.arange(19, -1, -1, dtype=torch.float64)
    norms = 3.0 * 0.8**steps_back
    assert fit_log_slope(norms) == pytest.approx(math.log(0.8))
    norms[:4] = 0.0  # dead ReLU units can give exact zeros
    assert fit_log_slope(norms) == pytest.approx(math.log(0.8))
    assert math.isnan(fit_log_slope(torch.tensor([1.0])))


@pytest.mark.parametrize("kind", ["gaussian", "orthogonal"])
def test_recurrent_matrix_has_the_requested_spectral_radius(kind):
    w = recurrent_matrix(32, 0.9, kind=kind, seed=1)
    assert w.shape == (32, 32) and w.dtype == torch.float32
    assert torch.linalg.eigvals(w.double()).abs().max().item() == pytest.approx(0.9, rel=1e-5)
    singular = torch.linalg.svdvals(w.double())
    if kind == "orthogonal":
        torch.testing.assert_close(singular, torch.full((32,), 0.9, dtype=torch.float64), rtol=1e-5, atol=1e-5)
    else:
        assert singular[0] > 1.5 * 0.9  # a random matrix: sigma_max is about twice rho
    torch.testing.assert_close(w, recurrent_matrix(32, 0.9, kind=kind, seed=1))
    with pytest.raises(ValueError, match="kind"):
        recurrent_matrix(4, 1.0, kind="uniform")


def test_linear_rnn_slope_is_log_radius_and_never_beats_the_bound():
    H, T = 32, 80
    rnn = RNN(H, H, nonlinearity="linear").double()
    w = recurrent_matrix(H, 0.8, seed=0).double()
    with torch.no_grad():
        rnn.weight_hh_l0.copy_(w)
    x = torch.randn(4, T, H, dtype=torch.float64)
    norms = hidden_grad_norms(rnn, x, lambda out: out[:, -1].sum())
    _, slopes = rnn_step_jacobians(rnn, x)
    assert predicted_log_slope(w, slopes) == pytest.approx(math.log(0.8))
    assert fit_log_slope(norms, skip=20) == pytest.approx(math.log(0.8), abs=0.03)
    assert bound_log_slope(w, slopes) == pytest.approx(math.log(torch.linalg.matrix_norm(w, ord=2).item()))
    steps_back = torch.arange(T - 1, -1, -1, dtype=torch.float64)
    ceiling = norms[-1] * torch.exp(bound_log_slope(w, slopes) * steps_back)
    assert (norms <= ceiling * (1 + 1e-9)).all()


def test_activation_slope():
    h = torch.tensor([-0.5, 0.0, 0.5])
    torch.testing.assert_close(activation_slope("tanh", h), torch.tensor([0.75, 1.0, 0.75]))
    torch.testing.assert_close(activation_slope("relu", h), torch.tensor([0.0, 0.0, 1.0]))
    torch.testing.assert_close(activation_slope("linear", h), torch.ones(3))
    with pytest.raises(ValueError, match="nonlinearity"):
        activation_slope("sigmoid", h)


@pytest.mark.parametrize("scale,max_norm", [(10.0, 1.0), (0.01, 1.0), (1.0, 0.3)])
def test_clip_by_norm_equals_clip_grad_norm_(scale, max_norm):
    grads = [scale * torch.randn(4, 3), scale * torch.randn(4), scale * torch.randn(2, 2, 2)]
    params = [nn.Parameter(torch.zeros_like(g)) for g in grads]
    for p, g in zip(params, grads):
        p.grad = g.clone()
    total_torch = nn.utils.clip_grad_norm_(params, max_norm)
    originals = [g.clone() for g in grads]
    clipped, total = clip_by_norm(grads, max_norm)
    torch.testing.assert_close(total, total_torch)
    for mine, p in zip(clipped, params):
        torch.testing.assert_close(mine, p.grad, rtol=0, atol=1e-7)
    for g, o in zip(grads, originals):  # the inputs are not changed
        torch.testing.assert_close(g, o, rtol=0, atol=0)


def test_clip_by_value_equals_clip_grad_value_():
    grads = [torch.randn(5, 5) * 3, torch.randn(7)]
    params = [nn.Parameter(torch.zeros_like(g)) for g in grads]
    for p, g in zip(params, grads):
        p.grad = g.clone()
    nn.utils.clip_grad_value_(params, 0.5)
    for mine, p in zip(clip_by_value(grads, 0.5), params):
        torch.testing.assert_close(mine, p.grad, rtol=0, atol=0)
    with pytest.raises(ValueError, match="tensor"):
        clip_by_norm([], 1.0)


@pytest.mark.parametrize("builtin", [False, True])
def test_truncated_bptt_keeps_outputs_and_cuts_the_gradient(builtin):
    encoder = nn.RNN(3, 4, batch_first=True) if builtin else RNN(3, 4)
    x = torch.randn(2, 10, 3, requires_grad=True)
    truncated = TruncatedBPTT(encoder, window=4)
    out, state = truncated(x)
    full_out, full_state = encoder(x)
    torch.testing.assert_close(out, full_out)
    torch.testing.assert_close(state, full_state)
    out[:, -1].sum().backward()
    reached = x.grad.abs().sum(dim=(0, 2)) > 0  # (T,)
    assert reached.tolist() == [False] * 6 + [True] * 4
    x.grad = None
    out, _ = TruncatedBPTT(encoder, window=50)(x)  # a window longer than the sequence: full BPTT
    out[:, -1].sum().backward()
    assert (x.grad.abs().sum(dim=(0, 2)) > 0).all()
    with pytest.raises(ValueError, match="window"):
        TruncatedBPTT(encoder, window=0)
    with pytest.raises(ValueError, match="bidirectional"):
        TruncatedBPTT(RNN(3, 4, bidirectional=True), window=2)


def test_saved_bytes_grow_with_the_window():
    encoder = RNN(3, 8)
    x = torch.randn(4, 40, 3)
    sizes = []
    for window in (5, 10, 20, 40):
        nbytes = activation_bytes(lambda: TruncatedBPTT(encoder, window)(x)[0][:, -1].sum())
        sizes.append(nbytes)
    assert sizes[0] > 0 and sizes == sorted(sizes)
    per_step = (sizes[-1] - sizes[0]) / 35
    assert per_step == pytest.approx((sizes[1] - sizes[0]) / 5, rel=0.01)  # linear in the window
    with torch.no_grad(), pytest.raises(ValueError, match="no_grad"):   # a count of 0 would say nothing is kept
        activation_bytes(lambda: encoder(x))


def test_tbptt_cost_reports_time_and_memory():
    rnn = RNN(3, 8)
    x = torch.randn(4, 20, 3)
    cost = tbptt_cost(lambda: rnn(x)[0][:, -1].sum(), repeats=3)
    assert set(cost) == {"ms", "mb"} and cost["ms"] > 0 and cost["mb"] > 0
    assert rnn.weight_hh_l0.grad is not None
    with pytest.raises(ValueError, match="repeats"):
        tbptt_cost(lambda: rnn(x)[0].sum(), repeats=0)


def test_decay_figures_drop_what_a_log_axis_cannot_show():
    from seqviz.viz import decay_figure, decay_plot

    t = torch.arange(1, 6)
    norms = torch.tensor([0.0, 1e-3, float("nan"), 1e-1, 1.0])
    fig = decay_figure({"measured": (t, norms)}, {"predicted": (t, 0.5 ** (5 - t))}, y_range=(1e-4, 10))
    assert [tr.line.dash for tr in fig.data] == ["solid", "dash"] and fig.layout.yaxis.type == "log"
    assert math.isnan(fig.data[0].y[0]) and fig.data[0].y[1] == pytest.approx(1e-3)
    figure = decay_plot({"measured": (t, norms)}, {"predicted": (t, 0.5 ** (5 - t))})
    assert figure.axes[0].get_yscale() == "log" and len(figure.axes[0].lines) == 2
    with pytest.raises(ValueError, match="at least one"):
        decay_figure({})
    with pytest.raises(ValueError, match="y_range"):
        decay_figure({"m": (t, norms)}, y_range=(0, 1))
