/* attention-helpers-rise: lets the series' explorers work in jupyterlab-rise 0.43 slides. No build step: this file
 * is the whole extension, written by hand to the container interface JupyterLab's loader calls (init, then get).
 *
 * 1. Loads the widget manager. RISE's app does not provide @jupyterlab/console in its shared scope, and ipywidgets 8's
 *    manager (jupyterlab_widgets 3) needs it, so RISE shows no widgets (jupyterlab-contrib/rise#119). `init` stands
 *    in for it there, with the one thing the manager takes from it: the IConsoleTracker token (an optional service
 *    that no RISE plugin provides, so the manager gets null) and the ConsolePanel class it tests panels against.
 *    Where @jupyterlab/console is shared already (JupyterLab itself), `init` does nothing.
 * 2. Keys, as in the offline decks (attention_helpers/tools/slides/deck.js): with an explorer's control focused on
 *    a RISE slide, the arrow keys, Home, End, Space and Enter go to the control, not to RISE's shortcuts or to
 *    reveal.js; Esc hands the keys back to the slides (the control loses focus); Page Down / Page Up (a clicker's
 *    keys) change slide. Outside RISE's slides nothing changes. */
(function () {
  'use strict';
  var NAME = 'attention-helpers-rise';
  var CONTROL = '.jupyter-widgets .noUi-handle, .jupyter-widgets select, .jupyter-widgets input, ' +
                '.jupyter-widgets button, .jupyter-widgets [tabindex]';
  var CONTROL_KEYS = ['ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown', 'Home', 'End', ' ', 'Enter'];
  var guarded = new WeakSet();

  function consoleStandIn(scope) {
    var coreutils = scope['@lumino/coreutils'];
    var version = Object.keys(coreutils)[0];
    return {
      from: NAME,
      eager: false,
      get: function () {
        return Promise.resolve(coreutils[version].get()).then(function (factory) {
          var module = {
            IConsoleTracker: new (factory().Token)('@jupyterlab/console:IConsoleTracker',
                                                   'stand-in: this application has no consoles'),
            ConsolePanel: function ConsolePanel() {},
            CodeConsole: function CodeConsole() {}
          };
          return function () { return module; };
        });
      }
    };
  }

  // A focused widget control on a RISE slide, or null.
  function slideControl(target) {
    return target && target.matches && target.matches(CONTROL) && target.closest('.reveal .slides') ? target : null;
  }

  function onKeydown(event) {
    var control = slideControl(event.target);
    if (!control) return;
    if (event.key === 'Escape') {
      event.stopPropagation(); event.preventDefault();
      control.blur();
    } else if (event.key === 'PageDown' || event.key === 'PageUp') {
      control.blur();  // reveal.js then takes the key: it ignores no key once nothing is focused
    } else if (CONTROL_KEYS.indexOf(event.key) >= 0) {
      // Lumino runs no shortcut for a key whose target is marked so (RISE's Home and End, and the notebook's
      // shortcuts whose selector ends in ':focus', which the control itself matches) ...
      control.setAttribute('data-lm-suppress-shortcuts', 'true');
      // ... and the listener added to its output stops the key on its way up, after the control took it, before
      // reveal.js sees it.
      var output = control.closest('.jp-OutputArea-output') || control.closest('.jupyter-widgets');
      if (!guarded.has(output)) {
        guarded.add(output);
        output.addEventListener('keydown', function (e) {
          if (slideControl(e.target) && CONTROL_KEYS.indexOf(e.key) >= 0) e.stopPropagation();
        });
      }
    }
  }

  var plugin = {
    id: NAME + ':explorer-keys',
    description: 'On RISE slides, a focused explorer control keeps the keys it uses.',
    autoStart: true,
    activate: function () { window.addEventListener('keydown', onKeydown, true); }
  };

  var registry = (window._JUPYTERLAB = window._JUPYTERLAB || {});
  registry[NAME] = {
    init: function (scope) {
      if (!scope['@jupyterlab/console'] && scope['@lumino/coreutils']) {
        scope['@jupyterlab/console'] = {'4.0.0': consoleStandIn(scope)};
      }
    },
    get: function () {
      return Promise.resolve(function () { return {__esModule: true, default: [plugin]}; });
    }
  };
})();
