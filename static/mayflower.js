/* Carcassonne – Mayflower's table: a tile's second and third feature take their settlers from the strip.
 *
 * Without this script "and another feature" opens a list of the settlers to tick. With it, the list
 * stays hidden: a settler tapped on the strip while another feature is open belongs to that feature
 * (the strip marks it 2 or 3), and closing that feature gives its settlers back to the first.
 */
(function () {
  "use strict";

  document.documentElement.classList.add("mf-js");

  // After every entry the page opens on the table (#mf-table): the turn, the strip and the actions. The
  // browser's own jump to it can land short when the page grows while loading, or restore an old
  // position; this puts the table at the top once the page is laid out.
  if ("scrollRestoration" in window.history) { window.history.scrollRestoration = "manual"; }
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
  }, true);
}());
