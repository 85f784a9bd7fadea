/* Marks in the table of contents the section the reader is in, as they scroll.
   Only a class changes (colour and background in site.css): nothing moves. */
(function () {
  "use strict";
  var links = document.querySelectorAll(".toc-list a[href^='#']");
  if (!links.length || !("IntersectionObserver" in window)) return;
  var byId = {};
  var headings = [];
  links.forEach(function (link) {
    var id = decodeURIComponent(link.getAttribute("href").slice(1));
    var heading = document.getElementById(id);
    if (heading) {
      byId[id] = link;
      headings.push(heading);
    }
  });
  if (!headings.length) return;
  var current = null;

  function mark(link) {
    if (link === current) return;
    if (current) {
      current.classList.remove("is-current");
      current.removeAttribute("aria-current");
    }
    current = link;
    if (link) {
      link.classList.add("is-current");
      link.setAttribute("aria-current", "location");
    }
  }

  /* The current section is the last heading above the upper third of the window;
     at the end of the page, the last heading in it. */
  function update() {
    var atEnd =
      window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 2;
    var line = atEnd ? window.innerHeight : window.innerHeight / 3;
    var found = null;
    for (var i = 0; i < headings.length; i++) {
      if (headings[i].getBoundingClientRect().top <= line) found = headings[i];
      else break;
    }
    mark(found ? byId[found.id] : null);
  }

  var observer = new IntersectionObserver(update, {
    rootMargin: "0px 0px -66% 0px",
    threshold: [0, 1],
  });
  headings.forEach(function (heading) {
    observer.observe(heading);
  });
  /* Reaching the end may bring no heading across the line: the footer tells. */
  var footer = document.querySelector(".site-footer");
  if (footer) new IntersectionObserver(update).observe(footer);
  update();
})();
