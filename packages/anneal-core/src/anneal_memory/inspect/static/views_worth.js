/* Worth counts (what the outcomes of an item's exposures say) and drift probes: read-only. */
"use strict";

(function () {
  const {h, link, badge, short, replace, api} = window.AM;
  const STATUS_KIND = {held: "ok", crystallized: "ok", changed: "warn", weakened: "warn", unchecked: "warn", lost: "bad"};

  /* One row of counts: surfaced, then each label with the successes and failures after it. */
  function worthTable(w) {
    if (!w) return null;
    if (!w.surfaced) return h("p", {class: "muted", id: "worth"}, "Never shown in a recorded exposure.");
    const after = (k) => h("td", {"data-count": k}, String(w[k]),
      k === "not_applicable" ? null : h("span", {class: "muted"}, " (" + w[k + "_success"] + " success, " + w[k + "_failure"] + " failure)"));
    return h("table", {id: "worth"},
      h("tr", null, ["surfaced", "followed", "ignored", "not applicable", "unlabelled"].map((k) => h("th", null, k))),
      h("tr", null, h("td", {"data-count": "surfaced"}, String(w.surfaced)), after("followed"), after("ignored"), after("not_applicable"), after("unlabelled")));
  }

  function probeRow(p) {
    const target = p.kind === "pattern"
      ? [link("pattern", {name: p.target, scope: p.scope}, p.target), " \u2265 " + p.min_level + "x"]
      : [short(p.target, 200), p.section ? h("div", {class: "muted"}, "in " + p.section) : null];
    const status = p.last_status ? badge(p.last_status, STATUS_KIND[p.last_status] || "") : badge("not checked yet");
    return h("tr", {"data-probe": p.id},
      h("td", {class: "mono"}, p.id, p.retired_at ? h("div", null, badge("retired " + p.retired_at.slice(0, 10), "warn")) : null),
      h("td", null, badge(p.kind), p.scope ? h("div", {class: "muted mono"}, "scope " + short(p.scope, 30)) : null),
      h("td", {class: "content"}, target),
      h("td", null, status, p.last_wrap_id === null ? null : h("div", {class: "muted"}, "wrap " + p.last_wrap_id)),
      h("td", {class: "content mono"}, p.last_line ? short(p.last_line, 200) : "\u2014"),
      h("td", {class: "content"}, p.note ? short(p.note, 200) : ""));
  }

  function probeTable(probes, id) {
    if (!probes.length) return h("p", {class: "muted", id: id}, "No probes.");
    return h("table", {id: id}, h("tr", null, ["probe", "kind", "watches", "last result", "last line", "note"].map((k) => h("th", null, k))),
      probes.map(probeRow));
  }

  async function probes(main, params) {
    const all = params.get("status") === "all";
    const offset = Number(params.get("offset") || 0);
    const data = await api("probes", {limit: 50, offset: offset, status: all ? "all" : "live"});
    replace(main, h("h1", null, "Drift probes"),
      h("p", {class: "muted"}, "What the operator expects the continuity to keep; every save checks each live probe. ",
        all ? link("probes", {}, "live probes only") : link("probes", {status: "all"}, "show retired too")),
      h("p", {class: "muted", id: "probe-count"}, data.total + " probe(s)"),
      probeTable(data.probes, "probes"),
      h("div", {class: "pager"},
        offset > 0 ? link("probes", {status: all ? "all" : "", offset: Math.max(0, offset - 50)}, "\u2190 earlier") : null,
        offset + 50 < data.total ? link("probes", {status: all ? "all" : "", offset: offset + 50}, "later \u2192") : null));
  }

  Object.assign(window.AM, {worthTable, probeTable});
  Object.assign(window.AM.views, {probes});
}());
