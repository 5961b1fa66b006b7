"""The course build (book/_ext/seqviz_course.py): with SOLUTIONS=0 every solution leaves the pages (plain and
gated, with the code cells inside), the sources are not copied and the download and launch buttons go; without
it the page keeps its solutions. A two-page Sphinx project with sphinx-exercise and myst-nb, built twice."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

CONF = f"""
import sys
sys.path.insert(0, {str(ROOT / "book" / "_ext")!r})
extensions = ["myst_nb", "sphinx_exercise", "seqviz_course"]
nb_execution_mode = "off"
suppress_warnings = ["myst-nb.lexer"]
myst_enable_extensions = ["colon_fence", "dollarmath"]
html_theme = "basic"
html_theme_options = {{}}
"""

PAGE = """---
file_format: mystnb
kernelspec:
  name: python3
  display_name: Python 3
  language: python
language_info:
  name: python
---
# Exercises

```{exercise} Add two numbers
:label: ch99-ex1

Write `answer = 1 + 1`.
```

```{solution} ch99-ex1
:class: dropdown

PLAIN-SOLUTION-TEXT: the answer is two.
```

```{exercise} Multiply
:label: ch99-ex2

Write a function.
```

```{solution-start} ch99-ex2
:class: dropdown
```

GATED-SOLUTION-PROSE between the gates.

```{code-cell} python
:tags: [solution]
GATED_SOLUTION_CODE = 6 * 7
```

```{solution-end}
```

```{code-cell} python
:tags: [solution]
LOOSE_SOLUTION_CODE = 1
```

```{code-cell} python
print("THE CHECK CELL STAYS")
```
"""


def build(tmp: Path, solutions: str | None) -> str:
    src, out = tmp / "src", tmp / f"out-{solutions}"
    src.mkdir(exist_ok=True)
    (src / "conf.py").write_text(CONF)
    (src / "index.md").write_text("# A book\n\n```{toctree}\nexercises\n```\n")
    (src / "exercises.md").write_text(PAGE)
    env = {k: v for k, v in os.environ.items() if k not in ("SOLUTIONS", "SEQVIZ_SOLUTIONS")}
    if solutions is not None:
        env["SOLUTIONS"] = solutions
    run = subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", "-W", "-q", str(src), str(out)], env=env,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    return (out / "exercises.html").read_text(), out


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("course-build")
    return build(tmp, None), build(tmp, "0")


def test_the_published_build_keeps_its_solutions(pages):
    (page, out), _ = pages
    for text in ("PLAIN-SOLUTION-TEXT", "GATED-SOLUTION-PROSE", "GATED_SOLUTION_CODE", "LOOSE_SOLUTION_CODE",
                 "THE CHECK CELL STAYS"):
        assert text in page, text
    assert (out / "_sources").exists()


def test_the_course_build_removes_every_solution_and_nothing_else(pages):
    _, (page, out) = pages
    for text in ("PLAIN-SOLUTION-TEXT", "GATED-SOLUTION-PROSE", "GATED_SOLUTION_CODE", "LOOSE_SOLUTION_CODE"):
        assert text not in page, f"{text} survived SOLUTIONS=0"
    assert "THE CHECK CELL STAYS" in page and "Add two numbers" in page and "Multiply" in page
    assert 'name="seqviz-solutions" content="0"' in page
    assert not (out / "_sources").exists(), "the page sources (solutions included) were copied"
    assert not any("SOLUTION" in p.read_text(errors="ignore") for p in out.rglob("*") if p.is_file()
                   and p.suffix in (".html", ".txt", ".ipynb", ".md", ".js") and "searchindex" not in p.name)


@pytest.mark.browser
def test_the_browser_check_finds_a_solution_left_in_a_course_build(pages, tmp_path):
    if not Path("/usr/bin/chromium").exists():
        if os.environ.get("SEQVIZ_REQUIRE_BROWSER") == "1":
            pytest.fail("Chromium is missing (/usr/bin/chromium)")
        pytest.skip("Chromium is missing (/usr/bin/chromium)")
    import shutil

    (published, published_out), (_, course_out) = pages
    check = [sys.executable, str(ROOT / "scripts" / "browser_check.py"), "--shots", str(tmp_path / "shots")]
    clean = subprocess.run(check + ["--html", str(course_out)], capture_output=True, text=True, timeout=300)
    assert clean.returncode == 0, clean.stdout[-1500:] + clean.stderr[-1500:]
    leaky = tmp_path / "leaky"
    shutil.copytree(published_out, leaky)  # the published page, marked as a course build: its solutions must show
    index = leaky / "exercises.html"
    index.write_text(index.read_text().replace("<head>", '<head><meta name="seqviz-solutions" content="0">', 1))
    found = subprocess.run(check + ["--html", str(leaky)], capture_output=True, text=True, timeout=300)
    assert found.returncode != 0 and "solution(s) left on the page" in found.stdout + found.stderr
