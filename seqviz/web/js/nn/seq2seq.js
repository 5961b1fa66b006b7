// seqviz.nn.seq2seq, the twin of seqviz/models/seq2seq.py's Seq2Seq (encode, step), seqviz/models/attention.py's
// AdditiveAttention and seqviz/models/_decoding.py's greedy decoding: the translator of chapters 6 and 7.
//
// From its state_dict (seqviz/web/translation.py; names: NAMES.seq2seq):
//   encoder: embedding, a recurrent network left to right and (bidirectional) one right to left, the backward
//            one reading the sentence reversed and its states put back in input order (one sentence: no pads);
//   bridge:  s_0 = tanh(W_bridge [h_S(fwd) ; h_1(bwd)] + b);
//   decoder: one GRU step per output token; with attention (Bahdanau et al., 2015; models/attention.py)
//            e_j = v . tanh(W_query s_{u-1} + W_key h_j + b_key), alpha = softmax(e), c = sum_j alpha_j h_j,
//            s_u = GRU([E y_{u-1} ; c], s_{u-1}), logits = W_out [s_u ; c] + b_out (without: no c).
// Greedy decoding is Decoding.greedy's (models/_decoding.py): argmax of the logits, the first maximum on ties.
// Chapter 6's beam search over the same decoder step is nn.beam.search (beam.js); the views are
// views/alignment.js and views/beam_tree.js.
"use strict";

nn.seq2seq = {};

// The model's weights as the decoder step needs them (decoded once per spec).
nn.seq2seq.parts = function (spec) {
  if (spec._seq2seq) return spec._seq2seq;
  const w = nn.load(spec), m = spec.options.model, names = nn.names.seq2seq;
  const [forward] = nn.layers(w, names.forward_rnn, 1);
  const backward = m.bidirectional ? nn.layers(w, names.backward_rnn, 1)[0] : null;
  const [decoder] = nn.layers(w, names.decoder_rnn, 1);
  const get = (role) => nn.get(w, names[role]);
  const attention = m.attention ? { query: get("query_weight"), key: get("key_weight"), keyBias: get("key_bias"),
                                    v: get("v_weight") } : null;
  spec._seq2seq = { w, m, forward, backward, decoder, attention, sourceEmbedding: get("source_embedding"),
                    bridge: get("bridge_weight"), bridgeBias: get("bridge_bias"), embedding: get("embedding"),
                    out: get("out_weight"), outBias: get("out_bias") };
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
  const { m, forward, backward, sourceEmbedding, bridge, bridgeBias, attention } = nn.seq2seq.parts(spec);
  if (!ids.length) throw new Error("encode: expected at least one source word");
  const xs = ids.map((i) => nn.row(sourceEmbedding, i));  // S x (E,)
  const fwd = nn.recurrent(m.cell, forward, xs).h;  // S x (H,): position j has read 1..j
  let outputs = fwd, summary = fwd[fwd.length - 1];
  if (backward) {
    const bwd = nn.recurrent(m.cell, backward, xs.slice().reverse()).h.reverse();  // position j has read j..S
    outputs = fwd.map((h, j) => nn.seq2seq.concat(h, bwd[j]));  // S x (2H,)
    summary = nn.seq2seq.concat(summary, bwd[0]);  // (2H,)
  }
  const state = nn.linear(bridge, summary, bridgeBias).map(Math.tanh);  // (H,)
  const projected = attention ? outputs.map((h) => nn.linear(attention.key, h, attention.keyBias)) : null;
  return { outputs, state, projected };
};

// Additive attention of the query s (H,) over the memory: {weights (S,), context (De,)}.
nn.seq2seq.attend = function (spec, memory, query) {
  const { attention } = nn.seq2seq.parts(spec);
  const q = nn.linear(attention.query, query);  // (A,): W_query s, no bias
  const v = attention.v.data;  // (1, A) -> (A,)
  const scores = memory.projected.map((k) => {  // e_j = v . tanh(W_key h_j + b + W_query s)
    let e = 0;
    for (let a = 0; a < q.length; a++) e += v[a] * Math.tanh(Math.fround(k[a] + q[a]));
    return e;
  });
  const weights = nn.softmax(scores, "attention");  // (S,): one sentence, no padding to mask
  const context = new Float32Array(memory.outputs[0].length);  // (De,)
  memory.outputs.forEach((h, j) => { for (let d = 0; d < h.length; d++) context[d] += weights[j] * h[d]; });
  return { weights, context };
};

// One decoder step (Seq2Seq.step): read `token` from `state` (H,) ->
//   {logits (V,), logProbs (V,), state (H,), weights (S,) or null}.
nn.seq2seq.step = function (spec, memory, token, state) {
  const { m, decoder, embedding, out, outBias } = nn.seq2seq.parts(spec);
  let x = nn.row(embedding, token);  // (E,)
  let look = null;
  if (m.attention) {  // the query is the previous state, as in Bahdanau et al.
    look = nn.seq2seq.attend(spec, memory, state);
    x = nn.seq2seq.concat(x, look.context);  // (E + De,)
  }
  const next = nn.recurrent("gru", decoder, [x], { h: state }).h[0];  // (H,)
  const features = look ? nn.seq2seq.concat(next, look.context) : next;  // (H + De,) or (H,)
  const logits = nn.linear(out, features, outBias);  // (V,)
  return { logits, logProbs: nn.logSoftmax(logits, "the decoder's logits"), state: next, weights: look && look.weights };
};

// Greedy decoding of one sentence, as the chapter's `align` does with model.greedy: at most maxLen tokens,
// stopping after eos. Returns {tokens (eos included), logProbs: one (V,) per step, weights: one (S,) per step}.
nn.seq2seq.greedy = function (spec, memory, maxLen) {
  const { bos_id: bos, eos_id: eos } = spec.options, V = nn.seq2seq.parts(spec).out.shape[0];
  if (!(Number.isInteger(bos) && Number.isInteger(eos) && bos >= 0 && eos >= 0 && bos < V && eos < V))
    throw new Error(`bos and eos must be token ids in 0..${V - 1}, got ${bos} and ${eos}`);
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

