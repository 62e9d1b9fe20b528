/* Great Western Trail's card: ticking row 1 (the start card) fills in its VP.
 *
 * A box with data-fills names the field it fills and data-fills-with the number. Only an empty field
 * is filled, and unticking empties only what ticking filled in: a typed number is never changed.
 */
(function () {
  "use strict";

  document.addEventListener("change", function (event) {
    var box = event.target;
    var field = box.getAttribute && box.getAttribute("data-fills") ? document.getElementById(box.getAttribute("data-fills")) : null;
    if (!field) { return; }
    var value = box.getAttribute("data-fills-with");
    if (box.checked && !field.value.trim()) { field.value = value; field.setAttribute("data-filled", ""); }
    else if (!box.checked && field.hasAttribute("data-filled") && field.value === value) { field.value = ""; }
    if (!box.checked) { field.removeAttribute("data-filled"); }
  });
}());
