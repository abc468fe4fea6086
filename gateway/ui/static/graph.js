// The knowledge graph, drawn by Cytoscape.js from the page's JSON data block (the server has already cut it
// to the question asked: graph_answer.py). Labels are canvas text set by Cytoscape, never HTML; the side panel
// is filled with textContent.
// - Colours come from the colour key's swatches (graph.css), so the key and the drawing always agree.
// - Only the nodes the server marked (data "shown") carry a label; every node has its title for the panel.
// - Each linked cluster is laid out on its own (its core by force, its leaves fanned around their parents)
//   and the clusters packed in rows; lone nodes go in grids.
// - The list of labelled nodes (buttons) opens the panel from the keyboard; so do the panel's own links.
// - The kind boxes hide kinds at once, keep the count in step and write the kinds into the URL.
// - When the layout is done and a frame is painted, #graph gets data-rendered (nodes drawn) and
//   data-drawn-ms (milliseconds since navigation): the benchmark and the tests wait for them
//   (data-script-ms: when this script started, data-laid-out-ms: when it was done, data-layout-ms: how long
//   the layout itself took).
(function () {
  "use strict";
  var scriptStart = Math.round(performance.now());
  var MAX_FIT_ZOOM = 1.4; // a few nodes are not blown up to fill the box
  var MAX_LINKS = 30; // links listed in the side panel
  var MANY_LINKS = 250;
  var LABEL_PX = 12; // the labels' size on screen once the whole drawing is fitted in view
  var container = document.getElementById("graph");
  var elements = JSON.parse(document.getElementById("graph-data").textContent);
  var filter = document.getElementById("kind-filter");
  var colors = {};
  document.querySelectorAll("#kind-filter .swatch[data-kind]").forEach(function (swatch) {
    colors[swatch.getAttribute("data-kind")] = getComputedStyle(swatch).backgroundColor;
  });
  var ink = getComputedStyle(document.body).color;
  var paper = getComputedStyle(container).backgroundColor;
  var many = elements.edges.length > MANY_LINKS;
  var degree = {};
  elements.edges.forEach(function (e) {
    degree[e.data.source] = (degree[e.data.source] || 0) + 1;
    degree[e.data.target] = (degree[e.data.target] || 0) + 1;
  });
  // Colour and size are plain data, not style functions: a function is re-run on every style pass.
  elements.nodes.forEach(function (n) {
    n.data.color = colors[n.data.group] || "#888";
    n.data.size = (n.data.shown ? 16 : 8) + Math.min(16, 2 * (degree[n.data.id] || 0));
  });

  var cy = cytoscape({
    container: container,
    elements: elements,
    minZoom: 0.1,
    maxZoom: 4,
    pixelRatio: 1,
    style: [
      {
        selector: "node",
        style: {
          "background-color": "data(color)", width: "data(size)", height: "data(size)",
          label: "data(shown)", "font-size": 11, color: ink, "min-zoomed-font-size": 6,
          "text-valign": "bottom", "text-margin-y": 3, "text-wrap": "wrap", "text-max-width": 170,
          "text-background-color": paper, "text-background-opacity": 0.8, "text-background-padding": 1,
        },
      },
      { selector: "node[?seed]", style: { "border-width": 2, "border-color": ink } },
      {
        selector: "edge",
        style: {
          width: 1, "line-color": "#b0bec5", opacity: 0.7,
          // Many links: haystack lines, the cheapest to draw (no arrows; the side panel gives each direction).
          "curve-style": many ? "haystack" : "straight",
          "target-arrow-shape": many ? "none" : "triangle", "arrow-scale": 0.6, "target-arrow-color": "#b0bec5",
        },
      },
      { selector: "node:selected", style: { "border-width": 4, "border-color": "#ff6f00", label: "data(label)" } },
      { selector: "edge.near", style: { "line-color": "#ff6f00", "target-arrow-color": "#ff6f00", width: 2, opacity: 1 } },
      { selector: "node.near", style: { label: "data(label)" } },
      { selector: ".hidden-kind", style: { display: "none" } },
    ],
    layout: { name: "preset" },
  });

  // -- the layout: each linked cluster on its own, packed in rows; the lone nodes in grids after them ------
  // A cluster of four or more gets a force layout, started on a spiral in the server's order so it ends the
  // same way on every load; nodes with no link go in grids, the labelled
  // ones with room for their titles. Clusters are packed left to right, biggest first, in rows about as
  // wide as the drawing is, so one long strip of small clusters never shrinks the rest to dots.
  // A cluster is its nodes and its edges: a layout run on nodes alone ignores the links between them.
  // Its leaves (one link, to a node with more: a concept routed to one collection, a fact naming one
  // entity) are taken out first and fanned around their parent once the core is placed: the force layout
  // then moves a few dozen nodes, not hundreds, and each parent's leaves sit together around it.
  function sunflower(centre, leaves, step) {
    var c = centre.position();
    leaves.forEach(function (x, i) {
      var angle = i * 2.39996, radius = step * Math.sqrt(i + 1.5);
      x.position({ x: c.x + radius * Math.cos(angle), y: c.y + radius * Math.sin(angle) });
    });
  }

  function arrangeCluster(cluster) {
    var nodes = cluster.nodes();
    if (nodes.length <= 3) {
      cluster.layout({ name: "circle", animate: false, fit: false, radius: 28, startAngle: 0 }).run();
      return;
    }
    var leaves = nodes.filter(function (x) { return x.degree(false) === 1 && x.neighborhood("node").degree(false) > 1; });
    var core = nodes.difference(leaves);
    var fan = {};
    leaves.forEach(function (x) {
      var parent = x.neighborhood("node")[0].id();
      (fan[parent] = fan[parent] || []).push(x);
    });
    var room = function (x) { return fan[x.id()] ? 14 * Math.sqrt(fan[x.id()].length + 1.5) : 0; };
    if (core.length > 1) {
      core.forEach(function (x, i) {
        var angle = i * 2.39996, radius = 40 * Math.sqrt(i);
        x.position({ x: radius * Math.cos(angle), y: radius * Math.sin(angle) });
      });
      core.union(core.edgesWith(core)).layout({
        name: "cose", animate: false, randomize: false, numIter: 400, fit: false, nodeDimensionsIncludeLabels: true,
        nodeRepulsion: function (x) { return 16000 + 4000 * room(x); },
        idealEdgeLength: function (e) { return 45 + room(e.source()) + room(e.target()); },
        nodeOverlap: 8, gravity: 1, padding: 10,
      }).run();
    } else {
      core.position({ x: 0, y: 0 });
    }
    core.forEach(function (x) {
      var around = fan[x.id()];
      if (!around) return;
      var named = around.some(function (leaf) { return leaf.data("shown"); });
      sunflower(x, around, named ? 45 : 14); // labelled leaves need room for their titles
    });
  }

  function arrangeGrid(nodes, cell, width) {
    var columns = Math.max(1, Math.min(nodes.length, Math.floor(width / cell[0])));
    nodes.forEach(function (x, i) {
      x.position({ x: (i % columns) * cell[0], y: Math.floor(i / columns) * cell[1] });
    });
  }

  function arrange() {
    var linked = cy.nodes().filter(function (x) { return x.degree(false) > 0; });
    var clusters = linked.union(linked.connectedEdges()).components();
    clusters.sort(function (a, b) { return b.nodes().length - a.nodes().length; });
    clusters.forEach(arrangeCluster);
    clusters = clusters.map(function (c) { return c.nodes(); });
    var area = 0, widest = 0;
    clusters.forEach(function (c) {
      var box = c.boundingBox();
      area += (box.w + 40) * (box.h + 40);
      widest = Math.max(widest, box.w);
    });
    var loose = cy.nodes().difference(linked);
    var named = loose.filter(function (x) { return x.data("shown"); });
    var plain = loose.difference(named);
    area += named.length * 190 * 60 + plain.length * 36 * 30;
    var width = Math.max(widest, 600, Math.sqrt(area) * 1.6);
    var blocks = clusters.slice();
    if (named.length) { arrangeGrid(named, [190, 60], width); blocks.push(named); }
    if (plain.length) { arrangeGrid(plain, [36, 30], width); blocks.push(plain); }
    var x = 0, y = 0, rowHeight = 0;
    blocks.forEach(function (block) {
      var box = block.boundingBox();
      if (x > 0 && x + box.w > width) { x = 0; y += rowHeight + 40; rowHeight = 0; }
      block.shift({ x: x - box.x1, y: y - box.y1 });
      x += box.w + 40;
      rowHeight = Math.max(rowHeight, box.h);
    });
  }

  var layoutStart = performance.now();
  arrange();
  cy.fit(cy.nodes(), 30);
  if (cy.zoom() > MAX_FIT_ZOOM) { cy.zoom(MAX_FIT_ZOOM); cy.center(); }
  // Fitting 200 nodes zooms far out: the few labels are drawn larger in the graph's units so that they
  // read at LABEL_PX on screen (and grow as the user zooms in).
  // Only the labelled nodes get it (a style rule for every node would restyle all of them); a node the
  // panel opens, and its neighbours, get it when their labels show (readable()).
  var scale = Math.max(1, 1 / cy.zoom());
  function readable(nodes) {
    nodes.style({ "font-size": LABEL_PX * scale, "text-max-width": 170 * scale });
  }
  cy.batch(function () { readable(cy.nodes("[shown != '']")); });
  container.setAttribute("data-script-ms", String(scriptStart));
  container.setAttribute("data-layout-ms", String(Math.round(performance.now() - layoutStart)));

  // -- the side panel ----------------------------------------------------------------------------------
  var panel = {
    title: document.getElementById("graph-panel-title"),
    hint: document.getElementById("graph-panel-hint"),
    facts: document.getElementById("graph-panel-facts"),
    linksHead: document.getElementById("graph-panel-links-head"),
    links: document.getElementById("graph-panel-links"),
    memory: document.getElementById("graph-panel-memory"),
    close: document.getElementById("graph-panel-close"),
  };
  var project = new URLSearchParams(window.location.search).get("project");

  function fact(name, value) {
    var dt = document.createElement("dt");
    dt.textContent = name;
    var dd = document.createElement("dd");
    dd.textContent = value;
    panel.facts.appendChild(dt);
    panel.facts.appendChild(dd);
  }

  // "routes to → history 78%" for a link out of the node, "topic010 (concept) routes to this 78%" for one in.
  function linkLine(edge, node) {
    var out = edge.source().id() === node.id();
    var other = out ? edge.target() : edge.source();
    var li = document.createElement("li");
    var relation = document.createElement("span");
    relation.className = "relation";
    var words = String(edge.data("relation")).replace(/_/g, " ");
    relation.textContent = out ? words + " → " : " " + words + " this";
    var button = document.createElement("button");
    button.type = "button";
    button.textContent = other.data("label") + " (" + other.data("group") + ")";
    button.addEventListener("click", function () { open(other, true); });
    if (out) { li.appendChild(relation); li.appendChild(button); } else { li.appendChild(button); li.appendChild(relation); }
    if (edge.data("label")) li.appendChild(document.createTextNode(" " + edge.data("label")));
    return li;
  }

  function open(node, focus) {
    cy.elements().unselect().removeClass("near");
    node.select();
    node.connectedEdges().addClass("near");
    node.neighborhood("node").addClass("near");
    cy.batch(function () { readable(node.closedNeighborhood("node")); });
    panel.title.textContent = node.data("label");
    panel.hint.hidden = true;
    panel.facts.textContent = "";
    fact("kind", node.data("kind") === node.data("group") ? node.data("group") : node.data("group") + " (" + node.data("kind") + ")");
    if (node.data("seed")) fact("found", "holds the words looked for");
    else if (node.data("level")) fact("found", node.data("level") + " hop" + (node.data("level") > 1 ? "s" : "") + " from them");
    if (node.data("rate")) fact("record", node.data("rate"));
    fact("links", String(node.degree()));
    panel.facts.hidden = false;
    panel.links.textContent = "";
    var edges = node.connectedEdges().filter(function (e) { return !e.hasClass("hidden-kind") && !e.source().hasClass("hidden-kind") && !e.target().hasClass("hidden-kind"); });
    edges.slice(0, MAX_LINKS).forEach(function (e) { panel.links.appendChild(linkLine(e, node)); });
    if (edges.length > MAX_LINKS) {
      var more = document.createElement("li");
      more.className = "hint";
      more.textContent = "and " + (edges.length - MAX_LINKS) + " more";
      panel.links.appendChild(more);
    }
    panel.linksHead.hidden = panel.links.hidden = edges.length === 0;
    var memory = node.data("memory");
    panel.memory.hidden = !memory;
    if (memory) {
      panel.memory.href = "/ui/memories/" + encodeURIComponent(memory) + (project ? "?project=" + encodeURIComponent(project) : "");
    }
    panel.close.hidden = false;
    document.getElementById("graph-panel").setAttribute("data-node", node.id());
    document.querySelectorAll("#graph-nodes button").forEach(function (b) {
      if (b.getAttribute("data-node") === node.id()) b.setAttribute("aria-current", "true"); else b.removeAttribute("aria-current");
    });
    if (focus) panel.title.focus();
  }

  function close() {
    var id = document.getElementById("graph-panel").getAttribute("data-node");
    cy.elements().unselect().removeClass("near");
    panel.title.textContent = "Details";
    panel.hint.hidden = false;
    panel.facts.hidden = panel.links.hidden = panel.linksHead.hidden = panel.memory.hidden = panel.close.hidden = true;
    document.getElementById("graph-panel").removeAttribute("data-node");
    var back = id && document.querySelector("#graph-nodes button[data-node='" + CSS.escape(id) + "']");
    if (back) { back.removeAttribute("aria-current"); back.focus(); }
  }

  cy.on("tap", "node", function (event) { open(event.target, false); });
  panel.close.addEventListener("click", close);
  document.getElementById("graph-panel").addEventListener("keydown", function (event) {
    if (event.key === "Escape") close();
  });
  document.querySelectorAll("#graph-nodes button[data-node]").forEach(function (button) {
    button.addEventListener("click", function () {
      var node = cy.getElementById(button.getAttribute("data-node"));
      if (node.nonempty()) open(node, true);
    });
  });

  // -- the kind filter ----------------------------------------------------------------------------------
  var count = document.getElementById("graph-visible");
  function visible() { return cy.nodes().filter(function (n) { return !n.hasClass("hidden-kind"); }).length; }
  if (filter) {
    filter.addEventListener("change", function () {
      var shown = {};
      var chosen = [];
      filter.querySelectorAll("input[name='kind']").forEach(function (box) {
        shown[box.value] = box.checked;
        if (box.checked) chosen.push(box.value);
      });
      cy.batch(function () {
        cy.nodes().forEach(function (n) {
          if (shown[n.data("group")] === false) n.addClass("hidden-kind"); else n.removeClass("hidden-kind");
        });
      });
      document.querySelectorAll("#graph-nodes li[data-group]").forEach(function (li) {
        li.hidden = shown[li.getAttribute("data-group")] === false;
      });
      var n = visible();
      container.setAttribute("data-visible", String(n));
      if (count) count.textContent = String(n);
      var params = new URLSearchParams(window.location.search);
      params.delete("kind");
      chosen.forEach(function (kind) { params.append("kind", kind); });
      window.history.replaceState(null, "", window.location.pathname + "?" + params.toString() + window.location.hash);
    });
  }

  container.setAttribute("data-visible", String(cy.nodes().length));
  window.mnemexGraph = cy;
  // Drawn: the layout ran synchronously above; two frames later the canvas has painted it.
  container.setAttribute("data-laid-out-ms", String(Math.round(performance.now())));
  window.requestAnimationFrame(function () {
    window.requestAnimationFrame(function () {
      container.setAttribute("data-drawn-ms", String(Math.round(performance.now())));
      container.setAttribute("data-rendered", String(cy.nodes().length));
    });
  });
})();
