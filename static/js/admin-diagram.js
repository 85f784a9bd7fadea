/* Live preview of Mermaid diagrams in the page editor: each diagram block's
   source is drawn under its field as the editor types, by the Mermaid build
   readers get, or Mermaid's message shows while the source is wrong. Mermaid
   is fetched only once the form holds a diagram block (blog/wagtail_hooks.py). */
(() => {
  "use strict";

  const MERMAID_URL = document.currentScript && document.currentScript.dataset.mermaid;
  const FIELD = '.diagram-block textarea[name$="-source"]';
  const DELAY = 300;
  if (!MERMAID_URL) return;

  const root = document.documentElement;
  const darkSystem = window.matchMedia("(prefers-color-scheme: dark)");
  const dark = () =>
    root.classList.contains("w-theme-dark") ||
    (!root.classList.contains("w-theme-light") && darkSystem.matches);

  let loading = null;
  function mermaid() {
    if (!loading) {
      loading = new Promise((resolve, reject) => {
        const script = document.createElement("script");
        script.src = MERMAID_URL;
        script.onload = () => {
          window.mermaid.initialize({
            startOnLoad: false,
            securityLevel: "strict",
            theme: dark() ? "dark" : "default",
          });
          resolve(window.mermaid);
        };
        script.onerror = () => reject(new Error("Mermaid 未能加载"));
        document.head.append(script);
      });
    }
    return loading;
  }

  /* The preview element under a field, made on first use. */
  function previewFor(field) {
    const input = field.closest("[data-field-input]") || field;
    let preview = input.nextElementSibling;
    if (!preview || !preview.hasAttribute("data-diagram-preview")) {
      preview = document.createElement("div");
      preview.className = "diagram-preview";
      preview.setAttribute("data-diagram-preview", "");
      preview.setAttribute("aria-live", "polite");
      preview.hidden = true;
      input.after(preview);
    }
    return preview;
  }

  let count = 0;
  const latest = new WeakMap();
  // One drawing at a time: Mermaid keeps state while it draws.
  let queue = Promise.resolve();

  function update(field) {
    const preview = previewFor(field);
    const source = field.value;
    const ticket = ++count;
    latest.set(field, ticket);
    if (!source.trim()) {
      preview.replaceChildren();
      preview.hidden = true;
      return;
    }
    queue = queue
      .then(() => mermaid())
      .then((m) => {
        if (latest.get(field) !== ticket) return null;
        const id = `diagram-preview-${ticket}`;
        return m
          .parse(source)
          .then(() => m.render(id, source))
          .then(
            (result) => {
              if (latest.get(field) !== ticket) return;
              preview.innerHTML = result.svg;
              preview.hidden = false;
            },
            (error) => {
              document.getElementById(`d${id}`)?.remove();
              if (latest.get(field) !== ticket) return;
              const message = document.createElement("p");
              message.className = "diagram-preview-error";
              message.textContent = `图表错误：${String((error && error.message) || error)}`;
              preview.replaceChildren(message);
              preview.hidden = false;
            },
          );
      })
      .catch((error) => {
        preview.textContent = String((error && error.message) || error);
        preview.hidden = false;
      });
  }

  const timers = new WeakMap();
  function schedule(field) {
    clearTimeout(timers.get(field));
    timers.set(field, setTimeout(() => update(field), DELAY));
  }

  function scan(node) {
    if (node.matches(FIELD)) update(node);
    for (const field of node.querySelectorAll(FIELD)) update(field);
  }

  document.addEventListener("input", (event) => {
    if (event.target instanceof Element && event.target.matches(FIELD)) schedule(event.target);
  });

  // Blocks added later (the block chooser, a duplicated block).
  const observer = new MutationObserver((mutations) => {
    for (const mutation of mutations) {
      for (const added of mutation.addedNodes) {
        if (added.nodeType === 1 && !added.closest("[data-diagram-preview]")) scan(added);
      }
    }
  });

  function start() {
    scan(document.body);
    observer.observe(document.body, { childList: true, subtree: true });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
