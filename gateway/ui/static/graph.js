// The knowledge graph, drawn by Cytoscape.js from the page's JSON data block. Labels are set as
// text by Cytoscape (canvas), never as HTML; a click lists the node's links and rates with textContent.
// Readable at 500 nodes: a force layout up to LARGE nodes, a degree-ordered concentric one above, and
// labels drawn only once zoomed in far enough to read them (min-zoomed-font-size).
(function () {
  "use strict";
  var LARGE = 200;
  var container = document.getElementById("graph");
  var elements = JSON.parse(document.getElementById("graph-data").textContent);
  var colors = {
    concept: "#3f51b5", collection: "#00897b", fact: "#8e24aa",
    problem: "#c62828", solution: "#2e7d32",
  };
  var known = Object.keys(colors);
  function group(kind) { return known.indexOf(kind) >= 0 ? kind : "entity"; }
  var large = elements.nodes.length > LARGE;
  // Colour and size are plain data, not style functions: a function is re-run on every style pass,
  // which made zooming a 500-node graph crawl.
  var degree = {};
  elements.edges.forEach(function (e) {
    degree[e.data.source] = (degree[e.data.source] || 0) + 1;
    degree[e.data.target] = (degree[e.data.target] || 0) + 1;
  });
  elements.nodes.forEach(function (n) {
    n.data.color = known.indexOf(n.data.kind) >= 0 ? colors[n.data.kind] : "#f9a825";
    n.data.size = 10 + Math.min(20, 2 * (degree[n.data.id] || 0));
  });

  var cy = cytoscape({
    container: container,
    elements: elements,
    minZoom: 0.05,
    maxZoom: 4,
    pixelRatio: 1,
    hideEdgesOnViewport: large,
    textureOnViewport: large,
    style: [
      {
        selector: "node",
        style: {
          label: "data(label)", "font-size": 10, "min-zoomed-font-size": 7,
          "text-valign": "bottom", "text-margin-y": 2,
          "background-color": "data(color)", width: "data(size)", height: "data(size)",
        },
      },
      {
        selector: "edge",
        style: {
          width: 1, "line-color": "#b0bec5", "target-arrow-shape": "triangle", "arrow-scale": 0.7,
          "target-arrow-color": "#b0bec5", "curve-style": large ? "haystack" : "bezier",
          label: "data(label)", "font-size": 8, "min-zoomed-font-size": 9,
        },
      },
      { selector: "node:selected", style: { "border-width": 3, "border-color": "#000" } },
      { selector: ".hidden-kind", style: { display: "none" } },
    ],
    layout: { name: "preset" },
  });

  // Linked nodes get a force layout; nodes with no link in view (common at 500 nodes) go in a compact
  // grid below it, so they neither crowd the linked part nor shrink it to dots. The view opens on the
  // linked part when the graph is large; the rest is a pan away.
  var linked = cy.nodes().filter(function (n) { return n.degree() > 0; });
  var loose = cy.nodes().difference(linked);
  linked.layout(large
    ? {
        name: "concentric", animate: false, minNodeSpacing: 28, avoidOverlap: true, startAngle: 0,
        concentric: function (n) { return n.degree(); },
        levelWidth: function (nodes) { return Math.max(1, nodes.maxDegree() / 6); },
      }
    : { name: "cose", animate: false, randomize: false, numIter: 1200, nodeRepulsion: function () { return 9000; } }
  ).run();
  var top = linked.length ? linked.boundingBox().y2 + 80 : 0;
  var columns = Math.max(4, Math.ceil(Math.sqrt(loose.length * 2.5)));
  loose.layout({
    name: "grid", animate: false, avoidOverlap: true, condense: true, cols: columns,
    boundingBox: { x1: 0, y1: top, w: columns * 150, h: Math.ceil(loose.length / columns) * 50 },
    sort: function (a, b) { return String(a.data("label")).localeCompare(String(b.data("label"))); },
  }).run();
  cy.fit(large && linked.length ? linked : cy.nodes(), 30);

  var info = document.getElementById("graph-selection");
  cy.on("tap", "node", function (event) {
    var node = event.target;
    var links = node.connectedEdges().map(function (e) {
      var other = e.source().id() === node.id() ? e.target() : e.source();
      return e.data("relation") + " " + other.data("label") + (e.data("label") ? " (" + e.data("label") + ")" : "");
    });
    info.textContent = "";
    var head = document.createElement("strong");
    head.textContent = node.data("kind") + ": " + node.data("label");
    info.appendChild(head);
    if (node.data("rate")) {
      var rate = document.createElement("span");
      rate.className = "node-rate";
      rate.textContent = " · " + node.data("rate");
      info.appendChild(rate);
    }
    if (links.length) info.appendChild(document.createTextNode(" — " + links.join("; ")));
    var memory = node.data("memory");
    if (memory) {
      var params = new URLSearchParams(window.location.search);
      var project = params.get("project");
      var href = "/ui/memories/" + encodeURIComponent(memory) + (project ? "?project=" + encodeURIComponent(project) : "");
      var a = document.createElement("a");
      a.href = href;
      a.textContent = " open memory";
      info.appendChild(a);
    }
  });

  var filter = document.getElementById("kind-filter");
  if (filter) {
    filter.addEventListener("change", function () {
      var shown = {};
      filter.querySelectorAll("input[name='kind']").forEach(function (box) { shown[box.value] = box.checked; });
      cy.batch(function () {
        cy.nodes().forEach(function (n) {
          if (shown[group(n.data("kind"))] === false) n.addClass("hidden-kind"); else n.removeClass("hidden-kind");
        });
      });
      container.setAttribute("data-visible", String(cy.nodes().filter(function (n) { return !n.hasClass("hidden-kind"); }).length));
    });
  }

  container.setAttribute("data-rendered", String(cy.nodes().length));
  container.setAttribute("data-visible", String(cy.nodes().length));
  window.mnemexGraph = cy;
})();
