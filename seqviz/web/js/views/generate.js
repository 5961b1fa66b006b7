// views.generate (chapter 4b): a recurrent language model (seqviz.models.GRULM) writes in the reader's browser.
//
// Type a prompt, move the temperature, the top-k and the seed: the page feeds the prompt through the model
// (nn.lmModel, nn/recurrent.js) and samples `steps` tokens by the book's one rule, seqviz.sampling.sample's
// (nn.lmDistribution and nn.lmChoose, nn/sampling.js), with one uniform number per step from mulberry32(seed)
// (seqviz.web.generate.mulberry32 draws the same numbers in Python, so the chapter, the tests and the browser
// check reproduce the page's tokens exactly). The prompt is read by nn.lmTokens (nn/tokens.js).
// Each token is coloured by the probability it had; the line below gives the mean log-probability.
// A long generation is written in slices of about SLICE_MS each (every slice one timed update), so the
// page stays responsive whatever the model's size.
"use strict";

{  // one block: the names below are this file's own; it adds views.generate

  const SLICE_MS = 15;   // compute per update; the rest of a generation follows in further updates

  // Probability -> background: dark orange (unlikely) through white to blue (likely): the text stays readable.
  const RAMP = ["#e66101", "#fdb863", "#f7f7f7", "#b2abd2", "#8c9fd9"];
  const shown = (token) => token === "\n" ? "\\n" : token;

  views.generate = function (root, spec) {
    const o = spec.options, model = nn.lmModel(spec), char = spec.vocab.level === "char";
    const settings = { prompt: o.prompt, temperature: o.temperature, topK: o.top_k, seed: o.seed };
    let run = null, job = 0, prefilled = null;
    const box = ui.text(nn.say(spec, "prompt"), o.prompt, (text) => restart({ prompt: text }), 30);
    const heat = ui.slider(nn.say(spec, "temperature"), 0.1, 2.0, o.temperature, (v) => restart({ temperature: v }), 0.05);
    const all = nn.say(spec, "all");   // the top-k menu's "keep every token"
    const menu = ui.select("top-k", o.top_k_menu.map((k) => [k === null ? "all" : String(k), k === null ? all : String(k)]),
                           o.top_k === null ? "all" : String(o.top_k),
                           (v) => restart({ topK: v === "all" ? null : Number(v) }));
    const seed = ui.slider(nn.say(spec, "seed"), 0, 20, o.seed, (v) => restart({ seed: v }));
    const view = ui.frame(root, o.title, [box, heat, menu, seed]);
    const text = ui.el("div", { class: "seqviz-generate-text", style: "white-space:pre-wrap;line-height:1.6;" +
      "font-family:ui-monospace,Menlo,Consolas,monospace;font-size:0.9em;border:1px solid #ddd;padding:0.4em;" +
      "max-height:22em;overflow-y:auto" });
    const hover = ui.el("div", { class: "seqviz-generate-hover", style: "font-size:0.85em;min-height:1.3em;color:#333" });
    const summary = ui.el("div", { class: "seqviz-generate-summary", style: "font-size:0.9em;margin-top:0.2em" });
    const legend = ui.el("div", { style: "font-size:0.8em;color:#555" });
    legend.innerHTML = ui.esc(nn.say(spec, "probability of each sampled token:")) + " 0 <span style='display:inline-block;" +
      `width:9em;height:0.8em;background:linear-gradient(to right,${RAMP.join(",")})'></span> 1 ` +
      ui.esc(nn.say(spec, "(hover a token for its probability)"));
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
      return nn.say(spec, "token {n}: '{token}' had p = {p}; the most likely: {best}", {
        n: step + 1, token: shown(itos[id]), p: p[id].toFixed(3),
        best: best.map((i) => `'${shown(itos[i])}' ${p[i].toFixed(3)}`).join(", ") });
    }

    function draw() {
      if (run.error) { text.innerHTML = ""; summary.textContent = ""; throw run.error; }
      const itos = spec.vocab.itos, gap = char ? "" : " ";
      const parts = [`<span style="color:#555;font-weight:bold">${ui.esc(run.tokens.join(gap))}</span>`];
      run.ids.forEach((id, step) => parts.push(`${gap}<span data-step="${step}" title="p = ${run.probs[step].toFixed(3)}" ` +
        `style="background:${ui.ramp(RAMP, run.probs[step])}">${ui.esc(itos[id])}</span>`));
      text.innerHTML = parts.join("");
      const n = run.ids.length, mean = meanLogProb(), k = settings.topK;
      const how = k === 1 ? nn.say(spec, "greedy (top-k 1)") : nn.say(spec, "temperature {t}, top-k {k}, seed {seed}",
        { t: settings.temperature, k: k === null ? all : k, seed: settings.seed });
      const values = { n, steps: o.steps, how, mean: mean.toFixed(3), ppl: Math.exp(-mean).toFixed(2) };
      summary.textContent = run.done
        ? (char ? nn.say(spec, "{n} characters sampled ({how}): mean log-probability {mean} nats per token (this sample's perplexity {ppl})", values)
          : nn.say(spec, "{n} words sampled ({how}): mean log-probability {mean} nats per token (this sample's perplexity {ppl})", values))
        : (char ? nn.say(spec, "{n} of {steps} characters sampled ({how}): mean log-probability {mean} nats per token (this sample's perplexity {ppl}) ...", values)
          : nn.say(spec, "{n} of {steps} words sampled ({how}): mean log-probability {mean} nats per token (this sample's perplexity {ppl}) ...", values));
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
