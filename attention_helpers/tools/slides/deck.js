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
  var options = Object.assign({width: 1280, height: 720, maxScale: 2.5, minScale: 0.5, minText: 16}, window.ahDeck || {});
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
    center: false,  // a slide's content starts at the top, under its heading
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
      slide.querySelectorAll('.ah-explorer svg, .jp-RenderedSVG svg, .jp-RenderedSVG img, .jp-RenderedImage img, ' +
                         '.jp-RenderedHTMLCommon svg, .jp-RenderedHTMLCommon img'),
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
      // an inline SVG without a viewBox keeps its drawing at its own size in a bigger box: give it one, so that it
      // scales (an <img> scales its SVG either way)
      if (p.tagName.toLowerCase() === 'svg' && !p.getAttribute('viewBox')) p.setAttribute('viewBox', '0 0 ' + w + ' ' + h);
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

  // The largest scale (to about 1 %, between minScale and maxScale) at which the slide fits.
  function largest(slide, list) {
    var lo = options.minScale, hi = options.maxScale;
    apply(list, hi);
    if (fits(slide)) return hi;
    for (var i = 0; i < 9; i++) {
      var mid = (lo + hi) / 2;
      apply(list, mid);
      if (fits(slide)) lo = mid; else hi = mid;
    }
    return lo;
  }

  // Text in a picture that would still be drawn under `minText` px (the slide's pixels, at 1280 x 720) is drawn at
  // minText: a dense picture keeps its layout, and its small labels (cell values, axis titles) become readable from
  // the back of a room. Only inline SVG text can be restyled; each fit starts again from the pictures' own sizes.
  var enlarged = [];
  function enlarge(list) {
    var scale = Reveal.getScale() || 1;
    list.forEach(function (p) {
      if (p.tagName.toLowerCase() !== 'svg') return;
      p.querySelectorAll('text').forEach(function (t) {
        var m = t.getScreenCTM();
        if (!m || !t.textContent.trim()) return;
        var own = parseFloat(getComputedStyle(t).fontSize), shown = own * Math.hypot(m.a, m.b) / scale;
        if (shown > 0 && shown < options.minText) {
          t.style.fontSize = (own * options.minText / shown).toFixed(2) + 'px';
          enlarged.push(t);
        }
      });
    });
  }
  function shrinkBack() {
    enlarged.forEach(function (t) { t.style.fontSize = ''; });
    enlarged = [];
  }

  // A picture made of panels in a row (pictures.side_by_side: its children are <svg x= y=> panels) can be drawn
  // with its panels wrapped into rows of `columns`: on a slide with room below, a strip of four becomes 2 x 2.
  function panelsOf(p) {
    if (p.tagName.toLowerCase() !== 'svg' || p.children.length < 2) return null;
    var kids = Array.prototype.slice.call(p.children);
    return kids.every(function (k) { return k.tagName.toLowerCase() === 'svg' && k.hasAttribute('x'); }) ? kids : null;
  }

  function arrange(p, columns) {
    var kids = panelsOf(p), size = natural(p);
    if (!kids || !size) return;
    if (!p.dataset.ahRowW) {  // the picture as drawn: its panels in one row
      p.dataset.ahRowW = size[0]; p.dataset.ahRowH = size[1];
      kids.forEach(function (k) { k.dataset.ahX = k.getAttribute('x'); k.dataset.ahY = k.getAttribute('y') || '0'; });
    }
    var w, h;
    if (columns >= kids.length) {
      kids.forEach(function (k) { k.setAttribute('x', k.dataset.ahX); k.setAttribute('y', k.dataset.ahY); });
      w = parseFloat(p.dataset.ahRowW); h = parseFloat(p.dataset.ahRowH);
    } else {
      var gap = 12, y = 0, widths = [0], x = 0, rowH = 0;
      kids.forEach(function (k, i) {
        if (i && i % columns === 0) { y += rowH + gap; x = 0; rowH = 0; widths.push(0); }
        k.setAttribute('x', x); k.setAttribute('y', y);
        var kw = parseFloat(k.getAttribute('width')), kh = parseFloat(k.getAttribute('height'));
        x += kw + gap; rowH = Math.max(rowH, kh); widths[widths.length - 1] = x - gap;
      });
      w = Math.max.apply(null, widths); h = y + rowH;
    }
    p.setAttribute('viewBox', '0 0 ' + w + ' ' + h);
    p.dataset.ahW = w; p.dataset.ahH = h;
  }

  // An explorer's layouts on a wide slide: its controls above its pictures (as in a notebook), the same with
  // pictures that a notebook stacks put side by side ('ah-wide'), or its controls in a column beside its pictures
  // ('ah-beside'). Each slide takes the layout whose pictures come out largest.
  var LAYOUTS = [[], ['ah-wide'], ['ah-beside']];

  function fit(slide) {
    if (!slide) return;
    shrinkBack();
    var list = pictures(slide);
    slide.dataset.ahFit = 'done';  // the decks' test waits for it after each change of slide
    if (!list.length) return;
    var explorers = slide.querySelectorAll('.ah-explorer');
    var layouts = explorers.length ? LAYOUTS : [[]];
    var paneled = list.filter(panelsOf), most = Math.max.apply(null, paneled.map(function (p) { return panelsOf(p).length; }));
    var wraps = paneled.length ? [Infinity, Math.ceil(most / 2)] : [Infinity];  // as drawn, or in two rows
    var best = -1, chosen = layouts[0], chosenWrap = Infinity;
    function use(layout, columns) {
      explorers.forEach(function (e) {
        LAYOUTS.forEach(function (l) { l.forEach(function (c) { e.classList.remove(c); }); });
        layout.forEach(function (c) { e.classList.add(c); });
      });
      paneled.forEach(function (p) { arrange(p, columns); });
    }
    layouts.forEach(function (layout) {
      wraps.forEach(function (columns) {
        use(layout, columns);
        var scale = largest(slide, list);
        if (scale > best + 0.01) { best = scale; chosen = layout; chosenWrap = columns; }
      });
    });
    use(chosen, chosenWrap);
    apply(list, best);
    enlarge(list);
    slide.dataset.ahLayout = chosen.join(' ') || 'above';
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
