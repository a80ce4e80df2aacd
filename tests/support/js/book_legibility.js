() => {
  // A book page's pictures and explorers as a reader sees them (issue 36): the smallest text drawn in any SVG
  // picture (inline, or an <img> of SVG drawn afresh, hidden, at the size shown), pairs of overlapping labels in an
  // inline SVG, and explorer labels that run together (two labels on one line with no gap between them).
  const shown = el => el.checkVisibility() && el.getBoundingClientRect().width > 0;
  const pics = [...document.querySelectorAll('article svg, article img')]
    .filter(p => !p.parentElement.closest('svg') && shown(p) && (p.tagName.toLowerCase() === 'svg' || p.src.startsWith('data:image/svg+xml')));
  const small = [], overlaps = [], together = [];
  const texts = (svg, where) => {
    for (const t of svg.querySelectorAll('text')) {
      const m = t.getScreenCTM();
      if (!m || !t.textContent.trim()) continue;
      const size = parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b);
      if (size < 10) small.push({size: Math.round(size * 10) / 10, text: t.textContent.trim().slice(0, 24), where});
    }
  };
  const box = document.createElement('div');
  box.style.cssText = 'position: fixed; left: 0; top: 0; visibility: hidden';
  document.body.appendChild(box);
  for (const p of pics) {
    const where = (p.getAttribute('aria-label') || p.getAttribute('alt') || '').slice(0, 40);
    if (p.tagName.toLowerCase() === 'svg') {
      if (p.closest('.widget-slider, .widget-toggle-buttons, button')) continue;  // icons inside controls
      texts(p, where);
      const boxes = [...p.querySelectorAll('text')].filter(t => t.textContent.trim())
        .map(t => [t.textContent.trim().slice(0, 16), t.getBoundingClientRect()]).filter(([, r]) => r.width > 0);
      for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i][1], b = boxes[j][1];
        const w = Math.min(a.right, b.right) - Math.max(a.left, b.left), h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
        if (w > 0 && h > 0 && w * h > 0.2 * Math.min(a.width * a.height, b.width * b.height)) {
          overlaps.push(`"${boxes[i][0]}" and "${boxes[j][0]}" (${where})`);
        }
      }
    } else {
      const data = p.src.slice(p.src.indexOf(',') + 1);
      box.innerHTML = p.src.includes(';base64,') ? atob(data) : decodeURIComponent(data);
      const svg = box.querySelector('svg');
      if (!svg) continue;
      if (!svg.getAttribute('viewBox')) {
        svg.setAttribute('viewBox', `0 0 ${parseFloat(svg.getAttribute('width'))} ${parseFloat(svg.getAttribute('height'))}`);
      }
      const r = p.getBoundingClientRect();
      svg.style.width = `${r.width}px`; svg.style.height = `${r.height}px`;
      texts(svg, where);
    }
  }
  box.remove();
  for (const e of document.querySelectorAll('.ah-explorer')) {
    const labels = [...e.querySelectorAll('.widget-label, .widget-readout, .widget-toggle-button, .ah-caption')]
      .filter(l => shown(l) && l.textContent.trim()).map(l => [l.textContent.trim().slice(0, 30), l.getBoundingClientRect()]);
    for (const [a, ra] of labels) for (const [b, rb] of labels) {
      if (a === b && ra === rb) continue;
      const sameLine = Math.min(ra.bottom, rb.bottom) - Math.max(ra.top, rb.top) > 0.5 * Math.min(ra.height, rb.height);
      const gap = rb.left - ra.right;
      if (sameLine && gap >= -1 && gap < 4) together.push(`"${a}" then "${b}"`);
    }
  }
  return {small, overlaps, together};
}
