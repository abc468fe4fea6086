// Overview charts, drawn from the page's JSON data block (never from markup).
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("overview-data").textContent);
  var colors = { promoted: "#2e7d32", demoted: "#ef6c00", deleted: "#c62828", expired: "#757575" };

  new Chart(document.getElementById("scores-chart"), {
    type: "bar",
    data: {
      labels: data.scores.labels,
      datasets: [{ label: "memories by score", data: data.scores.counts, backgroundColor: "#3f51b5" }],
    },
    options: { animation: false, plugins: { legend: { display: false } }, scales: { y: { beginAtZero: true } } },
  });

  var series = Object.keys(data.events.series).map(function (kind) {
    return { label: kind, data: data.events.series[kind], backgroundColor: colors[kind] || "#999" };
  });
  new Chart(document.getElementById("events-chart"), {
    type: "bar",
    data: { labels: data.events.labels, datasets: series },
    options: {
      animation: false,
      scales: { x: { stacked: true }, y: { stacked: true, beginAtZero: true } },
    },
  });
  document.body.setAttribute("data-charts", "ready");
})();
