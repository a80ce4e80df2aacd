/* The book's own script, loaded before MathJax and the widget manager (not deferred).
 *
 * The widget manager (html-manager 1.0.15) typesets widget labels with MathJax 2's `MathJax.Hub.Queue`; the book
 * loads MathJax 3, which has no Hub, so every label raised "Cannot read properties of undefined (reading 'Queue')".
 * This gives whatever object becomes `window.MathJax` (the configuration, then MathJax 3 itself) a small Hub whose
 * Queue hands ['Typeset', Hub, element] to MathJax 3's typesetPromise. */
(function () {
  var hub = {
    Queue: function () {
      for (var i = 0; i < arguments.length; i++) {
        var job = arguments[i], mj = window.MathJax;
        if (Array.isArray(job) && job[0] === 'Typeset' && mj && mj.typesetPromise) {
          mj.typesetPromise(job[2] ? [job[2]] : undefined).catch(function () {});
        }
      }
    },
  };
  function withHub(value) {
    if (value && typeof value === 'object' && !value.Hub) {
      try { Object.defineProperty(value, 'Hub', {value: hub, enumerable: false, configurable: true}); } catch (e) {}
    }
    return value;
  }
  var current = withHub(window.MathJax);
  Object.defineProperty(window, 'MathJax', {
    configurable: true,
    get: function () { return current; },
    set: function (value) { current = withHub(value); },
  });
})();
