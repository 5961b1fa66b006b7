// seqviz.nn's sampling, the twin of seqviz/sampling.py (distribution, choose) and of the page's generator,
// mulberry32 (seqviz/web/generate.py's mulberry32 draws the same numbers in Python). The book's one rule:
// z = (logits - max) / temperature, keep the top_k largest (ties: the lower id), softmax over the kept tokens,
// then the inverse CDF over them in id order with one uniform number u per token: the first id whose running
// sum exceeds u (the last possible one if rounding leaves the sum below u). Logits may be -inf (a token that
// can never come) but not NaN or +inf, and not all -inf: seqviz refuses those, and so does the page.
"use strict";

// mulberry32 (Tommy Ettinger's 32-bit generator): uniform numbers in [0, 1), the same in Python.
nn.mulberry32 = function (seed) {
  let a = seed >>> 0;
  return function () {
    a = (a + 0x6D2B79F5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
};

// The distribution one step draws from (seqviz.sampling.distribution): (V,) doubles, 0 outside the top k.
nn.lmDistribution = function (logits, temperature, topK) {
  const V = logits.length;
  if (!(temperature > 0 && Number.isFinite(temperature))) throw new Error(`temperature must be a number > 0, got ${temperature}`);
  if (topK !== null && topK !== undefined && !(Number.isInteger(topK) && topK >= 1 && topK <= V))
    throw new Error(`top-k must be all or an integer in 1..${V}, got ${topK}`);
  for (let i = 0; i < V; i++)
    if (Number.isNaN(logits[i]) || logits[i] === Infinity)
      throw new Error(`the model's logit for token ${i} is ${logits[i]}: expected finite logits (or -inf)`);
  const keep = new Uint8Array(V);
  if (topK && topK < V) {   // the k largest, by one pass that keeps them sorted (ties: the lower id first)
    const best = [];
    for (let i = 0; i < V; i++) {
      if (best.length === topK) {
        if (!(logits[i] > logits[best[topK - 1]])) continue;   // a tie stays out: the lower id was first
        best.pop();
      }
      let r = best.length;
      while (r > 0 && logits[best[r - 1]] < logits[i]) r--;
      best.splice(r, 0, i);
    }
    for (const i of best) keep[i] = 1;
  } else keep.fill(1);
  let top = -Infinity, total = 0;
  for (let i = 0; i < V; i++) if (keep[i]) top = Math.max(top, logits[i]);
  if (top === -Infinity) throw new Error("every kept logit is -inf: no token can come next");
  const p = new Float64Array(V);
  for (let i = 0; i < V; i++) if (keep[i]) { p[i] = Math.exp((logits[i] - top) / temperature); total += p[i]; }
  for (let i = 0; i < V; i++) p[i] /= total;
  return p;
};

// Inverse CDF in id order (seqviz.sampling.choose): the first id whose running sum exceeds u in [0, 1).
nn.lmChoose = function (p, u) {
  if (!(u >= 0 && u < 1)) throw new Error(`u must be a uniform number in [0, 1), got ${u}`);
  let sum = 0;
  for (let i = 0; i < p.length; i++) {
    if (!(p[i] >= 0 && p[i] <= 1)) throw new Error(`probabilities must lie in [0, 1], got ${p[i]} for token ${i}`);
    sum += p[i];
  }
  if (Math.abs(sum - 1) > 1e-5) throw new Error(`probabilities must sum to 1, got ${sum}`);
  let running = 0, last = -1;
  for (let i = 0; i < p.length; i++) {
    if (p[i] <= 0) continue;
    running += p[i];
    last = i;
    if (running > u) return i;
  }
  return last;   // rounding left the total below u: the last possible token
};
