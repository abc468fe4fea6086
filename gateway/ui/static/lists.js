// Lists on narrow screens and bulk actions (issue 38): every page, after each htmx swap.
// - each cell of a .grid table gets its column's name (data-label), which app.css shows when the
//   table becomes cards below 600 px;
// - the bulk archive form: a label per row checkbox naming its memory, a select-all box, and the
//   bulk bar (button, count, result and Undo) kept in view at the bottom of the screen.
(function () {
  "use strict";

  function labelCells(root) {
    root.querySelectorAll("table.grid").forEach(function (table) {
      var names = Array.prototype.map.call(table.querySelectorAll("thead th"), function (th) {
        return th.textContent.trim();
      });
      table.querySelectorAll("tbody tr").forEach(function (row) {
        Array.prototype.forEach.call(row.children, function (cell, i) {
          if (names[i] && !cell.hasAttribute("data-label")) cell.setAttribute("data-label", names[i]);
        });
      });
    });
  }

  function rowName(row) {
    var link = row.querySelector("a.memory-link, a");
    var text = link ? link.textContent.trim() : row.getAttribute("data-id") || "";
    return text.length > 80 ? text.slice(0, 79) + "…" : text;
  }

  function boxes(form) {
    return Array.prototype.slice.call(form.querySelectorAll("input[type='checkbox'][name='ids']"));
  }

  function updateCount(form) {
    var bar = form.nextElementSibling;
    var count = bar ? bar.querySelector(".bulk-count") : null;
    var all = bar ? bar.querySelector("input.select-all") : null;
    var rows = boxes(form);
    var ticked = rows.filter(function (b) { return b.checked; }).length;
    if (count) count.textContent = ticked ? ticked + " selected" : "none selected";
    if (all) {
      all.checked = rows.length > 0 && ticked === rows.length;
      all.indeterminate = ticked > 0 && ticked < rows.length;
    }
  }

  function bulkBar(form) {
    if (form.getAttribute("data-bar") === "1") return;
    form.setAttribute("data-bar", "1");
    boxes(form).forEach(function (box) {
      var row = box.closest("tr");
      if (row) box.setAttribute("aria-label", "select “" + rowName(row) + "”");
    });
    var button = form.querySelector("button.bulk-archive");
    if (!button) return;
    var bar = document.createElement("div");
    bar.className = "bulk-bar";
    bar.setAttribute("data-testid", "bulk-bar");
    var label = document.createElement("label");
    var all = document.createElement("input");
    all.type = "checkbox";
    all.className = "select-all";
    label.appendChild(all);
    label.appendChild(document.createTextNode(" Select all on this page"));
    var count = document.createElement("span");
    count.className = "bulk-count";
    count.setAttribute("aria-live", "polite");
    form.parentNode.insertBefore(bar, form.nextSibling); // outside the form: the Undo form must not nest
    button.setAttribute("form", form.id);
    bar.appendChild(label);
    bar.appendChild(count);
    bar.appendChild(button);
    var status = document.getElementById("bulk-status");
    if (status) bar.appendChild(status); // the result and Undo show beside the button
    all.addEventListener("change", function () {
      boxes(form).forEach(function (b) { b.checked = all.checked; });
      updateCount(form);
    });
    form.addEventListener("change", function () { updateCount(form); });
    updateCount(form);
  }

  function setUp(root) {
    labelCells(root);
    var form = document.getElementById("bulk");
    if (form) bulkBar(form);
  }

  // The list reloads itself after a bulk change: keep the result box (it holds Undo) out of the swap.
  document.body.addEventListener("htmx:beforeSwap", function (event) {
    var status = document.getElementById("bulk-status");
    var target = event.detail.target;
    if (status && target && target.id === "results" && target.contains(status)) {
      target.parentNode.insertBefore(status, target);
    }
  });
  // afterSwap: before the browser paints the new list, so the result never shows away from its bar
  document.body.addEventListener("htmx:afterSwap", function (event) { setUp(event.detail.elt || document); });
  document.body.addEventListener("htmx:afterSettle", function (event) { setUp(event.detail.elt || document); });
  setUp(document);
})();
