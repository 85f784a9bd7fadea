/* Live math in the page editor: formulas typeset under their field as the
   editor types, with the KaTeX build and options the server renders with
   (rendering/math.py), and KaTeX's error and its position while a formula is
   wrong. Math blocks show their number as the page will: automatic numbers
   in page order, a label, or a \tag. Loaded on editor pages only
   (blog/wagtail_hooks.py); readers get no math JavaScript. */
(() => {
  "use strict";

  const katex = window.katex;
  if (!katex) return;

  // As the server's wrapper: a fresh macro table for every formula.
  const options = (displayMode) => ({
    displayMode,
    output: "htmlAndMathml",
    throwOnError: true,
    trust: false,
    strict: "ignore",
    maxExpand: 1000,
    maxSize: 50,
    globalGroup: false,
    macros: {},
  });
  const MAX_TEX_LENGTH = 20000;
  const DELAY = 250;
  // Draftail writes its state to the hidden input 250 ms after a change.
  const RICH_TEXT_DELAY = 400;
  const TAG = /\\tag\*?\s*\{/;
  const SPACE = " \t\n\r\f\v\u00a0";

  const FIELDS = {
    math: '.math-block textarea[name$="-tex"]',
    heading: '.heading-block input[name$="-text"]',
    markdown: ".markdown-block textarea",
  };
  const RICH_TEXT = "[data-draftail-editor-wrapper]";

  const escapeHtml = (text) =>
    text.replace(
      /[&<>"']/g,
      (c) =>
        ({
          "&": "&amp;",
          "<": "&lt;",
          ">": "&gt;",
          '"': "&quot;",
          "'": "&#39;",
        })[c],
    );

  /* Return {html} or {error: {message, position, length}} for one formula. */
  function typeset(tex, display) {
    if (tex.length > MAX_TEX_LENGTH) {
      return { error: { message: `公式过长（${tex.length} 个字符，上限 ${MAX_TEX_LENGTH}）` } };
    }
    try {
      return { html: katex.renderToString(tex, options(display)) };
    } catch (error) {
      return {
        error: {
          message: error && error.message ? error.message : String(error),
          position: typeof error.position === "number" ? error.position : null,
          length: typeof error.length === "number" ? error.length : 0,
        },
      };
    }
  }

  /* KaTeX's messages in Chinese, from the table the admin's validation uses
     (rendering/math_messages.py, through a small admin view): each message
     asked for once, shown in English until the answer comes. */
  const MESSAGES_URL = document.currentScript && document.currentScript.dataset.messages;
  const translated = new Map();

  function translateMessages(container) {
    if (!MESSAGES_URL) return;
    for (const p of container.querySelectorAll("[data-katex-message]")) {
      const message = p.dataset.katexMessage;
      if (!translated.has(message)) {
        const url = `${MESSAGES_URL}?m=${encodeURIComponent(message)}`;
        translated.set(
          message,
          fetch(url, { credentials: "same-origin" })
            .then((response) => (response.ok ? response.json() : { message }))
            .then((data) => data.message || message)
            .catch(() => message),
        );
      }
      translated.get(message).then((reason) => {
        p.textContent = `公式错误${p.dataset.where}：${reason}`;
      });
    }
  }

  /* KaTeX's message and the formula with the part it stopped at marked. */
  function errorHtml(tex, error) {
    let where = "";
    let source = escapeHtml(tex);
    if (error.position !== null && error.position !== undefined) {
      const start = Math.min(error.position, tex.length);
      const end = Math.min(start + (error.length || 0), tex.length);
      where =
        start >= tex.length
          ? `（第 ${start + 1} 个字符，公式末尾）`
          : `（第 ${start + 1} 个字符：${tex.slice(start, end) || tex[start]}）`;
      const bad = tex.slice(start, end);
      source =
        escapeHtml(tex.slice(0, start)) +
        `<mark class="live-math-bad">${bad ? escapeHtml(bad) : "\u2038"}</mark>` +
        escapeHtml(tex.slice(end));
    }
    return (
      `<div class="live-math-error" data-live-math-error>` +
      `<p class="live-math-message" data-katex-message="${escapeHtml(error.message)}" ` +
      `data-where="${escapeHtml(where)}">` +
      `公式错误${escapeHtml(where)}：${escapeHtml(error.message)}</p>` +
      `<pre class="live-math-source">${source}</pre></div>`
    );
  }

  /* Inline math in text, by the server's rules (rendering/inline.py). */
  function groupEnd(text, pos) {
    let depth = 1;
    while (pos < text.length) {
      const c = text[pos];
      if (c === "\\") {
        pos += 2;
        continue;
      }
      if (c === "{") depth += 1;
      else if (c === "}" && --depth === 0) return pos + 1;
      pos += 1;
    }
    return text.length;
  }

  function blankLineFollows(text, pos) {
    while (pos < text.length && " \t\r".includes(text[pos])) pos += 1;
    return pos >= text.length || text[pos] === "\n";
  }

  function findCloser(text, pos, closer) {
    while (pos < text.length) {
      if (text.startsWith(closer, pos)) return pos;
      const c = text[pos];
      if (c === "\\") {
        pos = text.startsWith("text{", pos + 1) ? groupEnd(text, pos + 6) : pos + 2;
        continue;
      }
      if (c === "\n" && blankLineFollows(text, pos + 1)) return -1;
      pos += 1;
    }
    return -1;
  }

  /* Return [{text}|{tex}] pieces covering text; "\$" becomes "$". */
  function inlinePieces(text) {
    const pieces = [];
    const n = text.length;
    let literal = "";
    let copied = 0;
    let i = 0;
    while (i < n) {
      const c = text[i];
      let end = -1;
      let tex = "";
      if (c === "\\" && i + 1 < n) {
        if (text[i + 1] === "$") {
          literal += text.slice(copied, i) + "$";
          i = copied = i + 2;
          continue;
        }
        if (text[i + 1] === "(") {
          const close = findCloser(text, i + 2, "\\)");
          if (close !== -1 && text.slice(i + 2, close).trim()) {
            end = close + 2;
            tex = text.slice(i + 2, close);
          }
        }
        if (end === -1) {
          i += 2;
          continue;
        }
      } else if (c === "$") {
        if (text[i + 1] === "$") {
          while (i < n && text[i] === "$") i += 1;
          continue;
        }
        if (i + 1 < n && !SPACE.includes(text[i + 1])) {
          const close = findCloser(text, i + 1, "$");
          if (
            close !== -1 &&
            !SPACE.includes(text[close - 1]) &&
            !(close + 1 < n && /\p{Nd}/u.test(text[close + 1]))
          ) {
            end = close + 1;
            tex = text.slice(i + 1, close);
          }
        }
      }
      if (end === -1) {
        i += 1;
        continue;
      }
      literal += text.slice(copied, i);
      if (literal) pieces.push({ text: literal });
      pieces.push({ tex });
      literal = "";
      i = copied = end;
    }
    literal += text.slice(copied);
    if (literal) pieces.push({ text: literal });
    return pieces;
  }

  /* Typeset the formulas of pieces: {html, errors: [html], count}. */
  function typesetPieces(pieces) {
    const errors = [];
    let count = 0;
    const html = pieces
      .map((piece) => {
        if (piece.code !== undefined) return `<code>${escapeHtml(piece.code)}</code>`;
        if (piece.tex === undefined) return escapeHtml(piece.text);
        count += 1;
        const display = Boolean(piece.display);
        const result = typeset(piece.tex, display);
        if (result.html) return result.html;
        errors.push(errorHtml(piece.tex, result.error));
        const tag = display ? "div" : "span";
        return `<${tag} class="live-math-bad-formula"><code>${escapeHtml(piece.tex)}</code></${tag}>`;
      })
      .join("");
    return { html, errors, count };
  }

  /* The preview element under a field, made on first use. */
  function previewFor(field) {
    const input = field.closest("[data-field-input]") || field;
    let preview = input.nextElementSibling;
    if (!preview || !preview.hasAttribute("data-live-math")) {
      preview = document.createElement("div");
      preview.className = "live-math";
      preview.setAttribute("data-live-math", "");
      preview.setAttribute("aria-live", "polite");
      preview.hidden = true;
      input.after(preview);
    }
    return preview;
  }

  const shown = new WeakMap();
  function show(preview, html) {
    if (shown.get(preview) === html) return;
    shown.set(preview, html);
    preview.innerHTML = html;
    translateMessages(preview);
    preview.hidden = !html;
  }

  /* Rich text: Draftail's content state, inline code left as code. */
  function richTextPieces(wrapper) {
    const input = wrapper.parentNode.querySelector("input[type=hidden]");
    if (!input) return [];
    let state = input.rawContentState;
    if (!state) {
      try {
        state = JSON.parse(input.value || "null");
      } catch {
        state = null;
      }
    }
    const paragraphs = [];
    for (const block of (state && state.blocks) || []) {
      const text = block.text || "";
      const code = new Array(text.length).fill(false);
      for (const range of block.inlineStyleRanges || []) {
        if (range.style !== "CODE") continue;
        for (let k = range.offset; k < range.offset + range.length && k < text.length; k += 1) {
          code[k] = true;
        }
      }
      const pieces = [];
      let start = 0;
      while (start < text.length) {
        let end = start;
        while (end < text.length && code[end] === code[start]) end += 1;
        const part = text.slice(start, end);
        if (code[start]) pieces.push({ code: part });
        else pieces.push(...inlinePieces(part));
        start = end;
      }
      paragraphs.push(pieces);
    }
    return paragraphs;
  }

  function updateRichText(wrapper) {
    const preview = previewFor(wrapper);
    const paragraphs = richTextPieces(wrapper).map(typesetPieces);
    if (!paragraphs.some((p) => p.count)) {
      show(preview, "");
      return;
    }
    show(
      preview,
      `<div class="live-math-caption">公式预览</div>` +
        paragraphs.map((p) => `<p>${p.html || "<br>"}</p>`).join("") +
        paragraphs.flatMap((p) => p.errors).join(""),
    );
  }

  function updateInline(field) {
    const result = typesetPieces(inlinePieces(field.value));
    show(
      previewFor(field),
      result.count
        ? `<div class="live-math-caption">公式预览</div><div>${result.html}</div>${result.errors.join("")}`
        : "",
    );
  }

  /* Markdown: $$…$$ display math and inline math outside code. */
  function markdownPieces(source) {
    const paragraphs = [];
    const chunks = source.replace(/\r\n?/g, "\n").split(/^(```+|~~~+).*$[\s\S]*?^\1\s*$/m);
    chunks.forEach((chunk, index) => {
      if (index % 2 === 1) return; // a fence's marker: its code is skipped
      for (const paragraph of chunk.split(/\n\s*\n/)) {
        const pieces = [];
        paragraph.split(/(\$\$[\s\S]+?\$\$)/).forEach((part, k) => {
          if (k % 2 === 1) pieces.push({ tex: part.slice(2, -2), display: true });
          else {
            part.split(/(`+[^`]*`+)/).forEach((bit, j) => {
              if (j % 2 === 1) pieces.push({ code: bit.replace(/^`+|`+$/g, "") });
              else pieces.push(...inlinePieces(bit));
            });
          }
        });
        paragraphs.push(pieces);
      }
    });
    return paragraphs;
  }

  function updateMarkdown(field) {
    const paragraphs = markdownPieces(field.value)
      .map(typesetPieces)
      .filter((p) => p.count);
    show(
      previewFor(field),
      paragraphs.length
        ? `<div class="live-math-caption">公式预览</div>` +
            paragraphs.map((p) => `<p>${p.html}</p>`).join("") +
            paragraphs.flatMap((p) => p.errors).join("")
        : "",
    );
  }

  /* Math blocks: the formula, then every block's number in page order. */
  function mathParts(block) {
    const field = (name) => block.querySelector(`[name$="-${name}"]`);
    return { tex: field("tex"), label: field("label"), numbered: field("numbered") };
  }

  function updateMath(field) {
    const tex = field.value;
    const preview = previewFor(field);
    if (!tex.trim()) {
      show(preview, "");
    } else {
      const result = typeset(tex, true);
      show(
        preview,
        result.html
          ? `<div class="live-math-display">${result.html}<span class="live-math-number" data-live-math-number></span></div>`
          : errorHtml(tex, result.error),
      );
    }
    renumber();
  }

  function renumber() {
    let count = 0;
    for (const block of document.querySelectorAll(".math-block")) {
      const { tex, label, numbered } = mathParts(block);
      if (!tex) continue;
      const preview = previewFor(tex);
      const rows = preview.querySelectorAll(".eqn-num").length;
      const own = (label ? label.value : "").trim().replace(/^[(（]+|[)）]+$/g, "");
      let number = "";
      let auto = false;
      if (!TAG.test(tex.value)) {
        if (own) number = own;
        else if (numbered && numbered.checked && !rows) {
          count += 1;
          number = String(count);
          auto = true;
        }
      }
      count += rows;
      const place = preview.querySelector("[data-live-math-number]");
      if (place) {
        place.textContent = number ? `(${number})` : "";
        place.classList.toggle("live-math-number-auto", auto);
      }
    }
  }

  const timers = new WeakMap();
  function schedule(element, update, delay = DELAY) {
    clearTimeout(timers.get(element));
    timers.set(
      element,
      setTimeout(() => update(element), delay),
    );
  }

  function updaterFor(element) {
    if (element.matches(FIELDS.math)) return updateMath;
    if (element.matches(FIELDS.heading)) return updateInline;
    if (element.matches(FIELDS.markdown)) return updateMarkdown;
    return null;
  }

  /* A Markdown block's preview is typeset when the block comes near the
     window, not when the editor opens: an imported derivation holds
     thousands of formulas, and typesetting them all at once would leave the
     page hundreds of thousands of elements to lay out at every click. Typing
     updates a preview at once, seen or not. The admin scrolls in its <main>,
     not the window: the observer watches within the box that scrolls. */
  function scroller(element) {
    for (let node = element.parentElement; node && node !== document.body; node = node.parentElement) {
      if (/(auto|scroll)/.test(getComputedStyle(node).overflowY)) return node;
    }
    return null;
  }

  let nearWindow = null;
  function typesetWhenNear(field) {
    if (!("IntersectionObserver" in window)) return updateMarkdown(field);
    if (!nearWindow) {
      nearWindow = new IntersectionObserver(
        (entries) => {
          for (const entry of entries) {
            if (!entry.isIntersecting) continue;
            nearWindow.unobserve(entry.target);
            updateMarkdown(entry.target);
          }
        },
        { root: scroller(field), rootMargin: "1500px 0px" },
      );
    }
    const root = nearWindow.root;
    if (root && !root.contains(field)) return updateMarkdown(field);
    nearWindow.observe(field);
  }

  /* Typeset every field in root (root included). */
  function scan(root) {
    const within = (selector) => [
      ...(root.matches(selector) ? [root] : []),
      ...root.querySelectorAll(selector),
    ];
    for (const selector of Object.values(FIELDS)) {
      for (const field of within(selector)) {
        if (selector === FIELDS.markdown) typesetWhenNear(field);
        else updaterFor(field)(field);
      }
    }
    for (const wrapper of within(RICH_TEXT)) {
      if (wrapper.closest("[data-streamfield-stream-container]")) updateRichText(wrapper);
    }
  }

  document.addEventListener("input", (event) => {
    const target = event.target;
    if (!(target instanceof Element)) return;
    const update = updaterFor(target);
    if (update) schedule(target, update);
    else if (target.closest(".math-block")) schedule(document, renumber);
  });
  document.addEventListener("change", (event) => {
    if (event.target instanceof Element && event.target.closest(".math-block")) {
      schedule(document, renumber);
    }
  });

  // Blocks added, moved or removed later, and typing in Draftail (whose
  // editor is React's: watched, never touched).
  const observer = new MutationObserver((mutations) => {
    let structure = false;
    for (const mutation of mutations) {
      const node = mutation.target.nodeType === 1 ? mutation.target : mutation.target.parentElement;
      if (!node || node.closest("[data-live-math]")) continue;
      const wrapper = node.closest(RICH_TEXT);
      if (wrapper) {
        if (wrapper.closest("[data-streamfield-stream-container]")) {
          schedule(wrapper, updateRichText, RICH_TEXT_DELAY);
        }
        continue;
      }
      for (const added of mutation.addedNodes) {
        if (added.nodeType === 1 && !added.closest("[data-live-math]")) {
          structure = true;
          scan(added);
        }
      }
      if (mutation.removedNodes.length) structure = true;
    }
    if (structure) schedule(document, renumber);
  });

  function start() {
    scan(document.body);
    observer.observe(document.body, { childList: true, subtree: true, characterData: true });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
