// Every page: send the CSRF token with each htmx request, and show request errors as text;
// lists that refresh themselves keep focus; live activity (the sessions page's feed, the open session page).
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

  // -- Keeping keyboard focus (and open disclosures) where they were when part of a page is replaced. --
  var FOCUSABLE = "a[href], button, input, select, textarea, summary, [tabindex]";

  function keyOf(node) {
    var names = ["data-session", "data-turn", "id"];
    for (var i = 0; i < names.length; i++) {
      if (node.hasAttribute(names[i])) return names[i];
    }
    return null;
  }

  // Where focus is inside `container`: the keyed element around it (a session row, a turn) and its place there.
  function focusLocator(container) {
    var active = document.activeElement;
    if (!active || active === document.body || !container.contains(active)) return null;
    var keyed = active.closest("[data-session], [data-turn], [id]");
    var scope = keyed && keyed !== container && container.contains(keyed) ? keyed : container;
    var attr = scope === container ? null : keyOf(scope);
    return {
      attr: attr,
      key: attr ? scope.getAttribute(attr) : null,
      index: Array.prototype.indexOf.call(scope.querySelectorAll(FOCUSABLE), active)
    };
  }

  function restoreFocus(container, locator) {
    if (!locator || locator.index < 0) return;
    var scope = container;
    if (locator.attr) {
      scope = null;
      var candidates = container.querySelectorAll("[" + locator.attr + "]");
      for (var i = 0; i < candidates.length; i++) {
        if (candidates[i].getAttribute(locator.attr) === locator.key) { scope = candidates[i]; break; }
      }
      if (!scope && container.getAttribute(locator.attr) === locator.key) scope = container;
    }
    if (!scope) return;
    var target = scope.querySelectorAll(FOCUSABLE)[locator.index];
    if (target) target.focus({ preventScroll: true });
  }

  // The sessions list refreshes itself (htmx): an unchanged list is left alone, a changed one keeps focus.
  var lastList = {};
  document.body.addEventListener("htmx:beforeSwap", function (event) {
    var target = event.detail.target;
    if (!target || !target.id || !target.hasAttribute("hx-trigger")) return;
    var text = event.detail.serverResponse;
    if (event.detail.xhr.status === 200 && lastList[target.id] === text) {
      event.detail.shouldSwap = false;
      return;
    }
    lastList[target.id] = text;
    target.__mnemexFocus = focusLocator(target);
  });
  document.body.addEventListener("htmx:afterSwap", function (event) {
    var target = event.detail.target;
    if (target && target.__mnemexFocus) {
      restoreFocus(target, target.__mnemexFocus);
      target.__mnemexFocus = null;
    }
  });

  // -- Live activity (server-sent events from /ui/live/events). Memory text is hostile: textContent only. --
  function param(name) {
    return new URLSearchParams(window.location.search).get(name) || "";
  }

  function feedUrl() {
    var panel = document.getElementById("live");
    if (panel) return panel.getAttribute("data-feed");
    if (window.location.pathname === "/ui/session" && document.querySelector("section.turn[data-turn]")) {
      var query = new URLSearchParams({ project: param("project"), session: param("id") });
      return "/ui/live/events?" + query.toString();
    }
    return "";
  }

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function link(href, text) {
    var a = el("a", "", text);
    a.setAttribute("href", href);
    return a;
  }

  var KIND_WORDS = { prompt: "prompt", stored: "answer stored", scored: "scored" };
  var memoryText = {}; // id -> text from earlier events: a scored memory is shown by its text when known

  function renderActivity(panel, event) {
    var list = document.getElementById("activity");
    if (!list) return;
    var project = param("project");
    var item = el("li", "activity-item activity-" + event.kind);
    item.setAttribute("data-kind", event.kind);
    item.setAttribute("data-session", event.session_id);
    var head = el("div", "activity-head");
    var when = el("time", "", new Date(event.at * 1000).toLocaleTimeString());
    when.setAttribute("datetime", new Date(event.at * 1000).toISOString());
    head.appendChild(when);
    head.appendChild(document.createTextNode(" "));
    head.appendChild(el("span", "tag", KIND_WORDS[event.kind] || event.kind));
    var sessionHref = panel.getAttribute("data-session-link") + "&" + new URLSearchParams({ id: event.session_id }).toString();
    head.appendChild(link(sessionHref, event.session_id));
    item.appendChild(head);
    if (event.text) item.appendChild(el("p", "activity-text", event.text));
    var memoryBase = panel.getAttribute("data-memory-link");
    var summary = "";
    if (event.kind === "prompt") {
      summary = event.items.length ? "injected " + event.items.length + (event.items.length === 1 ? " memory" : " memories")
        : "nothing injected";
      if (event.tokens) summary += " · " + event.tokens + " tokens";
      if (event.duration_ms) summary += " · " + Math.round(event.duration_ms) + " ms";
      if (event.degraded && event.degraded.length) summary += " · degraded: " + event.degraded.join(", ");
    } else if (event.kind === "scored") {
      summary = "outcome " + event.outcome + (event.items.length ? " · " + event.items.length + " scored" : "");
    } else if (event.kind === "stored") {
      summary = "kept in working memory";
    }
    if (event.items.length) {
      var memories = el("ul");
      event.items.forEach(function (m) {
        var row = el("li");
        var href = memoryBase + encodeURIComponent(m.id) + "?" + new URLSearchParams({ project: project }).toString();
        var label = event.kind === "stored" ? "the stored exchange" : m.text || memoryText[m.id] || m.id;
        row.appendChild(link(href, label));
        if (m.text) memoryText[m.id] = m.text;
        if (event.kind === "stored" && event.text) memoryText[m.id] = "answer: " + event.text;
        var detail = [];
        if (m.relevance !== null && m.relevance !== undefined) detail.push("relevance " + m.relevance.toFixed(2));
        if (m.outcome) detail.push(m.outcome);
        if (m.score_before !== null && m.score_before !== undefined && m.score_after !== null && m.score_after !== undefined) {
          detail.push("score " + m.score_before.toFixed(2) + " → " + m.score_after.toFixed(2));
        }
        if (m.transition) detail.push(m.transition);
        if (detail.length) row.appendChild(el("span", "activity-score", detail.join(" · ")));
        memories.appendChild(row);
      });
      item.appendChild(memories);
    }
    if (summary) item.appendChild(el("p", "hint", summary));
    list.insertBefore(item, list.firstChild);
    while (list.children.length > 50) list.removeChild(list.lastChild);
    var empty = document.getElementById("activity-empty");
    if (empty) empty.hidden = true;
  }

  function setStatus(state, text) {
    var status = document.getElementById("live-status");
    if (!status) return;
    status.setAttribute("data-state", state);
    status.textContent = text;
  }

  // The open session page: changed turns are replaced and new ones added, keeping focus and open <details>.
  function refreshSession() {
    fetch(window.location.href, { credentials: "same-origin", headers: { "Accept": "text/html" } })
      .then(function (reply) { return reply.ok ? reply.text() : ""; })
      .then(function (html) {
        if (!html) return;
        var fresh = new DOMParser().parseFromString(html, "text/html");
        var turns = fresh.querySelectorAll("section.turn[data-turn]");
        var last = null;
        for (var i = 0; i < turns.length; i++) {
          var now = document.getElementById(turns[i].id);
          if (now && now.textContent === turns[i].textContent) { last = now; continue; }
          var incoming = document.adoptNode(turns[i]);
          if (now) {
            var locator = focusLocator(now);
            var open = Array.prototype.map.call(now.querySelectorAll("details"), function (d) { return d.open; });
            now.replaceWith(incoming);
            incoming.querySelectorAll("details").forEach(function (d, k) { if (k < open.length) d.open = open[k]; });
            restoreFocus(incoming, locator);
          } else if (last) {
            last.after(incoming);
          } else {
            var first = document.querySelector("section.turn[data-turn]");
            if (first) first.before(incoming); else document.querySelector("main").appendChild(incoming);
          }
          last = incoming;
        }
      })
      .catch(function () { /* the next event tries again */ });
  }

  var refreshTimers = [];
  function scheduleSessionRefresh() {
    refreshTimers.forEach(clearTimeout);
    refreshTimers = [setTimeout(refreshSession, 300), setTimeout(refreshSession, 2000)];
  }

  // One stream per visible tab: a hidden tab closes its stream (a browser allows about six connections to
  // one host, and every open stream holds one), and catches up when shown again.
  var url = feedUrl();
  var source = null;
  function onActivity(message) {
    var event;
    try { event = JSON.parse(message.data); } catch (e) { return; }
    var panel = document.getElementById("live");
    if (panel) renderActivity(panel, event);
    else scheduleSessionRefresh();
    document.body.dispatchEvent(new CustomEvent("mnemex:activity", { detail: event }));
  }
  function connect() {
    if (source || !url || !window.EventSource) return;
    var opened = new EventSource(url);
    source = opened;
    opened.addEventListener("open", function () { setStatus("live", "live"); });
    opened.addEventListener("error", function () {
      if (opened.readyState === EventSource.CLOSED) setStatus("off", "not live: reload the page to try again");
      else setStatus("reconnecting", "reconnecting…");
    });
    opened.addEventListener("activity", onActivity);
  }
  function disconnect() {
    if (source) source.close();
    source = null;
    setStatus("off", "paused while this tab is hidden");
  }
  if (url) {
    connect();
    document.addEventListener("visibilitychange", function () {
      if (document.visibilityState === "hidden") {
        disconnect();
      } else {
        connect();
        if (!document.getElementById("live")) scheduleSessionRefresh();
      }
    });
    window.addEventListener("pagehide", disconnect);
  }

  window.mnemexViewer = { csrfToken: function () { return token; }, flash: flash };
})();
