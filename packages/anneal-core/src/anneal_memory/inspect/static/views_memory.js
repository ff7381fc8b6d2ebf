/* Views over what the wraps made: continuity, one pattern, wraps, crystals and spores, graph. */
"use strict";

(function () {
  const {h, link, badge, short, replace, api, failure, markdown, levelChart, drawGraph, auditTable, ids, OUTCOME_COLOURS, TYPE_COLOURS} = window.AM;

  function scopeForm(view, scope, extra) {
    const form = h("form", {class: "filters"},
      h("label", null, "scope", h("input", {name: "scope", value: scope, placeholder: "(shared)"})),
      extra || null, h("button", {type: "submit", class: "plain"}, "Show"));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      location.hash = window.AM.route(view, Object.fromEntries(new FormData(form).entries()));
    });
    return form;
  }

  async function continuity(main, params) {
    const scope = params.get("scope") || "";
    const data = await api("continuity", {scope: scope});
    const body = data.exists
      ? h("div", {class: "panel", id: "continuity"}, markdown(data.text, data.patterns, scope))
      : h("p", {class: "muted"}, "No continuity yet for this scope: it is written by the first wrap.");
    replace(main, h("h1", null, "Continuity"), scopeForm("continuity", scope),
      h("p", {class: "muted"}, data.patterns.length + " pattern line(s); each links to its evidence and level history."), body);
  }

  function cited(c) {
    return h("tr", null, h("td", {class: "mono"}, link("episode", {id: c.id}, c.id)),
      h("td", null, c.exists ? (c.grounds ? badge("grounds", "ok") : badge("does not ground", "bad")) : badge("deleted", "warn"),
        c.in_snapshot ? null : badge("not of this wrap", "warn"), c.superseded_by ? badge("superseded", "warn") : null),
      h("td", null, c.effective_trust ? badge(c.effective_trust) : ""),
      h("td", null, c.shared_words.join(", ") || "\u2014"));
  }

  function step(st) {
    const claimed = st.claimed_level !== st.level ? " (claimed " + st.claimed_level + "x)" : "";
    return h("div", {class: "step " + st.outcome, "data-wrap": st.wrap_id},
      h("div", null, h("strong", null, "wrap " + st.wrap_id), " on " + st.day + ": " + st.level + "x" + claimed + " ",
        badge(st.outcome, st.outcome === "validated" ? "ok" : st.outcome === "demoted" ? "bad" : st.outcome === "new" ? "" : "warn"),
        st.corroborated === false ? badge("uncorroborated", "warn") : null),
      h("ul", null, st.rules.map((r) => h("li", null, h("code", null, r.code), ": " + r.rule))),
      st.explanation ? h("div", null, "explanation: \u201c" + st.explanation + "\u201d") : null,
      st.citations ? h("div", null, h("div", {class: "muted"}, st.citations === "continuity"
        ? "cited on the line:" : "episodes of that wrap sharing its words (recomputed; the store keeps the explanation, not the ids):"),
      st.cited.length ? h("table", null, h("tr", null, h("th", null, "episode"), h("th", null, "grounding"), h("th", null, "trust"), h("th", null, "shared words")), st.cited.map(cited)) : h("p", {class: "muted"}, "none")) : null);
  }

  async function pattern(main, params) {
    const scope = params.get("scope") || "";
    const data = await api("pattern", {name: params.get("name") || "", scope: scope});
    if (!data.found) {
      replace(main, h("h1", null, "Pattern ", data.name), h("p", {class: "muted"}, "No save ever wrote a pattern of that name in this scope."));
      return;
    }
    const legend = h("div", {class: "legend"}, Object.entries(OUTCOME_COLOURS).map(([k, colour]) => h("span", null, h("i", {class: "o-" + k, title: colour}), k)));
    replace(main,
      h("h1", null, "Pattern ", h("span", {class: "mono"}, data.name), " ", badge(data.level + "x now")),
      h("div", {class: "panel"},
        h("div", {class: "mono"}, data.line || "(the current continuity no longer holds it)"),
        h("p", {class: "muted"}, "highest " + data.max_level + "x; first written by wrap " + data.first_wrap_id + ", last by wrap " + data.last_wrap_id + "; last grounded " + (data.last_grounded || "never")),
        data.crystal ? h("p", null, badge("crystal: " + data.crystal.status, "ok"), " at " + data.crystal.level + "x on " + data.crystal.crystallized_on + ", evidence ", ids(data.crystal.evidence)) : null),
      h("h2", null, "Worth (report-only: what the outcomes of its exposures say)"), window.AM.worthTable(data.worth),
      h("h2", null, "Drift probes on it (" + data.probes.length + " of " + data.probes_total + ")"), window.AM.probeTable(data.probes, "pattern-probes"),
      h("h2", null, "Level over the wraps"), h("div", {class: "panel", id: "level-chart"}, levelChart(data.series), legend),
      h("h2", null, "Steps, newest first"), h("div", {id: "steps"}, data.steps.map(step)),
      data.more_steps ? h("p", {class: "muted"}, "Older steps are left out.") : null,
      h("h2", null, "Audit entries of these wraps (" + data.audit.entries.length + " of " + data.audit.matched + ")"),
      auditTable(data.audit.entries));
  }

  function wrapRow(w) {
    const counts = Object.entries(w.finding_counts || {}).map(([k, n]) => badge(k + " \u00d7" + n,
      k === "graduated" ? "ok" : ["ungrounded", "needs-evidence", "uncorroborated", "cross-session-overlap"].includes(k) ? "bad" : "warn"));
    const lines = w.lines.map((l) => h("li", null, link("pattern", {name: l.name, scope: w.scope}, l.name), " " + l.level + "x",
      l.claimed_level !== l.level ? " (claimed " + l.claimed_level + "x)" : "", l.validated ? badge("validated", "ok") : null,
      l.marks.map((m) => badge(m, "warn"))));
    return h("div", {class: "panel", "data-wrap": w.id},
      h("div", null, h("strong", null, "wrap " + w.id), " ", badge(w.status, w.status === "completed" ? "ok" : w.status === "open" ? "warn" : ""),
        " " + (w.completed_at || w.started_at) + " \u2014 " + w.episode_count + " episodes",
        w.scope ? " \u2014 scope " + JSON.stringify(w.scope) : "",
        w.status === "completed" ? " \u2014 " + w.continuity_chars + " chars, " + w.graduations_validated + " graduated, " + w.demotions + " demoted" : ""),
      counts.length ? h("div", null, "immune findings: ", counts) : null,
      lines.length ? h("ul", null, lines) : null);
  }

  async function wraps(main, params) {
    const offset = Number(params.get("offset") || 0);
    const data = await api("wraps", {limit: 20, offset: offset});
    replace(main, h("h1", null, "Wraps"),
      data.wraps.length ? data.wraps.map(wrapRow) : h("p", {class: "muted"}, "No wraps yet."),
      h("div", {class: "pager"}, offset > 0 ? link("wraps", {offset: Math.max(0, offset - 20)}, "\u2190 newer") : null,
        data.has_more ? link("wraps", {offset: offset + 20}, "older \u2192") : null));
  }

  async function tiers(main) {
    const [crystals, spores] = await Promise.all([api("crystals", {limit: 100}), api("spores", {limit: 100, status: "all"})]);
    replace(main, h("h1", null, "Crystals & spores"),
      h("h2", null, "Crystals (" + crystals.total + ")"),
      crystals.crystals.length ? h("table", {id: "crystals"}, h("tr", null, h("th", null, "name"), h("th", null, "level"), h("th", null, "status"), h("th", null, "explanation"), h("th", null, "evidence")),
        crystals.crystals.map((c) => h("tr", null, h("td", {class: "mono"}, link("pattern", {name: c.name}, c.name)), h("td", null, c.level + "x"),
          h("td", null, badge(c.status, c.status === "crystallized" ? "ok" : "warn"), badge(c.activation)), h("td", {class: "content"}, c.explanation),
          h("td", {class: "mono"}, ids(c.evidence), c.evidence_missing.length ? badge(c.evidence_missing.length + " deleted", "warn") : null))))
        : h("p", {class: "muted"}, "No crystals."),
      h("h2", null, "Spores (" + spores.total + ")"),
      spores.spores.length ? h("table", {id: "spores"}, h("tr", null, h("th", null, "id"), h("th", null, "type"), h("th", null, "tier"), h("th", null, "text"), h("th", null, "next")),
        spores.spores.map((sp) => h("tr", null, h("td", {class: "mono"}, sp.id), h("td", null, badge(sp.type)),
          h("td", null, badge(sp.tier), badge(sp.status === "open" ? sp.germination : "resolved")), h("td", {class: "content"}, "!".repeat(sp.salience) + " " + sp.text), h("td", null, sp.next || ""))))
        : h("p", {class: "muted"}, "No spores."));
  }

  async function graph(main) {
    const data = await api("graph", {limit: 150});
    const legend = h("div", {class: "legend"}, Object.keys(TYPE_COLOURS).map((k) => h("span", null, h("i", {class: "t-" + k}), k)));
    replace(main, h("h1", null, "Associations"),
      h("p", {class: "muted"}, data.links.length + " strongest link(s) between " + data.nodes.length + " episodes (validated co-citations; width = strength). Click an episode to open it."),
      legend,
      data.links.length ? h("div", {class: "graph-wrap", id: "graph"}, drawGraph(data, (id) => { location.hash = window.AM.episodeRoute(id); }))
        : h("p", {class: "muted"}, "No links yet: they form when a wrap validates citations together."));
  }

  Object.assign(window.AM.views, {continuity, pattern, wraps, tiers, graph});
}());
