/* − and + buttons beside a number field: the page renders them (type="button", aria-controls naming the
 * field) hidden; with this script they show and step the number, never below the field's min nor
 * above its max. Clicks are caught on the document, so content the live refresh swaps in works too.
 */
(function () {
  "use strict";

  document.documentElement.classList.add("steppers");
  document.addEventListener("click", function (event) {
    var button = event.target.closest ? event.target.closest("button.step[aria-controls]") : null;
    if (!button) { return; }
    var field = document.getElementById(button.getAttribute("aria-controls"));
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
}());
