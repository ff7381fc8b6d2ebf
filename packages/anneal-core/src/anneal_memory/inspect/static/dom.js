/* DOM helpers: every text goes in with textContent, every attribute through an allowlist.
   No function of the page parses a string as HTML or builds markup from strings. */
"use strict";

const SVG_NS = "http://www.w3.org/2000/svg";
const SAFE_ATTRS = new Set(["class", "title", "type", "value", "placeholder", "name", "id",
  "for", "min", "max", "step", "selected", "disabled", "role", "colspan"]);

function isSafeHref(value) {
  return typeof value === "string" && value.startsWith("#/");
}

function setAttrs(el, attrs) {
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "href") {
      if (isSafeHref(value)) el.setAttribute("href", value);
    } else if (key === "onclick" || key === "onsubmit" || key === "oninput" || key === "onchange") {
      el.addEventListener(key.slice(2), value);
    } else if (SAFE_ATTRS.has(key) || key.startsWith("data-") || key.startsWith("aria-")) {
      el.setAttribute(key, value === true ? "" : String(value));
    }
  }
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else if (child instanceof Node) el.appendChild(child);
    else el.appendChild(document.createTextNode(String(child)));
  }
}

/* h("a", {href: "#/x"}, "text", child...) */
function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

const SVG_ATTRS = new Set(["x", "y", "x1", "x2", "y1", "y2", "cx", "cy", "r", "width", "height",
  "viewBox", "d", "points", "fill", "stroke", "stroke-width", "stroke-dasharray", "opacity",
  "text-anchor", "class", "transform", "font-size", "dominant-baseline", "preserveAspectRatio",
  "fill-opacity", "stroke-opacity", "role", "aria-label"]);

/* s("circle", {cx: 1, ...}, child...): SVG elements, numbers and colours only. */
function s(tag, attrs, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined) continue;
    if (SVG_ATTRS.has(key) || key.startsWith("data-")) el.setAttribute(key, String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined) continue;
    el.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

function route(view, params) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params || {})) {
    if (value !== null && value !== undefined && value !== "") query.set(key, String(value));
  }
  const text = query.toString();
  return "#/" + view + (text ? "?" + text : "");
}

function link(view, params, ...children) {
  return h("a", {href: route(view, params)}, ...children);
}

function badge(text, kind) {
  return h("span", {class: "badge" + (kind ? " " + kind : "")}, text);
}

function short(text, limit) {
  const flat = String(text || "").replace(/\s+/g, " ").trim();
  return flat.length <= limit ? flat : flat.slice(0, limit - 1) + "\u2026";
}

function replace(el, ...children) {
  while (el.firstChild) el.removeChild(el.firstChild);
  append(el, children);
}

const TOKEN_KEY = "anneal-inspector-token";

function token() {
  return sessionStorage.getItem(TOKEN_KEY) || "";
}

async function api(endpoint, params) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params || {})) {
    if (value !== null && value !== undefined) query.set(key, String(value));
  }
  const url = "api/" + encodeURIComponent(endpoint) + (query.toString() ? "?" + query : "");
  const response = await fetch(url, {headers: {"Authorization": "Bearer " + token()},
    credentials: "omit", cache: "no-store", redirect: "error"});
  let body = null;
  try { body = await response.json(); } catch (err) { body = null; }
  if (!response.ok) {
    const message = body && typeof body.error === "string" ? body.error : "HTTP " + response.status;
    throw new Error(message);
  }
  return body;
}

function failure(err) {
  return h("p", {class: "error"}, String(err && err.message ? err.message : err));
}

function trustBadge(recorded, effective) {
  const kind = effective === "operator" || effective === "agent" ? "ok" : "warn";
  const label = effective && effective !== recorded ? effective + " (recorded " + recorded + ")" : recorded;
  return badge(label || "?", kind);
}

function fmtBytes(n) {
  const units = ["B", "KiB", "MiB", "GiB"];
  let value = Number(n) || 0;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) { value /= 1024; unit += 1; }
  return unit === 0 ? value + " B" : value.toFixed(1) + " " + units[unit];
}

window.AM = {h, s, route, link, badge, short, replace, api, failure, trustBadge, fmtBytes, TOKEN_KEY};
