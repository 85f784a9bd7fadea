/* Layout: the header's menu, and keyboard access to code that scrolls sideways.

   The header's menu button (narrow screens): shows and hides the sidebar, which
   holds the explorer, the sections, 标签, 归档 and 最近更新. Without JavaScript the
   sidebar simply follows the page. */
(function () {
  "use strict";
  /* Beside the sidebar the text column is narrower: a code block wider than it
     scrolls, and a keyboard reaches it only if it can take focus. */
  document.querySelectorAll(".post-body .highlight").forEach(function (code) {
    if (code.scrollWidth > code.clientWidth && !code.hasAttribute("tabindex")) {
      code.setAttribute("tabindex", "0");
    }
  });

  var button = document.querySelector(".menu-toggle");
  var sidebar = document.getElementById("site-sidebar");
  if (!button || !sidebar) return;

  function set(open) {
    button.setAttribute("aria-expanded", open ? "true" : "false");
    document.documentElement.classList.toggle("menu-open", open);
  }

  button.addEventListener("click", function () {
    set(button.getAttribute("aria-expanded") !== "true");
  });

  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape" && button.getAttribute("aria-expanded") === "true") {
      set(false);
      button.focus();
    }
  });
})();
