/* The continuity's markdown subset, rendered as DOM nodes (never as HTML text):
   headings (#..######), "-"/"*" bullets (nested by indent), paragraphs, `code`, **bold**.
   Pattern lines (given by the server, by line number) become links to their pattern page. */
"use strict";

(function () {
  const {h, route} = window.AM;

  function inline(text) {
    const out = [];
    const pattern = /(`[^`]+`|\*\*[^*]+\*\*)/g;
    let last = 0;
    let match;
    while ((match = pattern.exec(text)) !== null) {
      if (match.index > last) out.push(text.slice(last, match.index));
      const token = match[0];
      out.push(token.startsWith("`") ? h("code", null, token.slice(1, -1)) : h("strong", null, token.slice(2, -2)));
      last = match.index + token.length;
    }
    if (last < text.length) out.push(text.slice(last));
    return out;
  }

  function render(text, patterns, scope) {
    const byLine = new Map((patterns || []).map((p) => [p.line, p]));
    const root = h("div", {class: "md"});
    let list = null;
    let paragraph = null;
    const lines = String(text || "").split("\n");
    lines.forEach((raw, number) => {
      const heading = /^(#{1,6})\s+(.*)$/.exec(raw);
      const bullet = /^(\s*)[-*]\s+(.*)$/.exec(raw);
      if (heading) {
        list = null; paragraph = null;
        root.appendChild(h("h" + heading[1].length, null, ...inline(heading[2])));
      } else if (bullet || byLine.has(number)) {
        paragraph = null;
        if (!list) { list = h("ul"); root.appendChild(list); }
        const found = byLine.get(number);
        const body = bullet ? bullet[2] : raw.trim();
        if (found) {
          list.appendChild(h("li", {class: "pattern"},
            h("a", {href: route("pattern", {name: found.name, scope: scope}), title: "evidence and level history"},
              body)));
        } else {
          list.appendChild(h("li", null, ...inline(body)));
        }
      } else if (raw.trim() === "") {
        list = null; paragraph = null;
      } else {
        list = null;
        if (!paragraph) { paragraph = h("p"); root.appendChild(paragraph); }
        else paragraph.appendChild(document.createTextNode(" "));
        for (const part of inline(raw.trim())) {
          paragraph.appendChild(part instanceof Node ? part : document.createTextNode(part));
        }
      }
    });
    return root;
  }

  window.AM.markdown = render;
}());
