// The page's numeric twins (seqviz/web/js/nn/), run under node on the golden cases tests/test_js_twins.py wrote.
//
// usage: node js_twins.js BUNDLE CASES  ->  prints one JSON result per case, {"ok": value} or {"error": message}
// BUNDLE is the page's own script (seqviz.web.page.bundle(), maybe with a planted bug), run as the page runs it,
// with window = globalThis: the only thing a browser would add is the DOM, which the numeric twins never touch.
// Tensors travel as page.tensor writes them ({shape, data: base64 float32}), so -inf and NaN survive the trip;
// numbers that are not finite come back as the strings "Infinity", "-Infinity" and "NaN".
"use strict";

const fs = require("fs");
const vm = require("vm");

const [bundlePath, casesPath] = process.argv.slice(2);
globalThis.window = globalThis;
vm.runInThisContext(fs.readFileSync(bundlePath, "utf8"), { filename: "seqviz-bundle.js" });
const nn = window.seqviz.nn;

const vector = (t) => nn.tensor(t).data;                                  // (N,) Float32Array
const vectors = (t) => {                                                   // (T, D) -> T vectors (D,)
  const x = nn.tensor(t), D = x.shape[x.shape.length - 1];
  return Array.from({ length: x.data.length / D }, (_, i) => x.data.subarray(i * D, (i + 1) * D));
};
const loaded = (weights) => Object.fromEntries(Object.entries(weights).map(([k, t]) => [k, nn.tensor(t)]));
const attempt = (f) => { try { return { ok: f() }; } catch (error) { return { error: error.message }; } };

// A decoder step from a table of log-probabilities: state = how many tokens the prefix holds; row
// table[min(state, S) - 1][last token] (the toy models of tests/test_decode.py, written as tensors).
function tableStep(table) {
  const [S, V] = table.shape;
  return (state, token) => {
    const row = Math.min(state, S) - 1, width = table.shape[2];
    return { logProbs: table.data.subarray((row * V + token) * width, (row * V + token + 1) * width), state: state + 1 };
  };
}

// The generate view's loop (views/generate.js, advance): feed the prompt, then sample one token per step.
function sample(spec, promptIds, steps, temperature, topK, seed) {
  const model = nn.lmModel(spec), rng = nn.mulberry32(seed), ids = [], probs = [], dists = [];
  let state = model.start();
  for (const id of promptIds) state = model.feed(state, id);
  for (let i = 0; i < steps; i++) {
    const p = nn.lmDistribution(model.logits(state), temperature, topK), id = nn.lmChoose(p, rng());
    ids.push(id); probs.push(p[id]); dists.push(p);
    if (i < steps - 1) state = model.feed(state, id);
  }
  return { ids, probs, dists };
}

const RUN = {
  recurrent: (c) => nn.recurrent(c.kind, { w_ih: nn.tensor(c.w_ih), w_hh: nn.tensor(c.w_hh), b_ih: nn.tensor(c.b_ih),
                                           b_hh: nn.tensor(c.b_hh) }, vectors(c.x),
                                 c.h0 && { h: vector(c.h0), c: c.c0 && vector(c.c0) }),
  classifier: (c) => nn.classifierReading(c.spec, c.ids),
  gates: (c) => nn.gatesReading(c.spec, c.ids),
  lm_logits: (c) => {
    const model = nn.lmModel(c.spec), out = [];
    let state = model.start();
    for (const id of c.ids) { state = model.feed(state, id); out.push(model.logits(state)); }
    return out;
  },
  sample: (c) => sample(c.spec, c.prompt, c.steps, c.temperature, c.top_k, c.seed),
  mulberry32: (c) => { const r = nn.mulberry32(c.seed); return Array.from({ length: c.n }, r); },
  distribution: (c) => nn.lmDistribution(vector(c.logits), c.temperature, c.top_k),
  choose: (c) => c.us.map((u) => nn.lmChoose(Float64Array.from(c.p), u)),
  encode: (c) => c.texts.map((text) => attempt(() => nn.encode(c.spec, text))),
  lm_tokens: (c) => c.texts.map((text) => attempt(() => nn.lmTokens(c.spec, text))),
  seq2seq: (c) => {
    const memory = nn.seq2seq.encode(c.spec, c.ids), logProbs = [], weights = [];
    let state = memory.state;
    for (const t of c.tokens) {
      const out = nn.seq2seq.step(c.spec, memory, t, state);
      logProbs.push(out.logProbs); weights.push(out.weights || []); state = out.state;
    }
    const greedy = nn.seq2seq.greedy(c.spec, memory, c.max_len);
    return { encoder: memory.outputs, state: memory.state, logProbs, weights, greedy };
  },
  beam_seq2seq: (c) => {
    const memory = nn.seq2seq.encode(c.spec, c.ids), o = c.spec.options;
    const step = (state, token) => nn.seq2seq.step(c.spec, memory, token, state);
    return nn.beam.search(step, memory.state, { bos: o.bos_id, eos: o.eos_id, beamSize: c.beam_size,
                                                maxLen: c.max_len, alpha: c.alpha, prunedPerStep: c.pruned });
  },
  beam_table: (c) => nn.beam.search(tableStep(nn.tensor(c.table)), 1, { bos: c.bos, eos: c.eos, beamSize: c.beam_size,
                                                                        maxLen: c.max_len, alpha: c.alpha,
                                                                        prunedPerStep: c.pruned }),
  transformer: (c) => nn.transformer.seq2seqEncode(c.spec, c.ids),
  bert: (c) => nn.transformer.bertEncode(c.spec, c.ids, c.segments),
  attention: (c) => {
    const w = loaded(c.weights);
    const p = { in_proj_weight: w.in_proj_weight, in_proj_bias: w.in_proj_bias, out_proj_weight: w["out_proj.weight"],
                out_proj_bias: w["out_proj.bias"] };
    return nn.transformer.selfAttention(p, vectors(c.x), c.heads, c.keep);
  },
  belt: (c) => nn.beltSurvival(vectors(c.forget), c.start),
  softmax: (c) => nn.softmax(vector(c.scores)),
  layer_norm: (c) => nn.transformer.layerNorm(vector(c.x), { weight: nn.tensor(c.weight), bias: nn.tensor(c.bias) }, c.eps),
  gelu: (c) => Array.from(vector(c.x), nn.transformer.activations.gelu),
  sinusoids: (c) => nn.transformer.sinusoids(c.T, c.d, c.base),
};

const cases = JSON.parse(fs.readFileSync(casesPath, "utf8"));
const results = cases.map((c) => {
  if (!RUN[c.run]) return { error: `js_twins.js: no case kind '${c.run}'` };
  return attempt(() => nn.toLists(RUN[c.run](c)));
});
const finite = (key, value) => (typeof value === "number" && !Number.isFinite(value) ? String(value) : value);
process.stdout.write(JSON.stringify(results, finite));
