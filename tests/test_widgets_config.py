"""book/_js/widgets-config.js, run under node: saved ipywidgets-7 widgets typeset with MathJax 2's API.

requirements.txt allows ipywidgets 7 (Colab's is 7.7.1). A book built with it saves widgets that the HTML
manager draws with controls 1.5.0, whose labels call ``MathJax.Hub.Queue(["Typeset", MathJax.Hub, el])`` when
``window.MathJax`` is defined. The book loads MathJax 3, which has no ``Hub``: the Chinese edition, built in CI
with the lowest versions, threw "Cannot read properties of undefined (reading 'Queue')" on three pages. The
script gives whatever object ``window.MathJax`` is a stand-in ``Hub`` that typesets with MathJax 3's call.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "book" / "_js" / "widgets-config.js"

# a page in a node vm: the global object is the window; the manager's own line is `typeset` below
HARNESS = r"""
const vm = require("vm"), fs = require("fs");
const [script, withScript] = [process.argv[2], process.argv[3] === "1"];
const requireConfigs = [];
const page = {document: {currentScript: {src: "http://book/_static/widgets-config.js"}},
              require: {config: (c) => requireConfigs.push(c)}, console};
page.window = page;
vm.createContext(page);
vm.runInContext('window.MathJax = {options: {processHtmlClass: "math"}};', page);   // Sphinx's configuration
if (withScript) vm.runInContext(fs.readFileSync(script, "utf8"), page);
const typeset = 'void 0!==window.MathJax&&MathJax.Hub.Queue(["Typeset",MathJax.Hub,label])';
const out = {requirePaths: requireConfigs.map((c) => c.paths), errors: [], typeset: []};
const run = (code) => { try { vm.runInContext(code, page); } catch (e) { out.errors.push(String(e.message)); } };
page.label = {nodeType: 1, id: "label"};
run(typeset);   // before MathJax 3 has loaded: nothing to typeset with yet, and no error
page.typesetPromise = (elements) => { out.typeset.push(elements.map((e) => e.id)); return Promise.resolve(); };
// MathJax 3 loading: it replaces window.MathJax with itself and keeps the configuration
run('window.MathJax = {version: "3.2.2", config: window.MathJax, typesetPromise: typesetPromise};');
run(typeset);
out.configKept = vm.runInContext("MathJax.config.options.processHtmlClass", page);
console.log(JSON.stringify(out));
"""


def _run(node, tmp_path, with_script: bool) -> dict:
    harness = tmp_path / "harness.js"
    harness.write_text(HARNESS)
    result = subprocess.run([node, str(harness), str(SCRIPT), "1" if with_script else "0"], capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_an_ipywidgets_7_label_is_typeset_by_mathjax_3_without_an_error(node, tmp_path):
    out = _run(node, tmp_path, with_script=True)
    assert out["errors"] == []
    assert out["typeset"] == [["label"]], "the label should be handed to MathJax 3's typesetPromise once"
    assert out["configKept"] == "math"
    assert out["requirePaths"] == [{"@jupyter-widgets/html-manager/dist": "http://book/_static/html-manager"}]


def test_without_the_stand_in_the_label_throws_as_it_did_on_the_page(node, tmp_path):
    out = _run(node, tmp_path, with_script=False)
    assert len(out["errors"]) == 2 and all("reading 'Queue'" in e for e in out["errors"])
