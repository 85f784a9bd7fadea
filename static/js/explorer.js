/* The explorer and 最近更新 beside every page: a fragment shared by a folder's
   pages (blog/explorer.py), loaded here, and the current page marked in it.
   Without JavaScript the header's sections, 标签 and 归档 remain. */
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
