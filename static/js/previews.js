/* Hover previews: a card of the post or series a link names, from <url>preview/
   (blog/models/preview.py). Shown on hover (after a short delay), keyboard focus
   or a long press; Escape, leaving it or a tap elsewhere closes it. */
(function () {
  "use strict";
  var LINKS = ".post-body a[href], .backlinks a[href], .series-nav a[href], .post-card-title a[href]";
  // Paths that are not a post or a series: no card to ask for.
  var NOT_PAGES = /^\/(tags|archive|search|feed|static|media|documents|admin|django-admin|social)(\/|$)/;
  var SHOW_DELAY = 350;
  var HIDE_DELAY = 250;
  var LONG_PRESS = 500;
  var GAP = 8;

  var cards = {};
  var card = null;
  var current = null; // the link whose card is shown
  var pending = null; // the link whose card is to be shown
  var showTimer = 0;
  var hideTimer = 0;
  var press = null;
  var pressed = null;

  function previewUrl(link) {
    if (!link.matches(LINKS) || link.closest(".preview-card")) return null;
    var url;
    try {
      url = new URL(link.href, location.href);
    } catch (e) {
      return null;
    }
    if (url.origin !== location.origin || url.pathname === "/" || url.pathname === location.pathname) return null;
    if (NOT_PAGES.test(url.pathname) || url.pathname.slice(-1) !== "/") return null;
    return url.pathname + "preview/";
  }

  function fetchCard(url) {
    if (!cards[url]) {
      cards[url] = fetch(url, { credentials: "same-origin" })
        .then(function (response) {
          return response.ok ? response.text() : null;
        })
        .then(function (html) {
          if (!html) return null;
          return new DOMParser().parseFromString(html, "text/html").querySelector(".preview-content");
        })
        .catch(function () {
          return null;
        });
    }
    return cards[url];
  }

  function ensureMathStyles(content) {
    var href = content.getAttribute("data-math-css");
    if (!href || document.querySelector('link[rel="stylesheet"][href="' + href + '"]')) return;
    var link = document.createElement("link");
    link.rel = "stylesheet";
    link.href = href;
    document.head.appendChild(link);
  }

  function cardElement() {
    if (!card) {
      card = document.createElement("div");
      card.className = "preview-card";
      card.id = "preview-card";
      card.setAttribute("role", "tooltip");
      card.hidden = true;
      card.addEventListener("pointerenter", function () {
        clearTimeout(hideTimer);
      });
      card.addEventListener("pointerleave", function (event) {
        if (event.pointerType !== "touch") scheduleHide();
      });
      card.addEventListener("focusout", function (event) {
        if (!card.contains(event.relatedTarget) && event.relatedTarget !== current) scheduleHide();
      });
      document.body.appendChild(card);
    }
    return card;
  }

  // Below the link, or above it when there is no room below: never over any
  // line of it (a link may wrap); level with where it starts.
  function place(link) {
    var rect = link.getBoundingClientRect();
    var first = link.getClientRects()[0] || rect;
    var width = card.offsetWidth;
    var height = card.offsetHeight;
    var viewWidth = document.documentElement.clientWidth;
    var left = Math.min(Math.max(GAP, first.left), Math.max(GAP, viewWidth - width - GAP));
    var below = rect.bottom + GAP;
    var top = below + height > window.innerHeight && rect.top - GAP - height > 0 ? rect.top - GAP - height : below;
    card.style.left = left + window.scrollX + "px";
    card.style.top = top + window.scrollY + "px";
  }

  function show(link) {
    var url = previewUrl(link);
    if (!url) return;
    fetchCard(url).then(function (content) {
      if (!content || pending !== link) return;
      clearTimeout(hideTimer);
      var element = cardElement();
      ensureMathStyles(content);
      element.replaceChildren(content.cloneNode(true));
      element.hidden = false;
      if (current && current !== link) current.removeAttribute("aria-describedby");
      current = link;
      link.setAttribute("aria-describedby", "preview-card");
      place(link);
    });
  }

  function scheduleShow(link, delay) {
    clearTimeout(showTimer);
    pending = link;
    showTimer = setTimeout(function () {
      show(link);
    }, delay);
  }

  function hideCard() {
    if (card) card.hidden = true;
    if (current) current.removeAttribute("aria-describedby");
    if (pending === current) pending = null;
    current = null;
  }

  // Escape, or a tap elsewhere: close it, and forget a card on its way.
  function hide() {
    clearTimeout(showTimer);
    clearTimeout(hideTimer);
    pending = null;
    hideCard();
  }

  function scheduleHide() {
    clearTimeout(hideTimer);
    hideTimer = setTimeout(hideCard, HIDE_DELAY);
  }

  function linkOf(target) {
    var link = target && target.closest ? target.closest("a[href]") : null;
    return link && previewUrl(link) ? link : null;
  }

  document.addEventListener("pointerover", function (event) {
    if (event.pointerType === "touch") return;
    var link = linkOf(event.target);
    if (link) {
      if (link === current) clearTimeout(hideTimer);
      else scheduleShow(link, SHOW_DELAY);
    }
  });
  document.addEventListener("pointerout", function (event) {
    if (event.pointerType === "touch") return;
    var link = linkOf(event.target);
    if (!link || link.contains(event.relatedTarget)) return;
    if (card && card.contains(event.relatedTarget)) return;
    if (link === current) scheduleHide();
    else if (pending === link) {
      clearTimeout(showTimer);
      pending = null;
    }
  });
  document.addEventListener("focusin", function (event) {
    var link = linkOf(event.target);
    if (link) scheduleShow(link, 0);
  });
  document.addEventListener("focusout", function (event) {
    var link = linkOf(event.target);
    if (link && !(card && card.contains(event.relatedTarget))) scheduleHide();
  });
  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape" && card && !card.hidden) hide();
  });

  /* Touch: a long press shows the card (and the click it ends with is not
     followed); a tap anywhere else closes it. */
  document.addEventListener("pointerdown", function (event) {
    if (card && !card.hidden && !card.contains(event.target) && linkOf(event.target) !== current) hide();
    if (event.pointerType !== "touch") return;
    var link = linkOf(event.target);
    if (!link) return;
    press = { link: link, x: event.clientX, y: event.clientY };
    press.timer = setTimeout(function () {
      pressed = link;
      pending = link;
      show(link);
    }, LONG_PRESS);
  });
  function endPress() {
    if (press) clearTimeout(press.timer);
    press = null;
  }
  document.addEventListener("pointermove", function (event) {
    if (press && Math.abs(event.clientX - press.x) + Math.abs(event.clientY - press.y) > 10) endPress();
  });
  document.addEventListener("pointerup", endPress);
  document.addEventListener("pointercancel", endPress);
  document.addEventListener("contextmenu", function (event) {
    if (pressed && linkOf(event.target) === pressed) event.preventDefault();
  });
  document.addEventListener(
    "click",
    function (event) {
      if (pressed && linkOf(event.target) === pressed) event.preventDefault();
      pressed = null;
    },
    true
  );
  window.addEventListener("resize", function () {
    if (current && card && !card.hidden) place(current);
  });
})();
