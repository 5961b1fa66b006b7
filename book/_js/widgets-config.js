// Tell require.js where the book's own copy of the ipywidgets HTML manager lives, so that
// the manager (which derives its asset path from its module URL) loads its fonts from the
// book instead of from a path next to the page.
(function () {
  var base = document.currentScript.src.replace(/[^/]*$/, "");
  require.config({ paths: { "@jupyter-widgets/html-manager/dist": base + "html-manager" } });
})();

// Widgets saved by ipywidgets 7 (requirements.txt allows it: Colab's is 7.7.1) are drawn by the manager's
// controls 1.5.0, which typeset a label with MathJax 2's API, MathJax.Hub.Queue. The book loads MathJax 3,
// which has no Hub: every such label threw "Cannot read properties of undefined (reading 'Queue')" and the
// widget stayed blank. A stand-in Hub typesets with MathJax 3's own call; it is put on whatever object
// window.MathJax is, now (the configuration) and when MathJax 3 replaces it with itself as it loads.
(function () {
  var hub = {
    Queue: function (job) {
      var mathjax = window.MathJax, element = job && job[2];
      if (mathjax && typeof mathjax.typesetPromise === "function") {
        mathjax.typesetPromise(element && element.nodeType ? [element] : undefined).catch(function () {});
      }
    },
  };
  function withHub(value) {
    if (value && typeof value === "object" && !value.Hub) {
      try { Object.defineProperty(value, "Hub", { value: hub, enumerable: false, configurable: true }); } catch (e) {}
    }
    return value;
  }
  var current = withHub(window.MathJax);
  try {
    Object.defineProperty(window, "MathJax", {
      configurable: true, enumerable: true,
      get: function () { return current; },
      set: function (value) { current = withHub(value); },
    });
  } catch (e) {}
})();
