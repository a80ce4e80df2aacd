// Every control of an explorer the learner can move, in page order, outside its pictures.
// Argument: the `.ah-explorer` element. Returns [{kind, name, disabled, positions, position}].
(explorer) => {
  const label = (w) => (w.querySelector(':scope > .widget-label')?.textContent ?? '').trim();
  const out = [];
  for (const w of explorer.querySelectorAll('.widget-slider, .widget-toggle-buttons, .widget-dropdown')) {
    if (w.closest('.ah-view')) continue;
    if (w.classList.contains('widget-slider')) {
      const h = w.querySelector('.noUi-handle');
      out.push({kind: 'slider', name: label(w), disabled: h.hasAttribute('disabled') || w.querySelector('[disabled]') !== null,
                positions: [+h.getAttribute('aria-valuemin'), +h.getAttribute('aria-valuemax')],
                position: +h.getAttribute('aria-valuenow')});
    } else if (w.classList.contains('widget-toggle-buttons')) {
      const buttons = [...w.querySelectorAll('button')];
      out.push({kind: 'toggle', name: label(w), disabled: buttons.some((b) => b.disabled),
                positions: buttons.map((b) => b.textContent.trim()),
                position: buttons.findIndex((b) => b.classList.contains('mod-active'))});
    } else {
      const select = w.querySelector('select');
      out.push({kind: 'dropdown', name: label(w), disabled: select.disabled,
                positions: [...select.options].map((o) => o.textContent.trim()), position: select.selectedIndex});
    }
  }
  return out;
}
