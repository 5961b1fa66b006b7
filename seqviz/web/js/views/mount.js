// seqviz.mount: turn each <div class="seqviz-web"> on the page into its live view (once).
// The still picture inside stays for readers without JavaScript and for print (page.py's CSS).
"use strict";

function mount(root) {
  if (root.seqvizView) return root.seqvizView;
  const spec = JSON.parse(root.querySelector("script.seqviz-web-spec").textContent);
  const make = views[spec.view];
  if (!make) throw new Error(`seqviz: no view called '${spec.view}' (this page's script knows ${Object.keys(views).join(", ")})`);
  const view = make(root.querySelector(".seqviz-web-live"), spec);
  root.seqvizView = view;
  root.classList.add("seqviz-web-mounted");
  return view;
}

function mountAll() {
  document.querySelectorAll(".seqviz-web").forEach(mount);
}
