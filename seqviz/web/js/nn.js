// seqviz.nn: the forward pass of the book's models, in the reader's browser.
//
// The weights come from the chapter's trained model (seqviz/web/export.py writes them, float32, in
// PyTorch's own layout and names), so the page computes what the notebook computes: a test feeds the
// same inputs to these functions in headless Chromium and to seqviz, and compares (tests/test_web_*.py).
// Arithmetic runs in JavaScript's doubles and every stored vector is rounded to float32, as PyTorch's are.
"use strict";

const nn = {};

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

// Row i of a (R, C) matrix, as a view (no copy): an embedding lookup.
nn.row = function (W, i) {
  const C = W.shape[1];
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

nn.softmax = function (x) {
  let m = -Infinity;
  for (const v of x) m = Math.max(m, v);
  const y = new Float32Array(x.length);
  let s = 0;
  for (let i = 0; i < x.length; i++) { y[i] = Math.exp(x[i] - m); s += y[i]; }
  for (let i = 0; i < x.length; i++) y[i] /= s;
  return y;
};

nn.logSoftmax = function (x) {
  let m = -Infinity;
  for (const v of x) m = Math.max(m, v);
  let s = 0;
  for (const v of x) s += Math.exp(v - m);
  const lse = m + Math.log(s), y = new Float32Array(x.length);
  for (let i = 0; i < x.length; i++) y[i] = x[i] - lse;
  return y;
};

// One recurrent layer over a sequence, as seqviz.models.RNN/LSTM/GRU (PyTorch's equations and gate order).
// p: {w_ih (G*H, D), w_hh (G*H, H), b_ih, b_hh}; xs: list of (D,) vectors; state: optional {h, c}.
// Returns the trace seqviz records, one (H,) vector per step and name:
//   rnn: h; lstm: h, c, input, forget, candidate, output; gru: h, update, reset, candidate.
nn.recurrent = function (kind, p, xs, state) {
  const H = p.w_hh.shape[1];
  let h = state && state.h ? Float32Array.from(state.h) : new Float32Array(H);
  let c = state && state.c ? Float32Array.from(state.c) : new Float32Array(H);
  const names = { rnn: ["h"], lstm: ["h", "c", "input", "forget", "candidate", "output"],
                  gru: ["h", "update", "reset", "candidate"] }[kind];
  if (!names) throw new Error(`recurrent: unknown kind '${kind}' (expected rnn, lstm or gru)`);
  const trace = Object.fromEntries(names.map((n) => [n, []]));
  for (const x of xs) {
    const a = nn.linear(p.w_ih, x, p.b_ih), b = nn.linear(p.w_hh, h, p.b_hh);
    const next = new Float32Array(H);
    if (kind === "rnn") {
      for (let j = 0; j < H; j++) next[j] = Math.tanh(a[j] + b[j]);
    } else if (kind === "lstm") {  // rows: input, forget, candidate (g), output
      const gi = new Float32Array(H), gf = new Float32Array(H), gg = new Float32Array(H), go = new Float32Array(H);
      const cNext = new Float32Array(H);
      for (let j = 0; j < H; j++) {
        gi[j] = nn.sigmoid(a[j] + b[j]);
        gf[j] = nn.sigmoid(a[H + j] + b[H + j]);
        gg[j] = Math.tanh(a[2 * H + j] + b[2 * H + j]);
        go[j] = nn.sigmoid(a[3 * H + j] + b[3 * H + j]);
        cNext[j] = gf[j] * c[j] + gi[j] * gg[j];
        next[j] = go[j] * Math.tanh(cNext[j]);
      }
      c = cNext;
      trace.c.push(c); trace.input.push(gi); trace.forget.push(gf); trace.candidate.push(gg); trace.output.push(go);
    } else {  // gru, rows: reset, update (z), candidate (n); h = (1 - z) n + z h
      const r = new Float32Array(H), z = new Float32Array(H), n = new Float32Array(H);
      for (let j = 0; j < H; j++) {
        r[j] = nn.sigmoid(a[j] + b[j]);
        z[j] = nn.sigmoid(a[H + j] + b[H + j]);
        n[j] = Math.tanh(a[2 * H + j] + r[j] * b[2 * H + j]);
        next[j] = (1 - z[j]) * n[j] + z[j] * h[j];
      }
      trace.update.push(z); trace.reset.push(r); trace.candidate.push(n);
    }
    h = next;
    trace.h.push(h);
  }
  return trace;
};

// The layers of a recurrent model, as export.recurrent_layers wrote them: [{w_ih, w_hh, b_ih, b_hh}, ...].
nn.layers = function (weights, prefix, count) {
  const layers = [];
  for (let l = 0; l < count; l++) {
    const get = (name) => weights[`${prefix}${name}_l${l}`];
    layers.push({ w_ih: get("weight_ih"), w_hh: get("weight_hh"), b_ih: get("bias_ih"), b_hh: get("bias_hh") });
  }
  return layers;
};

// A SequenceClassifier reading one sentence (ids): the trace of every layer and, after each token, the
// class probabilities the head would give if the sentence stopped there (what chapters 2 and 4 show).
nn.classifierReading = function (spec, ids) {
  const w = nn.load(spec), m = spec.options.model;
  let xs = ids.map((i) => nn.row(w["embedding.weight"], i));
  const traces = [];
  for (const layer of nn.layers(w, "encoder.", m.num_layers)) {
    const trace = nn.recurrent(m.cell, layer, xs);
    traces.push(trace);
    xs = trace.h;
  }
  const probs = xs.map((h) => nn.softmax(nn.linear(w["head.weight"], h, w["head.bias"])));
  return { traces, probs };
};

// Tokens -> ids with the chapter's vocabulary; words it does not know are an Error whose message the view shows.
nn.encode = function (spec, text) {
  const v = spec.vocab, pattern = new RegExp(v.pattern, "g");
  const tokens = (v.lower ? text.toLowerCase() : text).match(pattern) || [];
  if (!tokens.length) throw new Error("type a sentence in the box (words separated by spaces)");
  if (v.max_tokens && tokens.length > v.max_tokens)
    throw new Error(`${tokens.length} words; this view reads at most ${v.max_tokens}`);
  const index = v._index || (v._index = new Map(v.itos.map((t, i) => [t, i])));
  const unknown = tokens.filter((t) => !index.has(t) || v.specials.includes(t));
  if (unknown.length) {
    const known = v.itos.filter((t) => !v.specials.includes(t)), first = [...new Set(unknown)];
    const words = first.slice(0, 5).map((t) => `'${t}'`).join(", ") + (first.length > 5 ? " ..." : "");
    throw new Error(`this model has never seen ${words}; it only knows ${known.length} words, ` +
                    `such as ${known.slice(0, 12).join(", ")} ...`);
  }
  return { tokens, ids: tokens.map((t) => index.get(t)) };
};

// Typed arrays (and nested lists of them) as plain lists, for a test to compare with Python.
nn.toLists = function (value) {
  if (ArrayBuffer.isView(value)) return Array.from(value);
  if (Array.isArray(value)) return value.map(nn.toLists);
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, nn.toLists(v)]));
  return value;
};
