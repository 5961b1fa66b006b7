"""What the notebooks take from seqviz, and whether the package at a given commit has it.

``names(notebook)`` reads a notebook's code cells (the Colab cell excepted) with ``ast`` and returns every
dotted name it takes from seqviz: ``import seqviz.x as y``, ``from seqviz.x import a``, and attribute chains on
those (``sv.viz.heatmap_figure``, ``live.sentence_view``), following aliases until they are bound again.
``missing(root, commit, wanted)`` extracts the package as it is at ``commit`` (``git archive``) into a temporary
folder and, in a fresh interpreter, imports and looks up every name; it returns those that are not there.

tests/test_colab_pin.py holds the Colab pin and the version to this: every name at the pin, and every name at
the commit that last set the version (a notebook that starts to depend on something new needs a new version).
"""

from __future__ import annotations

import ast
import io
import json
import re
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

PACKAGE = "seqviz"


def code_cells(notebook: dict) -> list[str]:
    """The code cells after the Colab cell, with IPython's magics and shell lines blanked."""
    cells = [c for c in notebook["cells"] if c["cell_type"] == "code"][1:]
    return [re.sub(r"^\s*[%!].*$", "", "".join(c["source"]), flags=re.MULTILINE) for c in cells]


class _Names(ast.NodeVisitor):
    def __init__(self):
        self.aliases: dict[str, str] = {}   # a local name -> the dotted seqviz name it stands for
        self.found: set[str] = set()

    def visit_Import(self, node):
        for alias in node.names:
            if alias.name.split(".")[0] == PACKAGE:
                self.found.add(alias.name)
                if alias.asname:
                    self.aliases[alias.asname] = alias.name
                else:
                    self.aliases[PACKAGE] = PACKAGE

    def visit_ImportFrom(self, node):
        if node.level == 0 and node.module and node.module.split(".")[0] == PACKAGE:
            for alias in node.names:
                if alias.name == "*":
                    self.found.add(node.module)
                    continue
                self.found.add(f"{node.module}.{alias.name}")
                self.aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        else:
            for alias in node.names:
                self.aliases.pop(alias.asname or alias.name, None)

    def visit_Attribute(self, node):
        parts, value = [node.attr], node.value
        while isinstance(value, ast.Attribute):
            parts.append(value.attr)
            value = value.value
        if isinstance(value, ast.Name) and value.id in self.aliases:
            self.found.add(".".join([self.aliases[value.id], *reversed(parts)]))
            return  # the inner chains are prefixes of this one
        self.generic_visit(node)

    def _rebind(self, target):
        for name in ast.walk(target):
            if isinstance(name, ast.Name) and isinstance(name.ctx, ast.Store):
                self.aliases.pop(name.id, None)

    def visit_Assign(self, node):
        self.visit(node.value)
        for target in node.targets:
            self._rebind(target)

    def visit_For(self, node):
        self.visit(node.iter)
        self._rebind(node.target)
        for statement in [*node.body, *node.orelse]:
            self.visit(statement)

    def visit_FunctionDef(self, node):
        saved = dict(self.aliases)
        for arg in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs, node.args.vararg, node.args.kwarg]:
            if arg is not None:
                self.aliases.pop(arg.arg, None)
        self.generic_visit(node)
        self.aliases = saved
        if hasattr(node, "name"):  # a def binds its name; a lambda binds none
            self.aliases.pop(node.name, None)

    visit_AsyncFunctionDef = visit_Lambda = visit_FunctionDef


def names(notebook: dict) -> set[str]:
    visitor = _Names()
    for source in code_cells(notebook):
        visitor.visit(ast.parse(source))
    return visitor.found


_LOOKUP = r"""
import importlib, json, sys
root, wanted = sys.argv[1], json.loads(sys.stdin.read())
sys.path.insert(0, root)
import seqviz
if not seqviz.__file__.startswith(root):
    sys.exit(f"imported seqviz from {seqviz.__file__}, not from {root}")
missing = []
for name in wanted:
    parts, obj = name.split("."), importlib.import_module(name.split(".")[0])
    for k, part in enumerate(parts[1:], 2):
        if hasattr(obj, part):
            obj = getattr(obj, part)
            continue
        try:
            obj = importlib.import_module(".".join(parts[:k]))
        except ModuleNotFoundError:
            missing.append(name)
            break
print(json.dumps(missing))
"""


def missing(root: Path, commit: str, wanted: set[str]) -> list[str]:
    """The names in ``wanted`` that the package as it is at ``commit`` lacks (imported in a fresh interpreter)."""
    with tempfile.TemporaryDirectory(prefix="seqviz-at-") as tmp:
        run = subprocess.run(["git", "-C", str(root), "archive", "--format=tar", commit, PACKAGE], capture_output=True)
        if run.returncode:
            raise RuntimeError(f"git cannot read the package at {commit[:12]} ({run.stderr.decode().strip()}): in a "
                               "shallow clone, run `git fetch --unshallow` first")
        archive = run.stdout
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(tmp, filter="data")
        run = subprocess.run([sys.executable, "-I", "-c", _LOOKUP, tmp], input=json.dumps(sorted(wanted)),
                             capture_output=True, text=True, env={"SEQVIZ_QUICK": "1", "PATH": "/usr/bin:/bin"})
        if run.returncode:
            raise RuntimeError(f"the package at {commit[:12]} does not import: {run.stderr.strip()[-2000:]}")
        return json.loads(run.stdout.strip().splitlines()[-1])
