// seqviz.nn.seq2seq and views.alignment: chapter 7's translator in the reader's browser.
//
// The encoder-decoder of seqviz/models/seq2seq.py (Seq2Seq), from its state_dict (seqviz/web/translation.py):
//   encoder: embedding, a recurrent network left to right and (bidirectional) one right to left, the backward
//            one reading the sentence reversed and its states put back in input order (one sentence: no pads);
//   bridge:  s_0 = tanh(W_bridge [h_S(fwd) ; h_1(bwd)] + b);
//   decoder: one GRU step per output token; with attention (Bahdanau et al., 2015; models/attention.py)
//            e_j = v . tanh(W_query s_{u-1} + W_key h_j + b_key), alpha = softmax(e), c = sum_j alpha_j h_j,
//            s_u = GRU([E y_{u-1} ; c], s_{u-1}), logits = W_out [s_u ; c] + b_out (without: no c).
// Greedy decoding is Decoding.greedy's (models/_decoding.py): argmax of the logits, the first maximum on ties.
// Chapter 6's beam search over the same decoder step is in beams.js.
"use strict";

nn.seq2seq = {};

// The model's weights as the decoder step needs them (decoded once per spec).
nn.seq2seq.parts = function (spec) {
  if (spec._seq2seq) return spec._seq2seq;
  const w = nn.load(spec), m = spec.options.model;
  const [forward] = nn.layers(w, "encoder.forward_rnn.", 1);
  const backward = m.bidirectional ? nn.layers(w, "encoder.backward_rnn.", 1)[0] : null;
  const [decoder] = nn.layers(w, "rnn.", 1);
  spec._seq2seq = { w, m, forward, backward, decoder };
  return spec._seq2seq;
};

// [a ; b]: two vectors joined, as torch.cat.
nn.seq2seq.concat = function (a, b) {
  const y = new Float32Array(a.length + b.length);
  y.set(a);
  y.set(b, a.length);
  return y;
};

// Read one source sentence (ids, S of them): the memory the decoder consults.
//   outputs: S vectors (De = D*H), the encoder state of each word; state: s_0 (H); projected: S vectors
//   (A), W_key h_j + b_key, computed once per sentence (AdditiveAttention.project_keys), or null.
nn.seq2seq.encode = function (spec, ids) {
  const { w, m, forward, backward } = nn.seq2seq.parts(spec);
  const xs = ids.map((i) => nn.row(w["encoder.embedding.weight"], i));  // S x (E,)
  const fwd = nn.recurrent(m.cell, forward, xs).h;  // S x (H,): position j has read 1..j
  let outputs = fwd, summary = fwd[fwd.length - 1];
  if (backward) {
    const bwd = nn.recurrent(m.cell, backward, xs.slice().reverse()).h.reverse();  // position j has read j..S
    outputs = fwd.map((h, j) => nn.seq2seq.concat(h, bwd[j]));  // S x (2H,)
    summary = nn.seq2seq.concat(summary, bwd[0]);  // (2H,)
  }
  const state = nn.linear(w["bridge.weight"], summary, w["bridge.bias"]).map(Math.tanh);  // (H,)
  const projected = m.attention ? outputs.map((h) => nn.linear(w["attention.key_proj.weight"], h,
                                                                 w["attention.key_proj.bias"])) : null;
  return { outputs, state, projected };
};

// Additive attention of the query s (H,) over the memory: {weights (S,), context (De,)}.
nn.seq2seq.attend = function (spec, memory, query) {
  const { w } = nn.seq2seq.parts(spec);
  const q = nn.linear(w["attention.query_proj.weight"], query);  // (A,): W_query s, no bias
  const v = w["attention.v.weight"].data;  // (1, A) -> (A,)
  const scores = memory.projected.map((k) => {  // e_j = v . tanh(W_key h_j + b + W_query s)
    let e = 0;
    for (let a = 0; a < q.length; a++) e += v[a] * Math.tanh(Math.fround(k[a] + q[a]));
    return e;
  });
  const weights = nn.softmax(scores);  // (S,): one sentence, no padding to mask
  const context = new Float32Array(memory.outputs[0].length);  // (De,)
  memory.outputs.forEach((h, j) => { for (let d = 0; d < h.length; d++) context[d] += weights[j] * h[d]; });
  return { weights, context };
};

// One decoder step (Seq2Seq.step): read `token` from `state` (H,) ->
//   {logits (V,), logProbs (V,), state (H,), weights (S,) or null}.
nn.seq2seq.step = function (spec, memory, token, state) {
  const { w, m, decoder } = nn.seq2seq.parts(spec);
  let x = nn.row(w["embedding.weight"], token);  // (E,)
  let look = null;
  if (m.attention) {  // the query is the previous state, as in Bahdanau et al.
    look = nn.seq2seq.attend(spec, memory, state);
    x = nn.seq2seq.concat(x, look.context);  // (E + De,)
  }
  const next = nn.recurrent("gru", decoder, [x], { h: state }).h[0];  // (H,)
  const features = look ? nn.seq2seq.concat(next, look.context) : next;  // (H + De,) or (H,)
  const logits = nn.linear(w["out.weight"], features, w["out.bias"]);  // (V,)
  return { logits, logProbs: nn.logSoftmax(logits), state: next, weights: look && look.weights };
};

// Greedy decoding of one sentence, as the chapter's `align` does with model.greedy: at most maxLen tokens,
// stopping after eos. Returns {tokens (eos included), logProbs: one (V,) per step, weights: one (S,) per step}.
nn.seq2seq.greedy = function (spec, memory, maxLen) {
  const { bos_id: bos, eos_id: eos } = spec.options;
  const tokens = [], logProbs = [], weights = [];
  let state = memory.state, token = bos;
  for (let u = 0; u < maxLen && token !== eos; u++) {
    const out = nn.seq2seq.step(spec, memory, token, state);
    token = out.logits.indexOf(Math.max(...out.logits));  // the first maximum, as torch.argmax
    tokens.push(token); logProbs.push(out.logProbs); weights.push(out.weights);
    state = out.state;
  }
  return { tokens, logProbs, weights };
};

// Chapter 7: type digit words; the greedy translation's attention weights (output token x source word),
// Blues from 0 to 1, as seqviz.viz.HeatmapPicture draws them in the notebook.
views.alignment = function (root, spec) {
  const o = spec.options;
  let shown = null;
  const box = ui.text("sentence", o.sentence, (text) => view.run(() => { read(text); draw(); }));
  const view = ui.frame(root, o.title, [box]);

  function read(text) {
    try {
      const { tokens, ids } = nn.encode(spec, text);
      const memory = nn.seq2seq.encode(spec, ids);
      const out = nn.seq2seq.greedy(spec, memory, ids.length + o.extra_steps);
      shown = { source: tokens, output: out.tokens.map((t) => o.target_itos[t]), ids: out.tokens,
                weights: out.weights, logProbs: out.logProbs, encoder: memory.outputs, state: memory.state };
    } catch (error) {
      shown = { error };
    }
  }

  function draw() {
    if (shown.error) { view.picture.innerHTML = ""; throw shown.error; }
    const { source, output, weights } = shown, S = source.length, U = output.length;
    const cw = Math.max(18, Math.min(60, 480 / S)), ch = Math.max(14, Math.min(26, 300 / U));  // a cell's width, height
    const longest = Math.max(...source.map((t) => t.length)), slanted = longest > 3;  // matplotlib's rule
    const x0 = 90, top = 30, bottom = top + U * ch, width = x0 + S * cw + 90, parts = [];
    weights.forEach((row, u) => row.forEach((v, j) => parts.push(
      `<rect x="${x0 + j * cw}" y="${top + u * ch}" width="${cw}" height="${ch}" fill="${ui.sequential(v, 0, 1)}">` +
      `<title>${ui.esc(output[u])} · ${ui.esc(source[j])}: ${v.toFixed(3)}</title></rect>`)));
    output.forEach((t, u) => parts.push(`<text x="${x0 - 5}" y="${top + (u + 0.5) * ch + 4}" font-size="11" ` +
                                        `text-anchor="end">${ui.esc(t)}</text>`));
    const labels = slanted ? ui.columnLabels(source, x0, cw, bottom + 14) : source.map((t, j) => `<text ` +
      `x="${x0 + (j + 0.5) * cw}" y="${bottom + 14}" font-size="11" text-anchor="middle">${ui.esc(t)}</text>`).join("");
    const barX = x0 + S * cw + 20, barH = U * ch, steps = 20;  // the colour bar, 0 at the bottom
    for (let i = 0; i < steps; i++)
      parts.push(`<rect x="${barX}" y="${top + barH * (1 - (i + 1) / steps)}" width="12" ` +
                 `height="${barH / steps + 0.5}" fill="${ui.sequential((i + 0.5) / steps, 0, 1)}"/>`);
    for (const v of [0, 0.5, 1])
      parts.push(`<text x="${barX + 16}" y="${top + barH * (1 - v) + 4}" font-size="10">${v}</text>`);
    const labelY = bottom + (slanted ? 8 + 6 * longest : 0) + 28, middle = x0 + S * cw / 2;
    view.picture.innerHTML = `<svg width="${width}" height="${labelY + 8}" role="img" ` +
      `aria-label="${ui.esc(o.heading)}">` +
      `<text x="${middle}" y="18" font-size="12" text-anchor="middle">${ui.esc(o.heading)}</text>` +
      parts.join("") + labels +
      `<text x="${middle}" y="${labelY}" font-size="11" text-anchor="middle">source word</text>` +
      `<text x="14" y="${top + barH / 2}" font-size="11" text-anchor="middle" ` +
      `transform="rotate(-90 14 ${top + barH / 2})">output token</text></svg>`;
  }

  view.run(() => { read(o.sentence); draw(); });
  view.numbers = () => shown.error ? { error: shown.error.message } :
    { source: shown.source, output: shown.output, ids: shown.ids, weights: shown.weights,
      log_probs: shown.logProbs, encoder: shown.encoder, state: shown.state };
  view.controls = { sentence: box.input };
  return view;
};
