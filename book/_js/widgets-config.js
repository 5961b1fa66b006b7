// Tell require.js where the book's own copy of the ipywidgets HTML manager lives, so that
// the manager (which derives its asset path from its module URL) loads its fonts from the
// book instead of from a path next to the page.
(function () {
  var base = document.currentScript.src.replace(/[^/]*$/, "");
  require.config({ paths: { "@jupyter-widgets/html-manager/dist": base + "html-manager" } });
})();
