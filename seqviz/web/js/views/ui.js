// seqviz.ui: the controls, the frame and the colours every live view shares; `views` is filled by the other
// files of this folder, one view each, drawn in SVG from numbers the twins of js/nn/ computed in the page.
//
// A view is mounted on a <div class="seqviz-web"> that seqviz.web.WebView wrote (page.py): its JSON spec
// holds the weights, the vocabulary and the view's options. The same HTML runs in the static book, in
// JupyterLab and in Colab. Each view returns an object with update() (timed: lastMs, timings) and
// numbers() (what the picture shows right now, for the tests that compare it with seqviz).
"use strict";

const ui = {};

ui.el = function (tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "style") e.style.cssText = v; else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c);
  return e;
};

ui.esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);

// A labelled control; onChange(value) runs on every change (Enter or leaving the box, for a text box).
ui.text = function (label, value, onChange, width) {
  const input = ui.el("input", { type: "text", value, style: `width:${width || 26}em`, "aria-label": label });
  let last = value;
  const submit = () => { if (input.value !== last) { last = input.value; onChange(input.value); } };
  input.addEventListener("change", submit);
  // Enter submits too: a front end's own key handling (JupyterLab's) may keep the browser from firing change.
  input.addEventListener("keydown", (event) => { if (event.key === "Enter") submit(); });
  return { input, box: ui.el("label", { class: "seqviz-web-control" }, `${label} `, input) };
};

ui.slider = function (label, min, max, value, onChange, step) {
  const input = ui.el("input", { type: "range", min, max, value, step: step || 1, "aria-label": label });
  const shown = ui.el("output", {}, String(value));
  input.addEventListener("input", () => { shown.textContent = input.value; onChange(Number(input.value)); });
  // The keys move the slider here rather than in the browser: JupyterLab's notebook swallows the arrow keys.
  const moves = { ArrowLeft: -1, ArrowDown: -1, ArrowRight: 1, ArrowUp: 1, PageDown: -10, PageUp: 10 };
  input.addEventListener("keydown", (event) => {
    const lo = Number(input.min), hi = Number(input.max), by = Number(input.step) || 1, now = Number(input.value);
    const next = event.key === "Home" ? lo : event.key === "End" ? hi
      : event.key in moves ? Math.min(hi, Math.max(lo, +(now + moves[event.key] * by).toFixed(10))) : null;
    if (next === null) return;
    event.preventDefault();
    event.stopPropagation();
    if (next !== now) { input.value = String(next); input.dispatchEvent(new Event("input")); }
  });
  const set = (lo, hi, v) => { input.min = lo; input.max = hi; input.value = v; shown.textContent = String(v); };
  return { input, set, box: ui.el("label", { class: "seqviz-web-control" }, `${label} `, input, shown) };
};

ui.select = function (label, options, value, onChange) {
  const input = ui.el("select", { "aria-label": label }, ...options.map(([v, text]) => ui.el("option", { value: v }, text)));
  input.value = String(value);
  input.addEventListener("change", () => onChange(input.value));
  return { input, box: ui.el("label", { class: "seqviz-web-control" }, `${label} `, input) };
};

// The skeleton every view shares: a title, a row of controls, a message line and the picture.
// update(draw) times draw() from the input to a laid-out picture; an Error from it becomes the message.
ui.frame = function (root, title, controls) {
  const message = ui.el("div", { class: "seqviz-web-message", role: "status" });
  const picture = ui.el("div", { class: "seqviz-web-picture" });
  // data-lm-suppress-shortcuts: in JupyterLab, Enter in the box and Home/End on a slider reach the view
  // instead of the notebook's keyboard shortcuts.
  root.append(ui.el("div", { class: "seqviz-web-title" }, title),
              ui.el("div", { class: "seqviz-web-controls", "data-lm-suppress-shortcuts": "true" },
                    ...controls.map((c) => c.box)), message, picture);
  const view = { timings: [], lastMs: NaN, message, picture };
  // The width the picture may take: its column's (a phone's is narrow). While the view is being mounted its part
  // of the page is still hidden, so the width is read from the view's outer <div>; 0 where nothing is laid out.
  view.room = () => picture.clientWidth || (root.closest(".seqviz-web") || root).clientWidth || 0;
  view.run = function (draw) {
    const start = performance.now();
    try {
      draw();
      message.textContent = "";
    } catch (error) {
      message.textContent = `⚠ ${error.message}`;
    }
    void picture.getBoundingClientRect().height;  // lay the new picture out before the clock stops
    view.lastMs = performance.now() - start;
    view.timings.push(view.lastMs);
  };
  return view;
};

// Colours: matplotlib's RdBu_r (diverging, for signed values) and Blues (for weights in [0, 1]).
const RDBU_R = ["#053061", "#2166ac", "#4393c3", "#92c5de", "#d1e5f0", "#f7f7f7", "#fddbc7", "#f4a582", "#d6604d", "#b2182b", "#67001f"];
const BLUES = ["#f7fbff", "#deebf7", "#c6dbef", "#9ecae1", "#6baed6", "#4292c6", "#2171b5", "#08519c", "#08306b"];
ui.ramp = function (stops, t) {
  t = Math.min(Math.max(t, 0), 1) * (stops.length - 1);
  const i = Math.min(Math.floor(t), stops.length - 2), f = t - i;
  const a = stops[i], b = stops[i + 1], ch = (s, k) => parseInt(s.slice(1 + 2 * k, 3 + 2 * k), 16);
  return "rgb(" + [0, 1, 2].map((k) => Math.round(ch(a, k) + f * (ch(b, k) - ch(a, k)))).join(",") + ")";
};
ui.diverging = (v, vmax) => ui.ramp(RDBU_R, 0.5 + 0.5 * v / (vmax || 1));
ui.sequential = (v, vmin, vmax) => ui.ramp(BLUES, (v - vmin) / ((vmax - vmin) || 1));

// Token labels under columns, rotated like the notebook's pictures.
ui.columnLabels = function (tokens, x0, cell, y) {
  return tokens.map((t, i) => `<text x="${x0 + (i + 0.5) * cell}" y="${y}" font-size="11" text-anchor="end" ` +
    `transform="rotate(-40 ${x0 + (i + 0.5) * cell} ${y})">${ui.esc(t)}</text>`).join("");
};

const views = {};
