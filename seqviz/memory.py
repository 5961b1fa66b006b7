"""TEMP (drop at merge): gradients.py still imports activation_bytes from here; it lives in seqviz.measure."""
from .measure import activation_bytes  # noqa: F401
