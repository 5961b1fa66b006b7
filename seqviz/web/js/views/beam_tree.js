// views.beam_tree: chapter 6's beam search (nn.beam.search, beam.js) over chapter 6's translator
// (nn.seq2seq.step, seq2seq.js) in the reader's browser, drawn as a tree like seqviz.viz.BeamTreePicture.
"use strict";

{  // one block: the names below are this file's own; it adds views.beam_tree

// y of every node in [0, 1], as seqviz.viz.beams._layout: leaves one apart in depth-first order (children
// most likely first), a parent in the middle of its children; then divided by the largest.
const layout = function (nodes) {
  const children = new Map();
  for (const n of nodes) (children.get(n.parent) || children.set(n.parent, []).get(n.parent)).push(n);
  for (const kids of children.values()) kids.sort((a, b) => b.log_prob - a.log_prob);
  const y = new Map();
  let leaf = 0;
  const place = (n) => {
    const kids = children.get(n.id) || [];
    if (!kids.length) { y.set(n.id, leaf++); return; }
    kids.forEach(place);
    y.set(n.id, kids.reduce((s, k) => s + y.get(k.id), 0) / kids.length);
  };
  (children.get(null) || []).forEach(place);
  const top = Math.max(...y.values()) || 1;
  for (const [id, v] of y) y.set(id, v / top);
  return y;
};

// The legend and colours of seqviz.viz.beams.STYLE.
const STYLE = { kept: ["kept in the beam", "#1f77b4"], finished: ["finished (eos) or cut at max_len", "#2ca02c"],
                  pruned: ["pruned (best runners-up)", "#bbbbbb"] };

// Chapter 6: type a source sentence, move the beam size and alpha; the search runs here and its tree is
// drawn like seqviz.viz.BeamTreePicture (blue: kept, green: finished or cut, grey x: pruned, orange: the best).
views.beam_tree = function (root, spec) {
  const o = spec.options;
  let source = null, shown = null, beamSize = o.beam_size, alpha = o.alpha;
  const rerun = () => view.run(() => { search(); draw(); });
  const box = ui.text(nn.say(spec, "source"), o.sentence, (text) => view.run(() => { read(text); search(); draw(); }));
  const width = ui.slider(nn.say(spec, "beam size"), 1, o.max_beam, beamSize, (v) => { beamSize = v; rerun(); });
  const penalty = ui.slider("alpha", 0, o.max_alpha, alpha, (v) => { alpha = v; rerun(); }, 0.1);
  const view = ui.frame(root, o.title, [box, width, penalty]);

  function read(text) {
    try {
      const { tokens, ids } = nn.encode(spec, text);
      source = { tokens, memory: nn.seq2seq.encode(spec, ids) };
    } catch (error) {
      source = { error };
    }
  }

  function search() {
    if (source.error) { shown = { error: source.error }; return; }
    const step = (state, token) => nn.seq2seq.step(spec, source.memory, token, state);
    const maxLen = source.tokens.length + o.extra_steps;
    const found = nn.beam.search(step, source.memory.state, { bos: o.bos_id, eos: o.eos_id, beamSize, maxLen,
                                                              alpha, prunedPerStep: o.pruned_per_step });
    const best = found.hypotheses[0], answer = [];
    for (const t of best.tokens) {  // seqviz.data.strip_specials: up to eos, without bos and pads
      if (t === o.eos_id) break;
      if (!o.target_specials.includes(o.target_itos[t])) answer.push(o.target_itos[t]);
    }
    shown = { ...found, maxLen, title: `k = ${beamSize}, alpha = ${alpha.toFixed(1)}: '${answer.join(" ")}' ` +
                                       `(score ${best.score.toFixed(2)})` };
  }

  function draw() {
    if (shown.error) { view.picture.innerHTML = ""; throw shown.error; }
    const { nodes, best } = shown.record, labels = o.target_itos, style = STYLE;
    // the x axis ends where the search ended (its deepest node), not at max_len: no empty steps on the right
    const steps = Math.max(1, ...nodes.map((n) => n.step)), y = layout(nodes);
    // 660 px wide, or as wide as a narrower column (a phone's): the steps move closer, the text keeps its size, the
    // title takes two lines and the legend one entry a line where one line would not fit
    const room = view.room(), W = room > 0 ? Math.max(240, Math.min(660, room)) : 660;
    const titleLines = W < 660 && 6.6 * shown.title.length > W - 10 ? shown.title.split(/(?<=:) /) : [shown.title];
    const left = 20, plotW = W - 40, top = 30 + 14 * titleLines.length, plotH = 270;  // y: -0.12 .. 1.12, as the still
    const X = (s) => left + plotW * (s + 0.4) / (steps + 0.8), Y = (id) => top + plotH * (y.get(id) + 0.12) / 1.24;
    const byId = new Map(nodes.map((n) => [n.id, n])), parts = [];
    for (const n of nodes) {
      const p = byId.get(n.parent);
      if (p) parts.push(`<line x1="${X(p.step)}" y1="${Y(p.id)}" x2="${X(n.step)}" y2="${Y(n.id)}" stroke="#cccccc"/>`);
    }
    const path = [];
    for (let n = byId.get(best[0]); n; n = byId.get(n.parent)) path.unshift(`${X(n.step)},${Y(n.id)}`);
    parts.push(`<polyline points="${path.join(" ")}" fill="none" stroke="#ff7f0e" stroke-width="3"/>`);
    const prefix = (n) => {
      const out = [];
      for (; n; n = byId.get(n.parent)) out.unshift(labels[n.token]);
      return out.join(" ");
    };
    // a label sits above its node; as in seqviz.viz.beams, where two labelled nodes of one step lie closer than a
    // line of text only the upper one (the better hypothesis) is labelled, a node with another node of its step
    // (pruned ones too) right above it goes unlabelled, and so does one whose label would run into a label already
    // placed (a long word beside the next step's): no two labels overprint, none covers a marker (hovering a node
    // names its prefix)
    const GAP = 13, labelled = new Set(), lastAt = new Map(), placed = [];
    for (const n of nodes.filter((m) => m.status !== "pruned").sort((a, b) => a.step - b.step || Y(a.id) - Y(b.id))) {
      const here = Y(n.id), half = 0.62 * 10 * String(labels[n.token]).length / 2 + 1.5;
      const box = [X(n.step) - half, X(n.step) + half, here - 19, here - 6];  // left, right, top, bottom
      const covered = nodes.some((m) => m.step === n.step && m.id !== n.id && Y(m.id) < here && Y(m.id) > here - 16);
      const runsInto = placed.some((b) => box[0] < b[1] && b[0] < box[1] && box[2] < b[3] && b[2] < box[3]);
      if (here - (lastAt.has(n.step) ? lastAt.get(n.step) : -Infinity) >= GAP && !covered && !runsInto) {
        labelled.add(n.id);
        lastAt.set(n.step, here);
        placed.push(box);
      }
    }
    for (const n of nodes) {
      const cx = X(n.step), cy = Y(n.id), r = 4.5;
      const hover = `<title>${ui.esc(prefix(n))}\nlog p ${n.log_prob.toFixed(3)}\nscore ${n.score.toFixed(3)}\n` +
                    `${n.status}</title>`;
      if (n.status === "pruned") {  // a grey x, unlabelled
        parts.push(`<path d="M${cx - 3.5},${cy - 3.5}l7,7M${cx - 3.5},${cy + 3.5}l7,-7" stroke="${style.pruned[1]}" ` +
                   `stroke-width="1.5">${hover}</path>`);
        continue;
      }
      const square = `<rect x="${cx - r}" y="${cy - r}" width="${2 * r}" height="${2 * r}" ` +
                     `fill="${style.finished[1]}">`;
      parts.push(n.status === "finished" || n.status === "cut" ? `${square}${hover}</rect>`
        : `<circle cx="${cx}" cy="${cy}" r="${r}" fill="${style.kept[1]}">${hover}</circle>`);
      if (labelled.has(n.id))
        parts.push(`<text x="${cx}" y="${cy - 8}" font-size="10" text-anchor="middle">${ui.esc(labels[n.token])}</text>`);
    }
    const axisY = top + plotH + 6, text = (x, yy, size, body, anchor) =>
      `<text x="${x}" y="${yy}" font-size="${size}" text-anchor="${anchor || "middle"}">${ui.esc(body)}</text>`;
    parts.push(`<line x1="${left}" y1="${axisY}" x2="${left + plotW}" y2="${axisY}" stroke="#444"/>`);
    for (let s = 0; s <= steps; s++) parts.push(text(X(s), axisY + 14, 10, s));
    parts.push(text(W / 2, axisY + 32, 11, nn.say(spec, "step (generated tokens)")));
    // the legend flows: each entry as wide as its words (10 px type: about 5.8 px a Latin letter, 10 px a Chinese
    // character), a new line where the next entry would pass the right edge
    const legend = [["best hypothesis", "#ff7f0e"], ...Object.values(style)];
    const wide = (words) => [...words].reduce((sum, ch) => sum + (ch.codePointAt(0) >= 0x2e80 ? 10 : 5.8), 0);
    let x = left + 10, line = 0;
    legend.forEach(([name, colour]) => {
      const words = nn.say(spec, name), room = 14 + wide(words);
      if (x > left + 10 && x + room > W - 10) { x = left + 10; line += 1; }
      const y = axisY + 42 + 16 * line;
      parts.push(`<rect x="${x}" y="${y}" width="10" height="10" fill="${colour}"/>`, text(x + 14, y + 9, 10, words, "start"));
      x += room + 18;
    });
    const height = axisY + 62 + 16 * line;
    view.picture.innerHTML = `<svg width="${W}" height="${height}" role="img" ` +
      `aria-label="${ui.esc(shown.title)}">` + titleLines.map((line, i) => text(W / 2, 18 + 14 * i, 12, line)).join("") +
      parts.join("") + "</svg>";
  }

  view.run(() => { read(o.sentence); search(); draw(); });
  view.numbers = () => shown.error ? { error: shown.error.message } :
    { source: source.tokens, beam_size: beamSize, alpha, max_len: shown.maxLen, title: shown.title,
      hypotheses: shown.hypotheses, nodes: shown.record.nodes, best: shown.record.best };
  view.controls = { sentence: box.input, beam_size: width.input, alpha: penalty.input };
  return view;
};
}
