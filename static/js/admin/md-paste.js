/*
 * Markdown pasted (or a .md file dropped) into a post's body becomes blocks.
 *
 * A paste into a paragraph whose plain text looks like Markdown is sent to the
 * importer's converter (vault/paste.py) instead of landing as literal `##` and
 * fences; the blocks it answers go after the paragraph, or in its place if it
 * was empty. Ctrl+Shift+V pastes the text as it is. The "粘贴 Markdown" button
 * above the body converts a whole post, appended or replacing the body.
 * Blocks are inserted through streamfield-adapter.js.
 */
(function () {
  "use strict";

  const script = document.currentScript;
  const endpoint = script && script.dataset.endpoint;
  const sf = window.techblogStreamField;
  // The block types of a post body: a stream without them is not ours to fill.
  const BODY_TYPES = ["paragraph", "heading", "code", "math", "table", "markdown"];
  const MD_FILE = /\.(md|markdown|mdown|mkd)$/i;

  const BLOCK_PATTERNS = [
    /^#{1,6}[ \t]+\S/m, // heading
    /^[ \t]{0,3}(```|~~~)/m, // code fence
    /^[ \t]*\$\$/m, // display math
    /^[ \t]*\|?[ \t]*:?-{2,}:?[ \t]*\|/m, // table separator row
    /^[ \t]*>[ \t]*\[![A-Za-z]+\]/m, // Obsidian callout
    /^(!!!|\?\?\?\+?)[ \t]*[A-Za-z]+/m, // MkDocs admonition
    /^[ \t]*!\[[^\]\n]*\]\([^)\n]+\)/m, // image on its own line
    /^[ \t]*!\[\[[^\]\n]+\]\]/m, // Obsidian embed
  ];
  const LIST_LINE = /^[ \t]*([-*+]|\d{1,9}[.)])[ \t]+\S/;
  const INLINE_PATTERNS = [
    /\*\*[^*\n]+\*\*/, // bold
    /(^|[^`])`[^`\n]+`/, // code span
    /\[[^\]\n]+\]\([^)\s]+\)/, // link
    /\[\[[^\]\n]+\]\]/, // wikilink
  ];

  /** Return "block", "inline" or "" for how much Markdown `text` holds. */
  function markdownKind(text) {
    if (!text || !text.trim()) return "";
    if (BLOCK_PATTERNS.some((pattern) => pattern.test(text))) return "block";
    const lines = text.split("\n");
    if (lines.filter((line) => LIST_LINE.test(line)).length >= 2) return "block";
    if (INLINE_PATTERNS.some((pattern) => pattern.test(text))) return "inline";
    return "";
  }

  // ---- messages --------------------------------------------------------------

  let toast = null;
  let toastTimer = 0;

  function notify(message, details, isError) {
    if (!toast) {
      toast = document.createElement("div");
      toast.className = "md-paste-toast";
      toast.setAttribute("role", "status");
      document.body.append(toast);
    }
    toast.replaceChildren();
    toast.classList.toggle("md-paste-toast--error", Boolean(isError));
    const text = document.createElement("p");
    text.textContent = message;
    toast.append(text);
    if (details && details.length) {
      const list = document.createElement("ul");
      for (const detail of details.slice(0, 8)) {
        const item = document.createElement("li");
        item.textContent = detail;
        list.append(item);
      }
      if (details.length > 8) {
        const item = document.createElement("li");
        item.textContent = `……另有 ${details.length - 8} 条`;
        list.append(item);
      }
      toast.append(list);
    }
    const close = document.createElement("button");
    close.type = "button";
    close.className = "md-paste-toast__close";
    close.textContent = "关闭";
    close.addEventListener("click", () => {
      toast.hidden = true;
    });
    toast.append(close);
    toast.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(
      () => {
        toast.hidden = true;
      },
      details && details.length ? 20000 : 6000,
    );
  }

  // ---- the converter ---------------------------------------------------------

  function csrfToken() {
    const input = document.querySelector("input[name='csrfmiddlewaretoken']");
    if (input) return input.value;
    return (window.wagtailConfig && window.wagtailConfig.CSRF_TOKEN) || "";
  }

  function titleInput() {
    return document.getElementById("id_title");
  }

  /** Return the converter's answer for `markdown`; throw an Error to show. */
  async function convert(markdown) {
    const title = titleInput() ? titleInput().value : "";
    let response;
    try {
      response = await fetch(`${endpoint}?title=${encodeURIComponent(title)}`, {
        method: "POST",
        credentials: "same-origin",
        headers: {
          "Content-Type": "text/markdown; charset=utf-8",
          "X-CSRFToken": csrfToken(),
          Accept: "application/json",
        },
        body: markdown,
      });
    } catch {
      throw new Error("无法连接服务器，Markdown 未转换");
    }
    let data = null;
    try {
      data = await response.json();
    } catch {
      data = null;
    }
    if (!response.ok || !data || !Array.isArray(data.blocks)) {
      const reason = data && data.error ? data.error : `服务器错误（${response.status}）`;
      throw new Error(`Markdown 未转换：${reason}`);
    }
    return data;
  }

  /** Use the Markdown's first H1 as the post's title if none is typed yet. */
  function maybeSetTitle(title) {
    const input = titleInput();
    if (!title || !input || input.value.trim()) return false;
    input.value = title;
    input.dispatchEvent(new Event("input", { bubbles: true }));
    input.dispatchEvent(new Event("change", { bubbles: true }));
    return true;
  }

  function report(data, count, extra) {
    const parts = [`已将 Markdown 转换为 ${count} 个块`];
    if (extra) parts.push(extra);
    notify(parts.join("；"), data.warnings || [], false);
  }

  function isEmptyParagraph(root, index) {
    if (sf.typeAt(root, index) !== "paragraph") return false;
    const content = sf
      .elementAt(root, index)
      .querySelector(".public-DraftEditor-content");
    return Boolean(content) && content.textContent.trim() === "";
  }

  /**
   * Convert `markdown` and put its blocks after child `index` of `root`
   * (in its place if that is an empty paragraph; at the end if index is -1).
   */
  async function insertMarkdown(root, markdown, index) {
    let data;
    try {
      data = await convert(markdown);
    } catch (error) {
      notify(error.message, [], true);
      return;
    }
    const titled = maybeSetTitle(data.title);
    const blocks = data.blocks;
    if (!blocks.length) {
      notify("Markdown 中没有可插入的内容", data.warnings, true);
      return;
    }
    const replace = index >= 0 && isEmptyParagraph(root, index);
    const at = index < 0 ? sf.count(root) : index + 1;
    sf.insert(root, blocks, at);
    if (replace) sf.remove(root, index);
    report(data, blocks.length, titled ? `标题已设为“${data.title}”` : "");
  }

  function bodyRootOf(element) {
    const root = sf && sf.rootOf(element);
    return root && sf.accepts(root, BODY_TYPES) ? root : null;
  }

  // ---- paste into a paragraph --------------------------------------------------

  let plainPaste = false; // Ctrl+Shift+V: paste the text as it is

  window.addEventListener(
    "keydown",
    (event) => {
      plainPaste =
        event.shiftKey &&
        (event.ctrlKey || event.metaKey) &&
        event.key.toLowerCase() === "v";
    },
    true,
  );

  // Capture on window: runs before Draftail's own paste handling.
  window.addEventListener(
    "paste",
    (event) => {
      const plain = plainPaste;
      plainPaste = false;
      if (plain || !endpoint || !event.clipboardData) return;
      const target = event.target instanceof Element ? event.target : null;
      const editor = target && target.closest(".Draftail-Editor");
      const root = editor && bodyRootOf(editor);
      if (!root) return;
      const index = sf.indexOf(root, editor);
      // Only a paragraph of the body itself: a callout's text stays rich text.
      if (index < 0 || sf.typeAt(root, index) !== "paragraph") return;
      if (!sf.elementAt(root, index).contains(editor)) return;
      const text = event.clipboardData.getData("text/plain");
      const kind = markdownKind(text);
      if (!kind) return;
      if (kind === "inline" && !text.includes("\n") && !isEmptyParagraph(root, index)) {
        return; // a phrase typed into a sentence: leave it to the editor
      }
      event.preventDefault();
      event.stopImmediatePropagation();
      insertMarkdown(root, text, index);
    },
    true,
  );

  // ---- drop a .md file on the body ---------------------------------------------

  function markdownFiles(dataTransfer) {
    return Array.from((dataTransfer && dataTransfer.files) || []).filter(
      (file) => MD_FILE.test(file.name) || file.type === "text/markdown",
    );
  }

  function carriesFiles(event) {
    return Boolean(event.dataTransfer) && Array.from(event.dataTransfer.types).includes("Files");
  }

  window.addEventListener(
    "dragover",
    (event) => {
      if (carriesFiles(event) && event.target instanceof Element && bodyRootOf(event.target)) {
        event.preventDefault();
        event.dataTransfer.dropEffect = "copy";
      }
    },
    true,
  );

  window.addEventListener(
    "drop",
    async (event) => {
      const target = event.target instanceof Element ? event.target : null;
      const root = target && bodyRootOf(target);
      const files = root ? markdownFiles(event.dataTransfer) : [];
      if (!files.length) return;
      event.preventDefault();
      event.stopImmediatePropagation();
      const texts = await Promise.all(files.map((file) => file.text()));
      insertMarkdown(root, texts.join("\n\n"), sf.indexOf(root, target));
    },
    true,
  );

  // ---- the 粘贴 Markdown dialog ------------------------------------------------

  let dialog = null;
  let dialogRoot = null;

  function element(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs || {})) {
      if (name === "text") node.textContent = value;
      else node.setAttribute(name, value);
    }
    node.append(...children);
    return node;
  }

  function buildDialog() {
    const textarea = element("textarea", {
      id: "md-paste-text",
      rows: "14",
      spellcheck: "false",
      placeholder: "# 标题\n\n正文、```cuda 代码```、$$公式$$、表格……",
    });
    const file = element("input", {
      type: "file",
      id: "md-paste-file",
      accept: ".md,.markdown,text/markdown,text/plain",
    });
    const fileName = element("span", { class: "md-paste-dialog__file-name", text: "未选择文件" });
    const mode = (value, label, checked) => {
      const input = element("input", { type: "radio", name: "md-paste-mode", value });
      input.checked = checked;
      return element("label", { class: "md-paste-dialog__choice" }, input, ` ${label}`);
    };
    const replaceLabel = mode("replace", "替换现有正文", false);
    const error = element("p", { class: "md-paste-dialog__error", role: "alert" });
    const submit = element("button", { type: "submit", class: "button", text: "转换并插入" });
    const cancel = element("button", {
      type: "button",
      class: "button button-secondary",
      text: "取消",
    });
    const form = element(
      "form",
      { method: "dialog" },
      element("h2", { id: "md-paste-title", text: "粘贴 Markdown" }),
      element("p", {
        class: "md-paste-dialog__help",
        text:
          "把整篇文章的 Markdown 粘贴到下面，或选择一个 .md 文件。它会按导入器的规则转换为正文的块：" +
          "标题、代码、公式、表格、提示框和图片。本地图片需要另行上传。",
      }),
      element("label", { for: "md-paste-text", class: "w-field__label", text: "Markdown 内容" }),
      textarea,
      element(
        "p",
        { class: "md-paste-dialog__file" },
        file,
        element("label", {
          for: "md-paste-file",
          class: "button button-small button-secondary",
          text: "或选择 .md 文件…",
        }),
        fileName,
      ),
      element(
        "fieldset",
        {},
        element("legend", { text: "转换后的块" }),
        mode("append", "追加到正文末尾", true),
        replaceLabel,
      ),
      error,
      element("div", { class: "md-paste-dialog__actions" }, submit, cancel),
    );
    const node = element(
      "dialog",
      { class: "md-paste-dialog", "aria-labelledby": "md-paste-title" },
      form,
    );
    file.addEventListener("change", async () => {
      if (!file.files.length) return;
      fileName.textContent = file.files[0].name;
      textarea.value = await file.files[0].text();
    });
    cancel.addEventListener("click", () => node.close());
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      error.textContent = "";
      const markdown = textarea.value;
      if (!markdown.trim()) {
        error.textContent = "请先粘贴 Markdown 内容或选择文件";
        textarea.focus();
        return;
      }
      const replace = form.elements["md-paste-mode"].value === "replace";
      submit.disabled = true;
      try {
        const data = await convert(markdown);
        if (!data.blocks.length) throw new Error("Markdown 中没有可插入的内容");
        const titled = maybeSetTitle(data.title);
        const root = dialogRoot;
        const old = sf.count(root);
        sf.insert(root, data.blocks, old);
        if (replace) {
          for (let index = old - 1; index >= 0; index -= 1) sf.remove(root, index);
        }
        node.close();
        textarea.value = "";
        file.value = "";
        fileName.textContent = "未选择文件";
        report(data, data.blocks.length, titled ? `标题已设为“${data.title}”` : "");
      } catch (problem) {
        error.textContent = problem.message;
      } finally {
        submit.disabled = false;
      }
    });
    node.replaceLabel = replaceLabel;
    document.body.append(node);
    return node;
  }

  function openDialog(root) {
    dialog = dialog || buildDialog();
    dialogRoot = root;
    const count = sf.count(root);
    dialog.replaceLabel.lastChild.textContent = count
      ? ` 替换现有正文（删除现有的 ${count} 个块）`
      : " 替换现有正文";
    dialog.querySelector(".md-paste-dialog__error").textContent = "";
    dialog.showModal();
    dialog.querySelector("textarea").focus();
  }

  function addButton(root) {
    const container = root.element;
    if (!container || container.dataset.mdPaste) return;
    container.dataset.mdPaste = "1";
    const button = element("button", {
      type: "button",
      class: "button button-small button-secondary md-paste-bar__button",
      text: "粘贴 Markdown",
    });
    button.addEventListener("click", () => openDialog(root));
    const bar = element(
      "div",
      { class: "md-paste-bar" },
      button,
      element("span", {
        class: "md-paste-bar__hint",
        text: "也可以把 Markdown 直接粘贴到段落里，或把 .md 文件拖进正文",
      }),
    );
    container.before(bar);
  }

  // Wagtail draws the stream when its controllers connect, which may be after
  // this script runs; watch the page until the body's stream is there.
  function addButtons() {
    if (!sf || !endpoint) return true;
    let found = false;
    for (const root of sf.roots()) {
      if (sf.accepts(root, BODY_TYPES)) {
        addButton(root);
        found = true;
      }
    }
    return found;
  }

  function watch() {
    if (addButtons()) return;
    let pending = false;
    const observer = new MutationObserver(() => {
      if (pending) return;
      pending = true;
      requestAnimationFrame(() => {
        pending = false;
        if (addButtons()) observer.disconnect();
      });
    });
    observer.observe(document.body, { childList: true, subtree: true });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", watch);
  } else {
    watch();
  }

  window.techblogMarkdownPaste = { markdownKind };
})();
