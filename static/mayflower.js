/* Carcassonne – Mayflower's pages: − and + beside the sizes; on the play page a tile's second and third
 * feature take their settlers from the strip, and the completion form says what Score would do.
 *
 * The − and + buttons come with the page (type="button", aria-controls naming the field), hidden; with
 * this script they show and step the number, never below the field's min nor above its max. Clicks are
 * caught on the document, so content the live refresh swaps in works too.
 *
 * Without this script "and another feature" opens a list of the settlers to tick. With it, the list
 * stays hidden: a settler tapped on the strip while another feature is open belongs to that feature
 * (the strip marks it 2 or 3), and closing that feature gives its settlers back to the first.
 */
(function () {
  "use strict";

  document.documentElement.classList.add("mf-js", "steppers");
  document.addEventListener("click", function (event) {
    var button = event.target.closest ? event.target.closest("button.step[aria-controls]") : null;
    var field = button && document.getElementById(button.getAttribute("aria-controls"));
    if (!field) { return; }
    var step = parseInt(button.getAttribute("data-step"), 10) || 0;
    var value = parseInt(field.value, 10);
    var low = field.hasAttribute("min") ? parseInt(field.getAttribute("min"), 10) : -Infinity;
    var high = field.hasAttribute("max") ? parseInt(field.getAttribute("max"), 10) : Infinity;
    value = Math.min(high, Math.max(low, (isNaN(value) ? (isFinite(low) ? low : 0) : value) + step));
    field.value = String(value);
    field.dispatchEvent(new Event("input", { bubbles: true }));
    field.dispatchEvent(new Event("change", { bubbles: true }));
  });

  // After every entry the page opens on the table (#mf-table): the turn, the strip and the actions. The
  // browser's own jump to it can land short when the page grows while loading, or restore an old
  // position; this puts the table at the top once the page is laid out.
  if (document.getElementById("mf-table")) { window.history.scrollRestoration = "manual"; }
  function showTheTable() {
    var table = document.getElementById("mf-table");
    if (table && window.location.hash === "#mf-table") { table.scrollIntoView({ block: "start" }); }
  }
  showTheTable();
  window.addEventListener("load", showTheTable);

  // A question the table must answer before its entry is stored (the turn moved on, is there a tile
  // west of the surveyors): the page answering the entry opens on it, with its one-tap answers.
  function showTheQuestion() {
    var ask = document.querySelector("#mf-table .mf-ask");
    if (ask) { ask.scrollIntoView({ block: "start" }); }
  }
  showTheQuestion();
  window.addEventListener("load", showTheQuestion);

  function openFeature() {
    var open = document.querySelectorAll("#mf-table details.mf-feature[open]");
    return open.length ? open[open.length - 1] : null;
  }

  document.addEventListener("change", function (event) {
    var box = event.target;
    if (!box.matches || !box.matches(".mf-strip input[type=checkbox][data-first-name]") || !box.checked) { return; }
    var feature = openFeature();
    box.name = feature ? feature.getAttribute("data-settlers-name") : box.getAttribute("data-first-name");
  });

  document.addEventListener("toggle", function (event) {
    var details = event.target;
    if (!details.matches || !details.matches("details.mf-feature") || details.open) { return; }
    var later = details.id === "mf-feature-2" ? document.getElementById("mf-feature-3") : null;
    if (later) { later.open = false; }  // the third feature is offered only while the second is open
    var name = details.getAttribute("data-settlers-name");
    Array.prototype.forEach.call(document.querySelectorAll(".mf-strip input[data-first-name]"), function (box) {
      if (box.name === name) {
        box.checked = false;
        box.name = box.getAttribute("data-first-name");
      }
    });
    preview();
  }, true);

  // What Score would do, as the completion form is filled: the companion's own preview of the form's
  // fields, shown in place. The newest answer wins; content the live refresh swaps in asks again.
  // The box is aria-busy from the change until its answer is in: it grows or shrinks then.
  var asked = 0, shown = document.getElementById("mf-preview"), timer, pending = false;
  function preview() {
    clearTimeout(timer);
    pending = true;
    var waiting = document.getElementById("mf-preview");
    if (waiting) { waiting.setAttribute("aria-busy", "true"); }
    timer = setTimeout(function () {  // after the strip's boxes took their feature's name
      var box = shown = document.getElementById("mf-preview"), mine = ++asked;
      pending = false;
      box.setAttribute("aria-busy", "true");  // a box the live refresh put in meanwhile
      var query = new URLSearchParams(new FormData(document.getElementById("mf-complete-form")));
      query.delete("csrf_token");
      function done(html) {
        if (mine !== asked) { return; }
        if (html !== undefined) { box.innerHTML = html; }
        if (!pending) { box.removeAttribute("aria-busy"); }  // else a newer change asks again shortly
      }
      fetch(box.getAttribute("data-url") + "?" + query).then(function (answer) { return answer.text(); })
        .then(done, function () { done(); });
    }, 120);
  }
  document.addEventListener("input", function (event) {  // ticks, typing and the steppers alike
    if (event.target.form && event.target.form.id === "mf-complete-form") { preview(); }
  });
  new MutationObserver(function () {
    var box = document.getElementById("mf-preview");
    if (box && shown && box !== shown) { preview(); }
  }).observe(document.body, { childList: true, subtree: true });
}());
