// How an explorer fits its output area: each slider's track width, and any part of it cut off or scrolled.
// Argument: the `.ah-explorer` element.
(explorer) => {
  const area = explorer.closest('.jp-OutputArea-output') || explorer.parentElement;
  const right = area.getBoundingClientRect().right;
  const tracks = [...explorer.querySelectorAll('.widget-slider .slider-container')]
    .map((t) => ({name: (t.parentElement.querySelector('.widget-label')?.textContent ?? '').trim(),
                  width: t.getBoundingClientRect().width}));
  const scrolled = [...explorer.querySelectorAll('*')].filter((n) => {
    const s = getComputedStyle(n);
    return ['auto', 'scroll'].includes(s.overflowX) && n.scrollWidth > n.clientWidth + 1;
  }).map((n) => n.className.toString().slice(0, 60));
  const cut = [...explorer.querySelectorAll('.ah-view svg, .widget-slider, .widget-toggle-buttons, .widget-dropdown')]
    .filter((n) => n.checkVisibility() && n.getBoundingClientRect().right > right + 1)
    .map((n) => ({what: n.tagName.toLowerCase() === 'svg' ? 'picture' : n.className.toString().slice(0, 40),
                  right: n.getBoundingClientRect().right, area: right}));
  return {tracks, scrolled, cut, areaWidth: area.getBoundingClientRect().width};
}
