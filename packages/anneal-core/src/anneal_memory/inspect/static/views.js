/* Views over episodes and the store: overview, episodes (search), one episode, audit. */
"use strict";

(function () {
  const {h, s, link, badge, short, replace, api, failure, trustBadge, fmtBytes, bars, TYPE_COLOURS} = window.AM;
  const TYPES = ["observation", "decision", "tension", "question", "outcome", "context"];

  function card(label, value, id) {
    return h("div", {class: "card", "data-stat": id}, h("div", {class: "n"}, String(value)), h("div", {class: "k"}, label));
  }

  async function overview(main) {
    const data = await api("overview");
    const st = data.status;
    const verdict = h("span", {id: "verdict"}, badge("verifying the chain\u2026"));
    const waiting = data.waiting_by_scope.length
      ? h("table", null, h("tr", null, h("th", null, "scope"), h("th", null, "episodes waiting")),
        data.waiting_by_scope.map((w) => h("tr", null, h("td", {class: "mono"}, w.scope === "" ? "(shared)" : w.scope),
          h("td", {"data-waiting": w.scope}, String(w.episodes)))))
      : h("p", {class: "muted"}, "No episodes wait for a wrap.");
    const opened = data.open_wraps.length
      ? h("ul", null, data.open_wraps.map((w) => h("li", null, "wrap " + w.wrap_id + " of scope " +
        JSON.stringify(w.scope) + " since " + w.started_at + " (" + w.episode_count + " episodes)")))
      : h("p", {class: "muted"}, "No wrap is open.");
    const baton = data.baton;
    const typeRows = TYPES.map((t) => ({label: t, value: st.episodes_by_type[t] || 0}));
    replace(main,
      h("h1", null, "Overview ", h("span", {class: "muted"}, data.store.name)),
      h("div", {class: "cards"},
        card("episodes", st.total_episodes, "total_episodes"),
        card("waiting for a wrap", st.episodes_since_wrap, "episodes_since_wrap"),
        card("deleted (tombstones)", st.deleted_episodes, "deleted_episodes"),
        card("patterns (shared scope)", data.counts.patterns, "patterns"),
        card("live crystals", data.counts.crystals, "crystals"),
        card("open spores", data.counts.spores_open, "spores_open"),
        card("database", fmtBytes(st.db_bytes) + (st.wal_bytes ? " + " + fmtBytes(st.wal_bytes) + " WAL" : ""), "db_bytes"),
        card("last write", st.last_write ? st.last_write.replace("T", " ").slice(0, 19) : "never", "last_write")),
      h("div", {class: "split"},
        h("div", null,
          h("h2", null, "Episodes by type"), h("div", {class: "panel"}, bars(typeRows, TYPE_COLOURS)),
          h("h2", null, "Waiting per scope"), waiting),
        h("div", null,
          h("h2", null, "Audit trail"), h("div", {class: "panel"}, verdict, " ", link("audit", null, "read the trail")),
          h("h2", null, "Baton"), h("div", {class: "panel"},
            baton.consolidate_requires_baton ? "Only the baton holder may wrap. Holder: " : "No baton policy: any session may wrap. Holder: ",
            h("strong", {id: "baton"}, baton.baton_holder || "nobody")),
          h("h2", null, "Open wraps"), opened,
          h("h2", null, "Last wrap"), h("p", null, data.last_wrap ? "wrap " + data.last_wrap.id + " at " + data.last_wrap.completed_at : "none yet"))));
    api("verify").then((v) => {
      replace(verdict, badge(v.verdict.valid ? "chain valid" : "chain INVALID", v.verdict.valid ? "ok" : "bad"), " " + v.verdict.summary);
    }).catch((err) => replace(verdict, failure(err)));
  }

  function select(name, values, current, label) {
    return h("label", null, label, h("select", {name: name},
      h("option", {value: ""}, "any"),
      values.map((v) => h("option", {value: v, selected: v === current}, v))));
  }

  function field(name, value, label, placeholder) {
    return h("label", null, label, h("input", {name: name, value: value || "", placeholder: placeholder || ""}));
  }

  function episodeRow(e, explanation) {
    return h("tr", {"data-id": e.id},
      h("td", {class: "mono"}, link("episode", {id: e.id}, e.id), h("div", {class: "muted"}, e.timestamp.replace("T", " ").slice(0, 19))),
      h("td", null, badge(e.type), e.superseded_by ? badge("superseded by " + e.superseded_by, "warn") : null,
        e.scope ? h("div", {class: "muted mono"}, "scope " + short(e.scope, 30)) : null),
      h("td", null, trustBadge(e.trust, e.effective_trust), h("div", {class: "muted"}, short(e.source, 30))),
      h("td", {class: "content"}, e.content + (e.content_chars > e.content.length ? "\u2026" : ""),
        explanation ? why(explanation) : null));
  }

  /* Why recall ranked it there: the stage, each matched word's weight drawn as a bar, lifts. */
  function why(x) {
    const top = Math.max(1e-12, ...x.matched.map((m) => m.weight));
    const words = x.matched.map((m) => h("span", {class: "word", title: m.word + ": " + m.weight},
      m.word, " ", s("svg", {width: 40, height: 8, role: "img", "aria-label": "weight " + m.weight},
        s("rect", {x: 0, y: 1, width: Math.max(1, Math.round(40 * m.weight / top)), height: 6, fill: "#4c78c9"}))));
    const lifts = x.lifts.map((l) => badge(l.by === "intent" ? "\u00d7" + l.factor + " intent"
      : l.by + " of " + (Array.isArray(l.from) ? l.from.join(", ") : l.from), "warn"));
    return h("div", {class: "why", "data-found-by": x.found_by},
      badge("#" + x.rank + " " + x.found_by), x.score === null ? null : h("span", {class: "muted"}, "score " + Number(x.score).toPrecision(4) + " "),
      words, lifts);
  }

  function leftOut(hidden) {
    if (!hidden || !hidden.length) return null;
    const reason = (r) => r.why === "superseded" ? "superseded by " + r.by
      : r.why === "state key" ? "keyed under " + r.key + " (current " + r.current + ")" : "scope " + JSON.stringify(r.scope);
    return h("div", {id: "left-out"}, h("h2", null, "Left out of this page"),
      h("table", null, hidden.map((x) => h("tr", {"data-id": x.id},
        h("td", {class: "mono"}, link("episode", {id: x.id}, x.id), h("div", {class: "muted"}, "would rank " + x.rank)),
        h("td", null, x.reasons.map((r) => badge(reason(r), "warn"))),
        h("td", {class: "content"}, x.content)))));
  }

  async function episodes(main, params) {
    const form = h("form", {class: "filters", role: "search"},
      h("label", null, "search (the real recall)", h("input", {type: "search", name: "q", value: params.get("q") || "", placeholder: "words, a question\u2026"})),
      select("type", TYPES, params.get("type"), "type"),
      select("trust", ["operator", "agent", "tool", "external"], params.get("trust"), "trust"),
      field("source", params.get("source"), "source"),
      field("scope", params.get("scope"), "scope", "all"),
      field("since", params.get("since"), "since", "7d or 2026-01-01"),
      field("until", params.get("until"), "until"),
      h("button", {type: "submit"}, "Search"));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const next = {};
      for (const [key, value] of new FormData(form).entries()) if (value) next[key] = value;
      location.hash = window.AM.route("episodes", next);
    });
    const results = h("div", {id: "results"}, h("p", {class: "muted"}, "Searching\u2026"));
    replace(main, h("h1", null, "Episodes"), form, results);
    const query = {limit: 25, offset: Number(params.get("offset") || 0)};
    for (const key of ["q", "type", "trust", "source", "since", "until"]) if (params.get(key)) query[key] = params.get(key);
    if (params.has("scope")) query.scope = params.get("scope");
    let data;
    try { data = await api("episodes", query); } catch (err) { replace(results, failure(err)); return; }
    const rows = data.episodes.map((e, i) => episodeRow(e, data.explanations ? data.explanations[i] : null));
    const counted = data.total === null ? (data.trust_scan_cut ? "trust filter stopped after scanning 2,000 results" : "") : data.total + " matching";
    const pager = h("div", {class: "pager"},
      data.offset > 0 ? link("episodes", Object.assign({}, Object.fromEntries(params), {offset: Math.max(0, data.offset - data.limit)}), "\u2190 newer / better") : null,
      h("span", {class: "muted", id: "count"}, counted),
      data.has_more ? link("episodes", Object.assign({}, Object.fromEntries(params), {offset: data.offset + data.limit}), "more \u2192") : null);
    replace(results, rows.length
      ? h("table", {id: "episode-table"}, h("tr", null, h("th", null, "id"), h("th", null, "type"), h("th", null, "trust / source"), h("th", null, "content")), rows)
      : h("p", {class: "muted"}, "No episode matches."), pager, leftOut(data.hidden));
  }

  function kv(pairs) {
    return h("div", {class: "kv"}, pairs.flatMap(([k, v]) => [h("div", null, k), h("div", null, v)]));
  }

  function ids(list) {
    return list.length ? list.map((i, n) => [n ? ", " : "", link("episode", {id: i}, i)]) : "none";
  }

  async function episode(main, params) {
    const data = await api("episode", {id: params.get("id") || ""});
    if (!data.found) {
      replace(main, h("h1", null, "Episode ", h("span", {class: "mono"}, data.id)),
        h("p", null, data.deleted ? "Deleted on " + data.deleted.deleted_at + " (" + data.deleted.reason + "); its id is never reused." : "No such episode."),
        auditList(data.audit));
      return;
    }
    const e = data.episode, t = data.trust;
    replace(main,
      h("h1", null, "Episode ", h("span", {class: "mono"}, e.id), " ", badge(e.type)),
      h("div", {class: "panel"}, h("div", {class: "content", id: "episode-content"}, e.content)),
      kv([
        ["recorded", e.timestamp + " by " + e.source],
        ["scope", data.scope === "" ? "(shared)" : data.scope],
        ["trust", [trustBadge(t.recorded, t.effective), t.capped_by.length ? ["capped by ", ids(t.capped_by)] : ""]],
        ["derived from", ids(e.derived_from)],
        ["replaced by", data.superseded_by ? link("episode", {id: data.superseded_by}, data.superseded_by) : "nothing (current)"],
        ["replaces", ids(data.replaces.map((l) => l.old_id))],
        ["state key", data.state_key ? [data.state_key, " \u2014 slot: ", ids(data.slot), " (" + data.slot_size + ")"] : "none"],
        ["cited by patterns", data.patterns.length ? data.patterns.map((p, n) => [n ? ", " : "", link("pattern", {name: p.name, scope: p.scope}, p.name + " (" + p.level + "x)")]) : "none"],
        ["crystals citing it", data.crystals.join(", ") || "none"],
        ["associations", data.associations.length ? data.associations.map((a, n) => {
          const other = a.a === e.id ? a.b : a.a;
          return [n ? ", " : "", link("episode", {id: other}, other), " " + a.strength.toFixed(2)];
        }) : "none"],
      ]),
      h("h2", null, "Worth (report-only: what the outcomes of its exposures say)"), window.AM.worthTable(data.worth),
      auditList(data.audit));
  }

  function auditList(audit) {
    if (!audit) return null;
    return h("div", null, h("h2", null, "Audit entries (" + audit.entries.length + " of " + audit.matched + ")"),
      auditTable(audit.entries));
  }

  function auditTable(entries) {
    return h("table", {class: "audit"}, h("tr", null, h("th", null, "seq"), h("th", null, "time"), h("th", null, "event"), h("th", null, "actor"), h("th", null, "data")),
      entries.map((e) => h("tr", null, h("td", {class: "mono"}, String(e.seq)), h("td", {class: "mono"}, String(e.ts || "").replace("T", " ").slice(0, 19)),
        h("td", null, badge(String(e.event))), h("td", null, String(e.actor)), h("td", {class: "mono content"}, short(JSON.stringify(e.data), 300)))));
  }

  async function audit(main, params) {
    const offset = Number(params.get("offset") || 0);
    const event = params.get("event") || "";
    const verdict = h("div", {class: "panel", id: "verdict"}, "Verifying the chain\u2026");
    const data = await api("audit", {limit: 50, offset: offset, event: event || null});
    const pager = h("div", {class: "pager"},
      offset > 0 ? link("audit", {event: event, offset: Math.max(0, offset - 50)}, "\u2190 newer") : null,
      h("span", {class: "muted"}, data.matched + " entries" + (event ? " of event " + event : "")),
      offset + 50 < data.matched ? link("audit", {event: event, offset: offset + 50}, "older \u2192") : null);
    replace(main, h("h1", null, "Audit trail"), verdict, pager, auditTable(data.entries));
    api("verify").then((v) => {
      replace(verdict, badge(v.verdict.valid ? "chain valid" : "chain INVALID", v.verdict.valid ? "ok" : "bad"), " " + v.verdict.summary);
    }).catch((err) => replace(verdict, failure(err)));
  }

  Object.assign(window.AM, {views: {overview, episodes, episode, audit}, auditTable, kv, ids});
}());
