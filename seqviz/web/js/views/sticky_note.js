// views.sticky_note: chapter 2's sticky note in the reader's browser, over nn.classifierReading (nn/recurrent.js),
// drawn as seqviz.viz.NoteCanvas draws the chapter's still.
"use strict";

// Type a sentence, move the step: the hidden state after each token read so far
// (one column per token, one row per unit), how much each token changed it, and P(tracked class).
views.sticky_note = function (root, spec) {
  const o = spec.options;
  let reading = null, step = 1;
  const box = ui.text(nn.say(spec, "sentence"), o.sentence, (text) => view.run(() => { read(text); draw(); }));
  const slider = ui.slider(nn.say(spec, "step t"), 1, 1, 1, (v) => { step = v; view.run(draw); });
  const view = ui.frame(root, o.title, [box, slider]);

  function read(text) {
    try {
      const { tokens, ids } = nn.encode(spec, text);
      const { traces, probs } = nn.classifierReading(spec, ids);
      const states = traces[traces.length - 1].h;
      const changes = states.map((h, t) => Math.hypot(...h.map((v, j) => v - (t ? states[t - 1][j] : 0))));
      reading = { tokens, states, probs, changes };
      step = tokens.length;
      slider.set(1, tokens.length, step);
    } catch (error) {
      reading = { error };
    }
  }

  function draw() {
    if (reading.error) { view.picture.innerHTML = ""; throw reading.error; }
    const { tokens, states, probs, changes } = reading, T = tokens.length, H = states[0].length;
    // The columns narrow to the page's column (a phone's) down to 14 px; a longer sentence scrolls sideways.
    const room = view.room(), fit = room ? (room - 64 - 60) / T : 48;
    const c = o.track, cell = Math.max(14, Math.min(48, 640 / T, fit)), unit = Math.max(5, Math.min(16, 200 / H));
    const x0 = 64, top = 6, noteH = H * unit, barsY = top + noteH + 8, barsH = 70, width = x0 + T * cell + 60;
    let vmax = 0, cmax = 0;
    for (const h of states) for (const v of h) vmax = Math.max(vmax, Math.abs(v));
    for (const v of changes) cmax = Math.max(cmax, v);
    const parts = [];
    for (let t = 0; t < T; t++) {
      for (let j = 0; j < H; j++) {
        const fill = t < step ? ui.diverging(states[t][j], vmax) : "#f2f2f2";
        parts.push(`<rect x="${x0 + t * cell}" y="${top + j * unit}" width="${cell}" height="${unit}" fill="${fill}"/>`);
      }
      const bh = t < step ? barsH * changes[t] / (cmax * 1.1 || 1) : 0;
      parts.push(`<rect x="${x0 + t * cell + 0.15 * cell}" y="${barsY + barsH - bh}" width="${0.7 * cell}" height="${bh}" ` +
                 `fill="${t === step - 1 ? "#d62728" : "#7f7f7f"}"/>`);
    }
    parts.push(`<rect x="${x0 + (step - 1) * cell}" y="${top}" width="${cell}" height="${noteH}" fill="none" stroke="black" stroke-width="2"/>`);
    const points = probs.slice(0, step).map((p, t) => `${x0 + (t + 0.5) * cell},${barsY + barsH - barsH * p[c] / 1.02}`);
    parts.push(`<polyline points="${points.join(" ")}" fill="none" stroke="#1f77b4" stroke-width="1.5"/>`,
               ...points.map((pt) => `<circle cx="${pt.split(",")[0]}" cy="${pt.split(",")[1]}" r="2.5" fill="#1f77b4"/>`));
    const p = probs[step - 1], best = p.indexOf(Math.max(...p));
    const title = nn.say(spec, "step {step}/{T}: read '{token}', the note changed by {change}; prediction: {name} ({p}%)",
                         { step, T, token: tokens[step - 1], change: changes[step - 1].toFixed(2),
                           name: nn.say(spec, o.class_names[best]), p: Math.round(100 * p[best]) });
    const axis = (y, text, anchor, x) => `<text x="${x}" y="${y}" font-size="11" text-anchor="${anchor}" ` +
                                          `transform="rotate(-90 ${x} ${y})">${ui.esc(text)}</text>`;
    const right = x0 + T * cell, yOf = (v) => barsY + barsH - barsH * v / 1.02;
    parts.push(`<text x="${right + 4}" y="${yOf(1) + 4}" font-size="10">1</text>`,
               `<text x="${right + 4}" y="${yOf(0)}" font-size="10">0</text>`);
    view.picture.innerHTML = `<div class="seqviz-web-caption">${ui.esc(title)}</div>` +
      `<svg width="${width}" height="${barsY + barsH + 70}" role="img" aria-label="${ui.esc(title)}">` + parts.join("") +
      axis(top + noteH / 2, nn.say(spec, "hidden unit"), "middle", 40) +
      axis(barsY + barsH / 2, nn.say(spec, "change"), "middle", 40) +
      axis(barsY + barsH / 2, `P(${nn.say(spec, o.class_names[c])})`, "middle", right + 24) +
      ui.columnLabels(tokens, x0, cell, barsY + barsH + 14) + "</svg>";
  }

  view.run(() => { read(o.sentence); draw(); });
  view.numbers = () => reading.error ? { error: reading.error.message } :
    { tokens: reading.tokens, states: reading.states, probs: reading.probs, step };
  view.controls = { sentence: box.input, step: slider.input };
  return view;
};
