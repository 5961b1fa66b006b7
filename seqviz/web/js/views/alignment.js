// views.alignment: chapter 7's attention weights in the reader's browser, computed by nn.seq2seq (seq2seq.js):
// type digit words; the greedy translation's attention weights (output token x source word), Blues from 0 to 1,
// as seqviz.viz.HeatmapPicture draws them in the notebook.
"use strict";

views.alignment = function (root, spec) {
  const o = spec.options;
  let shown = null;
  const box = ui.text(nn.say(spec, "sentence"), o.sentence, (text) => view.run(() => { read(text); draw(); }));
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
    // a cell's width and height; on a narrow column (a phone) the cells narrow so that the heatmap, its labels
    // and its colour bar fit the room (down to 18 px a cell: a longer sentence scrolls sideways in its strip)
    const room = view.room(), fit = room > 0 ? (room - 90 - 90) / S : Infinity;
    const cw = Math.max(18, Math.min(60, 480 / S, fit)), ch = Math.max(14, Math.min(26, 300 / U));
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
      `<text x="${middle}" y="${labelY}" font-size="11" text-anchor="middle">${ui.esc(nn.say(spec, "source word"))}</text>` +
      `<text x="14" y="${top + barH / 2}" font-size="11" text-anchor="middle" ` +
      `transform="rotate(-90 14 ${top + barH / 2})">${ui.esc(nn.say(spec, "output token"))}</text></svg>`;
  }

  view.run(() => { read(o.sentence); draw(); });
  view.numbers = () => shown.error ? { error: shown.error.message } :
    { source: shown.source, output: shown.output, ids: shown.ids, weights: shown.weights,
      log_probs: shown.logProbs, encoder: shown.encoder, state: shown.state };
  view.controls = { sentence: box.input };
  return view;
};
