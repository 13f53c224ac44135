// The desk keeps itself current: every few seconds it fetches the page again and swaps
// the live part in. It pauses only while a form is being edited — a field has the focus,
// a form holds values the director changed, or a folded section is open — and resumes
// by itself once that is over (submitted, reset, or left unchanged).
//
// On the 操作 page it also fills in each event's game time as SPEC §9 defaults it (a
// night death at that day's start, a vote-out at its deadline, a daytime out now) until
// the director types a time of their own.
(function () {
  "use strict";
  var seconds = parseFloat(document.body.dataset.poll || "10");
  var submitting = false;
  var liveNow = document.getElementById("live");
  var last = liveNow ? liveNow.innerHTML : "";  // as served, before the countdowns touch it

  // ------------------------------------------------------------------ editing or not

  function selectChanged(select) {
    var options = select.options, anyDefault = false, i;
    for (i = 0; i < options.length; i++) if (options[i].defaultSelected) anyDefault = true;
    for (i = 0; i < options.length; i++) {
      var byDefault = anyDefault ? options[i].defaultSelected : (i === 0 && !select.multiple);
      if (options[i].selected !== byDefault) return true;
    }
    return false;
  }

  function formDirty(form) {
    var elements = form.elements;
    for (var i = 0; i < elements.length; i++) {
      var el = elements[i], type = (el.type || "").toLowerCase();
      if (type === "hidden" || type === "submit" || type === "button" || el.tagName === "BUTTON") continue;
      if (type === "checkbox" || type === "radio") {
        if (el.checked !== el.defaultChecked) return true;
      } else if (el.tagName === "SELECT") {
        if (selectChanged(el)) return true;
      } else if (el.value !== el.defaultValue) {
        return true;
      }
    }
    return false;
  }

  function editing() {
    var live = document.getElementById("live");
    if (!live) return "";
    var active = document.activeElement;
    if (active && active.closest && active.closest("#live form") && active.matches("input, textarea, select")) {
      return "focus";
    }
    var forms = live.querySelectorAll("form");
    for (var i = 0; i < forms.length; i++) if (formDirty(forms[i])) return "dirty";
    if (live.querySelector("details[open]")) return "open";
    return "";
  }

  function busy() {
    var why = submitting ? "submit" : editing();
    document.body.dataset.refresh = why ? "paused" : "live";
    document.body.dataset.pausedBy = why;
    return !!why || !document.getElementById("live");
  }

  document.addEventListener("submit", function () { submitting = true; busy(); });
  document.addEventListener("reset", function () { setTimeout(busy, 0); });
  document.addEventListener("focusout", function () { setTimeout(busy, 0); });
  document.addEventListener("focusin", busy);
  document.addEventListener("input", busy);
  document.addEventListener("change", busy);
  window.addEventListener("pageshow", function () { submitting = false; busy(); });  // back to a cached page

  // ------------------------------------------------------------------ default game times

  function defaults() {
    var el = document.getElementById("time-defaults");
    if (!el) return null;
    try { return JSON.parse(el.textContent); } catch (e) { return null; }
  }

  function fillTime(form) {
    var at = form.querySelector("[data-at]"), table = defaults();
    if (!at || !table || at.dataset.touched) return;
    var why = form.querySelector('select[name="why"]'), daySel = form.querySelector('select[name="day"]');
    var reason = why ? why.value : "";
    if (!reason) { at.value = ""; return; }
    if (daySel && !daySel.dataset.touched) {
      var wanted = reason === "vote" ? table.vote_day : reason === "night" ? table.night_day : table.today;
      daySel.value = wanted ? String(wanted) : "";
    }
    var day = table.days[daySel && daySel.value ? daySel.value :
      String(reason === "vote" ? table.vote_day : reason === "night" ? table.night_day : table.today)];
    if (reason === "night" && day) at.value = day.start;
    else if (reason === "vote" && day) at.value = day.deadline;
    else at.value = table.now;
  }

  document.addEventListener("change", function (e) {
    var target = e.target;
    if (!target.closest) return;
    var form = target.closest("form");
    if (!form) return;
    if (target.matches('select[name="day"][data-times]')) target.dataset.touched = "1";
    if (target.matches("[data-times]")) fillTime(form);
  });
  document.addEventListener("input", function (e) {
    if (e.target.matches && e.target.matches("[data-at]")) e.target.dataset.touched = "1";
  });

  // ------------------------------------------------------------------ countdowns

  function pad(n) { return n < 10 ? "0" + n : String(n); }

  function countdowns() {
    document.querySelectorAll(".countdown[data-deadline]").forEach(function (el) {
      if (!el.dataset.loaded) el.dataset.loaded = String(Date.now());
      var serverNow = Date.parse(el.dataset.now) + (Date.now() - Number(el.dataset.loaded));
      var left = Math.floor((Date.parse(el.dataset.deadline) - serverNow) / 1000);
      if (isNaN(left)) return;
      if (left <= 0) { el.textContent = "已截止"; return; }
      var d = Math.floor(left / 86400), h = Math.floor(left % 86400 / 3600), m = Math.floor(left % 3600 / 60), s = left % 60;
      // 「剩余 …」 while time is left; at the deadline only 「已截止」 (never 「剩余 已截止」)
      el.textContent = (el.dataset.prefix || "") + (d ? d + "天" : "") + (d || h ? h + "小时" : "") + pad(m) + "分" + pad(s) + "秒";
    });
  }

  // ------------------------------------------------------------------ refreshing

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
          document.body.dataset.refreshed = String(Number(document.body.dataset.refreshed || "0") + 1);
        }
        var nav = doc.querySelector("header nav"), here = document.querySelector("header nav");
        if (nav && here && nav.innerHTML !== here.innerHTML) here.innerHTML = nav.innerHTML;
      })
      .catch(function () { /* the desk may be restarting: try again next time */ });
  }

  busy();
  countdowns();
  setInterval(countdowns, 1000);
  if (seconds > 0) setInterval(refresh, seconds * 1000);
})();
