/* The explorer and 最近更新 beside every page: a fragment shared by a folder's
   pages (blog/explorer.py), loaded here, and the current page marked in it.
   A folder opened off the page's path gets its posts from a fragment of its
   own (/_explorer-posts/<folder>/), loaded when opened. Without JavaScript the
   header's sections, 标签 and 归档 remain, and a folder's link its page. */
(function () {
  "use strict";
  var slot = document.querySelector(".explorer-slot[data-explorer]");
  if (!slot || !window.fetch) return;

  function mark() {
    var here = location.pathname;
    var found = false;
    slot.querySelectorAll("a[href]").forEach(function (link) {
      if (link.pathname !== here || link.closest(".explorer-more")) return;
      link.setAttribute("aria-current", "page");
      if (link.closest(".explorer")) found = true;
      for (var node = link.parentElement; node && node !== slot; node = node.parentElement) {
        if (node.tagName === "DETAILS") node.open = true;
      }
    });
    /* A post past the first of its folder's posts the fragment lists. */
    var title = slot.getAttribute("data-post-title");
    if (found || !title) return;
    var lists = slot.querySelectorAll(".explorer details[open] > ul");
    var list = lists.length ? lists[lists.length - 1] : slot.querySelector(".explorer-tree");
    if (!list) return;
    var item = document.createElement("li");
    item.className = "explorer-post";
    var link = document.createElement("a");
    link.href = here;
    link.textContent = title;
    link.setAttribute("aria-current", "page");
    item.appendChild(link);
    var more = null;
    for (var i = 0; i < list.children.length; i++) {
      if (list.children[i].classList.contains("explorer-more")) more = list.children[i];
    }
    list.insertBefore(item, more);
  }

  /* blog.models.changes.POSTS_PREFIX */
  var POSTS = "/_explorer-posts";

  function loadPosts(details) {
    var folder = details.parentElement.querySelector(".explorer-folder-link");
    if (!folder) return;
    details.removeAttribute("data-posts");
    var list = details.querySelector(":scope > ul");
    var fresh = !list;
    if (fresh) {
      list = document.createElement("ul");
      details.appendChild(list);
    }
    var waiting = document.createElement("li");
    waiting.className = "explorer-loading";
    waiting.textContent = "加载中…";
    list.appendChild(waiting);
    fetch(POSTS + folder.pathname, { credentials: "same-origin" })
      .then(function (response) {
        if (!response.ok) throw new Error(response.status);
        return response.text();
      })
      .then(function (html) {
        var holder = document.createElement("template");
        holder.innerHTML = html; // the site's own fragment, escaped by its template
        var items = holder.content.querySelectorAll(".explorer-posts > li");
        waiting.remove();
        items.forEach(function (item) {
          /* A folder holding folders is not empty. */
          if (item.classList.contains("explorer-empty") && !fresh) return;
          list.appendChild(item);
        });
      })
      .catch(function () {
        /* Opened again, it tries again; its link leads to its page. */
        waiting.remove();
        if (fresh) list.remove();
        details.setAttribute("data-posts", "");
      });
  }

  slot.addEventListener(
    "toggle",
    function (event) {
      var details = event.target;
      if (details.open && details.hasAttribute("data-posts")) loadPosts(details);
    },
    true
  );

  fetch(slot.getAttribute("data-explorer"), { credentials: "same-origin" })
    .then(function (response) {
      if (!response.ok) throw new Error(response.status);
      return response.text();
    })
    .then(function (html) {
      slot.innerHTML = html; // the site's own fragment, escaped by its template
      mark();
    })
    .catch(function () {
      /* The header's links remain. */
    });
})();
