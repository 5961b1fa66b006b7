// seqviz.nn, the core: tensors from Python, a linear layer, softmax and log-softmax (torch.nn.functional's
// linear, softmax and log_softmax), shared by every numeric twin in this folder.
//
// Each file of js/nn/ is the twin of one Python original, named in its header, and computes what seqviz
// computes: tests/test_js_twins.py runs them under node on golden vectors that seqviz wrote (weights,
// inputs, outputs), and the tests in a browser (tests/test_web_*.py) drive the views built on them.
// The weights come from the chapter's trained model (seqviz/web/export.py writes them, float32, in
// PyTorch's own layout) under the state_dict names of one table, seqviz/web/names.json, that the exporters
// and this code both read (NAMES, defined by seqviz.web.page.bundle). Arithmetic runs in JavaScript's
// doubles and every stored vector is rounded to float32, as PyTorch's are.
// A number that is not finite (a NaN logit, a row with nothing to attend to) is an Error, never a NaN
// drawn: the views show its message.
"use strict";

const nn = { names: NAMES };

// The book's language. seqviz.web.page.page_messages puts the views' own texts of the book's language in every
// spec, spec.i18n = {language, messages: {English template: translation}} (the catalogue's web.json; empty in
// English), so the page needs no fetch. nn.say(spec, template, values) is the one way a view or a tokenizer writes
// a text: the template's translation (the English itself where there is none), each {name} filled from values,
// which the caller has already formatted (numbers) or chosen (data: a token is never translated).
nn.say = function (spec, template, values) {
  const messages = (spec && spec.i18n && spec.i18n.messages) || {};
  const text = Object.prototype.hasOwnProperty.call(messages, template) ? messages[template] : template;
  return text.replace(/\{(\w+)\}/g, (whole, name) => (values && name in values ? String(values[name]) : whole));
};

// A tensor from Python: {shape: [..], data: base64 of little-endian float32}.
nn.tensor = function (t) {
  const bytes = Uint8Array.from(atob(t.data), (c) => c.charCodeAt(0));
  return { shape: t.shape, data: new Float32Array(bytes.buffer) };
};

// Decode every tensor of a spec's "weights" once: {name: {shape, data}}.
nn.load = function (spec) {
  if (!spec._weights) {
    spec._weights = {};
    for (const [name, t] of Object.entries(spec.weights || {})) spec._weights[name] = nn.tensor(t);
  }
  return spec._weights;
};

// weights[name], or an Error naming what the page was not given (a spec written by another exporter).
nn.get = function (weights, name) {
  const t = weights[name];
  if (!t) throw new Error(`the page's weights lack '${name}' (seqviz/web/names.json names it)`);
  return t;
};

// Row i of a (R, C) matrix, as a view (no copy): an embedding lookup.
nn.row = function (W, i) {
  const [R, C] = W.shape;
  if (!(Number.isInteger(i) && i >= 0 && i < R)) throw new Error(`row: expected an index in 0..${R - 1}, got ${i}`);
  return W.data.subarray(i * C, (i + 1) * C);
};

// W x (+ b) for W (R, C), x (C,): a new Float32Array (R,).
nn.linear = function (W, x, b) {
  const [R, C] = W.shape;
  if (x.length !== C) throw new Error(`linear: expected an input of ${C} values, got ${x.length}`);
  const y = new Float32Array(R), w = W.data;
  for (let r = 0; r < R; r++) {
    let s = b ? b.data[r] : 0;
    for (let c = 0, o = r * C; c < C; c++) s += w[o + c] * x[c];
    y[r] = s;
  }
  return y;
};

nn.sigmoid = (v) => 1 / (1 + Math.exp(-v));

// The largest of x, after checking that softmax is defined: no NaN, no +inf, not every entry -inf.
nn.softmaxMax = function (x, what) {
  let m = -Infinity;
  for (const v of x) {
    if (Number.isNaN(v) || v === Infinity) throw new Error(`${what || "softmax"}: a score is ${v}; expected finite scores (or -inf for masked ones)`);
    if (v > m) m = v;
  }
  if (m === -Infinity) throw new Error(`${what || "softmax"}: every score is -inf (everything masked): the weights are undefined`);
  return m;
};

nn.softmax = function (x, what) {
  const m = nn.softmaxMax(x, what), y = new Float32Array(x.length);
  let s = 0;
  for (let i = 0; i < x.length; i++) { y[i] = Math.exp(x[i] - m); s += y[i]; }
  for (let i = 0; i < x.length; i++) y[i] /= s;
  return y;
};

nn.logSoftmax = function (x, what) {
  const m = nn.softmaxMax(x, what);
  let s = 0;
  for (const v of x) s += Math.exp(v - m);
  const lse = m + Math.log(s), y = new Float32Array(x.length);
  for (let i = 0; i < x.length; i++) y[i] = x[i] - lse;
  return y;
};

// Typed arrays (and nested lists of them) as plain lists, for a test to compare with Python.
nn.toLists = function (value) {
  if (ArrayBuffer.isView(value)) return Array.from(value);
  if (Array.isArray(value)) return value.map(nn.toLists);
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, nn.toLists(v)]));
  return value;
};
