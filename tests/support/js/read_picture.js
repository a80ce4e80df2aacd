// The picture an explorer shows now: for every pre-drawn frame on screen, its region and its HTML.
// Argument: the `.ah-explorer` element. Stacks build only their selected child, so what is in the DOM is shown.
(explorer) => {
  const frames = [...explorer.querySelectorAll('.ah-view')].filter((v) => v.checkVisibility());
  return frames.map((v) => {
    const region = [...v.classList].find((c) => c.startsWith('ah-region-'));
    const content = v.querySelector('.widget-html-content');
    return {region: region ? region.slice('ah-region-'.length) : null, html: content ? content.innerHTML : ''};
  });
}
