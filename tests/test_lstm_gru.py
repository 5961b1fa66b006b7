"""The from-scratch LSTM and GRU equal torch.nn.LSTM / nn.GRU: outputs, final states and every gradient.

Both paths are tested: the plain loop (``fused=False``, the reference a reader follows) and the fused
fast path (the default), whose loops over time have hand-written backward passes; so these tests also
pin the gradients through the trace (gates, cell states) and the initial state, in float64 with gradcheck,
and the fused path against the plain loop directly.
"""

import pytest
import torch
from torch import nn
from torch.func import functional_call

from seqviz.models import GRU, LSTM
from seqviz.trace import hidden_grad_norms

OURS = {"LSTM": LSTM, "GRU": GRU}
REFS = {"LSTM": nn.LSTM, "GRU": nn.GRU}
GATES = {"LSTM": ("forget", "input", "output"), "GRU": ("update", "reset")}
I, H = 4, 5  # input size, hidden size


def pair(kind, num_layers=1, bidirectional=False, bias=True, dropout=0.0, dtype=torch.float32, fused=True):
    ref = REFS[kind](I, H, num_layers=num_layers, bias=bias, dropout=dropout, bidirectional=bidirectional,
                     batch_first=True).to(dtype)
    ours = OURS[kind](I, H, num_layers=num_layers, bias=bias, dropout=dropout,
                      bidirectional=bidirectional, fused=fused).to(dtype).copy_from(ref)
    return ours, ref


def random_state(kind, num_layers, bidirectional, batch, dtype=torch.float32):
    shape = (num_layers * (2 if bidirectional else 1), batch, H)
    if kind == "LSTM":
        return torch.randn(shape, dtype=dtype), torch.randn(shape, dtype=dtype)
    return torch.randn(shape, dtype=dtype)


def as_tuple(state):
    return state if isinstance(state, tuple) else (state,)


def close(a, b):
    torch.testing.assert_close(a, b, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
@pytest.mark.parametrize("num_layers", [1, 2, 3])
@pytest.mark.parametrize("bidirectional", [False, True])
@pytest.mark.parametrize("batch,time", [(3, 6), (1, 4), (2, 1)])  # batch 1; T = 1
@pytest.mark.parametrize("with_state", [False, True])
@pytest.mark.parametrize("fused", [True, False])
def test_matches_torch_outputs_states_and_gradients(kind, num_layers, bidirectional, batch, time, with_state, fused):
    ours, ref = pair(kind, num_layers, bidirectional, fused=fused)
    x = torch.randn(batch, time, I)
    state = random_state(kind, num_layers, bidirectional, batch) if with_state else None
    runs = []
    for model in (ours, ref):
        xi = x.clone().requires_grad_()
        si = tuple(s.clone().requires_grad_() for s in as_tuple(state)) if with_state else None
        out, final = model(xi, si if si is None or kind == "LSTM" else si[0])
        runs.append((xi, si, out, as_tuple(final)))
    (x1, s1, out1, fin1), (x2, s2, out2, fin2) = runs
    close(out1, out2)
    for a, b in zip(fin1, fin2):  # h_n (and c_n)
        close(a, b)
    weights = torch.randn_like(out1)
    for out, fin in ((out1, fin1), (out2, fin2)):  # a loss that reaches the outputs and every final state
        ((out * weights).sum() + sum(f.pow(2).sum() for f in fin)).backward()
    close(x1.grad, x2.grad)
    if with_state:
        for a, b in zip(s1, s2):
            close(a.grad, b.grad)
    ref_params = dict(ref.named_parameters())
    for name, param in ours.named_parameters():
        assert param.grad is not None, name
        close(param.grad, ref_params[name].grad)


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
@pytest.mark.parametrize("fused", [True, False])
def test_without_bias(kind, fused):
    ours, ref = pair(kind, num_layers=2, bias=False, fused=fused)
    x = torch.randn(2, 4, I, requires_grad=True)
    close(ours(x)[0], ref(x)[0])
    g1 = torch.autograd.grad(ours(x)[0].sum(), [x, ours.weight_hh_l1])
    g2 = torch.autograd.grad(ref(x)[0].sum(), [x, ref.weight_hh_l1])
    for a, b in zip(g1, g2):
        close(a, b)


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
@pytest.mark.parametrize("bidirectional", [False, True])
@pytest.mark.parametrize("with_trace", [False, True])
@pytest.mark.parametrize("fused", [True, False])
def test_gradcheck_float64(kind, bidirectional, with_trace, fused):
    """Every input (x, initial state, each parameter) against every output; with_trace adds the trace."""
    hidden = 3
    model = OURS[kind](3, hidden, num_layers=2, bidirectional=bidirectional, fused=fused).double()
    names = [n for n, _ in model.named_parameters()]
    x = torch.randn(2, 3, 3, dtype=torch.float64, requires_grad=True)
    shape = (2 * (2 if bidirectional else 1), 2, hidden)
    state = [(0.5 * torch.randn(shape, dtype=torch.float64)).requires_grad_() for _ in model.state_names]
    params = [p.detach().clone().requires_grad_() for p in model.parameters()]

    def f(x, *rest):
        st, ps = rest[: len(state)], rest[len(state):]
        out, final, *trace = functional_call(model, dict(zip(names, ps)), (x, st if kind == "LSTM" else st[0]),
                                             {"return_trace": with_trace})
        trace = list(trace[0].values()) if with_trace else []  # every trace entry carries gradients too
        return (out, *as_tuple(final), *trace)

    # fast mode (random projections of the Jacobian) keeps the many trace outputs cheap
    assert torch.autograd.gradcheck(f, (x, *state, *params), eps=1e-6, atol=1e-5, fast_mode=with_trace)


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
@pytest.mark.parametrize("bidirectional", [False, True])
def test_fused_path_equals_the_plain_loop(kind, bidirectional):
    """Outputs, final states, every trace entry and every gradient, with a loss that reaches the trace."""
    plain = OURS[kind](I, H, num_layers=2, bidirectional=bidirectional, fused=False)
    fused = OURS[kind](I, H, num_layers=2, bidirectional=bidirectional)
    fused.load_state_dict(plain.state_dict())
    x = torch.randn(3, 7, I)
    runs = []
    for model in (plain, fused):
        xi = x.clone().requires_grad_()
        out, final, trace = model(xi, return_trace=True)
        loss = out.pow(2).sum() + sum(f.sum() for f in as_tuple(final)) + sum(v.mean() for v in trace.values())
        loss.backward()
        runs.append((out, as_tuple(final), trace, xi.grad, [p.grad for p in model.parameters()]))
    (out1, fin1, tr1, gx1, gp1), (out2, fin2, tr2, gx2, gp2) = runs
    close(out1, out2)
    for a, b in zip(fin1, fin2):
        close(a, b)
    assert tr1.keys() == tr2.keys()
    for name in tr1:
        close(tr1[name], tr2[name])
    close(gx1, gx2)
    for a, b in zip(gp1, gp2):
        close(a, b)


def test_only_the_plain_loop_has_second_derivatives():
    x = torch.randn(2, 4, I, dtype=torch.float64, requires_grad=True)
    model = LSTM(I, H, fused=False).double()
    assert torch.autograd.gradgradcheck(lambda x: model(x)[0], (x,))
    model.fused = True
    with pytest.raises(RuntimeError):
        torch.autograd.gradgradcheck(lambda x: model(x)[0], (x,))


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_gates_are_in_range(kind):
    model = OURS[kind](I, H, num_layers=2, bidirectional=True)
    _, _, trace = model(3 * torch.randn(2, 7, I), return_trace=True)
    for name in GATES[kind]:
        assert trace[name].min() >= 0 and trace[name].max() <= 1, name
    assert trace["candidate"].min() >= -1 and trace["candidate"].max() <= 1
    assert trace["candidate"].min() < 0 < trace["candidate"].max()  # both signs occur: not squashed twice


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
@pytest.mark.parametrize("num_layers,bidirectional", [(1, False), (2, True), (3, False)])
def test_trace_layout_and_no_effect_on_outputs(kind, num_layers, bidirectional):
    model = OURS[kind](I, H, num_layers=num_layers, bidirectional=bidirectional)
    x = torch.randn(2, 6, I)
    out, final = model(x)
    out_t, final_t, trace = model(x, return_trace=True)
    assert torch.equal(out, out_t)
    for a, b in zip(as_tuple(final), as_tuple(final_t)):
        assert torch.equal(a, b)
    D = 2 if bidirectional else 1
    assert set(trace) == set(model.trace_names)
    for name, value in trace.items():
        assert value.shape == (num_layers * D, 2, 6, H), name
    top = trace["h"][-D:]  # (D, B, T, H): the top layer, forward then backward
    close(torch.cat(list(top), dim=-1), out)
    h_n = as_tuple(final)[0]
    close(trace["h"][0::D, :, -1], h_n[0::D])  # forward directions end at the last step ...
    if bidirectional:
        close(trace["h"][1::D, :, 0], h_n[1::D])  # ... backward ones at the first
    if kind == "LSTM":
        c_n = final[1]
        close(trace["c"][0::D, :, -1], c_n[0::D])
        if bidirectional:
            close(trace["c"][1::D, :, 0], c_n[1::D])


def test_lstm_cell_state_follows_the_equations():
    model = LSTM(I, H)
    _, _, tr = model(torch.randn(2, 5, I), return_trace=True)
    c_prev = torch.cat([torch.zeros_like(tr["c"][:, :, :1]), tr["c"][:, :, :-1]], dim=2)
    close(tr["c"], tr["forget"] * c_prev + tr["input"] * tr["candidate"])
    close(tr["h"], tr["output"] * torch.tanh(tr["c"]))


def test_gru_update_gate_near_one_keeps_the_state():
    model = GRU(I, H)
    with torch.no_grad():
        model.bias_ih_l0[H : 2 * H] = 50.0  # z = sigmoid(50 + ...) = 1: keep the old state
    h0 = torch.randn(1, 2, H)
    out, h_n, tr = model(torch.randn(2, 4, I), h0, return_trace=True)
    assert tr["update"].min() > 0.999
    close(h_n, h0)
    close(tr["h"][0], tr["update"][0] * torch.cat([h0[0].unsqueeze(1), out[:, :-1]], 1)
          + (1 - tr["update"][0]) * tr["candidate"][0])


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_to_builtin_round_trip(kind):
    ours = OURS[kind](I, H, num_layers=2, bidirectional=True)
    ref = ours.to_builtin()
    assert isinstance(ref, REFS[kind]) and ref.batch_first
    x = torch.randn(3, 5, I)
    close(ours(x)[0], ref(x)[0])
    for a, b in zip(as_tuple(ours(x)[1]), as_tuple(ref(x)[1])):
        close(a, b)


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_dropout_between_layers_only_in_training(kind):
    ours, ref = pair(kind, num_layers=2, dropout=0.5)
    x = torch.randn(3, 5, I)
    ours.eval(), ref.eval()
    close(ours(x)[0], ref(x)[0])
    no_dropout = OURS[kind](I, H, num_layers=2).copy_from(REFS[kind](I, H, num_layers=2, batch_first=True))
    no_dropout.load_state_dict(ours.state_dict())
    close(ours(x)[0], no_dropout(x)[0])  # eval: no effect at all
    ours.train()
    assert not torch.allclose(ours(x)[0], ours(x)[0])  # train: a new mask each call


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_hidden_grad_norms_work_through_the_custom_backward(kind):
    model = OURS[kind](I, H, num_layers=2).eval()
    x = torch.randn(2, 6, I)
    norms = hidden_grad_norms(model, x, lambda out: out[:, -1].sum())
    assert norms.shape == (6,) and torch.isfinite(norms).all() and norms[-1] > 0
    # the total derivative at the last step is just the direct one: d sum(h_T) / d h_T = 1
    close(norms[-1], torch.tensor(float(2 * H)) ** 0.5)


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
@pytest.mark.parametrize("bad,pattern", [
    (lambda: torch.randn(5, I), r"\(batch, time, 4\).*got \(5, 4\)"),  # 2-D
    (lambda: torch.randn(2, 5, I + 1), r"input size 4.*got 5"),
    (lambda: torch.randn(2, 0, I), r"empty.*\(2, 0, 4\)"),
    (lambda: torch.randint(0, 3, (2, 5, I)), r"floating-point.*got torch.int64"),
    (lambda: torch.randn(2, 5, I, dtype=torch.float64), r"torch.float32 weights but x is torch.float64"),
])
def test_bad_input_is_a_clear_value_error(kind, bad, pattern):
    with pytest.raises(ValueError, match=pattern):
        OURS[kind](I, H)(bad())


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_bad_state_is_a_clear_value_error(kind):
    model = OURS[kind](I, H, num_layers=2)
    x = torch.randn(3, 4, I)
    wrong = torch.randn(2, 2, H)  # batch 2 instead of 3
    state = (wrong, torch.randn(2, 3, H)) if kind == "LSTM" else wrong
    with pytest.raises(ValueError, match=r"\(2, 3, 5\).*got \(2, 2, 5\)"):
        model(x, state)
    if kind == "LSTM":
        with pytest.raises(ValueError, match=r"2 tensor\(s\).*got 1"):
            model(x, torch.randn(2, 3, H))  # h without c


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_copy_from_mismatch_is_a_value_error(kind):
    model = OURS[kind](I, H)
    with pytest.raises(ValueError, match=r"hidden_size is 5 here but 6"):
        model.copy_from(REFS[kind](I, 6, batch_first=True))
    other = nn.GRU if kind == "LSTM" else nn.LSTM
    with pytest.raises(ValueError, match=rf"expects a torch.nn.{kind}, got {other.__name__}"):
        model.copy_from(other(I, H, batch_first=True))


def test_lstm_rejects_proj_size():
    with pytest.raises(ValueError, match=r"proj_size=0.*proj_size=3"):
        LSTM(I, H).copy_from(nn.LSTM(I, H, proj_size=3, batch_first=True))


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_steps_equal_forward_and_give_one_node_per_step(kind):
    model = OURS[kind](I, H, num_layers=2, bidirectional=True).eval()
    x = torch.randn(2, 5, I)
    out, hs = model.steps(x)
    close(out, model(x)[0])
    assert len(hs) == 2 and len(hs[0]) == 5 and hs[1][0].shape == (2, H)
    close(hs[1][0], model(x)[0][:, 0, H:])  # the backward direction's h at position 0


def test_one_table_of_cells_builds_both_kinds():
    from seqviz.models import CELLS, make_recurrent as recurrent, seqviz_twin

    assert {k: c.builtin for k, c in CELLS.items()} == {"rnn": nn.RNN, "gru": nn.GRU, "lstm": nn.LSTM}
    built = recurrent("LSTM", I, H, num_layers=2)
    assert isinstance(built, nn.LSTM) and built.batch_first and built.num_layers == 2
    assert isinstance(recurrent("gru", I, H, builtin=False), GRU)
    twin = seqviz_twin(built)
    x = torch.randn(2, 3, I)
    close(twin(x)[0], built(x)[0])
    with pytest.raises(ValueError, match="cell must be one of"):
        recurrent("cnn", I, H)
