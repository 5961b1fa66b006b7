"""A glued sentence's inline Markdown reaches the reader rendered, not raw (book/_ext/seqviz_book.py).

``{glue:text}`` pastes text as it is; the book's extension turns ``$maths$``, ``**strong**``, ``*emphasis*`` and
```code``` inside a pasted sentence into the nodes the surrounding prose gets, and leaves everything else alone."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from docutils import nodes
from docutils.frontend import get_default_settings
from docutils.parsers.rst import Parser
from docutils.utils import new_document

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("seqviz_book_markup", ROOT / "book" / "_ext" / "seqviz_book.py")
ext = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ext)


def kinds(text):
    return [(type(n).__name__, n.astext()) for n in ext.glued_markup(text)]


def test_maths_emphasis_strong_and_code_become_nodes():
    assert kinds("With $k = 8$ the model *can* see **far** back through `h_t`.") == [
        ("Text", "With "), ("math", "k = 8"), ("Text", " the model "), ("emphasis", "can"),
        ("Text", " see "), ("strong", "far"), ("Text", " back through "), ("literal", "h_t"), ("Text", ".")]


@pytest.mark.parametrize("text", ["The LSTM reached 92% after 2 * 3 epochs.", "It cost $5 a run.",
                                  "a*b and c*d", "", "no markup at all"])
def test_text_without_markup_is_left_as_it_is(text):
    assert kinds(text) == [("Text", text)]


def test_the_transform_rewrites_pasted_text_only():
    document = new_document("<test>", get_default_settings(Parser))
    para = nodes.paragraph()
    pasted = nodes.inline("", "", nodes.Text("so $W_{hh}$ is *shared*"), classes=["pasted-text"])
    other = nodes.inline("", "", nodes.Text("keep $this$ raw"), classes=["other"])
    para += [nodes.Text("Note "), pasted, nodes.Text(" and "), other]
    document += para
    ext.GluedMarkup(document).apply()
    assert [type(n).__name__ for n in pasted.children] == ["Text", "math", "Text", "emphasis"]
    assert pasted.children[1].astext() == "W_{hh}" and other.astext() == "keep $this$ raw"
    assert para.astext() == "Note so W_{hh} is shared and keep $this$ raw"
