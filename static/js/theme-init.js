/* Apply the saved theme before first paint; loaded blocking in <head>, so keep it tiny. */
try {
  var t = localStorage.getItem("theme");
  if (t === "light" || t === "dark") document.documentElement.dataset.theme = t;
} catch (e) {}
/* Tells the stylesheet scripts run, before first paint: the menu button shows at once (layout.js). */
document.documentElement.classList.add("js");
