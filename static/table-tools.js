/* Game-Night Companion: the table tools on a play page (see templates/_table_tools.html).
 *
 * Every part works without this script. With it:
 * - a running timer counts on the phone, once a second, from when it started (the page tells);
 * - "Pick who starts" draws on the phone, runs through the names for a second, then sends the pick;
 * - the screen stays on while the play page is open (Screen Wake Lock API, where the browser allows
 *   it: over HTTPS; elsewhere NoSleep.js, loaded only then, from the first tap on the page), and the
 *   note on the page says whether it does.
 * The play's part of the page is replaced when another phone changes the play, so everything is
 * looked up again when needed rather than kept.
 */
(function () {
  "use strict";

  if (window.companionTableTools) { return; }
  window.companionTableTools = true;

  var script = document.currentScript;
  var strings = {};
  try { strings = JSON.parse(script.getAttribute("data-strings") || "{}"); } catch (e) { strings = {}; }
  strings.tap_awake = script.getAttribute("data-tap-awake") || strings.tap_awake;
  function t(key) { return strings[key] || key; }

  /* --- the timer --- */

  function clock(seconds) {
    var hours = Math.floor(seconds / 3600);
    var minutes = Math.floor((seconds % 3600) / 60);
    var rest = seconds % 60;
    var mm = (hours && minutes < 10 ? "0" : "") + minutes;
    return (hours ? hours + ":" : "") + mm + ":" + (rest < 10 ? "0" : "") + rest;
  }

  function showTimers() {
    Array.prototype.forEach.call(document.querySelectorAll("[data-timer]"), function (timer) {
      var shown = timer.querySelector("[data-timer-clock]");
      var elapsed = parseInt(timer.getAttribute("data-elapsed"), 10) || 0;
      var state = timer.getAttribute("data-state");
      if (!shown) { return; }
      if (state === "running") {
        var since = Date.parse(timer.getAttribute("data-since"));
        var seconds = elapsed + (isNaN(since) ? 0 : Math.max(0, Math.floor((Date.now() - since) / 1000)));
        shown.textContent = clock(seconds);
      } else if (state === "paused") {
        shown.textContent = t("paused").replace("{clock}", clock(elapsed));
      }
    });
  }

  showTimers();
  window.setInterval(showTimers, 1000);

  /* --- who starts --- */

  var PICK_MS = 1000;
  var STEP_MS = 80;

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.hasAttribute || !form.hasAttribute("data-pick-first") || form.getAttribute("data-picked")) {
      return;
    }
    var names = form.parentNode.querySelectorAll(".pick-list li");
    if (!names.length) { return; }
    event.preventDefault();
    event.stopImmediatePropagation();
    var pick = Math.floor(Math.random() * names.length);
    var button = form.querySelector("button");
    if (button) { button.disabled = true; button.textContent = t("picking"); }
    var list = names[0].parentNode;
    list.classList.add("picking");
    var step = 0;
    var started = Date.now();
    (function next() {
      Array.prototype.forEach.call(names, function (name) { name.classList.remove("picked"); });
      var done = Date.now() - started >= PICK_MS;
      var shown = done ? pick : step % names.length;
      names[shown].classList.add("picked");
      step += 1;
      if (!done) { window.setTimeout(next, STEP_MS); return; }
      list.classList.remove("picking");
      form.querySelector("input[name=seat]").value = String(pick);
      form.setAttribute("data-picked", "1");
      if (button) { button.disabled = false; }
      if (form.requestSubmit) { form.requestSubmit(); } else { form.submit(); }
    }());
  }, true);

  /* --- keeping the screen on --- */

  var lock = null;
  var noSleep = null;  // the fallback without the Wake Lock API: "loading", then NoSleep.js

  function wakeNote(text) {
    Array.prototype.forEach.call(document.querySelectorAll("[data-wake-note]"), function (note) {
      if (note.textContent !== text) { note.textContent = text; }
    });
  }

  function keepAwake() {
    if (!document.querySelector("[data-wake-note]")) { return; }
    if (!("wakeLock" in navigator)) { keepAwakeWithVideo(); return; }
    if (lock || document.visibilityState !== "visible") { return; }
    navigator.wakeLock.request("screen").then(function (sentinel) {
      lock = sentinel;
      wakeNote(t("awake"));
      sentinel.addEventListener("release", function () { lock = null; });
    }, function () { wakeNote(t("asleep")); });
  }

  // Without a secure context (plain http from a LAN address) there is no Wake Lock API: NoSleep.js
  // plays a tiny silent video in a loop instead, which a browser starts only from a tap.
  function keepAwakeWithVideo() {
    var source = script.getAttribute("data-nosleep");
    if (noSleep && noSleep !== "loading") { wakeNote(noSleep.isEnabled ? t("awake") : t("tap_awake")); return; }
    if (noSleep || !source) { if (!source) { wakeNote(t("asleep")); } return; }
    noSleep = "loading";
    var tag = document.createElement("script");
    tag.src = source;
    tag.onerror = function () { noSleep = null; wakeNote(t("asleep")); };
    tag.onload = function () {
      noSleep = new window.NoSleep();
      // its video, from this site rather than from data: addresses (the pages allow media from 'self')
      var folder = source.slice(0, source.lastIndexOf("/") + 1);
      var video = noSleep.noSleepVideo;
      if (video) {
        Array.prototype.forEach.call(video.querySelectorAll("source"), function (choice) {
          choice.src = folder + "nosleep." + choice.type.split("/")[1];
        });
        video.load();
      }
      wakeNote(t("tap_awake"));
      document.addEventListener("click", function start() {
        document.removeEventListener("click", start, true);
        noSleep.enable().then(function () { wakeNote(t("awake")); }, function () { wakeNote(t("asleep")); });
      }, true);
    };
    document.head.appendChild(tag);
  }

  // the lock ends when the phone leaves the page or turns the screen off; ask again on return
  document.addEventListener("visibilitychange", keepAwake);
  // the play's part of the page is replaced when another phone changes the play: say it again there
  new MutationObserver(function () {
    if (lock) { wakeNote(t("awake")); } else { keepAwake(); }
  }).observe(document.getElementById("main") || document.body, { childList: true });
  keepAwake();
}());
