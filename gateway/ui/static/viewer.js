// Every page: send the CSRF token with each htmx request, and show request errors as text.
(function () {
  "use strict";
  var meta = document.querySelector('meta[name="csrf-token"]');
  var token = meta ? meta.getAttribute("content") : "";

  document.body.addEventListener("htmx:configRequest", function (event) {
    event.detail.headers["X-CSRF-Token"] = token;
  });

  function flash(text) {
    var box = document.getElementById("flash");
    if (!box) return;
    box.textContent = text; // text only: never parsed as markup
    box.hidden = false;
  }

  document.body.addEventListener("htmx:responseError", function (event) {
    var xhr = event.detail.xhr;
    var doc = new DOMParser().parseFromString(xhr.responseText || "", "text/html");
    var message = doc.querySelector(".error");
    flash("Error " + xhr.status + ": " + (message ? message.textContent : xhr.statusText));
  });
  document.body.addEventListener("htmx:sendError", function () {
    flash("The gateway did not answer: is `mnemex up` running?");
  });
  document.body.addEventListener("htmx:afterRequest", function (event) {
    if (event.detail.successful) {
      var box = document.getElementById("flash");
      if (box) box.hidden = true;
    }
  });

  // The header's project switcher: a plain GET form (works without script); picking a project submits it,
  // so the whole page (header, nav and every link) moves to that project. "All projects" has its own page.
  var switcher = document.getElementById("project-switch");
  if (switcher) {
    var select = switcher.querySelector("select[name='project']");
    select.addEventListener("change", function () {
      if (select.value === "") {
        window.location.assign(select.getAttribute("data-all"));
      } else {
        switcher.submit();
      }
    });
  }

  window.mnemexViewer = { csrfToken: function () { return token; }, flash: flash };
})();
