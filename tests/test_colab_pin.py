"""The Colab pin (scripts/sync_repo_url.py) and the version rule, proven with git.

In a temporary repository: the pin is the package's last commit, ``--check`` passes on it, and fails, saying what
to do, when the package changes without a new pin, when the pin is no ancestor of HEAD, and in a shallow clone;
two branches that both re-pinned merge with conflicts that the script resolves. In this repository: every name a
notebook takes from seqviz exists in the package at the pin, and at the commit that set the current version.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import notebook_imports  # noqa: E402
import sync_repo_url  # noqa: E402

URL = "https://example.org/book"


def git(repo, *args):
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout.strip()


def sync(repo, *args):
    run = subprocess.run([sys.executable, str(ROOT / "scripts" / "sync_repo_url.py"), "--root", str(repo), *args],
                         capture_output=True, text=True)
    return run.returncode, run.stdout


def chapter(code):
    cells = [{"cell_type": "markdown", "metadata": {}, "source": ["# Chapter\n"]},
             {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
              "source": ['if "google.colab" in sys.modules:\n', "    pass\n"]},
             {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": [code]}]
    return json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1) + "\n"


@pytest.fixture
def repo(tmp_path):
    """A repository shaped like the book's: a package, _config.yml, notebooks/ and zh/notebooks/, committed."""
    repo = tmp_path / "book"
    (repo / "seqviz").mkdir(parents=True)
    (repo / "notebooks").mkdir()
    (repo / "zh" / "notebooks").mkdir(parents=True)
    (repo / "_config.yml").write_text(f"repository:\n  url: {URL}\n  branch: main\n")
    (repo / "pyproject.toml").write_text(f'[project]\nname = "seqviz"\nversion = "1.0.0"\n\n'
                                         f'[project.optional-dependencies]\nbertviz = [\n    "bertviz",\n]\n\n'
                                         f'[project.urls]\nSource = "{URL}"\n')
    (repo / "seqviz" / "__init__.py").write_text('__version__ = "1.0.0"\n')
    (repo / "notebooks" / "01_a.ipynb").write_text(chapter("import seqviz as sv\n"))
    (repo / "notebooks" / "02_b.ipynb").write_text(chapter("from seqviz.viz import bertviz_head_view\n"))
    (repo / "zh" / "notebooks" / "01_a.ipynb").write_text(chapter("import seqviz as sv\n"))
    git(repo.parent, "init", "-q", "-b", "main", str(repo))
    git(repo, "config", "user.email", "t@example.org")
    git(repo, "config", "user.name", "t")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "the book")
    return repo


def pins(repo):
    return {p.relative_to(repo).as_posix(): sync_repo_url.pin_of(json.loads(p.read_text()))
            for p in sync_repo_url.notebook_paths(repo)}


def commit_all(repo, message):
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD")


def test_the_pin_is_the_packages_last_commit_and_the_check_fails_when_the_package_moves_without_it(repo):
    package_commit = git(repo, "rev-parse", "HEAD")
    assert sync(repo, "--check")[0] == 1           # the placeholder cells are not the Colab cell yet
    assert sync(repo)[0] == 0
    found = pins(repo)
    assert set(found) == {"notebooks/01_a.ipynb", "notebooks/02_b.ipynb", "zh/notebooks/01_a.ipynb"}
    assert {p["commit"] for p in found.values()} == {package_commit}
    assert found["notebooks/02_b.ipynb"]["extras"] == ["bertviz"] and found["notebooks/01_a.ipynb"]["extras"] == []
    commit_all(repo, "the Colab cells")            # the notebooks' commit comes after the pinned one
    code, out = sync(repo, "--check")
    assert code == 0, out
    # the package changes and is committed, the notebooks are not re-pinned: the check fails and says what to do
    (repo / "seqviz" / "__init__.py").write_text('__version__ = "1.0.0"\nsample = None\n')
    commit_all(repo, "a new function")
    code, out = sync(repo, "--check")
    assert code == 1 and f"the package changed after the pinned commit {package_commit[:12]} (seqviz/__init__.py)" in out
    assert "Run python scripts/sync_repo_url.py and commit the notebooks" in out
    # the order CONTRIBUTING.md gives: package committed, script, notebooks committed
    assert sync(repo)[0] == 0
    commit_all(repo, "re-pinned")
    assert sync(repo, "--check")[0] == 0
    # a change to the package that is not committed yet: the script refuses to pin the old commit
    (repo / "pyproject.toml").write_text((repo / "pyproject.toml").read_text() + "# a comment\n")
    code, out = sync(repo)
    assert code == 1 and "the package has uncommitted changes (pyproject.toml): commit them first" in out


def test_a_pin_that_is_no_ancestor_of_head_fails(repo):
    git(repo, "checkout", "-q", "-b", "side")
    (repo / "seqviz" / "__init__.py").write_text('__version__ = "1.0.0"\nx = 1\n')
    commit_all(repo, "side package change")
    sync(repo)
    commit_all(repo, "side notebooks")
    saved = {p: p.read_text() for p in sync_repo_url.notebook_paths(repo)}
    git(repo, "checkout", "-q", "main")
    (repo / "seqviz" / "__init__.py").write_text('__version__ = "1.0.0"\nx = 1\n')  # the same package, on main
    commit_all(repo, "the same change on main")
    for path, text in saved.items():
        path.write_text(text)
    commit_all(repo, "notebooks pinned to the side branch")
    code, out = sync(repo, "--check")
    assert code == 1 and "is not an ancestor of HEAD: Colab could not fetch it from main" in out


def test_a_shallow_clone_fails_clearly_and_a_full_clone_passes(repo, tmp_path):
    (repo / "seqviz" / "__init__.py").write_text('__version__ = "1.0.0"\ny = 2\n')
    commit_all(repo, "package")
    sync(repo)
    commit_all(repo, "notebooks")
    full, shallow = tmp_path / "full", tmp_path / "shallow"
    git(tmp_path, "clone", "-q", f"file://{repo}", str(full))
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{repo}", str(shallow))
    assert sync(full, "--check")[0] == 0
    code, out = sync(shallow, "--check")
    assert code == 1 and "is not in this repository: this clone is shallow; run `git fetch --unshallow`" in out
    code, out = sync(shallow)
    assert code == 1 and "this clone is shallow" in out


def test_two_branches_that_both_repinned_merge_and_the_script_resolves_the_pin_conflicts(repo):
    sync(repo)
    commit_all(repo, "pinned")
    for branch, name in (("one", "first"), ("two", "second")):
        git(repo, "checkout", "-q", "-b", branch, "main")
        (repo / "seqviz" / f"{name}.py").write_text("x = 1\n")
        commit_all(repo, f"package: {name}")
        sync(repo)
        commit_all(repo, f"re-pinned after {name}")
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "one")
    merge = subprocess.run(["git", "-C", str(repo), "merge", "-q", "two"], capture_output=True, text=True)
    assert merge.returncode == 1 and "<<<<<<<" in (repo / "notebooks" / "01_a.ipynb").read_text()
    code, out = sync(repo)  # resolves the conflicts in the Colab cells; cannot pin yet: the merge is not committed
    assert code == 1 and "resolved the Colab cells' merge conflicts in 3 notebook(s), keeping ours" in out
    assert "<<<<<<<" not in (repo / "notebooks" / "01_a.ipynb").read_text()
    merged = commit_all(repo, "merge two")
    assert sync(repo)[0] == 0
    commit_all(repo, "re-pinned after the merge")
    assert {p["commit"] for p in pins(repo).values()} == {merged}   # both sides changed the package: the merge
    assert sync(repo, "--check")[0] == 0


def test_a_branch_with_the_old_cell_merges_its_other_cells_and_the_script_resolves_the_colab_cell(repo):
    """A branch made before the cell changed (its own, older Colab cell) that also edited another cell."""
    git(repo, "checkout", "-q", "-b", "old")
    path = repo / "notebooks" / "01_a.ipynb"
    notebook = json.loads(path.read_text())
    notebook["cells"][1]["source"] = ['if "google.colab" in sys.modules:\n', "    pip_install('v0.3.0')\n"]
    notebook["cells"][2]["source"] = ["import seqviz as sv\n", "sv.scaled(3, quick=1)\n"]
    path.write_text(json.dumps(notebook, indent=1) + "\n")
    commit_all(repo, "an old branch")
    git(repo, "checkout", "-q", "main")
    sync(repo)
    commit_all(repo, "the new Colab cells")
    merge = subprocess.run(["git", "-C", str(repo), "merge", "-q", "old"], capture_output=True, text=True)
    assert merge.returncode == 1 and "<<<<<<<" in path.read_text()
    code, out = sync(repo)
    assert code == 0, out    # no package change came with it: resolved and re-written at once
    merged = json.loads(path.read_text())
    assert merged["cells"][2]["source"] == ["import seqviz as sv\n", "sv.scaled(3, quick=1)\n"]  # their edit kept
    commit_all(repo, "merge old")
    assert sync(repo, "--check")[0] == 0


def test_a_conflict_outside_the_colab_cell_is_left_to_a_person(repo):
    lines = (repo / "notebooks" / "01_a.ipynb").read_text().splitlines(keepends=True)
    k = next(k for k, line in enumerate(lines) if "# Chapter" in line)
    lines[k:k + 1] = ["<<<<<<< HEAD\n", lines[k].replace("Chapter", "A"), "=======\n",
                      lines[k].replace("Chapter", "B"), ">>>>>>> two\n"]
    (repo / "notebooks" / "01_a.ipynb").write_text("".join(lines))
    code, out = sync(repo)
    assert code == 1 and "has merge conflicts outside the Colab cell: resolve them by hand" in out


def test_an_extra_a_chapter_needs_must_exist_in_pyproject(repo, monkeypatch):
    (repo / "notebooks" / "03_c.ipynb").write_text(chapter("from seqviz.real_gpt import load_real_gpt\n"))
    commit_all(repo, "chapter 3")
    code, out = sync(repo)
    assert code == 1 and "notebooks/03_c.ipynb: needs the extra 'real-gpt', which pyproject.toml does not define" in out


# --- this repository ---------------------------------------------------------------------------------------------

NOTEBOOKS = sync_repo_url.notebook_paths()


def wanted():
    return {name for path in NOTEBOOKS for name in notebook_imports.names(json.loads(path.read_text()))}


def test_names_are_read_from_imports_aliases_and_attribute_chains():
    code = ("import seqviz as sv\nfrom seqviz.viz import live, heatmap_figure as hf\nimport numpy as np\n"
            "sv.viz.live.sentence_view(np.zeros(2))\nlive.LiveView\nhf\n%matplotlib inline\n"
            "def f(live):\n    return live.not_seqviz\nlive = 3\nlive.real\n"
            "for sv in range(2):\n    sv.bit_length()\n")
    nb = {"cells": [{"cell_type": "code", "source": ["pass"]}, {"cell_type": "code", "source": [code]}]}
    assert notebook_imports.names(nb) == {"seqviz", "seqviz.viz.live", "seqviz.viz.heatmap_figure",
                                          "seqviz.viz.live.sentence_view", "seqviz.viz.live.LiveView"}


def test_the_lookup_finds_what_a_package_lacks():
    pin = sync_repo_url.pin_of(json.loads(NOTEBOOKS[0].read_text()))["commit"]
    assert notebook_imports.missing(ROOT, pin, {"seqviz.decode.greedy_decode", "seqviz.decode.no_such_name",
                                                "seqviz.no_such_module.x"}) == \
        ["seqviz.decode.no_such_name", "seqviz.no_such_module.x"]


def test_every_name_a_notebook_takes_from_seqviz_is_in_the_package_at_the_pin():
    pins = {sync_repo_url.pin_of(json.loads(p.read_text()))["commit"] for p in NOTEBOOKS}
    assert len(pins) == 1
    lacking = notebook_imports.missing(ROOT, pins.pop(), wanted())
    assert not lacking, f"the pinned package lacks {lacking}: run python scripts/sync_repo_url.py, commit the notebooks"


def version_commit() -> str:
    """The last commit whose version line differs from one of its parents' (-m: a merge that brought a new version
    together with the other side's changes set that version for the merged package)."""
    if git(ROOT, "rev-parse", "--is-shallow-repository") == "true":
        pytest.fail("this clone is shallow: the version rule needs the history (git fetch --unshallow)")
    # a merge is listed once per parent with -m: the first line names it
    return git(ROOT, "log", "-m", "-1", "--format=%H", "-G", r'^version = "', "--", "pyproject.toml").split()[0]


def test_the_version_moves_when_a_notebook_starts_to_depend_on_something_new():
    """A version names one package a notebook can rely on: every name the notebooks use was there when it was set."""
    commit = version_commit()
    release = sync_repo_url.version()
    at = git(ROOT, "show", f"{commit}:pyproject.toml")
    assert sync_repo_url.version(text=at) == release, f"{commit[:12]} did not set {release}"
    lacking = notebook_imports.missing(ROOT, commit, wanted())
    assert not lacking, (f"the notebooks use {lacking}, which seqviz {release} lacked when its version was set "
                         f"({commit[:12]}): bump the version in pyproject.toml and seqviz/__init__.py, commit, "
                         "then run python scripts/sync_repo_url.py and commit the notebooks")
