// seqviz.nn.beam, the twin of seqviz/decode.py's beam_search(..., return_record=True) and length_score:
// chapter 6's beam search in the reader's browser (drawn as a tree by views/beam_tree.js). Line for line: the same candidates
// (float32 sums of a prefix's log-probability and the next token's), the same order (descending, ties to
// the lower parent, then the lower token: torch.sort's stable order over the row-major (k, V) candidates),
// the same finished/cut/kept/pruned record, the same early stop, the same score log P / n ** alpha. The
// decoder is any `step(state, token) -> {logProbs (V,), state}`; views.beam_tree gives it chapter 6's
// translator (nn.seq2seq.step, seq2seq.js), each live prefix carrying the decoder state before its last token.
// As seqviz does, it refuses an eos or bos outside the vocabulary (the search could never finish), a NaN or
// positive log-probability, and a first step where every continuation has log-probability -inf.
"use strict";

// score = log_prob / (generated tokens) ** alpha (seqviz.decode.length_score).
nn.beam = {};

nn.beam.score = (logProb, length, alpha) => logProb / Math.pow(length, alpha);

// Returns {hypotheses: best first, each {tokens (bos first), log_prob, score, finished}, record: {nodes, steps, best}}.
nn.beam.search = function (step, start, { bos, eos, beamSize, maxLen, alpha, prunedPerStep }) {
  const record = { nodes: [{ id: 0, parent: null, token: bos, step: 0, log_prob: 0, score: 0, status: "root" }],
                   steps: [], best: [] };
  let live = [{ tokens: [bos], logProb: 0, id: 0, state: start }];  // the live prefixes
  const finished = [];  // [{hypothesis, node}]
  if (!(Number.isInteger(maxLen) && maxLen >= 1)) throw new Error(`max_len must be an integer >= 1, got ${maxLen}`);
  if (!(Number.isInteger(beamSize) && beamSize >= 1)) throw new Error(`the beam size must be an integer >= 1, got ${beamSize}`);
  if (!(alpha >= 0 && Number.isFinite(alpha))) throw new Error(`alpha must be a finite number >= 0, got ${alpha}`);
  for (let t = 1; t <= maxLen; t++) {
    const outs = live.map((h) => step(h.state, h.tokens[h.tokens.length - 1]));  // k x {logProbs (V,), state}
    const V = outs[0].logProbs.length;
    if (t === 1 && !(Number.isInteger(bos) && Number.isInteger(eos) && bos >= 0 && eos >= 0 && bos < V && eos < V))
      throw new Error(`bos and eos must be token ids in 0..${V - 1} (the vocabulary), got ${bos} and ${eos}`);
    for (const out of outs) for (const lp of out.logProbs)
      if (Number.isNaN(lp) || lp > 1e-4) throw new Error(`the decoder gave a log-probability of ${lp}: expected values <= 0 (or -inf)`);
    const candidates = new Float32Array(live.length * V);  // (k*V,), row-major like torch's flatten()
    live.forEach((h, p) => outs[p].logProbs.forEach((lp, v) => { candidates[p * V + v] = h.logProb + lp; }));
    const order = Array.from(candidates.keys()).sort((a, b) =>  // descending; stable: ties keep index order
      (candidates[b] > candidates[a]) - (candidates[b] < candidates[a]) || a - b);
    const info = { step: t, considered: candidates.length, kept: [], finished: [], pruned: [] };
    const kept = [];
    for (const flat of order.slice(0, beamSize)) {
      const parent = Math.floor(flat / V), token = flat % V, logProb = candidates[flat];
      if (logProb === -Infinity) continue;  // an impossible continuation is never kept
      const tokens = [...live[parent].tokens, token], node = record.nodes.length;
      const score = nn.beam.score(logProb, t, alpha);
      let status = "kept";
      if (token === eos) status = "finished";
      else if (t === maxLen) status = "cut";  // out of room: kept as an unfinished hypothesis
      if (status === "kept") kept.push({ tokens, logProb, id: node, state: outs[parent].state });
      else finished.push({ hypothesis: { tokens, log_prob: logProb, score, finished: status === "finished" }, node });
      record.nodes.push({ id: node, parent: live[parent].id, token, step: t, log_prob: logProb, score, status });
      info[status === "kept" ? "kept" : "finished"].push(node);
    }
    for (const flat of order.slice(beamSize, beamSize + prunedPerStep)) {  // the best runners-up, for the picture
      const parent = Math.floor(flat / V), token = flat % V, logProb = candidates[flat];
      if (logProb === -Infinity) break;
      const node = record.nodes.length;
      record.nodes.push({ id: node, parent: live[parent].id, token, step: t, log_prob: logProb,
                          score: nn.beam.score(logProb, t, alpha), status: "pruned" });
      info.pruned.push(node);
    }
    record.steps.push(info);
    if (!kept.length) break;
    live = kept;
    if (finished.length >= beamSize) {  // can any live prefix still enter the top beamSize?
      const kth = finished.map((f) => f.hypothesis.score).sort((a, b) => b - a)[beamSize - 1];
      if (Math.max(...live.map((h) => h.logProb)) / Math.pow(maxLen, alpha) <= kth) break;
    }
  }
  if (!finished.length) throw new Error("every continuation has log-probability -inf: the search found no hypothesis");
  finished.sort((a, b) => b.hypothesis.score - a.hypothesis.score);  // stable: equal scores keep their order
  const best = finished.slice(0, beamSize);
  record.best = best.map((f) => f.node);
  return { hypotheses: best.map((f) => f.hypothesis), record };
};

