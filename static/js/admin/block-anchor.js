// Land on the body block a link names, as the writing dashboard's links do
// (/admin/pages/<id>/edit/#block-<block id>-section). Wagtail starts a smooth
// scroll to it on load, which the editor's own layout work can stop midway;
// this finishes the move once the page has settled.
(() => {
  const BLOCK = /^block-[\w-]+-section$/;

  const namedBlock = () => {
    const id = decodeURIComponent(window.location.hash.slice(1));
    return BLOCK.test(id) ? document.getElementById(id) : null;
  };

  const land = () => {
    const panel = namedBlock();
    if (!panel) return;
    const top = panel.getBoundingClientRect().top;
    if (top >= 0 && top < window.innerHeight / 2) return;
    panel.scrollIntoView({ block: "start" });
  };

  window.addEventListener("load", () => window.setTimeout(land, 400));
  window.addEventListener("hashchange", land);
})();
