/* The association graph: a small force layout run a fixed number of steps, drawn as SVG.
   Node colour is the episode type, edge width the link's strength; a click opens the episode. */
"use strict";

(function () {
  const {s, route} = window.AM;
  const TYPE_COLOURS = {observation: "#2f6fdf", decision: "#8e44ad", tension: "#c0392b",
    question: "#d68910", outcome: "#1f8a4c", context: "#7f8c8d"};

  function layout(nodes, links, width, height) {
    const index = new Map(nodes.map((n, i) => [n.id, i]));
    const pos = nodes.map((n, i) => {
      const angle = 2 * Math.PI * i / Math.max(1, nodes.length);
      return {x: width / 2 + Math.cos(angle) * width / 3, y: height / 2 + Math.sin(angle) * height / 3, vx: 0, vy: 0};
    });
    const edges = links.map((l) => [index.get(l.a), index.get(l.b), l.strength]).filter((e) => e[0] !== undefined && e[1] !== undefined);
    const k = Math.sqrt(width * height / Math.max(1, nodes.length)) * 0.6;
    for (let step = 0; step < 250; step += 1) {
      const cool = 1 - step / 250;
      for (let i = 0; i < pos.length; i += 1) {
        for (let j = i + 1; j < pos.length; j += 1) {
          const dx = pos[i].x - pos[j].x, dy = pos[i].y - pos[j].y;
          const d2 = Math.max(dx * dx + dy * dy, 0.01);
          const f = k * k / d2;
          pos[i].vx += dx * f / 60; pos[i].vy += dy * f / 60;
          pos[j].vx -= dx * f / 60; pos[j].vy -= dy * f / 60;
        }
      }
      for (const [a, b, strength] of edges) {
        const dx = pos[b].x - pos[a].x, dy = pos[b].y - pos[a].y;
        const d = Math.sqrt(dx * dx + dy * dy) || 1;
        const f = (d - k) / d * Math.min(1, 0.05 + strength / 20);
        pos[a].vx += dx * f; pos[a].vy += dy * f; pos[b].vx -= dx * f; pos[b].vy -= dy * f;
      }
      for (const p of pos) {
        p.vx += (width / 2 - p.x) * 0.01; p.vy += (height / 2 - p.y) * 0.01;
        p.x += Math.max(-20, Math.min(20, p.vx)) * cool; p.y += Math.max(-20, Math.min(20, p.vy)) * cool;
        p.x = Math.max(20, Math.min(width - 20, p.x)); p.y = Math.max(20, Math.min(height - 20, p.y));
        p.vx *= 0.5; p.vy *= 0.5;
      }
    }
    return {pos, edges};
  }

  function draw(data, onOpen) {
    const width = 900, height = 560;
    const {pos, edges} = layout(data.nodes, data.links, width, height);
    const svg = s("svg", {viewBox: "0 0 " + width + " " + height, width: width, height: height,
      role: "img", "aria-label": "association graph"});
    for (const [a, b, strength] of edges) {
      svg.appendChild(s("line", {x1: pos[a].x, y1: pos[a].y, x2: pos[b].x, y2: pos[b].y,
        stroke: "#8a96a8", "stroke-opacity": 0.7, "stroke-width": Math.min(8, 0.8 + strength)},
        s("title", null, data.nodes[a].id + " \u2013 " + data.nodes[b].id + ": " + strength.toFixed(2))));
    }
    data.nodes.forEach((node, i) => {
      const circle = s("circle", {cx: pos[i].x, cy: pos[i].y, r: 8, fill: TYPE_COLOURS[node.type] || "#444",
        stroke: "#fff", "stroke-width": 1.5, class: "node", "data-id": node.id},
        s("title", null, node.id + " (" + (node.type || "deleted") + "): " + node.preview));
      circle.addEventListener("click", () => onOpen(node.id));
      svg.appendChild(circle);
      svg.appendChild(s("text", {x: pos[i].x + 10, y: pos[i].y + 4}, node.id));
    });
    return svg;
  }

  window.AM.drawGraph = draw;
  window.AM.TYPE_COLOURS = TYPE_COLOURS;
  window.AM.episodeRoute = (id) => route("episode", {id: id});
}());
