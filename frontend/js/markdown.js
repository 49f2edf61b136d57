// @ts-check
// The one Markdown renderer (STYLE 13): it builds elements from the tree the server parsed
// (app/reading/markdown.py: `[tag, attrs, ...children]`, children nodes or text). Only the
// tags and attributes below are made, whatever a tree holds, text always as text nodes, and
// a link only for http(s) and mailto, opened outside the app (target _blank: the window
// hands it to the person's browser). Nothing is fetched: images arrive as text and links.

import { el } from "./dom.js";

const TAGS = new Set(["p", "h1", "h2", "h3", "h4", "h5", "h6", "strong", "em", "s", "code", "pre", "blockquote",
  "ul", "ol", "li", "table", "thead", "tbody", "tr", "th", "td", "a", "hr", "br", "input", "span", "div"]);
const LINK = /^(https?:|mailto:)/i;

/** @param {string} name @param {any} value @param {string} tag */
function allowed(name, value, tag) {
  if (name === "class") return typeof value === "string" && /^[\w -]*$/.test(value);
  if (name === "href") return tag === "a" && typeof value === "string" && LINK.test(value);
  if (name === "rel" || name === "target") return tag === "a";
  if (name === "start") return tag === "ol" && Number.isInteger(value);
  if (name === "data-lang") return tag === "pre" && typeof value === "string";
  if (name === "type" || name === "checked" || name === "disabled") return tag === "input";
  return false;
}

/**
 * A tree's nodes as DOM.
 * @param {any[]} nodes
 * @returns {DocumentFragment}
 */
export function build(nodes) {
  const out = document.createDocumentFragment();
  for (const node of nodes || []) out.append(buildNode(node));
  return out;
}

/** @param {any} node @returns {Node} */
function buildNode(node) {
  if (typeof node === "string") return document.createTextNode(node);
  if (!Array.isArray(node) || typeof node[0] !== "string") return document.createTextNode("");
  const [tag, attrs, ...children] = node;
  if (!TAGS.has(tag)) return document.createTextNode(textOf(children));
  /** @type {Record<string, any>} */
  const safe = {};
  for (const [name, value] of Object.entries(attrs || {})) if (allowed(name, value, tag)) safe[name] = value;
  if (tag === "input") return el("input", { type: "checkbox", disabled: true, checked: safe.checked ? "" : null, "aria-label": safe.checked ? "done" : "not done" });
  if (tag === "a" && !safe.href) return el("span", {}, ...children.map(buildNode));
  if (tag === "a") Object.assign(safe, { title: safe.href, target: "_blank", rel: "noopener noreferrer" });
  return el(tag, safe, ...children.map(buildNode));
}

/** @param {any[]} nodes @returns {string} */
function textOf(nodes) {
  return nodes.map((n) => (typeof n === "string" ? n : Array.isArray(n) ? textOf(n.slice(2)) : "")).join("");
}

/** How many lines the tree's text runs to (for folding long replies). @param {any[]} nodes */
export function lineCount(nodes) {
  return textOf(nodes).split("\n").length + (nodes || []).length;
}
