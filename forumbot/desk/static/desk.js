// The desk keeps itself current: every few seconds it fetches the page again and swaps
// the live part in — unless the director is typing in a form or has one opened.
(function () {
  "use strict";
  var seconds = parseFloat(document.body.dataset.poll || "10");
  var dirty = false;
  var liveNow = document.getElementById("live");
  var last = liveNow ? liveNow.innerHTML : "";  // as served, before the countdowns touch it

  document.addEventListener("input", function (e) { if (e.target.closest("form")) dirty = true; });
  document.addEventListener("submit", function () { dirty = true; });

  function busy() {
    var live = document.getElementById("live");
    if (dirty || !live) return true;
    if (live.querySelector("details[open]")) return true;
    var active = document.activeElement;
    return !!(active && active.closest && active.closest("#live form") && active.matches("input, textarea, select"));
  }

  function pad(n) { return n < 10 ? "0" + n : String(n); }

  function countdowns() {
    document.querySelectorAll(".countdown[data-deadline]").forEach(function (el) {
      if (!el.dataset.loaded) el.dataset.loaded = String(Date.now());
      var serverNow = Date.parse(el.dataset.now) + (Date.now() - Number(el.dataset.loaded));
      var left = Math.floor((Date.parse(el.dataset.deadline) - serverNow) / 1000);
      if (isNaN(left)) return;
      if (left <= 0) { el.textContent = "已截止"; return; }
      var d = Math.floor(left / 86400), h = Math.floor(left % 86400 / 3600), m = Math.floor(left % 3600 / 60), s = left % 60;
      el.textContent = (d ? d + "天" : "") + (d || h ? h + "小时" : "") + pad(m) + "分" + pad(s) + "秒";
    });
  }

  function refresh() {
    if (busy()) return;
    fetch(window.location.href, { credentials: "same-origin", headers: { "X-Desk-Refresh": "1" } })
      .then(function (r) { return r.ok && !r.redirected ? r.text() : null; })
      .then(function (text) {
        if (!text || busy()) return;
        var doc = new DOMParser().parseFromString(text, "text/html");
        var fresh = doc.getElementById("live"), live = document.getElementById("live");
        if (fresh && live && fresh.innerHTML !== last) {
          last = fresh.innerHTML;
          live.innerHTML = last;
          countdowns();
        }
        var nav = doc.querySelector("header nav"), here = document.querySelector("header nav");
        if (nav && here && nav.innerHTML !== here.innerHTML) here.innerHTML = nav.innerHTML;
      })
      .catch(function () { /* the desk may be restarting: try again next time */ });
  }

  countdowns();
  setInterval(countdowns, 1000);
  if (seconds > 0) setInterval(refresh, seconds * 1000);
})();
