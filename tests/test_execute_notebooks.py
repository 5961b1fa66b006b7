"""scripts/execute_notebooks.py: notebooks run several at once into the jupyter-cache the book build reads.

The build (``SEQVIZ_EXECUTED``, book/_ext/seqviz_book.py) merges a cached notebook's outputs only where the
cache matches the notebook's code: these tests check that the cache the script writes does match, that a
failing notebook is reported with its cell and left out (so the build would run it and fail as before), and that
the switch to the cache refuses a folder that does not exist.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "execute_notebooks.py"


def notebook(path: Path, *sources: str) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbformat.v4.new_markdown_cell("# A page"), *(nbformat.v4.new_code_cell(s) for s in sources)]
    nbformat.write(nb, path)
    return path


def run(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True,
                          timeout=300, cwd=ROOT)


def test_the_cache_matches_each_notebook_and_holds_its_outputs(tmp_path):
    from jupyter_cache import get_cache

    first = notebook(tmp_path / "first.ipynb", "import os\nprint(os.path.basename(os.getcwd()))", "6 * 7")
    (tmp_path / "sub").mkdir()
    second = notebook(tmp_path / "sub" / "second.ipynb", "print('two')")
    cache_dir = tmp_path / "cache"
    (cache_dir).mkdir()
    (cache_dir / "stale").write_text("from an earlier run")   # removed: nothing of an earlier run is reused
    result = run("--jobs", 2, "--cache", cache_dir, first, second)
    assert result.returncode == 0, result.stdout + result.stderr
    assert not (cache_dir / "stale").exists()
    cache = get_cache(str(cache_dir))
    for path in (first, second):   # as the build reads it: the source notebook, without outputs
        record = cache.match_cache_notebook(nbformat.read(path, as_version=4))
        assert Path(record.uri) == path
    _, merged = cache.merge_match_into_notebook(nbformat.read(first, as_version=4))
    outputs = [cell.outputs for cell in merged.cells if cell.cell_type == "code"]
    assert outputs[0][0]["text"].strip() == tmp_path.name   # run in the notebook's own folder
    assert outputs[1][0]["data"]["text/plain"] == "42"
    times = (tmp_path / "notebook-times.csv").read_text().splitlines()
    assert times[0] == "notebook,seconds,ok" and len(times) == 3


def test_a_failing_notebook_is_reported_with_its_cell_and_left_out_of_the_cache(tmp_path):
    from jupyter_cache import get_cache

    good = notebook(tmp_path / "good.ipynb", "1 + 1")
    bad = notebook(tmp_path / "bad.ipynb", "x = 1", "raise RuntimeError('the loss went up')")
    cache_dir = tmp_path / "cache"
    result = run("--cache", cache_dir, good, bad)
    assert result.returncode == 1
    assert "bad.ipynb: FAILED" in result.stdout and "the loss went up" in result.stdout
    assert "FAILED: " in result.stdout.splitlines()[-1]
    cache = get_cache(str(cache_dir))
    cache.match_cache_notebook(nbformat.read(good, as_version=4))
    with pytest.raises(KeyError):
        cache.match_cache_notebook(nbformat.read(bad, as_version=4))


def test_bad_arguments_get_a_sentence_not_a_traceback(tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("not a notebook")
    result = run("--cache", tmp_path / "cache", text)
    assert result.returncode == 2 and "expected notebook files (.ipynb), got" in result.stdout
    assert "Traceback" not in result.stderr
    good = notebook(tmp_path / "good.ipynb", "1")
    result = run("--cache", tmp_path / "cache", "--jobs", 0, good)
    assert result.returncode == 2 and "expected --jobs of 1 or more, got 0" in result.stdout


def test_the_book_switches_to_the_cache_only_when_told_and_only_to_a_real_folder(tmp_path, monkeypatch):
    sys.path.insert(0, str(ROOT / "book" / "_ext"))
    import seqviz_book

    class Config:
        nb_execution_mode, nb_execution_cache_path = "force", ""

    monkeypatch.delenv("SEQVIZ_EXECUTED", raising=False)
    config = Config()
    seqviz_book._executed(None, config)
    assert (config.nb_execution_mode, config.nb_execution_cache_path) == ("force", "")
    monkeypatch.setenv("SEQVIZ_EXECUTED", str(tmp_path))
    seqviz_book._executed(None, config)
    assert (config.nb_execution_mode, config.nb_execution_cache_path) == ("cache", str(tmp_path.resolve()))
    monkeypatch.setenv("SEQVIZ_EXECUTED", str(tmp_path / "missing"))
    with pytest.raises(ValueError, match="SEQVIZ_EXECUTED must name the folder"):
        seqviz_book._executed(None, Config())


def stamp_notebooks(folder: Path, others: list[str], sleep: float) -> tuple[Path, list[Path]]:
    """A notebook marked run_alone and plain ones (named ``others``); each writes, into ``folder``, when it started
    and its thread limit (file ``<name>``) and when it ended (``<name>.end``), sleeping ``sleep`` s between."""
    stamp = "import os, time, json\nopen(os.path.join({d!r}, {n!r}), 'w').write(json.dumps([time.time(), " \
            "os.environ.get('OMP_NUM_THREADS')]))\ntime.sleep({s})\nopen(os.path.join({d!r}, {n!r} + '.end'), " \
            "'w').write(str(time.time()))"
    alone = notebook(folder / "alone.ipynb", stamp.format(d=str(folder), n="alone", s=sleep))
    nb = nbformat.read(alone, as_version=4)
    nb.metadata["seqviz"] = {"run_alone": "it times every core"}
    nbformat.write(nb, alone)
    return alone, [notebook(folder / f"{n}.ipynb", stamp.format(d=str(folder), n=n, s=sleep)) for n in others]


def stamps(folder: Path, name: str) -> tuple[float, str | None, float]:
    """When the stamp notebook ``name`` started, its OMP_NUM_THREADS, and when it ended."""
    started, threads = json.loads((folder / name).read_text())
    return started, threads, float((folder / f"{name}.end").read_text())


def run_one_thread(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True,
                          timeout=300, cwd=ROOT, env={**os.environ, "OMP_NUM_THREADS": "1"})


def test_a_notebook_marked_run_alone_runs_first_by_itself_without_the_thread_limit(tmp_path):
    from jupyter_cache import get_cache

    alone, others = stamp_notebooks(tmp_path, ["other1", "other2"], sleep=1.5)
    result = run_one_thread("--jobs", "2", "--cache", tmp_path / "cache", *others, alone)
    assert result.returncode == 0, result.stdout + result.stderr
    _, threads, ended = stamps(tmp_path, "alone")
    assert threads is None, "the notebook that runs alone kept the thread limit"
    for name in ("other1", "other2"):
        other_start, other_threads, _ = stamps(tmp_path, name)
        assert other_threads == "1"
        assert other_start > ended, "another notebook ran beside the one marked run_alone"
    assert "alone.ipynb: executed in" in result.stdout and "(alone, every core)" in result.stdout
    cache = get_cache(str(tmp_path / "cache"))
    assert cache.match_cache_notebook(nbformat.read(alone, as_version=4))


def test_shared_runs_the_marked_notebook_with_the_others_and_the_thread_limit(tmp_path):
    # make test builds the books beside the tests: running alone there would only spin threads on busy cores
    alone, (other,) = stamp_notebooks(tmp_path, ["other"], sleep=3)
    result = run_one_thread("--shared", "--jobs", "2", "--cache", tmp_path / "cache", other, alone)
    assert result.returncode == 0, result.stdout + result.stderr
    (a_start, a_threads, a_end), (o_start, o_threads, o_end) = (stamps(tmp_path, n) for n in ("alone", "other"))
    assert a_threads == "1" and o_threads == "1", "under --shared every kernel keeps the thread limit"
    assert a_start < o_end and o_start < a_end, "the two notebooks did not run side by side"
    assert "(alone, every core)" not in result.stdout


def test_run_alone_must_say_why(tmp_path):
    bad = notebook(tmp_path / "bad.ipynb", "1")
    nb = nbformat.read(bad, as_version=4)
    nb.metadata["seqviz"] = {"run_alone": True}
    nbformat.write(nb, bad)
    result = run("--cache", tmp_path / "cache", bad)
    assert result.returncode == 2
    assert "run_alone must be a sentence saying why, got True" in result.stdout


def test_python_runs_the_kernels_in_that_interpreter(tmp_path):
    # CI executes the Chinese edition in .venv-min's kernels (Makefile ZH_PYTHON): the kernel must be the given
    # Python, not the one running the script. A wrapper around this Python marks the kernels it starts.
    from jupyter_cache import get_cache

    wrapper = tmp_path / "marked-python"
    wrapper.write_text(f'#!/bin/sh\nSEQVIZ_KERNEL_MARK=wrapped exec "{sys.executable}" "$@"\n')
    wrapper.chmod(0o755)
    nb = notebook(tmp_path / "mark.ipynb", "import os\nprint(os.environ.get('SEQVIZ_KERNEL_MARK'))")
    cache_dir = tmp_path / "cache"
    result = run("--python", wrapper, "--cache", cache_dir, nb)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"kernels: {wrapper}" in result.stdout
    _, merged = get_cache(str(cache_dir)).merge_match_into_notebook(nbformat.read(nb, as_version=4))
    assert merged.cells[1].outputs[0]["text"].strip() == "wrapped"
    plain = run("--cache", tmp_path / "cache2", nb)   # without --python: the notebook's own kernel, unmarked
    _, merged = get_cache(str(tmp_path / "cache2")).merge_match_into_notebook(nbformat.read(nb, as_version=4))
    assert plain.returncode == 0 and merged.cells[1].outputs[0]["text"].strip() == "None"


def test_a_python_that_cannot_run_a_chapter_is_refused_with_a_sentence(tmp_path):
    nb = notebook(tmp_path / "one.ipynb", "1")
    missing = run("--python", tmp_path / "no-such-python", "--cache", tmp_path / "cache", nb)
    assert missing.returncode == 2 and "expected --python to be a Python interpreter" in missing.stdout
    bare = tmp_path / "bare-python"   # a Python that has neither ipykernel nor seqviz
    bare.write_text(f'#!/bin/sh\nexec "{sys.executable}" -I -S "$@"\n')
    bare.chmod(0o755)
    refused = run("--python", bare, "--cache", tmp_path / "cache", nb)
    assert refused.returncode == 2 and "expected --python to have ipykernel and seqviz installed" in refused.stdout
    assert "No module named" in refused.stdout and "Traceback" not in refused.stderr
