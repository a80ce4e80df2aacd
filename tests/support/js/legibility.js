() => {
  // The pictures on the slide shown, as a room sees them (issue 36), in the slide's own pixels (1280 x 720):
  // - share: each explorer's pictures (together) and each other picture, as a fraction of the slide's width and
  //   height; the largest is the slide's main picture;
  // - text: the smallest text drawn in any SVG picture, inline or an <img> of SVG (drawn afresh, hidden, at the
  //   size shown); a matplotlib PNG's text cannot be read from the page and is not counted;
  // - overlaps: pairs of labels in one inline SVG picture whose boxes overlap by more than a fifth of the smaller.
  const slide = Reveal.getCurrentSlide(), scale = Reveal.getScale() || 1;
  const pics = [...slide.querySelectorAll('.ah-explorer svg, .jp-RenderedSVG svg, .jp-RenderedSVG img, .jp-RenderedImage img, .jp-RenderedHTMLCommon svg, .jp-RenderedHTMLCommon img')]
    .filter(p => !p.parentElement.closest('svg') && !p.closest('aside.notes') && p.checkVisibility());
  if (!pics.length) return null;
  const groups = new Map();
  for (const p of pics) {
    const key = p.closest('.ah-explorer') || p;
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(p.getBoundingClientRect());
  }
  let width = 0, height = 0, area = -1;
  for (const rects of groups.values()) {
    const w = (Math.max(...rects.map(r => r.right)) - Math.min(...rects.map(r => r.left))) / scale;
    const h = (Math.max(...rects.map(r => r.bottom)) - Math.min(...rects.map(r => r.top))) / scale;
    if (w * h > area) { area = w * h; width = w; height = h; }
  }
  let smallest = null, what = '';
  const texts = (svg, factor) => {
    for (const t of svg.querySelectorAll('text')) {
      const m = t.getScreenCTM();
      if (!m || !t.textContent.trim()) continue;
      const size = parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b) * factor;
      if (smallest === null || size < smallest) { smallest = size; what = t.textContent.trim().slice(0, 24); }
    }
  };
  const box = document.createElement('div');
  box.style.cssText = 'position: fixed; left: 0; top: 0; visibility: hidden';
  document.body.appendChild(box);
  const overlaps = [];
  for (const p of pics) {
    if (p.tagName.toLowerCase() === 'svg') {
      texts(p, 1 / scale);
      const boxes = [...p.querySelectorAll('text')].filter(t => t.textContent.trim())
        .map(t => [t.textContent.trim().slice(0, 16), t.getBoundingClientRect()]).filter(([, r]) => r.width > 0);
      for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i][1], b = boxes[j][1];
        const w = Math.min(a.right, b.right) - Math.max(a.left, b.left), h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
        if (w > 0 && h > 0 && w * h > 0.2 * Math.min(a.width * a.height, b.width * b.height)) {
          overlaps.push(`"${boxes[i][0]}" and "${boxes[j][0]}"`);
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
      texts(svg, 1);
    }
  }
  box.remove();
  return {width: Math.round(width), height: Math.round(height), share: Math.max(width / 1280, height / 720),
          smallest: smallest === null ? null : Math.round(smallest * 10) / 10, what, overlaps};
}
