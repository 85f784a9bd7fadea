/* Progressive enhancements: theme toggle and code copy buttons. The page reads fine without them. */
(function () {
  "use strict";
  var root = document.documentElement;

  /* Theme: cycles system → light → dark; the choice lives in localStorage. */
  var THEMES = ["system", "light", "dark"];
  var NAMES = { system: "跟随系统", light: "浅色", dark: "深色" };
  var toggle = document.querySelector(".theme-toggle");
  function current() {
    return root.dataset.theme === "light" || root.dataset.theme === "dark" ? root.dataset.theme : "system";
  }
  function show(theme) {
    toggle.querySelector(".theme-toggle-state").textContent = NAMES[theme];
    toggle.setAttribute("aria-label", "主题：" + NAMES[theme] + "（点击切换）");
  }
  if (toggle) {
    toggle.hidden = false;
    show(current());
    toggle.addEventListener("click", function () {
      var next = THEMES[(THEMES.indexOf(current()) + 1) % THEMES.length];
      try {
        if (next === "system") localStorage.removeItem("theme");
        else localStorage.setItem("theme", next);
      } catch (e) {}
      if (next === "system") delete root.dataset.theme;
      else root.dataset.theme = next;
      show(next);
    });
  }

  /* Copy buttons on code blocks (the code cell only, never the line numbers). */
  function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text);
    return new Promise(function (resolve, reject) {
      var area = document.createElement("textarea");
      area.value = text;
      area.setAttribute("readonly", "");
      area.style.position = "fixed";
      area.style.opacity = "0";
      document.body.appendChild(area);
      area.select();
      var ok = false;
      try { ok = document.execCommand("copy"); } catch (e) {}
      document.body.removeChild(area);
      if (ok) resolve(); else reject(new Error("copy failed"));
    });
  }
  var blocks = document.querySelectorAll(".post-body .highlight");
  Array.prototype.forEach.call(blocks, function (block) {
    var pre = block.querySelector("td.code pre") || block.querySelector("pre");
    if (!pre) return;
    var frame = block.closest(".block-code") || block;
    var button = document.createElement("button");
    button.type = "button";
    button.className = "copy-button";
    button.textContent = "复制";
    button.setAttribute("aria-label", "复制代码");
    var status = document.createElement("span");
    status.className = "visually-hidden";
    status.setAttribute("role", "status");
    button.addEventListener("click", function () {
      copyText(pre.textContent.replace(/\n$/, "")).then(function () {
        button.textContent = "已复制";
        status.textContent = "已复制到剪贴板";
      }, function () {
        button.textContent = "复制失败";
      });
      setTimeout(function () { button.textContent = "复制"; status.textContent = ""; }, 2000);
    });
    frame.classList.add("has-copy");
    frame.insertBefore(status, frame.firstChild);
    frame.insertBefore(button, frame.firstChild);
  });
})();
