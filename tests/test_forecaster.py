"""Chapter 10's forecasting pieces: the time series, the causal Transformer encoder and the Forecaster (the runners
that train them: test_experiments_rows.py)."""

import pytest
import torch

from seqviz.data import forecast_windows, sine_series
from seqviz.models import KINDS, CausalTransformerEncoder, Forecaster, make_encoder


def test_sine_series_is_deterministic_and_shifts():
    a, b = sine_series(4, 100, seed=3), sine_series(4, 100, seed=3)
    assert a.shape == (4, 100) and torch.equal(a, b)
    assert not torch.equal(a, sine_series(4, 100, seed=4))
    calm = sine_series(50, 200, noise=0.0, shift=False, seed=0)
    shifted = sine_series(50, 200, noise=0.0, shift=True, seed=0)
    assert shifted[:, -40:].abs().max() > calm[:, -40:].abs().max()  # amplitude 1.5 after the shift
    with pytest.raises(ValueError, match="length"):
        sine_series(2, 0)


def test_forecast_windows_line_up():
    series = torch.arange(20.0).reshape(2, 10)
    x, y = forecast_windows(series, 4, horizon=2, stride=3)
    assert x.shape == (4, 4, 1) and y.shape == (4, 2)
    torch.testing.assert_close(x[0, :, 0], torch.tensor([0.0, 1, 2, 3]))
    torch.testing.assert_close(y[0], torch.tensor([4.0, 5]))
    with pytest.raises(ValueError, match="length"):
        forecast_windows(series, 9, horizon=2)


def test_causal_encoder_hides_the_future_and_fits_the_recurrent_interface():
    torch.manual_seed(0)
    enc = CausalTransformerEncoder(3, 8, num_heads=2, max_len=16).eval()
    x = torch.randn(2, 6, 3)
    out, _ = enc(x)
    assert out.shape == (2, 6, 8) and enc.hidden_size == 8
    y = x.clone()
    y[:, -1] += 1.0
    torch.testing.assert_close(enc(y)[0][:, :-1], out[:, :-1])
    with pytest.raises(ValueError, match="expected x"):
        enc(torch.randn(2, 6, 4))


@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_forecasts(kind):
    torch.manual_seed(0)
    model = Forecaster(kind, hidden_size=8, horizon=2)
    assert model(torch.randn(5, 12, 1)).shape == (5, 2)
    assert model.rollout(torch.randn(12), 3).shape == (3,)
    assert make_encoder(kind, 4, 8)(torch.randn(2, 5, 4))[0].shape == (2, 5, 8)
    with pytest.raises(ValueError, match="kind"):
        make_encoder("CNN", 4, 8)
