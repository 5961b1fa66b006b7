// seqviz.nn.transformer, the twin of seqviz/models/mha.py (MultiHeadAttention, positional_encoding),
// seqviz/models/transformer.py (TransformerEncoderLayer, TransformerSeq2Seq.encode: chapter 8) and
// seqviz/models/bert.py (BertMini's embeddings and encoder: chapter 9): the encoder in the reader's browser.
//
// PyTorch's parameter layouts, under the names of NAMES.encoder_layer, NAMES.transformer_seq2seq and NAMES.bert
// (seqviz/web/heads.py exports them): in_proj_weight (3d, d) = W_q, W_k, W_v stacked; out_proj.weight (d, d);
// linear1 (ff, d); linear2 (d, ff); norm1/norm2 {weight, bias} (d,).
// A sentence is a list of T vectors (Float32Array (d,)), one per token; every stored vector is float32, the sums
// inside run in doubles (nn.js's convention). Nothing here draws: heads.js shows what encode() returns.
"use strict";

nn.transformer = {};

// LayerNorm over one vector's d features: gamma * (x - mean) / sqrt(var + eps) + beta, var dividing by d.
nn.transformer.layerNorm = function (x, norm, eps) {
  const d = x.length, y = new Float32Array(d);
  let mean = 0, variance = 0;
  for (let i = 0; i < d; i++) mean += x[i];
  mean /= d;
  for (let i = 0; i < d; i++) variance += (x[i] - mean) ** 2;
  const scale = 1 / Math.sqrt(variance / d + eps);
  for (let i = 0; i < d; i++) y[i] = norm.weight.data[i] * (x[i] - mean) * scale + norm.bias.data[i];
  return y;
};

// erf(x) to about 1e-15: 2/sqrt(pi) exp(-x^2) sum_n 2^n x^(2n+1) / (1*3*...*(2n+1)), a series of positive
// terms (no cancellation); beyond |x| = 6, erf is +-1 in doubles to 1e-17.
nn.transformer.erf = function (x) {
  if (Math.abs(x) > 6) return Math.sign(x);
  let term = x, sum = x;
  for (let n = 1; Math.abs(term) > 1e-17 * Math.abs(sum); n++) {
    term *= 2 * x * x / (2 * n + 1);
    sum += term;
  }
  return 2 / Math.sqrt(Math.PI) * Math.exp(-x * x) * sum;
};

// The feed-forward activations of seqviz.models.transformer.ACTIVATIONS (PyTorch's exact, erf-based GELU).
nn.transformer.activations = {
  relu: (v) => Math.max(v, 0),
  gelu: (v) => 0.5 * v * (1 + nn.transformer.erf(v / Math.SQRT2)),
};

// PE[pos, 2i] = sin(pos / base^(2i/d)), PE[pos, 2i+1] = cos(pos / base^(2i/d)): T vectors (d,), as
// seqviz.models.positional_encoding computes them (in doubles, then float32).
nn.transformer.sinusoids = function (T, d, base) {
  const rows = [];
  for (let pos = 0; pos < T; pos++) {
    const pe = new Float32Array(d);
    for (let i = 0; i < d; i += 2) {
      const angle = pos * base ** (-i / d);
      pe[i] = Math.sin(angle);
      if (i + 1 < d) pe[i + 1] = Math.cos(angle);
    }
    rows.push(pe);
  }
  return rows;
};

// Rows [from, from + count) of a (R, C) matrix or (R,) bias, as a tensor of their own (no copy): W_q is rows
// 0..d-1 of in_proj_weight, W_k rows d..2d-1, W_v rows 2d..3d-1.
nn.transformer.rows = function (W, from, count) {
  const C = W.shape.length > 1 ? W.shape[1] : 1;
  return { shape: W.shape.length > 1 ? [count, C] : [count], data: W.data.subarray(from * C, (from + count) * C) };
};

// Multi-head self-attention (MultiHeadAttention.forward with query = key = value = xs).
// p: {in_proj_weight, in_proj_bias, out_proj_weight, out_proj_bias} (nn.transformer.layer gives them); keyMask:
// optional list of T booleans, true on real tokens (masked keys get weight exactly 0; a query with no real key
// is an Error, as in seqviz). Returns out: T vectors (d,), weights[h][i]: Float32Array (T,), the softmax over
// keys j of q_i . k_j / sqrt(head_size) in head h (what seqviz returns, before any dropout).
nn.transformer.selfAttention = function (p, xs, numHeads, keyMask) {
  const T = xs.length, d = p.out_proj_weight.shape[0], hs = d / numHeads, rows = nn.transformer.rows;
  if (!Number.isInteger(hs)) throw new Error(`selfAttention: ${d} features do not split into ${numHeads} heads`);
  const W = p.in_proj_weight, b = p.in_proj_bias;
  const project = (k) => xs.map((x) => nn.linear(rows(W, k * d, d), x, rows(b, k * d, d)));  // T x (d,)
  const q = project(0), k = project(1), v = project(2);
  const scale = 1 / Math.sqrt(hs), weights = [], joined = xs.map(() => new Float32Array(d));
  for (let h = 0, o = 0; h < numHeads; h++, o += hs) {  // head h reads features o .. o + hs - 1
    weights.push([]);
    for (let i = 0; i < T; i++) {
      const scores = new Float32Array(T);
      for (let j = 0; j < T; j++) {
        let s = 0;
        for (let c = o; c < o + hs; c++) s += q[i][c] * k[j][c];
        scores[j] = keyMask && !keyMask[j] ? -Infinity : s * scale;
      }
      const w = nn.softmax(scores, "attention");  // (T,): where query i looks, sums to 1
      weights[h].push(w);
      for (let c = o; c < o + hs; c++) {  // the heads side by side: joined[i] = [head 0 | head 1 | ...]
        let s = 0;
        for (let j = 0; j < T; j++) s += w[j] * v[j][c];
        joined[i][c] = s;
      }
    }
  }
  const out = joined.map((z) => nn.linear(p.out_proj_weight, z, p.out_proj_bias));  // W_o
  return { out, weights };
};

// FFN(x) = W_2 act(W_1 x + b_1) + b_2, one position at a time.
nn.transformer.feedForward = function (p, x, activation) {
  const act = nn.transformer.activations[activation];
  if (!act) throw new Error(`feedForward: unknown activation '${activation}' (expected relu or gelu)`);
  const a = nn.linear(p.linear1_weight, x, p.linear1_bias);
  for (let i = 0; i < a.length; i++) a[i] = act(a[i]);
  return nn.linear(p.linear2_weight, a, p.linear2_bias);
};

nn.transformer.add = (a, b) => Float32Array.from(a, (v, i) => v + b[i]);  // x + sublayer(x), rounded to float32

// One TransformerEncoderLayer: post-LN x = LN(x + MHA(x)), x = LN(x + FFN(x)); pre-LN x = x + MHA(LN(x)),
// x = x + FFN(LN(x)). p: nn.transformer.layer's weights; cfg: {num_heads, norm_first, activation, eps}.
// Returns {xs, weights (heads x T x T)}.
nn.transformer.encoderLayer = function (p, xs, cfg, keyMask) {
  const tf = nn.transformer, norm = (i) => ({ weight: p[`norm${i}_weight`], bias: p[`norm${i}_bias`] });
  const attend = (ys) => tf.selfAttention(p, ys, cfg.num_heads, keyMask);
  if (cfg.norm_first) {
    const attention = attend(xs.map((x) => tf.layerNorm(x, norm(1), cfg.eps)));
    xs = xs.map((x, t) => tf.add(x, attention.out[t]));
    xs = xs.map((x) => tf.add(x, tf.feedForward(p, tf.layerNorm(x, norm(2), cfg.eps), cfg.activation)));
    return { xs, weights: attention.weights };
  }
  const attention = attend(xs);
  xs = xs.map((x, t) => tf.layerNorm(tf.add(x, attention.out[t]), norm(1), cfg.eps));
  xs = xs.map((x) => tf.layerNorm(tf.add(x, tf.feedForward(p, x, cfg.activation)), norm(2), cfg.eps));
  return { xs, weights: attention.weights };
};

// The weights of the layer whose state_dict names start with `prefix` ("encoder_layers.0."), by the roles of
// NAMES.encoder_layer; with attentionOnly, only what its attention needs (heads.py may ship no more).
nn.transformer.layer = function (weights, prefix, attentionOnly) {
  const names = nn.names.encoder_layer, p = {};
  const needed = attentionOnly ? ["in_proj_weight", "in_proj_bias", "out_proj_weight", "out_proj_bias", "norm1_weight",
                                  "norm1_bias"] : Object.keys(names);
  for (const role of needed) p[role] = nn.get(weights, prefix + names[role]);
  return p;
};

// Run the stack on the input vectors xs: {hidden (T vectors, the last layer's output, after the final LayerNorm of
// a pre-LN stack), attentions[layer][head][query]: Float32Array (T,) over keys}.
// With m.attention_only (heads.py left the last layer's feed-forward block out of the page), the last layer
// stops after its attention and hidden is null.
nn.transformer.stack = function (spec, xs, keyMask) {
  const w = nn.load(spec), m = spec.options.model, attentions = [];
  for (let l = 0; l < m.num_layers; l++) {
    const last = m.attention_only && l === m.num_layers - 1, p = nn.transformer.layer(w, `${m.layers}${l}.`, last);
    if (last) {
      const norm = { weight: p.norm1_weight, bias: p.norm1_bias };
      const ys = m.norm_first ? xs.map((x) => nn.transformer.layerNorm(x, norm, m.eps)) : xs;
      attentions.push(nn.transformer.selfAttention(p, ys, m.num_heads, keyMask).weights);
      return { hidden: null, attentions };
    }
    const layer = nn.transformer.encoderLayer(p, xs, m, keyMask);
    xs = layer.xs;
    attentions.push(layer.weights);
  }
  if (m.final_norm) {
    const names = nn.names.transformer_seq2seq;
    const norm = { weight: nn.get(w, names.final_norm_weight), bias: nn.get(w, names.final_norm_bias) };
    xs = xs.map((x) => nn.transformer.layerNorm(x, norm, m.eps));
  }
  return { hidden: xs, attentions };
};

// Chapter 8, TransformerSeq2Seq.encode(ids): token embedding * sqrt(d) + positional code, then the encoder stack.
nn.transformer.seq2seqEncode = function (spec, ids) {
  const tf = nn.transformer, w = nn.load(spec), m = spec.options.model, d = m.d_model;
  const names = nn.names.transformer_seq2seq;
  if (ids.length > m.max_len) throw new Error(`${ids.length} tokens; this model reads at most ${m.max_len}`);
  const scale = Math.fround(Math.sqrt(d));  // PyTorch multiplies by sqrt(d) as a float32
  let xs = ids.map((i) => Float32Array.from(nn.row(nn.get(w, names.embedding), i), (v) => v * scale));  // T x (d,)
  if (m.positional === "sinusoidal") {
    const pe = tf.sinusoids(ids.length, d, m.base);
    xs = xs.map((x, t) => tf.add(x, pe[t]));
  } else if (m.positional === "learned") {
    xs = xs.map((x, t) => tf.add(x, nn.row(nn.get(w, names.position), t)));
  } else if (m.positional !== "none") {
    throw new Error(`seq2seqEncode: unknown positions '${m.positional}' (expected sinusoidal, learned or none)`);
  }
  return nn.transformer.stack(spec, xs);
};

// Chapter 9, BertMini(ids, segments): LayerNorm(TokenEmb[id] + SegmentEmb[segment] + PositionEmb[t]), then the
// (post-LN, GELU) encoder stack.
nn.transformer.bertEncode = function (spec, ids, segments) {
  const tf = nn.transformer, w = nn.load(spec), m = spec.options.model, names = nn.names.bert;
  if (ids.length > m.max_len) throw new Error(`${ids.length} tokens; this model reads at most ${m.max_len}`);
  if (segments.length !== ids.length) throw new Error(`bertEncode: ${ids.length} ids but ${segments.length} segments`);
  const norm = { weight: nn.get(w, names.embedding_norm_weight), bias: nn.get(w, names.embedding_norm_bias) };
  const xs = ids.map((id, t) => {
    const x = tf.add(tf.add(nn.row(nn.get(w, names.token_embedding), id),
                            nn.row(nn.get(w, names.segment_embedding), segments[t])),
                     nn.row(nn.get(w, names.position_embedding), t));
    return tf.layerNorm(x, norm, m.embedding_eps);
  });
  return nn.transformer.stack(spec, xs);
};
