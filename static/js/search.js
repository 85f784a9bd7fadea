/* Instant search: Ctrl+K, ⌘K or / opens a dialog that searches as the reader types.
   It asks the site's own search (/search/?format=json) and shows its titles and
   snippets, which the server escaped (only <mark> and MathML are markup).
   Without JavaScript the header's form still searches at /search/. */
(function () {
  "use strict";
  var dialog = document.getElementById("search-dialog");
  if (!dialog || typeof dialog.showModal !== "function" || !window.fetch) return;

  var DELAY = 160;
  var form = dialog.querySelector("form");
  var input = dialog.querySelector("input[name=q]");
  var list = dialog.querySelector(".search-dialog-results");
  var status = dialog.querySelector(".search-dialog-status");
  var more = dialog.querySelector(".search-dialog-more");
  var moreLink = more.querySelector("a");
  var endpoint = dialog.dataset.endpoint;
  var header = document.querySelector(".site-search input[name=q]");
  var hint = status.textContent;
  var mac = /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent);

  var timer = 0;
  var controller = null;
  var shown = null; // the query whose results are on screen
  var active = -1;
  var opener = null;

  function options() {
    return list.querySelectorAll("[role=option]");
  }

  function select(index) {
    var items = options();
    if (!items.length) index = -1;
    else if (index < 0) index = items.length - 1;
    else if (index >= items.length) index = 0;
    active = index;
    for (var i = 0; i < items.length; i++) {
      items[i].setAttribute("aria-selected", i === index ? "true" : "false");
    }
    if (index >= 0) {
      input.setAttribute("aria-activedescendant", items[index].id);
      items[index].scrollIntoView({ block: "nearest" });
    } else {
      input.removeAttribute("aria-activedescendant");
    }
  }

  function searchUrl(query) {
    return endpoint + "?q=" + encodeURIComponent(query);
  }

  function show(query, data) {
    shown = query;
    list.textContent = "";
    list.setAttribute("data-query", query); // whose results these are
    data.results.forEach(function (result, i) {
      // The link is the option, so it stays a link (middle-click, copy address)
      // without nesting a focusable element inside an option.
      var item = document.createElement("li");
      item.setAttribute("role", "none");
      var link = document.createElement("a");
      link.id = "search-dialog-option-" + i;
      link.setAttribute("role", "option");
      link.setAttribute("aria-selected", "false");
      link.href = result.url;
      link.tabIndex = -1;
      var title = document.createElement("span");
      title.className = "search-dialog-title";
      title.innerHTML = result.title_html; // escaped by the server, <mark> only
      var meta = document.createElement("span");
      meta.className = "search-dialog-meta";
      var time = document.createElement("time");
      time.dateTime = result.date;
      time.textContent = result.date_display;
      meta.appendChild(time);
      if (result.section) meta.appendChild(document.createTextNode(" · " + result.section));
      var snippet = document.createElement("span");
      snippet.className = "search-dialog-snippet";
      snippet.innerHTML = result.snippet; // escaped by the server, <mark> and MathML only
      link.appendChild(title);
      link.appendChild(meta);
      link.appendChild(snippet);
      item.appendChild(link);
      link.addEventListener("mousemove", function () {
        if (active !== i) select(i);
      });
      list.appendChild(item);
    });
    input.setAttribute("aria-expanded", data.results.length ? "true" : "false");
    if (!data.results.length) {
      status.textContent = "没有找到包含“" + query + "”的文章。";
    } else {
      status.textContent =
        "找到 " + (data.capped ? "至少 " : "") + data.count + " 篇文章" +
        (data.count > data.results.length ? "，显示前 " + data.results.length + " 篇" : "") + "。";
    }
    moreLink.href = searchUrl(query);
    more.hidden = data.count <= data.results.length;
    select(data.results.length ? 0 : -1);
  }

  function clear() {
    shown = "";
    list.textContent = "";
    list.removeAttribute("data-query");
    input.setAttribute("aria-expanded", "false");
    select(-1);
    more.hidden = true;
    status.textContent = hint;
  }

  function run() {
    var query = input.value.trim();
    if (controller) controller.abort();
    controller = null;
    if (query === shown) return;
    if (!query) {
      clear();
      return;
    }
    var own = new AbortController();
    controller = own;
    status.textContent = "正在搜索…";
    fetch(searchUrl(query) + "&format=json", {
      signal: own.signal,
      headers: { Accept: "application/json" },
    })
      .then(function (response) {
        if (!response.ok) throw new Error(String(response.status));
        return response.json();
      })
      .then(function (data) {
        // A newer request aborts this one; check anyway, so a late answer never wins.
        if (controller !== own || input.value.trim() !== query) return;
        controller = null;
        show(query, data);
      })
      .catch(function (error) {
        if (error.name === "AbortError" || controller !== own) return;
        controller = null;
        shown = null;
        status.textContent = "搜索暂时不可用，按 Enter 打开搜索页。";
      });
  }

  function schedule() {
    clearTimeout(timer);
    timer = setTimeout(run, DELAY);
  }

  function open(text) {
    if (dialog.open) return;
    opener = document.activeElement;
    dialog.showModal();
    input.focus();
    if (typeof text === "string") {
      // Carried on from the header's box: keep typing at the end.
      input.value = text;
      input.setSelectionRange(text.length, text.length);
    } else {
      input.select();
    }
    if (input.value.trim() !== shown) run();
  }

  function close() {
    if (dialog.open) dialog.close();
  }

  dialog.addEventListener("close", function () {
    clearTimeout(timer);
    if (controller) controller.abort();
    controller = null;
    if (opener && typeof opener.focus === "function" && document.contains(opener)) {
      opener.focus();
    }
    opener = null;
  });

  // A click on the backdrop (the dialog box itself, outside its content) closes.
  dialog.addEventListener("click", function (event) {
    if (event.target === dialog) close();
  });
  dialog.querySelector(".search-dialog-close").addEventListener("click", close);

  input.addEventListener("input", function (event) {
    if (!event.isComposing) schedule();
  });
  input.addEventListener("compositionend", schedule);

  input.addEventListener("keydown", function (event) {
    if (event.isComposing) return;
    if (event.key === "Escape") {
      // Close at once, rather than first clearing the field as search boxes do.
      event.preventDefault();
      close();
    } else if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      select(active + (event.key === "ArrowDown" ? 1 : -1));
    } else if (event.key === "Enter") {
      var items = options();
      // The results on screen are this query's: open the one selected.
      if (active >= 0 && items[active] && shown === input.value.trim()) {
        event.preventDefault();
        window.location.href = items[active].href;
      }
      // Otherwise the form goes to the results page.
    }
  });

  form.addEventListener("submit", function (event) {
    if (!input.value.trim()) event.preventDefault();
  });

  function typing(target) {
    if (!target || !target.closest) return false;
    return !!target.closest("input, textarea, select, [contenteditable=''], [contenteditable=true]");
  }

  document.addEventListener("keydown", function (event) {
    if (event.defaultPrevented || event.isComposing) return;
    var key = event.key;
    if ((key === "k" || key === "K") && (event.ctrlKey || event.metaKey) && !event.altKey) {
      event.preventDefault();
      if (dialog.open) close();
      else open();
    } else if (key === "/" && !event.ctrlKey && !event.metaKey && !event.altKey && !typing(event.target) && !dialog.open) {
      event.preventDefault();
      open();
    }
  });

  // The header's box: typing in it carries on in the dialog.
  if (header) {
    header.placeholder = "搜索…（" + (mac ? "⌘K" : "Ctrl K") + "）";
    header.setAttribute("aria-keyshortcuts", mac ? "Meta+K /" : "Control+K /");
    var fromHeader = function (event) {
      if (event.isComposing) return;
      open(header.value);
    };
    header.addEventListener("input", fromHeader);
    header.addEventListener("compositionend", fromHeader);
    // On phones the box is hidden and its button opens the dialog; an empty
    // box anywhere does too, rather than a page of no results.
    header.form.addEventListener("submit", function (event) {
      if (header.offsetParent !== null && header.value.trim()) return;
      event.preventDefault();
      open(header.value);
    });
  }
})();
