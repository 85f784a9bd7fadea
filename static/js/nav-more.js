/* The header's sections on one row: those that do not fit go into 更多.

   Without this script the row clips what does not fit and 更多 lists every
   section (templates/includes/header.html). Here the clipped ones leave the
   row (and the tab order), 更多 lists only them, and is hidden when all fit. */
(function () {
  "use strict";
  var nav = document.querySelector(".site-nav");
  var row = nav && nav.querySelector(".nav-row");
  var more = nav && nav.querySelector(".nav-more");
  if (!row || !more) return;
  var shown = Array.prototype.slice.call(row.children);
  var listed = Array.prototype.slice.call(more.querySelectorAll("ul > li:not(.nav-site-link)"));
  var siteLink = more.querySelector(".nav-site-link");

  function fit() {
    shown.forEach(function (item) {
      item.hidden = false;
    });
    more.hidden = false; // its room is taken first: what fits beside it stays
    var box = row.getBoundingClientRect();
    var first = shown.length ? shown[0].getBoundingClientRect().top : 0;
    var out = shown.map(function (item) {
      var rect = item.getBoundingClientRect();
      return rect.top > first + 1 || rect.right > box.right + 1;
    });
    var some = out.indexOf(true) !== -1;
    if (!some) {
      /* Without 更多 beside it, everything may fit. */
      more.hidden = !(siteLink && getComputedStyle(siteLink).display !== "none");
    }
    shown.forEach(function (item, i) {
      item.hidden = some && out[i];
      if (listed[i]) listed[i].hidden = !(some && out[i]);
    });
    if (more.hidden) more.open = false;
  }

  var pending = false;
  function later() {
    if (pending) return;
    pending = true;
    requestAnimationFrame(function () {
      pending = false;
      fit();
    });
  }

  fit();
  window.addEventListener("resize", later);
  if (document.fonts && document.fonts.ready) document.fonts.ready.then(later);

  /* A menu closes on Escape (focus back on 更多) and on a click elsewhere. */
  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape" && more.open) {
      more.open = false;
      more.querySelector("summary").focus();
    }
  });
  document.addEventListener("click", function (event) {
    if (more.open && !more.contains(event.target)) more.open = false;
  });
})();
