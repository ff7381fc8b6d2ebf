/* Charts drawn as SVG: a pattern's level wrap by wrap, and horizontal bars of counts. */
"use strict";

(function () {
  const {s} = window.AM;
  const OUTCOME_COLOURS = {validated: "#1f8a4c", demoted: "#c0392b", carried: "#b9770e",
    capped: "#b9770e", new: "#2f6fdf", kept: "#6b7585", unjudged: "#9aa4b2"};

  function levelChart(series) {
    const width = 620, height = 210, left = 36, right = 14, top = 14, bottom = 34;
    const points = series || [];
    const top_level = Math.max(2, ...points.map((p) => Math.max(p.level, p.claimed_level))) + 1;
    const x = (i) => left + (points.length <= 1 ? (width - left - right) / 2 : i * (width - left - right) / (points.length - 1));
    const y = (level) => top + (height - top - bottom) * (1 - level / top_level);
    const svg = s("svg", {viewBox: "0 0 " + width + " " + height, width: width, height: height,
      role: "img", "aria-label": "level history"});
    for (let level = 0; level <= top_level; level += 1) {
      svg.appendChild(s("line", {x1: left, x2: width - right, y1: y(level), y2: y(level), stroke: "#e6e9ef"}));
      svg.appendChild(s("text", {x: left - 8, y: y(level) + 4, "text-anchor": "end"}, level + "x"));
    }
    let path = "";
    points.forEach((p, i) => {
      path += i === 0 ? "M" + x(i) + " " + y(p.level) : " H" + x(i) + " V" + y(p.level);
    });
    if (path) svg.appendChild(s("path", {d: path, fill: "none", stroke: "#2f6fdf", "stroke-width": 2}));
    const every = Math.max(1, Math.ceil(points.length / 12));
    points.forEach((p, i) => {
      if (p.claimed_level !== p.level) {
        svg.appendChild(s("line", {x1: x(i), x2: x(i), y1: y(p.level), y2: y(p.claimed_level),
          stroke: "#c0392b", "stroke-dasharray": "3 3"}));
        svg.appendChild(s("circle", {cx: x(i), cy: y(p.claimed_level), r: 4, fill: "#fff", stroke: "#c0392b",
          "stroke-width": 1.5}, s("title", null, "claimed " + p.claimed_level + "x")));
      }
      svg.appendChild(s("circle", {cx: x(i), cy: y(p.level), r: 5, fill: OUTCOME_COLOURS[p.outcome] || "#6b7585",
        "data-outcome": p.outcome}, s("title", null, "wrap " + p.wrap_id + " (" + p.day + "): " + p.level + "x " + p.outcome)));
      if (i % every === 0) {
        svg.appendChild(s("text", {x: x(i), y: height - bottom + 16, "text-anchor": "middle"}, "w" + p.wrap_id));
      }
    });
    return svg;
  }

  function bars(rows, colours) {
    const width = 420, row = 22, left = 110, right = 50;
    const max = Math.max(1, ...rows.map((r) => r.value));
    const svg = s("svg", {viewBox: "0 0 " + width + " " + (rows.length * row + 6), width: width,
      height: rows.length * row + 6, role: "img", "aria-label": "counts"});
    rows.forEach((r, i) => {
      const w = (width - left - right) * r.value / max;
      svg.appendChild(s("text", {x: left - 8, y: i * row + 15, "text-anchor": "end"}, r.label));
      svg.appendChild(s("rect", {x: left, y: i * row + 4, width: Math.max(1, w), height: row - 8,
        fill: (colours && colours[r.label]) || "#2f6fdf", "data-count": r.value}));
      svg.appendChild(s("text", {x: left + w + 6, y: i * row + 15}, String(r.value)));
    });
    return svg;
  }

  window.AM.levelChart = levelChart;
  window.AM.bars = bars;
  window.AM.OUTCOME_COLOURS = OUTCOME_COLOURS;
}());
