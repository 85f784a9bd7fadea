/* Interactive figures: each sandboxed frame says how tall its content is
   (blog/blocks/media.py FIGURE_SIZE_SCRIPT); the frame takes that height, so a
   figure has no empty space below it on a narrow screen. Without this script
   a frame keeps the height its author set. */
(function () {
  "use strict";
  var frames = document.querySelectorAll(".block-html-figure iframe");
  if (!frames.length) return;

  window.addEventListener("message", function (event) {
    var data = event.data;
    if (!data || typeof data.figureHeight !== "number") return;
    for (var i = 0; i < frames.length; i++) {
      if (frames[i].contentWindow === event.source) {
        var height = Math.max(40, Math.min(4000, Math.ceil(data.figureHeight)));
        frames[i].style.height = height + 2 + "px"; /* its 1px border, twice */
      }
    }
  });

  /* A frame that loaded before this script ran has said it already: ask again. */
  for (var i = 0; i < frames.length; i++) {
    if (frames[i].contentWindow) frames[i].contentWindow.postMessage("figure-size?", "*");
  }
})();
