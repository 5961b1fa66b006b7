// views.gates (chapter 4): the gates of an LSTM or a GRU over a typed sentence, and the conveyor belt.
//
// The picture is seqviz.viz.GatesCanvas's (the chapter's still): one heatmap per gate (rows: tokens, columns:
// hidden units in the chapter's order), a white line above the belt's start token and, when the forget gate
// is drawn, the belt panel: for some units, the share of the cell state after the start token that is still on
// the belt at each later token, S(t, s) = f[t+1] * ... * f[s] (seqviz.viz.forget_survival), and its mean over
// every drawn unit, on an axis that follows the sentence (seqviz.viz.gates.data.belt_floor): linear from 0 to 1
// when every share stays at or above 5%, else logarithmic from the power of ten below the smallest share. The
// gates come from nn.gatesReading (nn/recurrent.js), the belt from nn.beltSurvival (nn/belt.js).
"use strict";

{  // one block: the names below are this file's own; it adds views.gates

  // matplotlib's viridis at 0, 0.1, ..., 1 (gates lie in [0, 1]); signed values use ui.diverging (RdBu_r).
  const VIRIDIS = ["#440154", "#482475", "#414487", "#355f8d", "#2a788e", "#21918c", "#22a884", "#44bf70",
                   "#7ad151", "#bddf26", "#fde725"];
  const SIGMOID_GATES = ["forget", "input", "output", "update", "reset"];   // seqviz.viz.gates.SIGMOID_GATES
  const LINE_COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#bcbd22"];
  const CEILING = 1.5, LINEAR_TOP = 1.05, LINEAR_ABOVE = 0.05;   // the belt's axis, as GatesCanvas draws it

  const colour = (name, v, vmax) => SIGMOID_GATES.includes(name) ? ui.ramp(VIRIDIS, v) : ui.diverging(v, vmax);
  const superscript = (n) => String(n).replace(/./g, (c) => "⁰¹²³⁴⁵⁶⁷⁸⁹"["0123456789".indexOf(c)] || "⁻");

  // Where the belt axis starts for one sentence (seqviz.viz.gates.data.belt_floor): 0 for a linear axis, else the
  // power of ten at or below the smallest share drawn from any start; fixed per sentence, so the slider moves
  // the lines, not the axis.
  function beltFloor(forget, columns) {
    let smallest = Infinity;
    for (let s0 = 0; s0 < forget.length; s0++) {
      for (const row of nn.beltSurvival(forget, s0)) {
        for (const c of columns) smallest = Math.min(smallest, row[c]);
        smallest = Math.min(smallest, row.reduce((a, b) => a + b, 0) / row.length);
      }
    }
    smallest = Math.max(smallest, 1e-12);
    return smallest >= LINEAR_ABOVE ? 0 : 10 ** Math.floor(Math.log10(smallest));
  }

  // A share's position across the belt panel, 0 (left) to 1 (right), on the axis that starts at ``floor``.
  function beltPosition(v, floor) {
    if (!floor) return v / LINEAR_TOP;
    return (Math.log10(Math.max(v, floor)) - Math.log10(floor)) / (Math.log10(CEILING) - Math.log10(floor));
  }

  views.gates = function (root, spec) {
    const o = spec.options;
    let reading = null, start = 1;   // start: the belt's first token, counted from 1 like the slider
    const box = ui.text(nn.say(spec, "sentence"), o.sentence, (text) => view.run(() => { read(text); draw(); }));
    const slider = ui.slider(nn.say(spec, "from token"), 1, 1, 1, (v) => { start = v; view.run(move); });
    const view = ui.frame(root, o.title, [box, slider]);

    // Tokens -> the gates of the chosen layer, columns in the chapter's unit order; the slider refits.
    function read(text) {
      try {
        const { tokens, ids } = nn.encode(spec, text);
        const trace = nn.gatesReading(spec, ids);
        const gates = {};
        for (const name of o.gates) gates[name] = trace[name].map((v) => Float32Array.from(o.order, (u) => v[u]));
        const floor = o.belt ? beltFloor(gates.forget, o.belt_units.map((u) => o.order.indexOf(u))) : 0;
        reading = { tokens, gates, floor, layout: layout(tokens) };
        start = Math.min(o.start, tokens.length);
        slider.set(1, tokens.length, start);
      } catch (error) {
        reading = { error };
      }
    }

    // Side by side: the heatmaps, then the belt panel. Where that is wider than the page's column (a phone), the
    // belt panel goes below the heatmaps, over the same token rows, and the heatmaps narrow to fit the column.
    function layout(tokens) {
      const T = tokens.length, C = o.order.length, G = o.gates.length, room = view.room();
      const row = Math.max(9, Math.min(16, 400 / T)), left = 10 + 6 * Math.max(...tokens.map((t) => t.length));
      const top = 22, side = o.belt ? 30 + 220 : 0;
      let cell = Math.max(1.5, Math.min(10, 150 / C)), gap = Math.max(6, 2 * cell);
      const heatW = () => G * C * cell + (G - 1) * gap;
      const stacked = o.belt && room > 0 && left + heatW() + side + 10 > room;
      if (room > 0 && left + heatW() + (stacked ? 0 : side) + 10 > room) {
        gap = 6;
        cell = Math.max(1.5, Math.min(cell, (room - 10 - left - gap * (G - 1)) / (G * C)));
      }
      const panel = C * cell, heatBottom = top + T * row;
      const beltX = stacked ? left : left + heatW() + 30, beltTop = stacked ? heatBottom + 56 : top;
      const beltW = !o.belt ? 0 : stacked ? Math.max(120, Math.min(220, room - 10 - left)) : 220;
      return { T, C, row, cell, left, top, panel, gap, stacked, beltX, beltW, beltTop, heatBottom,
               beltBottom: beltTop + T * row, height: stacked ? beltTop + T * row : heatBottom,
               width: Math.max(left + heatW(), beltX + beltW) + 10 };
    }

    // The heatmaps and the token labels: drawn once per sentence.
    function staticPicture() {
      const { tokens, gates } = reading, L = reading.layout, parts = [];
      let vmax = 0;
      for (const name of o.gates) if (!SIGMOID_GATES.includes(name))
        for (const v of gates[name]) for (const x of v) vmax = Math.max(vmax, Math.abs(x));
      vmax = vmax || 1;
      o.gates.forEach((name, g) => {
        const x0 = L.left + g * (L.panel + L.gap);
        gates[name].forEach((v, t) => v.forEach((x, c) => parts.push(
          `<rect x="${(x0 + c * L.cell).toFixed(2)}" y="${(L.top + t * L.row).toFixed(2)}" width="${L.cell.toFixed(2)}" ` +
          `height="${L.row.toFixed(2)}" fill="${colour(name, x, vmax)}"/>`)));
        parts.push(`<text x="${x0 + L.panel / 2}" y="${L.top - 6}" font-size="12" text-anchor="middle">${ui.esc(name)}</text>`,
                   `<text x="${x0 + L.panel / 2}" y="${L.heatBottom + 11}" font-size="9" text-anchor="middle">${ui.esc(nn.say(spec, "units"))}</text>`);
      });
      return `<g shape-rendering="crispEdges">${parts.join("")}</g>`;
    }

    // What the slider moves: the token labels (the start in bold), the white line above it and the belt panel.
    function dynamicPicture() {
      const { tokens, gates } = reading, L = reading.layout, s0 = start - 1;
      const heatRight = L.left + o.gates.length * L.panel + (o.gates.length - 1) * L.gap;
      const label = (y0) => tokens.map((tok, t) => `<text x="${L.left - 4}" y="${y0 + (t + 0.5) * L.row + 3.5}" ` +
        `font-size="10" text-anchor="end"${t === s0 ? ' font-weight="bold"' : ""}>${ui.esc(tok)}</text>`);
      const parts = label(L.top);   // the belt panel below the heatmaps (a narrow page) has its own token labels
      if (L.stacked && o.belt) parts.push(...label(L.beltTop));
      parts.push(`<line x1="${L.left}" x2="${heatRight}" y1="${L.top + s0 * L.row}" y2="${L.top + s0 * L.row}" ` +
                 `stroke="white" stroke-width="1.6"/>`);
      reading.belt = null;
      if (!o.belt) return parts.join("");
      const all = nn.beltSurvival(gates.forget, s0);                            // T - s0 rows (C,)
      const columns = o.belt_units.map((u) => o.order.indexOf(u));
      const survival = o.belt_units.map((_, i) => all.map((r) => r[columns[i]]));   // per unit: T - s0 values
      const mean = all.map((r) => r.reduce((a, b) => a + b, 0) / r.length);
      reading.belt = { survival, mean };
      const x = (v) => L.beltX + L.beltW * beltPosition(v, reading.floor);
      const y = (k) => L.beltTop + (s0 + k + 0.5) * L.row;
      const path = (values) => values.map((v, k) => `${x(v).toFixed(2)},${y(k).toFixed(2)}`).join(" ");
      survival.forEach((values, i) => {
        const c = LINE_COLOURS[i % LINE_COLOURS.length];
        parts.push(`<polyline points="${path(values)}" fill="none" stroke="${c}" stroke-width="1.5"/>`,
                   ...values.map((v, k) => `<circle cx="${x(v).toFixed(2)}" cy="${y(k).toFixed(2)}" r="2" fill="${c}"/>`));
      });
      parts.push(`<polyline points="${path(mean)}" fill="none" stroke="gray" stroke-width="1.5" stroke-dasharray="5,3"/>`,
                 `<text x="${L.beltX + L.beltW / 2}" y="${L.beltTop - 6}" font-size="12" text-anchor="middle">` +
                 `${ui.esc(nn.say(spec, "on the belt since '{token}'", { token: tokens[s0] }))}</text>`);
      const labels = [...o.unit_labels, "mean"], legendY = L.beltBottom - 6 - 12 * labels.length;
      labels.forEach((label, i) => {
        const c = i < o.unit_labels.length ? LINE_COLOURS[i % LINE_COLOURS.length] : "gray", ly = legendY + 12 * i + 6;
        parts.push(`<line x1="${L.beltX + 6}" x2="${L.beltX + 22}" y1="${ly}" y2="${ly}" stroke="${c}" stroke-width="1.5"` +
                   `${c === "gray" ? ' stroke-dasharray="4,2"' : ""}/><text x="${L.beltX + 26}" y="${ly + 3}" font-size="9">` +
                   `${ui.esc(label)}</text>`);
      });
      return parts.join("");
    }

    function beltAxes() {
      const L = reading.layout, parts = [`<rect x="${L.beltX}" y="${L.beltTop}" width="${L.beltW}" height="${L.T * L.row}" ` +
                                         `fill="none" stroke="black" stroke-width="0.8"/>`];
      const low = Math.round(Math.log10(reading.floor || 1)), step = Math.max(1, Math.ceil(-low / 3));
      const ticks = reading.floor ? [] : [[0, "0%"], [0.5, "50%"], [1, "100%"]];
      if (reading.floor) for (let e = 0; e >= low; e -= step) ticks.push([10 ** e, `10${superscript(e)}`]);
      for (const [v, label] of ticks) {
        const tx = L.beltX + L.beltW * beltPosition(v, reading.floor);
        parts.push(`<line x1="${tx}" x2="${tx}" y1="${L.beltBottom}" y2="${L.beltBottom + 4}" stroke="black"/>`,
                   `<text x="${tx}" y="${L.beltBottom + 15}" font-size="10" text-anchor="middle">${label}</text>`);
      }
      parts.push(`<text x="${L.beltX + L.beltW / 2}" y="${L.beltBottom + 29}" font-size="10" text-anchor="middle">` +
                 `${ui.esc(nn.say(spec, "share left on the belt"))}</text>`);
      return parts.join("");
    }

    // Under the pointer, a heatmap cell's gate, unit (the model's number), token and value.
    function cellAt(px, py) {
      const L = reading.layout, t = Math.floor((py - L.top) / L.row), g = Math.floor((px - L.left) / (L.panel + L.gap));
      const c = Math.floor((px - L.left - g * (L.panel + L.gap)) / L.cell);
      if (t < 0 || t >= L.T || g < 0 || g >= o.gates.length || c < 0 || c >= L.C) return "";
      const name = o.gates[g];
      return `${name}, unit ${o.order[c]}, '${reading.tokens[t]}': ${reading.gates[name][t][c].toFixed(3)}`;
    }

    function draw() {
      if (reading.error) { view.picture.innerHTML = ""; throw reading.error; }
      const L = reading.layout;
      view.picture.innerHTML = `<svg width="${L.width}" height="${L.height + 36}" role="img" ` +
        `aria-label="${ui.esc(o.title)}">${staticPicture()}${o.belt ? beltAxes() : ""}<g class="seqviz-gates-dynamic"></g>` +
        `<text class="seqviz-gates-hover" x="${L.left}" y="${L.heatBottom + 29}" font-size="10"></text></svg>`;
      const svg = view.picture.querySelector("svg"), hover = svg.querySelector(".seqviz-gates-hover");
      svg.addEventListener("mousemove", (e) => {
        const box = svg.getBoundingClientRect();
        hover.textContent = cellAt(e.clientX - box.left, e.clientY - box.top);
      });
      svg.addEventListener("mouseleave", () => { hover.textContent = ""; });
      move();
    }

    function move() {
      if (reading.error) throw reading.error;
      view.picture.querySelector(".seqviz-gates-dynamic").innerHTML = dynamicPicture();
    }

    view.run(() => { read(o.sentence); draw(); });
    view.numbers = () => {
      if (reading.error) return { error: reading.error.message };
      const shown = { tokens: reading.tokens, start, columns: o.order, gates: reading.gates };
      if (reading.belt) Object.assign(shown, { belt_units: o.belt_units, survival: reading.belt.survival,
                                               mean: reading.belt.mean });
      return shown;
    };
    view.controls = { sentence: box.input, start: slider.input };
    return view;
  };
}
