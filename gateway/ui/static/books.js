// Book upload with progress: bytes sent (upload events), then chunks embedded (the NDJSON lines
// the gateway streams back as the memory service works). Results are shown as text.
(function () {
  "use strict";
  var form = document.getElementById("upload");
  var bar = document.getElementById("upload-progress");
  var status = document.getElementById("upload-status");

  function show(text) { status.textContent = text; }

  function handle(line) {
    var event;
    try { event = JSON.parse(line); } catch (e) { return; }
    if (event.type === "progress") {
      var total = event.chunks_total || 1;
      bar.value = 50 + Math.round((50 * event.chunks_done) / total);
      show("Embedding: " + event.chunks_done + " / " + event.chunks_total + " chunks");
    } else if (event.type === "result") {
      bar.value = 100;
      show(event.skipped_unchanged ? "Unchanged: " + event.title + " is already stored"
                                   : "Stored " + event.title + ": " + event.chunks + " chunks");
      form.setAttribute("data-done", "true");
      var list = document.getElementById("book-list");
      if (window.htmx && list) {
        window.htmx.ajax("GET", window.location.pathname + window.location.search, { target: "#book-list", select: "#book-list > *" });
      }
    } else if (event.type === "error") {
      show("Failed: " + event.error);
      form.setAttribute("data-done", "error");
    }
  }

  form.addEventListener("submit", function (submit) {
    submit.preventDefault();
    var xhr = new XMLHttpRequest();
    var seen = 0;
    var buffer = "";
    bar.hidden = false;
    bar.value = 0;
    form.removeAttribute("data-done");
    show("Uploading…");
    xhr.open("POST", form.getAttribute("action"));
    xhr.setRequestHeader("X-CSRF-Token", window.mnemexViewer.csrfToken());
    xhr.upload.onprogress = function (e) {
      if (e.lengthComputable) bar.value = Math.round((50 * e.loaded) / e.total);
    };
    function drain(final) {
      buffer += xhr.responseText.slice(seen);
      seen = xhr.responseText.length;
      var lines = buffer.split("\n");
      buffer = final ? "" : lines.pop();
      lines.forEach(function (l) { if (l.trim()) handle(l); });
    }
    xhr.onprogress = function () { drain(false); };
    xhr.onload = function () {
      if (xhr.status >= 400) {
        var doc = new DOMParser().parseFromString(xhr.responseText || "", "text/html");
        var message = doc.querySelector(".error");
        show("Failed (" + xhr.status + "): " + (message ? message.textContent : xhr.statusText));
        form.setAttribute("data-done", "error");
        return;
      }
      drain(true);
    };
    xhr.onerror = function () { show("The gateway did not answer."); form.setAttribute("data-done", "error"); };
    xhr.send(new FormData(form));
  });
})();
