/* attention-helpers-rise: lets the series' explorers work in jupyterlab-rise 0.43 slides. No build step: this file
 * is the whole extension, written by hand to the container interface JupyterLab's loader calls (init, then get).
 *
 * 1. Lets ipywidgets 8's widget manager load. RISE's app does not provide @jupyterlab/console in its shared scope,
 *    and the manager (jupyterlab_widgets 3) consumes it, so RISE showed no widgets (jupyterlab-contrib/rise#119).
 *    `init` stands in for it there. At run time the manager uses one thing from it: the IConsoleTracker token, an
 *    optional service that no RISE plugin provides, so the manager gets null; the stand-in also has empty
 *    ConsolePanel and CodeConsole classes, the module's other names the manager's source imports. The manager asks
 *    for ^4.6.2 as a singleton without a strict version, so the loader takes this 4.0.0 and logs an "Unsatisfied
 *    version" warning, as it does for RISE's own 4.3 packages. Where @jupyterlab/console is shared already
 *    (JupyterLab itself), `init` does nothing.
 * 2. Keys, as in the offline decks (attention_helpers/tools/slides/deck.js): with an explorer's control focused on
 *    a RISE slide, the arrow keys, Home, End, Space and Enter go to the control, not to RISE's shortcuts or to
 *    reveal.js; Esc hands the keys back to the slides (the control loses focus); Page Down / Page Up (a clicker's
 *    keys) change slide and do not reach the control (a slider would take them as big steps). Changing slide takes
 *    the focus off a control left behind. Outside RISE's slides nothing changes. */
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
    if (!control || !event.isTrusted) return;  // (the Page Down sent on below is not trusted)
    if (event.key === 'Escape') {
      event.stopPropagation(); event.preventDefault();
      control.blur();
    } else if (event.key === 'PageDown' || event.key === 'PageUp') {
      // Kept from the control, then sent on from the page's body, where reveal.js takes it as from no control.
      event.stopPropagation(); event.preventDefault();
      control.blur();
      document.body.dispatchEvent(new KeyboardEvent('keydown', {
        key: event.key, code: event.code, keyCode: event.keyCode, which: event.which, bubbles: true, cancelable: true
      }));
    } else if (CONTROL_KEYS.indexOf(event.key) >= 0) {
      // Lumino runs no shortcut for a key whose target, or one of its parents, is marked so: RISE's Home and End,
      // and the notebook's shortcuts whose selector ends in ':focus', which the control itself matches. The mark
      // stays; it matters only while the control has the focus.
      control.setAttribute('data-lm-suppress-shortcuts', 'true');
      // The listener added to its output stops the key on its way up, after the control took it, before reveal.js
      // sees it.
      var output = control.closest('.jp-OutputArea-output') || control.closest('.jupyter-widgets');
      if (!guarded.has(output)) {
        guarded.add(output);
        output.addEventListener('keydown', function (e) {
          if (slideControl(e.target) && CONTROL_KEYS.indexOf(e.key) >= 0) e.stopPropagation();
        });
      }
    }
  }

  // After reveal.js changes slide (its 'slidechanged' event, seen on its way down to the slides), a control
  // focused on a slide no longer shown loses the focus.
  function onSlideChange() {
    var control = slideControl(document.activeElement);
    var slide = control && control.closest('section');  // the innermost: the slide itself
    if (slide && !slide.classList.contains('present')) control.blur();
  }

  var plugin = {
    id: NAME + ':explorer-keys',
    description: 'On RISE slides, a focused explorer control keeps the keys it uses, as in the offline decks.',
    autoStart: true,
    activate: function () {
      window.addEventListener('keydown', onKeydown, true);
      document.addEventListener('slidechanged', onSlideChange, true);
    }
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
