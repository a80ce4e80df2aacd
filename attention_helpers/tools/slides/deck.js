/* The decks' script (python -m attention_helpers.tools.slides): starts reveal.js, keeps a focused explorer
 * control's keys, and fits every slide's pictures to the slide.
 *
 * Keys: with an explorer's control focused (Tab to it, or click it), the arrow keys, Home, End, Space and Enter go to
 * the control, not to reveal.js; Esc hands the keys back to the slides (the control loses focus); Page Down / Page Up
 * (what most clickers send) and N / P always change slide. Changing slide takes the focus off a control left behind.
 *
 * Fitting: a slide's pictures (an explorer's frames, an SVG or PNG output) are drawn at one common scale, the largest
 * (up to `maxScale`) at which the slide's content fits its width and height, down to `minScale`; below that the
 * slide overflows, which the decks' test reports. */
(function () {
  'use strict';
  var options = Object.assign({width: 1280, height: 720, maxScale: 2.5, minScale: 0.5}, window.ahDeck || {});
  var CONTROL = '.jupyter-widgets .noUi-handle, .jupyter-widgets select, .jupyter-widgets input, ' +
                '.jupyter-widgets button, .jupyter-widgets [tabindex]';
  var CONTROL_KEYS = ['ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown', 'Home', 'End', ' ', 'Enter', 'Escape'];

  function focusedControl() {
    var active = document.activeElement;
    return active && active !== document.body && active.matches && active.matches(CONTROL) ? active : null;
  }

  // Page Down / Page Up change slide even from a focused slider (noUiSlider would take them as big steps).
  window.addEventListener('keydown', function (event) {
    var control = focusedControl();
    if (!control) return;
    if (event.key === 'PageDown' || event.key === 'PageUp') {
      event.stopPropagation(); event.preventDefault();
      control.blur();
      if (event.key === 'PageDown') Reveal.next(); else Reveal.prev();
    } else if (event.key === 'Escape') {
      event.stopPropagation(); event.preventDefault();
      control.blur();
    }
  }, true);

  Reveal.initialize({
    width: options.width,
    height: options.height,
    margin: 0.02,
    minScale: 0.2,
    maxScale: 2.0,
    center: true,
    navigationMode: 'linear',  // Right / Space / Page Down: the next slide, subslides included (a clicker's keys)
    hash: true,
    controls: true,
    progress: true,
    slideNumber: 'c/t',
    transition: 'slide',
    transitionSpeed: 'fast',
    viewDistance: 2,
    // a focused explorer control keeps the keys it uses; everything else goes to reveal.js
    keyboardCondition: function (event) { return !(focusedControl() && CONTROL_KEYS.indexOf(event.key) >= 0); },
    plugins: window.RevealNotes ? [window.RevealNotes] : [],
  });

  function pictures(slide) {
    return Array.prototype.filter.call(
      slide.querySelectorAll('.ah-explorer svg, .jp-RenderedSVG svg, .jp-RenderedSVG img, .jp-RenderedImage img'),
      function (p) {
        if (p.parentElement.closest('svg') || p.closest('aside.notes')) return false;
        return !p.checkVisibility || p.checkVisibility();
      });
  }

  function natural(p) {
    if (!p.dataset.ahW) {
      var w, h;
      if (p.tagName.toLowerCase() === 'img') { w = p.naturalWidth; h = p.naturalHeight; }
      else {
        var box = p.viewBox && p.viewBox.baseVal;
        w = parseFloat(p.getAttribute('width')) || (box && box.width);
        h = parseFloat(p.getAttribute('height')) || (box && box.height);
      }
      if (!(w > 0 && h > 0)) return null;
      p.dataset.ahW = w; p.dataset.ahH = h;
    }
    return [parseFloat(p.dataset.ahW), parseFloat(p.dataset.ahH)];
  }

  function fits(slide) {
    if (slide.scrollHeight > options.height + 1) return false;
    var frame = document.querySelector('.reveal .slides').getBoundingClientRect();
    return Array.prototype.every.call(slide.querySelectorAll('.jp-OutputArea-output, .jupyter-widgets, svg, img'),
      function (el) {
        if (el.parentElement.closest('svg') || (el.checkVisibility && !el.checkVisibility())) return true;
        var r = el.getBoundingClientRect();
        return r.left >= frame.left - 1 && r.right <= frame.right + 1;
      });
  }

  function apply(list, scale) {
    list.forEach(function (p) {
      var size = natural(p);
      if (!size) return;
      p.style.width = (size[0] * scale).toFixed(1) + 'px';
      p.style.height = (size[1] * scale).toFixed(1) + 'px';
      p.style.maxWidth = 'none';
    });
  }

  function fit(slide) {
    if (!slide) return;
    var list = pictures(slide);
    slide.dataset.ahFit = 'done';  // the decks' test waits for it after each change of slide
    if (!list.length) return;
    var lo = options.minScale, hi = options.maxScale;
    apply(list, hi);
    if (!fits(slide)) {
      for (var i = 0; i < 9; i++) {  // the largest scale that fits, to about 1 %
        var mid = (lo + hi) / 2;
        apply(list, mid);
        if (fits(slide)) lo = mid; else hi = mid;
      }
      apply(list, lo);
    }
    slide.dataset.ahScale = String(parseFloat(list[0].style.width) / natural(list[0])[0]);
  }

  var pending = false;
  function refit() {
    var current = Reveal.getCurrentSlide();
    if (current) delete current.dataset.ahFit;
    if (pending) return;
    pending = true;
    requestAnimationFrame(function () {
      pending = false;
      fit(Reveal.getCurrentSlide());
      Reveal.layout();
    });
  }

  Reveal.on('ready', refit);
  Reveal.on('slidechanged', function (event) {
    var control = focusedControl();
    if (control && !event.currentSlide.contains(control)) control.blur();
    refit();
  });
  Reveal.on('resize', refit);
  // widgets are drawn after the page loads (the widget manager), and images decode late: fit again when they do
  new MutationObserver(function (changes) {
    var slide = Reveal.getCurrentSlide();
    if (slide && changes.some(function (m) { return slide.contains(m.target) && !m.target.closest('.ah-live'); })) {
      refit();
    }
  }).observe(document.querySelector('.reveal .slides'), {subtree: true, childList: true});
  document.addEventListener('load', function (e) { if (e.target.tagName === 'IMG') refit(); }, true);
})();
