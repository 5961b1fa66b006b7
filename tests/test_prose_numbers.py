"""Numbers in the prose are written as a sentence writes them, never in a programmer's e-notation.

A static check over every chapter of both editions (``notebooks/`` and ``zh/notebooks/``): it fails where the
reader's text *can* show "3e-08" or "8.92e+20", whatever this run's numbers happen to be.

- a ``{glue:text}`name:FMT``` role in a prose cell whose format is ``e``, ``E``, ``g`` or ``G`` (``.1e``, ``.3g``:
  ``g`` switches to e-notation for small and large numbers);
- a ``sv.book.say`` sentence with such a placeholder (``{gap:.1e}``), in the sentences dict itself or in a dict
  the call names (``TF_SENTENCES | TF_AGAIN``);
- an f-string, ``format(x, ".2e")`` or ``"{:.2e}".format(x)`` inside a ``glue`` or ``say`` call: text glued into
  the prose.

What to write instead: ``sv.book.readable(x, digits)`` ("4.5 × 10⁻⁵"), glued as text, or a sentence that says
"exactly zero" / "identical" where a difference is 0 (chosen with ``sv.book.say``). Printed output and figure
labels are code, not prose, and are not checked here.
"""

from __future__ import annotations

import ast
import json
import re
import string
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
E_TYPES = set("eEgG")
GLUE_ROLE = re.compile(r"\{glue(?::text)?\}`(?P<name>[A-Za-z_][A-Za-z_0-9]*):(?P<spec>[^`]*)`")
PROSE_CALLS = {"glue", "say"}  # sv.glue, sv.book.glue, sv.book.say (and a bare say/glue imported by name)


def _e_spec(spec: str) -> bool:
    """True when a format spec (``.1e``, ``,.3g``, ``g``) can write e-notation."""
    return bool(spec) and spec[-1] in E_TYPES


def _sentence_e_spec(spec: str) -> bool:
    """In a sentence or an f-string: ``e``/``E``, and ``g``/``G`` with a precision (``.3g`` writes 2.08e+04). A bare
    ``{rho:g}`` (precision 6, the way to write 1.5 rather than 1.50) is left to the author of the sentence."""
    return bool(spec) and (spec[-1] in "eE" or (spec[-1] in "gG" and "." in spec))


def _placeholders(text: str) -> list[tuple[str, str]]:
    """(field, spec) of every ``{field:spec}`` in a ``str.format`` template; a text that is no template: none."""
    try:
        return [(field, spec or "") for _, field, spec, _ in string.Formatter().parse(text) if field is not None]
    except ValueError:
        return []


def _code(cell: dict) -> str:
    """A code cell as Python: IPython's ``%magic`` and ``!shell`` lines become comments."""
    lines = "".join(cell["source"]).splitlines()
    return "\n".join("# " + line if line.lstrip().startswith(("%", "!")) else line for line in lines)


def _call_name(node: ast.Call) -> str:
    return getattr(node.func, "attr", getattr(node.func, "id", ""))


def _strings_in(node: ast.AST, assigned: dict[str, list[ast.AST]], seen: set[str] | None = None):
    """Every string constant under ``node``, following names to the dicts assigned to them in the notebook."""
    seen = set() if seen is None else seen
    for sub in ast.walk(node):
        if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
            yield sub
        elif isinstance(sub, ast.Name) and sub.id in assigned and sub.id not in seen:
            seen.add(sub.id)
            for value in assigned[sub.id]:
                yield from _strings_in(value, assigned, seen)


def code_problems(sources: list[str]) -> list[str]:
    """What in these code cells (one notebook's) can glue e-notation into the prose."""
    trees = []
    for source in sources:
        try:
            trees.append(ast.parse(source))
        except SyntaxError as error:
            raise ValueError(f"a code cell does not parse as Python ({error}): {source[:80]!r}") from error
    assigned: dict[str, list[ast.AST]] = {}
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and isinstance(node.value, (ast.Dict, ast.DictComp, ast.BinOp)):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        assigned.setdefault(target.id, []).append(node.value)
    problems = []
    for tree in trees:
        for call in ast.walk(tree):
            if not (isinstance(call, ast.Call) and _call_name(call) in PROSE_CALLS):
                continue
            what = f"{_call_name(call)}({ast.unparse(call.args[0]) if call.args else ''}, ...)"
            if _call_name(call) == "say":
                sentences = call.args[2] if len(call.args) > 2 else next(
                    (k.value for k in call.keywords if k.arg == "sentences"), None)
                for constant in _strings_in(sentences, assigned) if sentences is not None else ():
                    problems += [f"{what}: the sentence {constant.value[:70]!r}... has the placeholder "
                                 f"{{{field}:{spec}}}" for field, spec in _placeholders(constant.value)
                                 if _sentence_e_spec(spec)]
            for node in ast.walk(call):
                if isinstance(node, ast.FormattedValue) and node.format_spec is not None:
                    spec = "".join(str(v.value) for v in node.format_spec.values if isinstance(v, ast.Constant))
                    if _sentence_e_spec(spec):
                        problems.append(f"{what}: the f-string {ast.unparse(node)} writes e-notation")
                elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "format" \
                        and len(node.args) > 1 and isinstance(node.args[1], ast.Constant) \
                        and isinstance(node.args[1].value, str) and _sentence_e_spec(node.args[1].value):
                    problems.append(f"{what}: {ast.unparse(node)} writes e-notation")
                elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                        and node.func.attr == "format" and isinstance(node.func.value, ast.Constant) \
                        and isinstance(node.func.value.value, str) \
                        and any(_sentence_e_spec(spec) for _, spec in _placeholders(node.func.value.value)):
                    problems.append(f"{what}: {ast.unparse(node)} writes e-notation")
    return problems


def prose_problems(markdown: str) -> list[str]:
    """The ``{glue:text}`` roles of a prose cell whose format can write e-notation."""
    return [f"{{glue:text}}`{m['name']}:{m['spec']}`" for m in GLUE_ROLE.finditer(markdown) if _e_spec(m["spec"])]


def notebook_problems(notebook: dict) -> list[str]:
    cells = notebook.get("cells")
    if not isinstance(cells, list):
        raise ValueError(f"a notebook needs a list of cells, got {type(cells).__name__}")
    problems = []
    for i, cell in enumerate(cells):
        if cell["cell_type"] == "markdown":
            problems += [f"cell {i} ({cell.get('id')}): {p}" for p in prose_problems("".join(cell["source"]))]
    code = [(i, cell) for i, cell in enumerate(cells) if cell["cell_type"] == "code"]
    problems += code_problems([_code(cell) for _, cell in code])
    return problems


def _notebooks():
    paths = sorted((ROOT / "notebooks").glob("*.ipynb")) + sorted((ROOT / "zh" / "notebooks").glob("*.ipynb"))
    return [pytest.param(p, id=p.relative_to(ROOT).as_posix()) for p in paths]


@pytest.mark.parametrize("path", _notebooks())
def test_prose_never_shows_e_notation(path):
    problems = notebook_problems(json.loads(path.read_text(encoding="utf-8")))
    assert not problems, (f"{path.relative_to(ROOT)} can show e-notation in its prose (write the number with "
                          "sv.book.readable, or say 'exactly zero' by outcome):\n  " + "\n  ".join(problems))


def test_both_editions_are_checked():
    ids = [p.id for p in _notebooks()]
    assert any(i.startswith("notebooks/") for i in ids) and any(i.startswith("zh/notebooks/") for i in ids)


def _markdown(text):
    return {"cell_type": "markdown", "id": "m", "source": [text]}


def _code_cell(text):
    return {"cell_type": "code", "id": "c", "source": [text], "outputs": [], "metadata": {}}


@pytest.mark.parametrize("cell", [
    _markdown("The largest difference is {glue:text}`diff:.1e`."),
    _markdown("It grew {glue:text}`growth:.3g` times."),
    _markdown("To {glue}`err:.0E` at most."),
    _code_cell('sv.book.say("t", o, {"a": "It differs by {d:.1e}.", "b": "No difference."}, d=1e-8)'),
    _code_cell('S = {"a": "It differs by {d:.2g}."}\nsv.book.say("t", "a", S | {"b": "None."}, d=x)'),
    _code_cell('sv.book.say("t", o, {**{f"k-{w}": "Off by {d:.0e}. " + s for w, s in pairs}}, d=x)'),
    _code_cell('sv.glue("diff_text", f"the two differ by {diff:.1e}")'),
    _code_cell('sv.book.say("t", "a", {"a": "About {x}."}, x=f"{end:.2g}")'),
    _code_cell('sv.glue("d", format(diff, ".1e"))'),
    _code_cell('sv.glue("d", "{:.2e} apart".format(diff))'),
])
def test_a_tiny_notebook_that_can_show_e_notation_fails(cell):
    notebook = {"cells": [_code_cell("import seqviz as sv\n%matplotlib inline"), cell]}
    assert notebook_problems(notebook), f"not caught: {''.join(cell['source'])!r}"


@pytest.mark.parametrize("cell", [
    _markdown("The largest difference is {glue:text}`diff_text`, {glue:text}`share:.1%` of {glue:text}`n:,`."),
    _markdown("A slope of {glue:text}`slope:+.3f` per step; `x:.1e` in code is not a glue role."),
    _code_cell('sv.book.say("t", o, {"a": "It differs by {d}.", "b": "Exactly zero."}, '
               'd=sv.book.readable(1e-8, 1))'),
    _code_cell('sv.glue("n", f"{len(orders)} orders, {share:.1%} of them")'),
    _code_cell('print(f"largest difference {diff:.1e}")  # printed output is code, not prose'),
    _code_cell('title = f"clipped (×{factor:.2g})"  # a figure label'),
])
def test_a_tiny_notebook_that_writes_numbers_readably_passes(cell):
    assert notebook_problems({"cells": [cell]}) == []


def test_a_notebook_without_cells_or_with_broken_code_is_refused():
    with pytest.raises(ValueError, match="list of cells"):
        notebook_problems({"metadata": {}})
    with pytest.raises(ValueError, match="does not parse"):
        notebook_problems({"cells": [_code_cell("sv.glue('x',")]})
