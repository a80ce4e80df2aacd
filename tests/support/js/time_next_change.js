// Arm a timer on an explorer: the next event that makes a control change (a key on a slider, the click of a toggle
// button, which fires when the mouse button is released, a drop-down's input) starts the clock,
// and the first animation frame after the one that paints a changed picture stops it. Measured in the page, so the
// test driver's own round trips do not count. Argument: the `.ah-explorer` element. Read the result with
// `() => window.__ahTimer` (a promise of milliseconds, or -1 when nothing changed within 5 s).
(explorer) => {
  const picture = () => [...explorer.querySelectorAll('.ah-view')].filter((v) => v.checkVisibility())
    .map((v) => v.innerHTML).join('|');
  const before = picture();
  let start = null;
  const startClock = () => { if (start === null) start = performance.now(); };
  for (const type of ['keydown', 'click', 'input']) document.addEventListener(type, startClock, {capture: true, once: true});
  window.__ahTimer = new Promise((resolve) => {
    const observer = new MutationObserver(() => {
      if (start === null || picture() === before) return;
      observer.disconnect();
      requestAnimationFrame(() => requestAnimationFrame(() => resolve(performance.now() - start)));
    });
    observer.observe(explorer, {subtree: true, childList: true, attributes: true, characterData: true});
    setTimeout(() => { observer.disconnect(); resolve(-1); }, 5000);
  });
}
