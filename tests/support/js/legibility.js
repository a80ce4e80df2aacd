(where) => {
  // Pictures as a room or a reader sees them (issue 36). `where` is 'slide' (the deck's slide shown, measured in the
  // slide's own pixels, 1280 x 720) or 'page' (a book page, in CSS pixels). Returns:
  // - width, height: the main picture's box (each explorer's pictures together, or a figure), slides only;
  // - texts: every text drawn in an SVG picture, inline or an <img> of SVG (drawn afresh, hidden, at the size shown),
  //   as {size, text, where}; a matplotlib PNG's smallest text, from its `data-text-px` (its size in the PNG's pixels,
  //   `plotting._smallest_text_px`) scaled by the width drawn over the PNG's own width;
  // - overlaps: pairs of labels in one inline SVG picture whose boxes overlap by more than a fifth of the smaller;
  // - together: explorer labels that run together (on one line, less than 4 px apart), pages only.
  const slide = where === 'slide', scale = slide ? (Reveal.getScale() || 1) : 1;
  const root = slide ? Reveal.getCurrentSlide() : document.querySelector('article') || document.body;
  const selector = slide
    ? '.ah-explorer svg, .jp-RenderedSVG svg, .jp-RenderedSVG img, .jp-RenderedImage img, .jp-RenderedHTMLCommon svg, .jp-RenderedHTMLCommon img'
    : 'svg, img';
  const pics = [...root.querySelectorAll(selector)]
    .filter(p => !p.parentElement.closest('svg') && !p.closest('aside.notes') && p.checkVisibility()
                 && p.getBoundingClientRect().width > 0 && !p.closest('.widget-slider, .widget-toggle-buttons, button'))
    .filter(p => slide || p.tagName.toLowerCase() === 'svg' || p.src.startsWith('data:image/svg+xml') || p.dataset.textPx);
  if (slide && !pics.length) return null;
  let width = 0, height = 0;
  if (slide) {
    const groups = new Map();
    for (const p of pics) {
      const key = p.closest('.ah-explorer') || p;
      if (!groups.has(key)) groups.set(key, []);
      groups.get(key).push(p.getBoundingClientRect());
    }
    let area = -1;
    for (const rects of groups.values()) {
      const w = (Math.max(...rects.map(r => r.right)) - Math.min(...rects.map(r => r.left))) / scale;
      const h = (Math.max(...rects.map(r => r.bottom)) - Math.min(...rects.map(r => r.top))) / scale;
      if (w * h > area) { area = w * h; width = w; height = h; }
    }
  }
  const texts = [], overlaps = [];
  const measure = (svg, factor, label) => {
    for (const t of svg.querySelectorAll('text')) {
      const m = t.getScreenCTM();
      if (!m || !t.textContent.trim()) continue;
      const size = parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b) * factor;
      texts.push({size: Math.round(size * 10) / 10, text: t.textContent.trim().slice(0, 24), where: label});
    }
  };
  const box = document.createElement('div');
  box.style.cssText = 'position: fixed; left: 0; top: 0; visibility: hidden';
  document.body.appendChild(box);
  for (const p of pics) {
    const label = (p.getAttribute('aria-label') || p.getAttribute('alt') || '').slice(0, 40);
    if (p.tagName.toLowerCase() === 'svg') {
      measure(p, 1 / scale, label);
      const boxes = [...p.querySelectorAll('text')].filter(t => t.textContent.trim())
        .map(t => [t.textContent.trim().slice(0, 16), t.getBoundingClientRect()]).filter(([, r]) => r.width > 0);
      for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i][1], b = boxes[j][1];
        const w = Math.min(a.right, b.right) - Math.max(a.left, b.left), h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
        if (w > 0 && h > 0 && w * h > 0.2 * Math.min(a.width * a.height, b.width * b.height)) {
          overlaps.push(`"${boxes[i][0]}" and "${boxes[j][0]}"` + (slide ? '' : ` (${label})`));
        }
      }
    } else if (p.src.startsWith('data:image/svg+xml')) {
      const data = p.src.slice(p.src.indexOf(',') + 1);
      box.innerHTML = p.src.includes(';base64,') ? atob(data) : decodeURIComponent(data);
      const svg = box.querySelector('svg');
      if (!svg) continue;
      if (!svg.getAttribute('viewBox')) {
        svg.setAttribute('viewBox', `0 0 ${parseFloat(svg.getAttribute('width'))} ${parseFloat(svg.getAttribute('height'))}`);
      }
      const r = p.getBoundingClientRect();
      svg.style.width = `${r.width / scale}px`; svg.style.height = `${r.height / scale}px`;
      measure(svg, 1, label);
    } else if (p.dataset.textPx && p.naturalWidth) {
      const size = parseFloat(p.dataset.textPx) * p.getBoundingClientRect().width / scale / p.naturalWidth;
      texts.push({size: Math.round(size * 10) / 10, text: 'smallest text of ' + label.slice(0, 24), where: label});
    }
  }
  box.remove();
  const together = [];
  if (!slide) {
    for (const e of document.querySelectorAll('.ah-explorer')) {
      const labels = [...e.querySelectorAll('.widget-label, .widget-readout, .widget-toggle-button, .ah-caption')]
        .filter(l => l.checkVisibility() && l.textContent.trim())
        .map(l => [l.textContent.trim().slice(0, 30), l.getBoundingClientRect()]);
      for (const [a, ra] of labels) for (const [b, rb] of labels) {
        if (ra === rb) continue;
        const sameLine = Math.min(ra.bottom, rb.bottom) - Math.max(ra.top, rb.top) > 0.5 * Math.min(ra.height, rb.height);
        const gap = rb.left - ra.right;
        if (sameLine && gap >= -1 && gap < 4) together.push(`"${a}" then "${b}"`);
      }
    }
  }
  return {width: Math.round(width), height: Math.round(height), texts, overlaps, together};
}
