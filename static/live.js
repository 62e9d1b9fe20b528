/* Game-Night Companion: live play pages, the service worker, and forms kept while offline.
 *
 * Every page works without this script. With it:
 * - a play page asks the companion every 1.5 s whether the play changed, and reloads its content
 *   in place; while someone types into a form it shows a "tap to refresh" note instead; a play page
 *   moves to the result once the play is finished, and a result page to the play once reopened;
 * - the service worker is registered (offline page, cached static files);
 * - a form sent while the phone is offline, or while the companion cannot be reached, is kept in
 *   localStorage, and the page offers to send it again.
 * The sentences come translated from the page (data-strings on this script's tag).
 */
(function () {
  "use strict";

  var script = document.currentScript;
  var strings = {};
  try { strings = JSON.parse(script.getAttribute("data-strings") || "{}"); } catch (e) { strings = {}; }
  function t(key) { return strings[key] || key; }

  var POLL_MS = 1500;
  var LONGEST_WAIT_MS = 15000;
  var UNSENT_KEY = "companion.unsent";
  var UNSENT_CACHE = "companion-unsent";  // filled by the service worker, see static/sw.js
  var main = document.getElementById("main") || document.body;

  /* --- notes at the top of the page, and announcements for screen readers --- */

  var notes = document.createElement("div");
  notes.className = "live-notes";
  var announcer = document.createElement("p");
  announcer.className = "visually-hidden";
  announcer.setAttribute("role", "status");
  notes.appendChild(announcer);
  main.insertBefore(notes, main.firstChild);

  function announce(text) {
    announcer.textContent = "";
    window.setTimeout(function () { announcer.textContent = text; }, 50);
  }

  function showNote(name, text, actions) {
    var note = notes.querySelector('[data-note="' + name + '"]');
    if (!note) {
      note = document.createElement("div");
      note.className = "live-note";
      note.setAttribute("data-note", name);
      note.setAttribute("role", "status");
      notes.appendChild(note);
    }
    note.textContent = "";
    if (text) {
      var message = document.createElement("p");
      message.textContent = text;
      note.appendChild(message);
    }
    (actions || []).forEach(function (action) {
      var button = document.createElement("button");
      button.type = "button";
      button.className = action.primary ? "primary" : "";
      button.textContent = action.label;
      button.addEventListener("click", action.run);
      note.appendChild(button);
    });
    return note;
  }

  function hideNote(name) {
    var note = notes.querySelector('[data-note="' + name + '"]');
    if (note) { note.remove(); }
  }

  /* --- the service worker --- */

  var workerUrl = script.getAttribute("data-sw");
  if (workerUrl && "serviceWorker" in navigator) {
    // after the page has loaded, so that installing never slows the first visit
    window.addEventListener("load", function () {
      navigator.serviceWorker.register(workerUrl).catch(function () { /* the site works without it */ });
    });
  }

  /* --- is somebody typing? --- */

  function isTypingField(element) {
    if (!element || !element.form) { return false; }
    if (element.tagName === "SELECT" || element.tagName === "TEXTAREA") { return true; }
    return element.tagName === "INPUT" &&
      ["hidden", "submit", "button", "reset", "image"].indexOf(element.type) < 0;
  }

  function isChanged(element) {
    if (!isTypingField(element) || element.disabled || element.readOnly) { return false; }
    if (element.tagName === "SELECT") {
      var options = Array.prototype.slice.call(element.options);
      var anyDefault = options.some(function (o) { return o.defaultSelected; });
      if (!anyDefault) { return element.selectedIndex > 0; }
      return options.some(function (o) { return o.selected !== o.defaultSelected; });
    }
    if (element.type === "checkbox" || element.type === "radio") {
      return element.checked !== element.defaultChecked;
    }
    return element.value !== element.defaultValue;
  }

  function fieldsOf(root) {
    return Array.prototype.slice.call(root.querySelectorAll("input, select, textarea"));
  }

  function someoneIsTyping() {
    if (isTypingField(document.activeElement)) { return true; }
    return fieldsOf(document).some(isChanged);
  }

  function fieldKey(element) {
    var form = element.form ? element.form.getAttribute("action") || "" : "";
    var key = form + "|" + (element.name || element.id);
    return element.type === "radio" || element.type === "checkbox" ? key + "|" + element.value : key;
  }

  /* --- a play page that follows the play --- */

  var region = document.querySelector("[data-play-id][data-state-url]");
  var version = region ? region.getAttribute("data-version") : null;
  var pending = null;
  var timer = null;
  var failures = 0;
  var stopped = !region;
  var leaving = false;  // a form was sent or the page is going away
  var inFlight = null;  // the running request, so that leaving can abort it
  var busy = false;  // a question or a reload is on its way
  var refreshAsked = false;  // the person tapped "tap to refresh"

  function schedule() {
    window.clearTimeout(timer);
    timer = null;
    if (stopped || leaving || document.hidden) { return; }
    var wait = failures ? Math.min(LONGEST_WAIT_MS, POLL_MS * Math.pow(2, failures)) : POLL_MS;
    timer = window.setTimeout(poll, wait);
  }

  function stop(text) {
    stopped = true;
    window.clearTimeout(timer);
    hideNote("refresh");
    showNote("gone", text);
  }

  function carryOver(oldRegion, newRegion) {
    // what the person typed, the open sections and the focus survive the new content
    var typed = {};
    fieldsOf(oldRegion).filter(isChanged).forEach(function (element) { typed[fieldKey(element)] = element; });
    fieldsOf(newRegion).forEach(function (element) {
      var old = typed[fieldKey(element)];
      if (!old) { return; }
      if (element.type === "checkbox" || element.type === "radio") { element.checked = old.checked; }
      else { element.value = old.value; }
    });
    Array.prototype.forEach.call(oldRegion.querySelectorAll("details[id]"), function (details) {
      var twin = newRegion.querySelector("#" + CSS.escape(details.id));
      if (twin) { twin.open = details.open; }
    });
  }

  function focusKeyOf(element) {
    if (!element || !region.contains(element)) { return null; }
    return element.id ? "#" + element.id : (element.name ? fieldKey(element) : null);
  }

  function refocus(key) {
    if (!key) { return; }
    var target = key.charAt(0) === "#" ? document.getElementById(key.slice(1)) : fieldsOf(region).filter(
      function (element) { return fieldKey(element) === key; })[0];
    if (target) { target.focus({ preventScroll: true }); }
  }

  function request(url, accept) {
    inFlight = window.AbortController ? new AbortController() : null;
    return fetch(url, { credentials: "same-origin", cache: "no-store", headers: { Accept: accept },
                        signal: inFlight ? inFlight.signal : undefined });
  }

  // Once this phone sends a form, its page must not load the play in the background any more: that
  // load could take the message ("Undone.") meant for the page the companion answers with.
  function leave() {
    leaving = true;
    window.clearTimeout(timer);
    if (inFlight) { inFlight.abort(); }
  }

  function swapContent() {
    return request(window.location.pathname + window.location.search, "text/html").then(function (response) {
      if (leaving) { return; }
      if (response.redirected && new URL(response.url).pathname !== window.location.pathname) {
        window.location.assign(response.url);
        return;
      }
      if (!response.ok) { throw new Error("HTTP " + response.status); }
      return response.text().then(function (html) {
        var page = new DOMParser().parseFromString(html, "text/html");
        var fresh = page.getElementById(region.id);
        if (!fresh) { throw new Error("no play on the page"); }
        fresh = document.adoptNode(fresh);
        var focusKey = focusKeyOf(document.activeElement);
        carryOver(region, fresh);
        region.replaceWith(fresh);
        region = fresh;
        version = region.getAttribute("data-version");
        refocus(focusKey);
        hideNote("refresh");
        announce(t("updated"));
      });
    });
  }

  function askForRefresh() {
    refreshAsked = true;
    if (!busy) { window.clearTimeout(timer); poll(); }
  }

  function applyPending() {
    if (!pending) { return Promise.resolve(); }
    var changed = pending;
    if (!refreshAsked && someoneIsTyping()) {
      showNote("refresh", "", [{
        label: changed.status === "active" ? t("refresh") : t("finished"), primary: true, run: askForRefresh
      }]);
      return Promise.resolve();
    }
    pending = null;
    refreshAsked = false;
    // a play page moves to the result; a page of the finished play (data-live-finished) reloads in place
    if (changed.status !== "active" && !region.hasAttribute("data-live-finished")) {
      window.location.assign(changed.url);
      return Promise.resolve();
    }
    return swapContent().catch(function () {
      if (!leaving) { pending = changed; failures += 1; }  // tried again with the next question
    });
  }

  function poll() {
    timer = null;
    if (stopped || leaving || document.hidden || busy) { return; }
    busy = true;
    var url = region.getAttribute("data-state-url") + "?since=" + encodeURIComponent(version);
    request(url, "application/json")
      .then(function (response) {
        if (response.status === 404) { stop(t("gone")); return null; }
        if (!response.ok) { throw new Error("HTTP " + response.status); }
        return response.json();
      })
      .then(function (state) {
        if (leaving) { return; }
        failures = 0;
        hideNote("lost");
        if (state && state.changed && String(state.version) !== version) { pending = state; }
        return applyPending();
      }, function () {
        if (leaving) { return; }
        failures += 1;
        if (navigator.onLine === false) { showNote("offline", t("offline")); } else { showNote("lost", t("lost")); }
      })
      .then(function () { busy = false; schedule(); });
  }

  if (region) {
    document.addEventListener("visibilitychange", function () {
      if (document.hidden) { window.clearTimeout(timer); timer = null; } else { poll(); }
    });
    window.addEventListener("pagehide", leave);
    window.addEventListener("pageshow", function (event) {
      if (event.persisted) { leaving = false; poll(); }  // back from the browser's page cache
    });
    schedule();
  }

  /* --- forms sent while offline --- */

  function unsent() {
    try { return JSON.parse(window.localStorage.getItem(UNSENT_KEY) || "[]"); } catch (e) { return []; }
  }

  function saveUnsent(entries) {
    try {
      if (entries.length) { window.localStorage.setItem(UNSENT_KEY, JSON.stringify(entries)); }
      else { window.localStorage.removeItem(UNSENT_KEY); }
      return true;
    } catch (e) { return false; }
  }

  function describe(form, submitter) {
    var label = submitter ? (submitter.textContent || submitter.value || "").trim() : "";
    return label ? label + " · " + document.title : document.title;
  }

  function entryFrom(form, submitter) {
    var data;
    try { data = new FormData(form, submitter); } catch (e) {
      data = new FormData(form);
      if (submitter && submitter.name) { data.append(submitter.name, submitter.value); }
    }
    var fields = [];
    data.forEach(function (value, name) { if (typeof value === "string") { fields.push([name, value]); } });
    return { action: form.action, fields: fields, page: window.location.href, what: describe(form, submitter),
             at: Date.now() };
  }

  function send(entry) {
    if (navigator.onLine === false) { announce(t("still_offline")); showUnsent(t("still_offline")); return; }
    saveUnsent(unsent().filter(function (e) { return e.at !== entry.at || e.action !== entry.action; }));
    var form = document.createElement("form");
    form.method = "post";
    form.action = entry.action;
    form.hidden = true;
    entry.fields.forEach(function (pair) {
      var input = document.createElement("input");
      input.type = "hidden";
      input.name = pair[0];
      input.value = pair[1];
      form.appendChild(input);
    });
    document.body.appendChild(form);
    form.submit();  // a plain submission: the companion answers with the page as usual
  }

  function showUnsent(lead) {
    var entries = unsent();
    if (!entries.length) { hideNote("unsent"); return; }
    var first = entries[0];
    var text = lead || (entries.length === 1 ? t("unsent_one")
      : t("unsent_many").replace("{count}", String(entries.length)));
    if (first.what) { text += " (" + first.what + ")"; }
    showNote("unsent", text, [
      { label: t("send"), primary: true, run: function () { send(first); } },
      { label: t("discard"), run: function () {
        saveUnsent(unsent().filter(function (e) { return e.at !== first.at || e.action !== first.action; }));
        showUnsent();
      } }
    ]);
  }

  /* --- every form sent carries a request id, so that sending it again stores it once --- */

  function newRequestId() {
    var bytes = new Uint8Array(16);
    window.crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) { return ("0" + b.toString(16)).slice(-2); }).join("");
  }

  // The id is made when the form is first sent and kept in the form: a second tap, a resend of a kept
  // form and a resend by the service worker all carry the same id, and the companion stores it once.
  function stampRequestId(form) {
    if ((form.getAttribute("method") || "get").toLowerCase() !== "post" || !window.crypto) { return; }
    if (form.querySelector('input[name="request_id"]')) { return; }
    var input = document.createElement("input");
    input.type = "hidden";
    input.name = "request_id";
    input.value = newRequestId();
    form.appendChild(input);
  }

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (event.defaultPrevented) { return; }
    stampRequestId(form);
    if (navigator.onLine !== false) { leave(); return; }
    if ((form.getAttribute("method") || "get").toLowerCase() !== "post") { return; }
    if (form.enctype === "multipart/form-data") { return; }  // a chosen file cannot be kept
    event.preventDefault();
    var entries = unsent();
    entries.push(entryFrom(form, event.submitter));
    if (saveUnsent(entries)) { showUnsent(t("kept")); announce(t("kept")); }
  });

  function adoptUnsentFromWorker() {
    if (!window.caches) { return Promise.resolve(); }
    return caches.has(UNSENT_CACHE).then(function (exists) {
      if (!exists) { return; }
      return caches.open(UNSENT_CACHE).then(function (cache) {
        return cache.keys().then(function (keys) {
          return Promise.all(keys.map(function (key) {
            return cache.match(key).then(function (response) { return response.json(); }).then(function (entry) {
              var entries = unsent();
              entries.push(entry);
              return saveUnsent(entries) ? cache.delete(key) : null;
            });
          }));
        });
      });
    }).catch(function () { /* nothing kept, nothing to show */ });
  }

  window.addEventListener("offline", function () { showNote("offline", t("offline")); });
  window.addEventListener("online", function () {
    hideNote("offline");
    if (unsent().length) { showUnsent(t("back_online")); }
    if (region && !stopped) { failures = 0; poll(); }
  });

  /* --- the offline page: "Try again" goes back to the page the person was on --- */

  var offlinePage = document.querySelector("[data-offline-page]");
  if (offlinePage && window.location.pathname === offlinePage.getAttribute("data-offline-page")) {
    var retry = offlinePage.querySelector("[data-retry]");
    var from = document.referrer ? new URL(document.referrer) : null;
    if (retry && from && from.origin === window.location.origin) { retry.href = from.href; }
  }

  /* --- a table wider than the screen says so above its box (the box scrolls sideways) --- */

  function hintWideTables() {
    Array.prototype.forEach.call(document.querySelectorAll(".scroll"), function (box) {
      var hint = box.previousElementSibling;
      var hinted = hint && hint.classList.contains("scroll-hint");
      var wide = box.scrollWidth > box.clientWidth + 1;
      if (wide && !hinted) {
        hint = document.createElement("p");
        hint.className = "scroll-hint";
        hint.textContent = t("wider");
        box.parentNode.insertBefore(hint, box);
      } else if (!wide && hinted) {
        hint.remove();
      }
    });
  }
  hintWideTables();
  window.addEventListener("resize", hintWideTables);
  new MutationObserver(function () { hintWideTables(); }).observe(main, { childList: true, subtree: false });

  adoptUnsentFromWorker().then(function () { showUnsent(); });
  if (navigator.onLine === false) { showNote("offline", t("offline")); }
}());
