// seqviz generate (chapter 4b): a recurrent language model (seqviz.models.GRULM) writes in the reader's browser.
//
// Type a prompt, move the temperature, the top-k and the seed: the page feeds the prompt through the model
// (embedding -> every recurrent layer -> out, PyTorch's equations and weight names) and samples `steps`
// tokens by the book's one rule, seqviz.sampling.sample's: z = (logits - max) / temperature, keep the top_k
// largest (ties: the lower id), softmax, then the inverse CDF over the kept tokens in id order with one
// uniform number per step from mulberry32(seed) (seqviz.web.generate.mulberry32 draws the same numbers in
// Python, so the chapter, the tests and the browser check reproduce the page's tokens exactly).
// Each token is coloured by the probability it had; the line below gives the mean log-probability.
// A long generation is written in slices of about SLICE_MS each (every slice one timed update), so the
// page stays responsive whatever the model's size.
"use strict";

{  // one block: the names below are this file's own; it adds nn.mulberry32, nn.lmModel, nn.lmDistribution,
   // nn.lmChoose, nn.lmTokens and views.generate

  const SLICE_MS = 15;   // compute per update; the rest of a generation follows in further updates

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

  // One recurrent cell step from its two projections, as nn.recurrent computes it (PyTorch's gate order):
  // a = W_ih x + b_ih, b = W_hh h + b_hh (each (G*H,)); h, c: the layer's state (H,). Returns {h, c}.
  function cellStep(kind, a, b, h, c) {
    const H = h.length, next = new Float32Array(H);
    if (kind === "rnn") {
      for (let j = 0; j < H; j++) next[j] = Math.tanh(a[j] + b[j]);
      return { h: next, c };
    }
    if (kind === "lstm") {   // rows: input, forget, candidate (g), output
      const cNext = new Float32Array(H);
      for (let j = 0; j < H; j++) {
        const gi = Math.fround(nn.sigmoid(a[j] + b[j])), gf = Math.fround(nn.sigmoid(a[H + j] + b[H + j]));
        const gg = Math.fround(Math.tanh(a[2 * H + j] + b[2 * H + j]));
        const go = Math.fround(nn.sigmoid(a[3 * H + j] + b[3 * H + j]));
        cNext[j] = gf * c[j] + gi * gg;
        next[j] = go * Math.tanh(cNext[j]);
      }
      return { h: next, c: cNext };
    }
    for (let j = 0; j < H; j++) {   // gru, rows: reset, update (z), candidate (n); h = (1 - z) n + z h
      const r = Math.fround(nn.sigmoid(a[j] + b[j])), z = Math.fround(nn.sigmoid(a[H + j] + b[H + j]));
      const n = Math.fround(Math.tanh(a[2 * H + j] + r * b[2 * H + j]));
      next[j] = (1 - z) * n + z * h[j];
    }
    return { h: next, c };
  }

  // A GRULM from its exported weights (embedding.weight (V, E), rnn.*_l{k}, out.weight (V, H), out.bias).
  // state: one {h, c} per layer (new arrays at every step: a state can be kept and resumed, as the prompt's is).
  nn.lmModel = function (spec) {
    const w = nn.load(spec), m = spec.options.model;
    const layers = nn.layers(w, "rnn.", m.num_layers), H = m.hidden_size;
    const inputs = new Map();   // token id -> layer 0's W_ih x + b_ih: computed once per token
    const project0 = (id) => {
      if (!inputs.has(id)) inputs.set(id, nn.linear(layers[0].w_ih, nn.row(w["embedding.weight"], id), layers[0].b_ih));
      return inputs.get(id);
    };
    return {
      start: () => layers.map(() => ({ h: new Float32Array(H), c: new Float32Array(H) })),
      feed(state, id) {   // read one token: the new state
        let x = null;
        return layers.map((p, l) => {
          const a = l === 0 ? project0(id) : nn.linear(p.w_ih, x, p.b_ih);
          const next = cellStep(m.cell, a, nn.linear(p.w_hh, state[l].h, p.b_hh), state[l].h, state[l].c);
          x = next.h;
          return next;
        });
      },
      logits: (state) => nn.linear(w["out.weight"], state[state.length - 1].h, w["out.bias"]),   // (V,)
    };
  };

  // The distribution one step draws from (seqviz.sampling.distribution): (V,) doubles, 0 outside the top k.
  nn.lmDistribution = function (logits, temperature, topK) {
    const V = logits.length, keep = new Uint8Array(V);
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
    const p = new Float64Array(V);
    for (let i = 0; i < V; i++) if (keep[i]) { p[i] = Math.exp((logits[i] - top) / temperature); total += p[i]; }
    for (let i = 0; i < V; i++) p[i] /= total;
    return p;
  };

  // Inverse CDF in id order (seqviz.sampling.choose): the first id whose running sum exceeds u.
  nn.lmChoose = function (p, u) {
    let running = 0, last = -1;
    for (let i = 0; i < p.length; i++) {
      if (p[i] <= 0) continue;
      running += p[i];
      last = i;
      if (running > u) return i;
    }
    return last;   // rounding left the total below u: the last possible token
  };

  // A typed prompt -> tokens and ids (characters, or words by seqviz.data.real.tokenize's rule); an Error
  // whose message the view shows for an empty, too long or unknown prompt.
  nn.lmTokens = function (spec, text) {
    const v = spec.vocab, unit = v.level === "char" ? "character" : "word";
    const tokens = (v.lower ? text.toLowerCase() : text).match(new RegExp(v.pattern, v.flags)) || [];
    if (!tokens.length) throw new Error(`type a prompt in the box (at least one ${unit})`);
    if (tokens.length > v.max_tokens) throw new Error(`${tokens.length} ${unit}s; this view reads at most ${v.max_tokens}`);
    const index = v._index || (v._index = new Map(v.itos.map((t, i) => [t, i])));
    const unknown = [...new Set(tokens.filter((t) => !index.has(t) || v.specials.includes(t)))];
    if (unknown.length) {
      const known = v.itos.filter((t) => !v.specials.includes(t)), show = (t) => JSON.stringify(t).slice(1, -1);
      const listed = unknown.slice(0, 5).map((t) => `'${show(t)}'`).join(", ") + (unknown.length > 5 ? " ..." : "");
      throw new Error(`this model has never seen ${listed}; it knows ${known.length} ${unit}s, such as ` +
                      `${known.slice(0, 12).map(show).join(" ")} ...`);
    }
    return { tokens, ids: tokens.map((t) => index.get(t)) };
  };

  // Probability -> background: dark orange (unlikely) through white to blue (likely): the text stays readable.
  const RAMP = ["#e66101", "#fdb863", "#f7f7f7", "#b2abd2", "#8c9fd9"];
  const shown = (token) => token === "\n" ? "\\n" : token;

  views.generate = function (root, spec) {
    const o = spec.options, model = nn.lmModel(spec), char = spec.vocab.level === "char";
    const settings = { prompt: o.prompt, temperature: o.temperature, topK: o.top_k, seed: o.seed };
    let run = null, job = 0, prefilled = null;
    const box = ui.text("prompt", o.prompt, (text) => restart({ prompt: text }), 30);
    const heat = ui.slider("temperature", 0.1, 2.0, o.temperature, (v) => restart({ temperature: v }), 0.05);
    const menu = ui.select("top-k", o.top_k_menu.map((k) => [k === null ? "all" : String(k), k === null ? "all" : String(k)]),
                           o.top_k === null ? "all" : String(o.top_k),
                           (v) => restart({ topK: v === "all" ? null : Number(v) }));
    const seed = ui.slider("seed", 0, 20, o.seed, (v) => restart({ seed: v }));
    const view = ui.frame(root, o.title, [box, heat, menu, seed]);
    const text = ui.el("div", { class: "seqviz-generate-text", style: "white-space:pre-wrap;line-height:1.6;" +
      "font-family:ui-monospace,Menlo,Consolas,monospace;font-size:0.9em;border:1px solid #ddd;padding:0.4em;" +
      "max-height:22em;overflow-y:auto" });
    const hover = ui.el("div", { class: "seqviz-generate-hover", style: "font-size:0.85em;min-height:1.3em;color:#333" });
    const summary = ui.el("div", { class: "seqviz-generate-summary", style: "font-size:0.9em;margin-top:0.2em" });
    const legend = ui.el("div", { style: "font-size:0.8em;color:#555" });
    legend.innerHTML = "probability of each sampled token: 0 <span style='display:inline-block;width:9em;height:0.8em;" +
      `background:linear-gradient(to right,${RAMP.join(",")})'></span> 1 (hover a token for its probability)`;
    view.picture.append(text, summary, hover, legend);
    text.addEventListener("mouseover", (event) => {
      const step = event.target.dataset && event.target.dataset.step;
      hover.textContent = step === undefined || !run || run.error ? "" : describe(Number(step));
    });
    text.addEventListener("mouseleave", () => { hover.textContent = ""; });

    // A new prompt or setting: start over (the prompt's state is reused when only the sampling changed).
    function restart(change, whole) {
      Object.assign(settings, change);
      const mine = ++job;
      view.run(() => { begin(); advance(whole ? Infinity : SLICE_MS); draw(); });
      if (run && !run.error && !run.done) setTimeout(function next() {
        if (mine !== job) return;   // a newer input took over
        view.run(() => { advance(SLICE_MS); draw(); });
        if (!run.done) setTimeout(next, 0);
      }, 0);
    }

    function begin() {
      try {
        const { tokens, ids } = nn.lmTokens(spec, settings.prompt);
        const key = ids.join(" "), reuse = prefilled && prefilled.key === key;
        run = { tokens, promptIds: ids, fed: reuse ? ids.length : 0, state: reuse ? prefilled.state : model.start(),
                key, ids: [], probs: [], dists: [], rng: nn.mulberry32(settings.seed), done: false };
      } catch (error) {
        run = { error };
      }
    }

    // Feed the prompt, then sample, until the generation is done or `budget` ms have passed.
    function advance(budget) {
      if (run.error) return;
      const until = performance.now() + budget;
      while (!run.done) {
        if (run.fed < run.promptIds.length) {
          run.state = model.feed(run.state, run.promptIds[run.fed++]);
          if (run.fed === run.promptIds.length) prefilled = { key: run.key, state: run.state };
        } else {
          const p = nn.lmDistribution(model.logits(run.state), settings.temperature, settings.topK);
          const id = nn.lmChoose(p, run.rng());
          run.ids.push(id); run.probs.push(p[id]); run.dists.push(p);
          if (run.ids.length === o.steps) run.done = true;
          else run.state = model.feed(run.state, id);
        }
        if (performance.now() >= until) break;
      }
    }

    function meanLogProb() {
      return run.probs.reduce((s, p) => s + Math.log(p), 0) / run.probs.length;
    }

    function describe(step) {
      const p = run.dists[step], id = run.ids[step], itos = spec.vocab.itos;
      const best = Array.from(p.keys()).sort((i, j) => p[j] - p[i] || i - j).slice(0, 3);
      return `token ${step + 1}: '${shown(itos[id])}' had p = ${p[id].toFixed(3)}; the most likely: ` +
        best.map((i) => `'${shown(itos[i])}' ${p[i].toFixed(3)}`).join(", ");
    }

    function draw() {
      if (run.error) { text.innerHTML = ""; summary.textContent = ""; throw run.error; }
      const itos = spec.vocab.itos, gap = char ? "" : " ";
      const parts = [`<span style="color:#555;font-weight:bold">${ui.esc(run.tokens.join(gap))}</span>`];
      run.ids.forEach((id, step) => parts.push(`${gap}<span data-step="${step}" title="p = ${run.probs[step].toFixed(3)}" ` +
        `style="background:${ui.ramp(RAMP, run.probs[step])}">${ui.esc(itos[id])}</span>`));
      text.innerHTML = parts.join("");
      const n = run.ids.length, mean = meanLogProb(), k = settings.topK;
      const how = k === 1 ? "greedy (top-k 1)" : `temperature ${settings.temperature}, top-k ${k === null ? "all" : k}, seed ${settings.seed}`;
      summary.textContent = `${n}${run.done ? "" : ` of ${o.steps}`} ${char ? "characters" : "words"} sampled (${how}): ` +
        `mean log-probability ${mean.toFixed(3)} nats per token (this sample's perplexity ${Math.exp(-mean).toFixed(2)})` +
        (run.done ? "" : " ...");
    }

    restart({}, true);   // the first generation at once, whole: the browser check compares it with seqviz
    view.numbers = () => run.error ? { error: run.error.message } : {
      prompt: run.tokens, ids: run.ids, tokens: run.ids.map((i) => spec.vocab.itos[i]), probs: run.probs,
      first: run.dists[0], mean_log_prob: meanLogProb(), temperature: settings.temperature,
      top_k: settings.topK, seed: settings.seed, done: run.done };
    view.distributions = () => run.error ? [] : run.dists;   // every step's distribution, for the tests
    view.controls = { prompt: box.input, temperature: heat.input, top_k: menu.input, seed: seed.input };
    return view;
  };
}
