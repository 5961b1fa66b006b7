"""The package's parts and what each may import (ARCHITECTURE.md), checked on the source.

Each module of ``seqviz`` belongs to a part (its first name under ``seqviz``); a part may
import only the parts listed for it below. Also: every ``nn.Module`` is defined in
``models/``, and neither the measurement nor the experiments layer draws.
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "seqviz"

# part -> the parts it may import (besides itself)
ALLOWED = {
    "__init__": {"*"},
    "config": set(),
    "book": {"config", "i18n"},
    "i18n": set(),
    "data": {"config"},
    "models": {"config", "data"},  # data: the -100 ignore index of the masked-LM labels
    "sampling": {"config"},
    "decode": {"config", "sampling"},  # sample is re-exported from decode
    "train": {"config"},
    "measure": {"config"},
    "gradients": {"config", "models", "measure"},
    "trace": {"gradients"},
    "experiments": {"config", "book", "data", "models", "train", "decode", "measure", "gradients"},
    "guide": {"config", "book", "data", "models", "train", "measure", "experiments"},
    "viz": {"config", "book", "i18n"},
    "web": {"config", "data", "decode", "models", "viz", "book", "i18n"},
    "real_bert": {"config", "models"},
    "real_gpt": {"config", "models"},
    "exercises": {"config", "data", "models", "decode", "train", "measure", "gradients", "trace", "book", "i18n"},
}
DRAWING = ("matplotlib", "plotly", "ipywidgets", "IPython")


def modules():
    return sorted(p for p in ROOT.rglob("*.py"))


def part_of(path: Path) -> str:
    return path.relative_to(ROOT).with_suffix("").parts[0]


def imports(path: Path):
    """(imported seqviz part or None, top-level external name or None) for every import in ``path``."""
    package = path.relative_to(ROOT.parent).with_suffix("").parts[:-1]  # e.g. ("seqviz", "viz")
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                name = ".".join([*base, *(node.module.split(".") if node.module else [])])
                names = [name] if node.module else [f"{name}.{a.name}" for a in node.names]
            else:
                names = [node.module]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        for name in names:
            parts = name.split(".")
            if parts[0] == "seqviz":
                yield (parts[1] if len(parts) > 1 else "__init__"), None
            else:
                yield None, parts[0]


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_a_part_imports_only_what_it_may(path):
    part = part_of(path)
    assert part in ALLOWED, f"{path.relative_to(ROOT)}: part {part!r} is not in ARCHITECTURE.md's table"
    allowed = ALLOWED[part]
    bad = sorted({p for p, _ in imports(path) if p and p != part and "*" not in allowed and p not in allowed})
    assert not bad, f"{path.relative_to(ROOT)} ({part}) imports {bad}; {part} may import only {sorted(allowed)}"


@pytest.mark.parametrize("path", [p for p in modules() if part_of(p) in ("measure", "experiments", "models")],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_measurement_experiments_and_models_do_not_draw(path):
    drawing = sorted({ext for _, ext in imports(path) if ext in DRAWING})
    assert not drawing, f"{path.relative_to(ROOT)} imports {drawing}: drawing belongs in seqviz.viz"


def _module_classes(path):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ClassDef):
            bases = [ast.unparse(b) for b in node.bases]
            if any(b in ("nn.Module", "Module", "torch.nn.Module") for b in bases):
                yield node.name


def test_every_nn_module_lives_in_models():
    outside = {str(p.relative_to(ROOT)): names for p in modules() if part_of(p) not in ("models", "exercises")
               for names in [list(_module_classes(p))] if names}
    assert not outside, f"nn.Module classes outside seqviz/models: {outside}"
