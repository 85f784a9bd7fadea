/* Mermaid diagrams: each figure's source, a <pre><code> that readers without
   JavaScript and feeds get, is drawn as an SVG by Mermaid in its place.
   Mermaid comes from our own static files and only on pages that show a
   diagram (templates/includes/diagram_scripts.html, loaded before this).
   The colours follow the site's theme, and the diagrams are drawn again when
   the reader switches it. A source Mermaid cannot read stays shown as code,
   with Mermaid's message under it. */
(function () {
  "use strict";
  var mermaid = window.mermaid;
  var figures = document.querySelectorAll("figure.block-diagram");
  if (!mermaid || !figures.length) return;

  var root = document.documentElement;
  var systemDark = window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)");

  /* Mermaid's theme for the site's: the reader's choice, else the system's. */
  function themeName() {
    var chosen = root.dataset.theme;
    if (chosen === "dark") return "dark";
    if (chosen === "light" || chosen === "print") return "default";
    return systemDark && systemDark.matches ? "dark" : "default";
  }

  var sources = [];
  var codes = [];
  for (var i = 0; i < figures.length; i++) {
    codes.push(figures[i].querySelector("pre"));
    sources.push(codes[i] ? codes[i].textContent : "");
  }

  function showError(figure, index, error) {
    figure.classList.remove("diagram-drawn");
    figure.replaceChildren(codes[index]);
    var message = document.createElement("p");
    message.className = "diagram-error";
    message.textContent =
      "图表无法绘制：" + String((error && error.message) || error).split("\n")[0];
    figure.appendChild(message);
  }

  /* Mermaid fits a diagram to the column; on a phone a wide one would shrink
     its labels past reading. It shrinks to three quarters at most, and the
     figure scrolls sideways past that. */
  var SMALLEST_SCALE = 0.75;
  function keepReadable(svg) {
    var box = svg && svg.viewBox && svg.viewBox.baseVal;
    if (box && box.width) svg.style.minWidth = Math.round(box.width * SMALLEST_SCALE) + "px";
  }

  var drawnIn = "";
  var round = 0;

  function draw() {
    var theme = themeName();
    if (theme === drawnIn) return;
    drawnIn = theme;
    round += 1;
    var current = round;
    mermaid.initialize({
      startOnLoad: false,
      // Labels are text, never HTML or links that run code.
      securityLevel: "strict",
      theme: theme,
      fontFamily: getComputedStyle(document.body).fontFamily,
    });
    /* One at a time: Mermaid draws each in a scratch element of its own. */
    var chain = Promise.resolve();
    Array.prototype.forEach.call(figures, function (figure, index) {
      var source = sources[index];
      if (!source.trim()) return;
      chain = chain.then(function () {
        if (current !== round) return null;
        var id = "diagram-" + current + "-" + index;
        return mermaid
          .parse(source)
          .then(function () {
            return mermaid.render(id, source);
          })
          .then(
            function (result) {
              if (current !== round) return;
              figure.innerHTML = result.svg;
              figure.classList.add("diagram-drawn");
              keepReadable(figure.querySelector("svg"));
            },
            function (error) {
              var scratch = document.getElementById("d" + id);
              if (scratch) scratch.remove();
              if (current === round) showError(figure, index, error);
            },
          );
      });
    });
  }

  draw();
  new MutationObserver(draw).observe(root, { attributes: true, attributeFilter: ["data-theme"] });
  if (systemDark && systemDark.addEventListener) systemDark.addEventListener("change", draw);
})();
