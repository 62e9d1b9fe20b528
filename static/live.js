/* Game-Night Companion: live play pages, the service worker, and forms kept while offline.
 *
 * Every page works without this script. With it:
 * - a play page asks the companion every 1.5 s (the setting LIVE_POLL_MS) whether the play changed,
 *   and reloads its content in place, once no finger is on the screen; while someone types into a
 *   form it shows a "tap to refresh" note instead; a play page moves to the result once the play is
 *   finished, and a result page to the play once reopened;
 * - the service worker is registered (offline page, cached static files);
 * - a form sent while the phone is offline, or while the companion cannot be reached, is kept in
 *   localStorage, and the page offers to send it again.
 * The sentences come translated from the page (data-strings on this script's tag).
 */
(function () {
  "use strict";

  var script = document.currentScript;
  var strings = {};
  try {
    strings = Object.assign(JSON.parse(script.getAttribute("data-strings") || "{}"),
                            JSON.parse(script.getAttribute("data-queue-strings") || "{}"));
  } catch (e) { strings = {}; }
  function t(key) { return strings[key] || key; }

  var POLL_MS = Math.max(200, Number(script.getAttribute("data-poll-ms")) || 1500);
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

  function squeezed(text) { return (text || "").replace(new RegExp("\\s+", "g"), " ").trim(); }

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

  /* --- a finger on the screen: the play's content changes once it is lifted --- */

  // Content replaced between press and release would take the control from under the finger: a
  // mouse's click is lost, a phone's tap lands on whatever the new content put there.
  var TAP_SETTLE_MS = 100;  // a phone's click follows a moment after the finger leaves the screen
  var HOLD_MS = 10000;  // a finger held far longer than a tap does not hold the play back
  var presses = 0;
  var afterPress = [];
  var holding = null;

  function lifted() {
    if (presses > 0) { return; }
    window.clearTimeout(holding);
    afterPress.splice(0).forEach(function (run) { run(); });
  }
  document.addEventListener("pointerdown", function () { presses += 1; }, true);
  ["pointerup", "pointercancel"].forEach(function (type) {
    document.addEventListener(type, function () {
      window.setTimeout(function () { presses = Math.max(0, presses - 1); lifted(); }, TAP_SETTLE_MS);
    }, true);
  });

  function untilLifted(value) {
    if (!presses) { return Promise.resolve(value); }
    return new Promise(function (done) {
      afterPress.push(function () { done(value); });
      window.clearTimeout(holding);
      holding = window.setTimeout(function () { presses = 0; lifted(); }, HOLD_MS);
    });
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
      return response.text().then(untilLifted).then(function (html) {
        if (leaving) { return; }
        var page = new DOMParser().parseFromString(html, "text/html");
        var fresh = page.getElementById(region.id);
        if (!fresh) { throw new Error("no play on the page"); }
        fresh = document.adoptNode(fresh);
        var focusKey = focusKeyOf(document.activeElement);
        carryOver(region, fresh);
        region.replaceWith(fresh);
        region = fresh;
        version = region.getAttribute("data-version");
        // the links and codes for other phones change with a new invite, not with the play
        var share = document.querySelector("[data-live-share]");
        var freshShare = page.querySelector("[data-live-share]");
        if (share && freshShare) {
          freshShare = document.adoptNode(freshShare);
          freshShare.open = share.open;
          share.replaceWith(freshShare);
        }
        refocus(focusKey);
        keepRefusalOnScreen();
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
        unreachable = false;
        hideNote("lost");
        sendWaiting();
        if (state && state.changed && String(state.version) !== version) { pending = state; }
        return applyPending();
      }, function () {
        if (leaving) { return; }
        failures += 1;
        unreachable = true;
        if (navigator.onLine === false) { showNote("offline", t("offline")); } else { showNote("lost", t("lost")); }
      })
      .then(function () { busy = false; schedule(); });
  }

  /* --- after a refused entry, the page is the play's own page again --- */

  // A refused entry is answered with the play page at the form's address (…/undo, …/complete, which
  // answer only POST). The address becomes the play's own, so that the page goes on following the
  // play and a reload shows it; the refusal's messages stay on screen as a note once new content
  // replaces the form that showed them.
  var refusedHere = [];
  var playUrl = region ? region.getAttribute("data-play-url") : null;
  if (playUrl && window.location.pathname !== playUrl && window.history.replaceState) {
    Array.prototype.forEach.call(region.querySelectorAll(".error"), function (element) {
      var text = squeezed(element.textContent);
      if (text && refusedHere.indexOf(text) < 0) { refusedHere.push(text); }
    });
    window.history.replaceState(null, "", playUrl + window.location.hash);
  }

  function keepRefusalOnScreen() {
    if (!refusedHere.length) { return; }
    var note = showNote("refused-here", refusedHere.join(" "), [{
      label: t("dismiss"), run: function () { hideNote("refused-here"); }
    }]);
    note.classList.add("refused");
    refusedHere = [];
  }

  if (region) {
    document.addEventListener("visibilitychange", function () {
      if (document.hidden) { window.clearTimeout(timer); timer = null; } else { poll(); }
    });
    window.addEventListener("pagehide", leave);
    // Back to a page kept by the browser: the play may be the same, but not the invite (a new one is
    // made on the group page), so the page is loaded again once.
    var navigation = window.performance && performance.getEntriesByType ?
      performance.getEntriesByType("navigation")[0] : null;
    var reloadOnce = function () {
      if (!someoneIsTyping()) { swapContent().catch(function () { /* the next question tries again */ }); }
    };
    window.addEventListener("pageshow", function (event) {
      if (event.persisted) { leaving = false; reloadOnce(); poll(); }
    });
    if (navigation && navigation.type === "back_forward") { reloadOnce(); }
    schedule();
  }

  /* --- entries kept while offline: a queue on this phone, sent in order once the companion answers --- */

  // Each kept entry has its own request id, so that sending it again (after a lost answer) stores it
  // once, and two entries never share one. The queue lives in localStorage: a reload, or a phone
  // on plain http (no service worker), keeps it. An entry the companion refuses, or asks about, stays
  // in the queue, marked with the companion's answer, until the person dismisses it or opens the page
  // that asks.
  var unreachable = false;  // the last question to the companion got no answer
  var sending = false;

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

  // refused: what the companion said ("" for a page that asks without saying what)
  function answered(entry) { return typeof entry.refused === "string"; }

  function waiting() { return unsent().filter(function (entry) { return !answered(entry); }); }

  function withoutEntry(id) {
    saveUnsent(unsent().filter(function (entry) { return entry.id !== id; }));
    showUnsent();
  }

  function newRequestId() {
    var bytes = new Uint8Array(16);
    window.crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) { return ("0" + b.toString(16)).slice(-2); }).join("");
  }

  // What the form sends: its fields and the button tapped, as [name, value] pairs.
  function sentValues(form, submitter) {
    var data;
    try { data = new FormData(form, submitter); } catch (e) {
      data = new FormData(form);
      if (submitter && submitter.name) { data.append(submitter.name, submitter.value); }
    }
    var fields = [];
    data.forEach(function (value, name) { if (typeof value === "string") { fields.push([name, value]); } });
    return fields;
  }

  // Where the tap sends the form: its button may send it elsewhere (formaction).
  function actionOf(form, submitter) {
    return submitter && submitter.hasAttribute("formaction") ? submitter.formAction : form.action;
  }

  // What the entry is called in the notes: its button's name, after whom or what it is for where the
  // page says so (data-entry on the form or around it: a player's card, the final tally).
  function entryFrom(form, submitter) {
    var label = submitter ?
      squeezed(submitter.getAttribute("aria-label") || submitter.textContent || submitter.value) : "";
    var owner = form.closest("[data-entry]");
    var what = [owner && owner.getAttribute("data-entry"), label].filter(Boolean).join(" · ");
    return withId({ action: actionOf(form, submitter), fields: sentValues(form, submitter), page: window.location.href,
                    what: what || document.title });
  }

  // An entry keeps the request id its form had (one the service worker carried was stamped before it
  // was sent); one without gets its own.
  function withId(entry) {
    var kept = entry.fields.filter(function (pair) { return pair[0] === "request_id"; })[0];
    if (!kept) { kept = ["request_id", newRequestId()]; entry.fields.push(kept); }
    entry.id = kept[1];
    return entry;
  }

  // What the companion answered an entry it did not store. A page that asks something (its question
  // marked data-question, or any 2xx: a page to go on from) needs the person, who answers it on that
  // page; any other page refuses the entry and says why.
  function answerTo(response) {
    return response.text().catch(function () { return ""; }).then(function (html) {
      var page = new DOMParser().parseFromString(html, "text/html");
      var question = page.querySelector("main [data-question]");
      if (question || response.ok) {
        return { asks: true, message: question ? squeezed(question.textContent) : "" };
      }
      var said = [];
      Array.prototype.forEach.call(page.querySelectorAll("main .flash.error, main .error"), function (element) {
        var text = squeezed(element.textContent);
        if (text && said.indexOf(text) < 0) { said.push(text); }
      });
      var lead = page.querySelector("main h1 + p");  // an error page's message
      if (!said.length && lead) { said.push(squeezed(lead.textContent)); }
      return { asks: false, message: said.join(" ") || "HTTP " + response.status };
    });
  }

  // An entry opened with Answer leaves the queue once its page is on screen, not on the tap: the
  // connection may drop on the way. That page has the entry's id in its address (#answer-…), which a
  // redirect keeps unless it has an anchor of its own; the offline page (the service worker could not
  // send it) is not that page.
  function dropAnswered() {
    var hash = window.location.hash;
    if (hash.indexOf("#answer-") !== 0) { return; }
    window.history.replaceState(null, "", window.location.href.split("#")[0]);
    if (!document.querySelector("[data-offline-page]")) { withoutEntry(hash.slice(8)); }
  }

  // The page that asks: the entry sent again as the form it came from, so that the browser shows the
  // companion's answer, with its question, its one-tap answers and the values typed. Nothing was
  // stored, so the same request id asks again.
  function openAnswer(entry) {
    if (navigator.onLine === false) { announce(t("still_offline")); showUnsent(t("still_offline")); return; }
    // answered meanwhile in another tab: sent again, it could be stored twice
    if (!unsent().some(function (e) { return e.id === entry.id; })) { showUnsent(); return; }
    var form = document.createElement("form");
    form.method = "post";
    form.action = entry.action.split("#")[0] + "#answer-" + entry.id;
    form.hidden = true;
    entry.fields.forEach(function (pair) {
      var input = document.createElement("input");
      input.type = "hidden";
      input.name = pair[0];
      input.value = pair[1];
      form.appendChild(input);
    });
    document.body.appendChild(form);
    leave();
    form.submit();  // not a submit event: the queue lets it go
  }

  // One entry to the companion. A stored entry is answered with a redirect (not followed: the page
  // it leads to keeps its message for the page shown next), and only a stored one: any other answer is
  // a page that refuses the entry or asks something first.
  function post(entry) {
    var body = new URLSearchParams();
    entry.fields.forEach(function (pair) { body.append(pair[0], pair[1]); });
    return fetch(entry.action, { method: "POST", body: body, credentials: "same-origin", redirect: "manual",
                                 cache: "no-store", headers: { Accept: "text/html" } });
  }

  function sendWaiting() {
    if (sending || navigator.onLine === false) { return; }
    if (!waiting().length) { return; }
    sending = true;
    leaving = false;
    showUnsent(t("sending"));
    var sent = 0;
    var lastPage = null;
    (function next() {
      // read again each time: an entry made while these are on their way goes after them
      var entry = waiting()[0];
      if (!entry) { return finish(true); }
      post(entry).then(function (response) {
        if (response.type === "opaqueredirect") {
          sent += 1;
          lastPage = entry.page;
          saveUnsent(unsent().filter(function (e) { return e.id !== entry.id; }));
          return next();
        }
        if (response.status >= 500 || response.status === 429) { return finish(false); }  // try again later
        return answerTo(response).then(function (answer) {
          saveUnsent(unsent().map(function (e) {
            return e.id === entry.id ? Object.assign(e, { refused: answer.message, asks: answer.asks }) : e;
          }));
          next();
        });
      }, function () { unreachable = true; finish(false); });
    }());

    function finish(done) {
      sending = false;
      if (sent) { announce(t(sent === 1 ? "sent_one" : "sent_many").replace("{count}", String(sent))); }
      showUnsent(done ? null : t("unsent_later"));
      if (!sent) { return; }
      if (region) { swapContent().catch(function () { pending = { status: "active" }; }); }
      else if (lastPage && lastPage.indexOf(window.location.origin + "/") === 0) { window.location.assign(lastPage); }
    }
  }

  function showUnsent(lead) {
    var entries = unsent();
    var queue = entries.filter(function (entry) { return !answered(entry); });
    Array.prototype.forEach.call(notes.querySelectorAll('[data-note^="refused-"]'), function (note) {
      var id = note.getAttribute("data-note").slice(8);
      if (!entries.some(function (e) { return e.id === id && answered(e); })) { note.remove(); }
    });
    entries.filter(answered).forEach(function (entry) {
      var said = entry.asks ? t(entry.refused ? "asks" : "asks_more") : t("refused");
      var actions = [{ label: t("dismiss"), run: function () { withoutEntry(entry.id); } }];
      if (entry.asks) {
        actions.unshift({ label: t("answer"), primary: true, run: function () { openAnswer(entry); } });
      }
      var note = showNote("refused-" + entry.id,
                          said.replace("{what}", entry.what || "").replace("{message}", entry.refused), actions);
      note.classList.add("refused");
    });
    if (!queue.length) { hideNote("unsent"); return; }
    var count = t(queue.length === 1 ? "waiting_one" : "waiting_many").replace("{count}", String(queue.length));
    var note = showNote("unsent", lead ? count + " " + lead : count, [
      { label: t("send"), primary: true, run: function () {
        if (navigator.onLine === false) { announce(t("still_offline")); showUnsent(t("still_offline")); }
        else { sendWaiting(); }
      } }
    ]);
    var list = document.createElement("ol");
    list.className = "unsent-list";
    queue.forEach(function (entry) {
      var item = document.createElement("li");
      item.textContent = entry.what || entry.action;
      var discard = document.createElement("button");
      discard.type = "button";
      discard.className = "link";
      discard.textContent = t("discard");
      discard.addEventListener("click", function () { withoutEntry(entry.id); });
      item.appendChild(discard);
      list.appendChild(item);
    });
    note.insertBefore(list, note.querySelector("button"));
  }

  /* --- every form sent carries a request id, so that sending it again stores it once --- */

  // The id is made when the form is first sent and kept in the form with what it was sent with: a
  // second tap on a form on its way, and a resend by the service worker, carry the same id, and the
  // companion stores it once. Sent with other values (another button, a page the browser kept when
  // leaving it) the form is another entry and gets a new id. A form kept in the queue gives its id to
  // the entry and loses it: the next entry gets its own.
  function stampRequestId(form, submitter) {
    if ((form.getAttribute("method") || "get").toLowerCase() !== "post" || !window.crypto) { return; }
    var sent = JSON.stringify(sentValues(form, submitter).filter(function (pair) { return pair[0] !== "request_id"; }));
    var input = form.querySelector('input[name="request_id"]');
    if (input && input.getAttribute("data-sent") === sent) { return; }
    if (!input) {
      input = document.createElement("input");
      input.type = "hidden";
      input.name = "request_id";
      form.appendChild(input);
    }
    input.value = newRequestId();
    input.setAttribute("data-sent", sent);
  }

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (event.defaultPrevented) { return; }
    var isPost = (form.getAttribute("method") || "get").toLowerCase() === "post";
    // offline, the companion out of reach, or older entries of a play still waiting: this one joins
    // the queue (other forms, such as the language switch, need not wait for them)
    var queued = isPost && window.crypto && form.enctype !== "multipart/form-data" &&
      (navigator.onLine === false || unreachable || (waiting().length > 0 && actionOf(form, event.submitter).indexOf("/plays/") > 0));
    if (!queued) { stampRequestId(form, event.submitter); leave(); return; }
    event.preventDefault();
    var entries = unsent();
    entries.push(entryFrom(form, event.submitter));
    var id = form.querySelector('input[name="request_id"]');
    if (id) { id.remove(); }
    if (!saveUnsent(entries)) {  // the phone's storage is full or turned off: the tap must not vanish
      showNote("unkept", t("unkept"), [{ label: t("dismiss"), run: function () { hideNote("unkept"); } }])
        .classList.add("refused");
      announce(t("unkept"));
      return;
    }
    form.reset();
    if (navigator.onLine === false || unreachable) { showUnsent(t("kept")); announce(t("kept")); }
    else if (sending) { showUnsent(t("sending")); }  // the entries on their way take it along
    else { sendWaiting(); }
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
              entry = entry.id ? entry : withId(entry);
              // an Answer the worker kept is in the queue already
              if (!entries.some(function (e) { return e.id === entry.id; })) { entries.push(entry); }
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
    unreachable = false;
    sendWaiting();
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

  dropAnswered();
  adoptUnsentFromWorker().then(function () {
    showUnsent();
    if (!region) { sendWaiting(); }  // a play page sends them once its first question is answered
  });
  if (navigator.onLine === false) { showNote("offline", t("offline")); }
}());
