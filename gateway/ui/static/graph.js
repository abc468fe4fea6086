// The knowledge graph, drawn by Cytoscape.js from the page's JSON data block. Labels are set as
// text by Cytoscape (canvas), never as HTML; a click lists the node's links with textContent.
(function () {
  "use strict";
  var container = document.getElementById("graph");
  var elements = JSON.parse(document.getElementById("graph-data").textContent);
  var colors = {
    concept: "#3f51b5", collection: "#00897b", fact: "#8e24aa",
    problem: "#c62828", solution: "#2e7d32",
  };
  var known = Object.keys(colors);

  var cy = cytoscape({
    container: container,
    elements: elements,
    wheelSensitivity: 0.3,
    style: [
      {
        selector: "node",
        style: {
          label: "data(label)", "font-size": 9, "text-wrap": "ellipsis", "text-max-width": 120,
          "background-color": function (n) {
            var kind = n.data("kind");
            return known.indexOf(kind) >= 0 ? colors[kind] : "#f9a825";
          },
          width: 16, height: 16,
        },
      },
      {
        selector: "edge",
        style: {
          width: 1.5, "line-color": "#b0bec5", "target-arrow-shape": "triangle",
          "target-arrow-color": "#b0bec5", "curve-style": "bezier", label: "data(label)", "font-size": 8,
        },
      },
      { selector: "node:selected", style: { "border-width": 3, "border-color": "#000" } },
    ],
    layout: { name: elements.nodes.length > 150 ? "grid" : "cose", animate: false, randomize: false },
  });

  var info = document.getElementById("graph-selection");
  cy.on("tap", "node", function (event) {
    var node = event.target;
    var links = node.connectedEdges().map(function (e) {
      var other = e.source().id() === node.id() ? e.target() : e.source();
      return e.data("relation") + " " + other.data("label");
    });
    info.textContent = node.data("kind") + ": " + node.data("label") + (links.length ? " — " + links.join("; ") : "");
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

  container.setAttribute("data-rendered", String(cy.nodes().length));
  window.mnemexGraph = cy;
})();
