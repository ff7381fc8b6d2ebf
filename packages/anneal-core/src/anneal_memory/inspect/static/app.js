/* The router: "#/view?params". The token arrives once as "#token=..." and is kept for this tab
   only (sessionStorage), then the address bar is cleared of it. */
"use strict";

(function () {
  const {h, replace, failure, TOKEN_KEY} = window.AM;

  function takeToken() {
    const hash = location.hash || "";
    if (hash.startsWith("#token=")) {
      let value = hash.slice(7);
      try { value = decodeURIComponent(value); } catch (err) { /* kept as given */ }
      sessionStorage.setItem(TOKEN_KEY, value);
      history.replaceState(null, "", location.pathname + location.search + "#/overview");
    }
  }

  function tokenForm(main) {
    const input = h("input", {type: "password", name: "token", placeholder: "bearer token"});
    const form = h("form", {class: "filters"}, h("label", null, "token", input), h("button", {type: "submit"}, "Open"));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      sessionStorage.setItem(TOKEN_KEY, input.value.trim());
      show();
    });
    replace(main, h("h1", null, "Inspector"), h("p", null, "Open the URL printed by ", h("code", null, "anneal-memory inspect"),
      ", or give a bearer token of this server:"), form);
  }

  async function show() {
    const main = document.getElementById("main");
    if (!sessionStorage.getItem(TOKEN_KEY)) { tokenForm(main); return; }
    const hash = location.hash.startsWith("#/") ? location.hash.slice(2) : "overview";
    const [name, query] = hash.split("?");
    const view = window.AM.views[name] || window.AM.views.overview;
    for (const a of document.querySelectorAll("#nav a")) {
      a.classList.toggle("active", a.getAttribute("data-view") === name);
    }
    replace(main, h("p", {class: "muted"}, "Loading\u2026"));
    try {
      await view(main, new URLSearchParams(query || ""));
      document.body.setAttribute("data-ready", name);
    } catch (err) {
      replace(main, failure(err));
      document.body.setAttribute("data-ready", "error");
    }
  }

  takeToken();
  window.addEventListener("hashchange", () => { document.body.removeAttribute("data-ready"); show(); });
  show();
}());
