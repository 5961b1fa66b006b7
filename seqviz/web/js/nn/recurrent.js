// seqviz.nn's recurrent networks, the twin of seqviz/models/rnn.py, lstm.py and gru.py (one step of each
// cell, PyTorch's equations and gate order), of seqviz/models/classifier.py's SequenceClassifier reading a
// sentence (features with return_trace=True, then the head after every token) and of seqviz/models/lm.py's
// GRULM (prefill and step). Weight names: NAMES.recurrent, NAMES.classifier, NAMES.language_model.
"use strict";

// One step of a cell from its two projections: a = W_ih x + b_ih, b = W_hh h + b_hh (each (G*H,)); h, c the
// state (H,). Returns {h, c, gates}: the new state and the step's gates (the names of seqviz's trace).
//   rnn:  h' = tanh(a + b)
//   lstm: rows input, forget, candidate (g), output; c' = f c + i g, h' = o tanh(c')
//   gru:  rows reset, update (z), candidate (n); n = tanh(a_n + r b_n), h' = (1 - z) n + z h
nn.cellStep = function (kind, a, b, h, c) {
  const H = h.length, next = new Float32Array(H);
  if (kind === "rnn") {
    for (let j = 0; j < H; j++) next[j] = Math.tanh(a[j] + b[j]);
    return { h: next, c, gates: {} };
  }
  if (kind === "lstm") {
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
    return { h: next, c: cNext, gates: { input: gi, forget: gf, candidate: gg, output: go } };
  }
  if (kind === "gru") {
    const r = new Float32Array(H), z = new Float32Array(H), n = new Float32Array(H);
    for (let j = 0; j < H; j++) {
      r[j] = nn.sigmoid(a[j] + b[j]);
      z[j] = nn.sigmoid(a[H + j] + b[H + j]);
      n[j] = Math.tanh(a[2 * H + j] + r[j] * b[2 * H + j]);
      next[j] = (1 - z[j]) * n[j] + z[j] * h[j];
    }
    return { h: next, c, gates: { update: z, reset: r, candidate: n } };
  }
  throw new Error(`recurrent: unknown kind '${kind}' (expected rnn, lstm or gru)`);
};

// The trace seqviz records, one (H,) vector per step and name:
//   rnn: h; lstm: h, c, input, forget, candidate, output; gru: h, update, reset, candidate.
const TRACE_NAMES = { rnn: ["h"], lstm: ["h", "c", "input", "forget", "candidate", "output"],
                      gru: ["h", "update", "reset", "candidate"] };

// One recurrent layer over a sequence: p {w_ih (G*H, D), w_hh (G*H, H), b_ih, b_hh}; xs: list of (D,)
// vectors; state: optional {h, c}. Returns the trace, {name: [T vectors (H,)]}.
nn.recurrent = function (kind, p, xs, state) {
  const names = TRACE_NAMES[kind];
  if (!names) throw new Error(`recurrent: unknown kind '${kind}' (expected rnn, lstm or gru)`);
  const H = p.w_hh.shape[1];
  let h = state && state.h ? Float32Array.from(state.h) : new Float32Array(H);
  let c = state && state.c ? Float32Array.from(state.c) : new Float32Array(H);
  const trace = Object.fromEntries(names.map((n) => [n, []]));
  for (const x of xs) {
    const out = nn.cellStep(kind, nn.linear(p.w_ih, x, p.b_ih), nn.linear(p.w_hh, h, p.b_hh), h, c);
    h = out.h;
    c = out.c;
    for (const [name, value] of Object.entries(out.gates)) trace[name].push(value);
    if (kind === "lstm") trace.c.push(c);
    trace.h.push(h);
  }
  return trace;
};

// The layers of a recurrent module whose state_dict names start with `prefix`: [{w_ih, w_hh, b_ih, b_hh}, ...].
nn.layers = function (weights, prefix, count) {
  const names = nn.names.recurrent, layers = [];
  for (let l = 0; l < count; l++) {
    const get = (role) => nn.get(weights, prefix + names[role].replace("{layer}", l));
    layers.push({ w_ih: get("weight_ih"), w_hh: get("weight_hh"), b_ih: get("bias_ih"), b_hh: get("bias_hh") });
  }
  return layers;
};

// A SequenceClassifier reading one sentence (ids) through layers 0..count-1: every layer's trace.
nn.classifierTraces = function (spec, ids, count) {
  const w = nn.load(spec), m = spec.options.model, names = nn.names.classifier;
  let xs = ids.map((i) => nn.row(nn.get(w, names.embedding), i));   // T vectors (E,)
  const traces = [];
  for (const layer of nn.layers(w, names.encoder, count)) {
    const trace = nn.recurrent(m.cell, layer, xs);
    traces.push(trace);
    xs = trace.h;                                                     // the next layer reads this one's states
  }
  return traces;
};

// The whole classifier: every layer's trace and, after each token, the class probabilities the head would
// give if the sentence stopped there (what chapters 2 and 4 show).
nn.classifierReading = function (spec, ids) {
  const w = nn.load(spec), names = nn.names.classifier;
  const traces = nn.classifierTraces(spec, ids, spec.options.model.num_layers);
  const probs = traces[traces.length - 1].h.map((h) =>
    nn.softmax(nn.linear(nn.get(w, names.head_weight), h, nn.get(w, names.head_bias)), "the classifier's head"));
  return { traces, probs };
};

// Layers 0..layer only (chapter 4's gates view exports no more): the trace of layer `layer`.
nn.gatesReading = function (spec, ids) {
  const traces = nn.classifierTraces(spec, ids, spec.options.model.layer + 1);
  return traces[traces.length - 1];
};

// A GRULM (embedding -> every recurrent layer -> out): {start(), feed(state, id), logits(state)}, the twin of
// prefill (feed every prompt token from start()) and step. A state is one {h, c} per layer, new arrays at
// every step, so a state can be kept and resumed (as the prompt's is).
nn.lmModel = function (spec) {
  const w = nn.load(spec), m = spec.options.model, names = nn.names.language_model;
  const layers = nn.layers(w, names.rnn, m.num_layers), H = m.hidden_size, embedding = nn.get(w, names.embedding);
  const out = nn.get(w, names.out_weight), outBias = nn.get(w, names.out_bias);
  const inputs = new Map();   // token id -> layer 0's W_ih x + b_ih: computed once per token
  const project0 = (id) => {
    if (!inputs.has(id)) inputs.set(id, nn.linear(layers[0].w_ih, nn.row(embedding, id), layers[0].b_ih));
    return inputs.get(id);
  };
  return {
    start: () => layers.map(() => ({ h: new Float32Array(H), c: new Float32Array(H) })),
    feed(state, id) {   // read one token: the new state
      let x = null;
      return layers.map((p, l) => {
        const a = l === 0 ? project0(id) : nn.linear(p.w_ih, x, p.b_ih);
        const next = nn.cellStep(m.cell, a, nn.linear(p.w_hh, state[l].h, p.b_hh), state[l].h, state[l].c);
        x = next.h;
        return { h: next.h, c: next.c };
      });
    },
    logits: (state) => nn.linear(out, state[state.length - 1].h, outBias),   // (V,)
  };
};
