// views.head_view: the attention heads of chapters 8 and 9, recomputed in the reader's browser.
//
// The reader types a sentence (chapter 8, TransformerSeq2Seq's encoder) or two (chapter 9, BertMini reading
// "[CLS] A [SEP] B [SEP]" with segment ids 0 then 1), picks a layer and a head (or their mean); the page runs the
// encoder (transformer.js) and draws that head's weights as seqviz.viz.HeadsCanvas does: one row per query (the
// token attending), one column per key (the token attended to), Blues from 0 to 1, a colour bar.
// Moving the layer or the head only redraws; a new sentence reruns the forward pass.
"use strict";

views.head_view = function (root, spec) {
  const o = spec.options, m = o.model, pair = m.kind === "bert", H = m.num_heads;
  const texts = pair ? [o.sentence_a, o.sentence_b] : [o.sentence];
  let reading = null, layer = o.layer, head = o.head;  // head === H: the mean of the heads
  const boxes = texts.map((text, i) => ui.text(pair ? nn.say(spec, "sentence {ab}", { ab: "AB"[i] }) : nn.say(spec, "sentence"), text, (value) => {
    texts[i] = value;
    view.run(() => { read(); draw(); });
  }, pair ? 20 : 26));
  const layerSlider = ui.slider(nn.say(spec, "layer"), 1, m.num_layers, layer + 1, (v) => { layer = v - 1; view.run(draw); });
  const headNames = [...Array(H).keys()].map((h) => [h, String(h + 1)]).concat([[H, nn.say(spec, "mean")]]);
  const headMenu = ui.select(nn.say(spec, "head"), headNames, head, (v) => { head = Number(v); view.run(draw); });
  const view = ui.frame(root, o.title, [...boxes, layerSlider, headMenu]);

  // Tokens, ids (and segments for a pair) of what the boxes hold, or an Error naming the box at fault.
  function readBoxes() {
    if (m.kind !== "bert") {
      const { tokens, ids } = nn.encode(spec, texts[0]);
      return { tokens, ids };
    }
    const parts = texts.map((text, i) => {
      try {
        return nn.encode(spec, text);
      } catch (error) {
        throw new Error(nn.say(spec, "sentence {ab}: {error}", { ab: "AB"[i], error: error.message }));
      }
    });
    const index = (token) => spec.vocab.itos.indexOf(token);
    const tokens = [m.cls, ...parts[0].tokens, m.sep, ...parts[1].tokens, m.sep];
    if (tokens.length > m.max_len)
      throw new Error(nn.say(spec, "{n} tokens with [CLS] and the two [SEP]s; this model reads at most {max}",
                             { n: tokens.length, max: m.max_len }));
    const ids = [index(m.cls), ...parts[0].ids, index(m.sep), ...parts[1].ids, index(m.sep)];
    const segments = tokens.map((_, t) => (t <= parts[0].tokens.length + 1 ? 0 : 1));  // 0 up to the first [SEP]
    return { tokens, ids, segments };
  }

  function read() {
    try {
      const input = readBoxes();
      const out = pair ? nn.transformer.bertEncode(spec, input.ids, input.segments)
        : nn.transformer.seq2seqEncode(spec, input.ids);
      reading = { ...input, ...out };
    } catch (error) {
      reading = { error };
    }
  }

  // The (T, T) weights the picture shows: one head's, or the mean over heads (as HeadsCanvas.means).
  function shown() {
    const heads = reading.attentions[layer];
    if (head < H) return heads[head];
    return heads[0].map((row, i) => Float32Array.from(row, (_, j) => heads.reduce((s, w) => s + w[i][j], 0) / H));
  }

  function draw() {
    if (reading.error) { view.picture.innerHTML = ""; throw reading.error; }
    const { tokens } = reading, T = tokens.length, weights = shown();
    const cell = Math.max(14, Math.min(30, 420 / T)), longest = Math.max(...tokens.map((t) => t.length));
    // the slanted key labels (11 px, about 5.7 px a character upwards) end below the axis label at y = 30
    const x0 = 40 + 6.5 * longest, y0 = 44 + 5.8 * longest, side = T * cell, barX = x0 + side + 24;
    const parts = [], esc = ui.esc;
    for (let i = 0; i < T; i++) {
      for (let j = 0; j < T; j++) {
        const w = weights[i][j];
        parts.push(`<rect x="${x0 + j * cell}" y="${y0 + i * cell}" width="${cell + 0.3}" height="${cell + 0.3}" ` +
                   `fill="${ui.sequential(w, 0, 1)}"><title>${esc(tokens[i])} → ${esc(tokens[j])}: ` +
                   `${w.toFixed(3)}</title></rect>`);
      }
    }
    if (pair) {  // where sentence B starts: after the first [SEP]
      const at = reading.segments.indexOf(1) * cell, dash = `stroke="#888" stroke-dasharray="3 2"`;
      parts.push(`<line x1="${x0 + at}" y1="${y0}" x2="${x0 + at}" y2="${y0 + side}" ${dash}/>`,
                 `<line x1="${x0}" y1="${y0 + at}" x2="${x0 + side}" y2="${y0 + at}" ${dash}/>`);
    }
    const size = T <= 24 ? 11 : 8;
    tokens.forEach((t, k) => {
      const cx = x0 + (k + 0.5) * cell, cy = y0 + (k + 0.5) * cell;
      parts.push(`<text x="${cx}" y="${y0 - 4}" font-size="${size}" transform="rotate(-60 ${cx} ${y0 - 4})">` +
                 `${esc(t)}</text>`,
                 `<text x="${x0 - 4}" y="${cy + 4}" font-size="${size}" text-anchor="end">${esc(t)}</text>`);
    });
    for (let s = 0; s < 40; s++)  // the colour bar, 0 at the bottom
      parts.push(`<rect x="${barX}" y="${y0 + side * (1 - (s + 1) / 40)}" width="12" height="${side / 40 + 0.3}" ` +
                 `fill="${ui.sequential((s + 0.5) / 40, 0, 1)}"/>`);
    for (const v of [0, 0.5, 1])
      parts.push(`<text x="${barX + 16}" y="${y0 + side * (1 - v) + 4}" font-size="10">${v}</text>`);
    const label = (x, y, text, rotate) => `<text x="${x}" y="${y}" font-size="11" text-anchor="middle"` +
      (rotate ? ` transform="rotate(-90 ${x} ${y})"` : "") + `>${esc(text)}</text>`;
    const title = `layer ${layer + 1}, head ${head < H ? head + 1 : "mean"}`;
    const height = Math.max(y0 + side + 12, y0 + side / 2 + 60);  // room for the axis label of a short sentence
    view.picture.innerHTML = `<svg width="${barX + 60}" height="${height}" role="img" aria-label="${esc(title)}">` +
      `<text x="4" y="14" font-size="12">${esc(title)}</text>` + parts.join("") +
      label(x0 + side / 2, 30, "key (attended to)") + label(12, y0 + side / 2, "query (attending)", true) +
      label(barX + 40, y0 + side / 2, "weight", true) + `<rect x="${x0}" y="${y0}" width="${side}" height="${side}" ` +
      `fill="none" stroke="#444" stroke-width="0.6"/></svg>`;
  }

  view.run(() => { read(); draw(); });
  view.numbers = () => reading.error ? { error: reading.error.message } : {
    tokens: reading.tokens, ids: reading.ids, ...(pair ? { segments: reading.segments } : {}),
    layer, head: head < H ? head : "mean", shown: shown(), attentions: reading.attentions, hidden: reading.hidden,
  };
  view.controls = Object.fromEntries([...boxes.map((b, i) => [pair ? `sentence_${"ab"[i]}` : "sentence", b.input]),
                                      ["layer", layerSlider.input], ["head", headMenu.input]]);
  return view;
};
