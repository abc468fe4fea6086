// The memories page: switching project keeps the search and the filters. The header's project switcher is a
// plain GET form; just before it is sent (the select's change, caught before the switcher's own handler, or
// its button) the address's query, less the page and the project, joins it as hidden fields.
(function () {
  "use strict";
  var switcher = document.getElementById("project-switch");
  if (!switcher) return;
  var KEPT = ["q", "collection", "kind", "tag", "sort", "archived"];

  function carry() {
    var params = new URLSearchParams(window.location.search);
    switcher.querySelectorAll("input[data-carried]").forEach(function (old) { old.remove(); });
    KEPT.forEach(function (name) {
      var value = params.get(name);
      if (!value) return;
      var field = document.createElement("input");
      field.type = "hidden";
      field.name = name;
      field.value = value; // a property, never markup
      field.setAttribute("data-carried", "");
      switcher.appendChild(field);
    });
  }

  document.addEventListener("change", function (event) {
    if (switcher.contains(event.target)) carry();
  }, true);
  switcher.addEventListener("submit", carry);
})();
