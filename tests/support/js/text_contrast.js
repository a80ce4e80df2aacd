// Contrast of every piece of SVG text in an explorer's picture against what is drawn behind it, as WCAG contrast
// ratios: the shape under the text's centre (a heatmap cell, a bar) if there is one, else the first opaque
// background among the picture's ancestors (the theme's). Text over a bitmap (<image>) is left out: its background
// is not known. Argument: the `.ah-explorer` element.
(explorer) => {
  const rgb = (s) => (s.match(/[\d.]+/g) || []).map(Number);
  const luminance = ([r, g, b]) => {
    const f = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const pageBackground = (el) => {
    for (let n = el; n; n = n.parentElement) {
      const c = rgb(getComputedStyle(n).backgroundColor);
      if (c.length === 3 || (c.length === 4 && c[3] > 0.5)) return c.slice(0, 3);
    }
    return [255, 255, 255];
  };
  const ratio = (a, b) => {
    const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
    return (hi + 0.05) / (lo + 0.05);
  };
  const behind = (t, svg) => {
    const box = t.getBoundingClientRect();
    const under = document.elementsFromPoint(box.x + box.width / 2, box.y + box.height / 2);
    for (const el of under.slice(under.indexOf(t) + 1)) {
      if (!svg.contains(el) || el === svg) break;
      if (el.tagName === 'image') return null;
      if (['rect', 'circle', 'path', 'polygon', 'ellipse'].includes(el.tagName)) {
        const s = getComputedStyle(el);
        if (s.fill !== 'none' && Number(s.fillOpacity) > 0.5 && rgb(s.fill).length >= 3) return rgb(s.fill).slice(0, 3);
      }
    }
    return pageBackground(svg);
  };
  const out = [];
  for (const svg of explorer.querySelectorAll('.ah-view svg')) {
    if (!svg.checkVisibility() || svg.parentElement.closest('svg')) continue;
    svg.scrollIntoView({block: 'center'});
    for (const t of svg.querySelectorAll('text')) {
      if (!t.textContent.trim()) continue;
      const bg = behind(t, svg);
      if (bg === null) continue;
      out.push({text: t.textContent.trim().slice(0, 30), fill: getComputedStyle(t).fill, background: bg,
                ratio: ratio(rgb(getComputedStyle(t).fill), bg)});
    }
  }
  return out;
}
