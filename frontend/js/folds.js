// @ts-check
// The transcript's folding pieces: a fold that remembers being opened across a redraw, long
// text clipped to a few lines with "Show all", tool output in monospace and a message's or
// reply's prose. Shared by the event, call and card renderers (events.js, calls.js, turncard.js).

import { copyCodeBlocks } from "./copy.js";
import { el } from "./dom.js";
import { build, lineCount } from "./markdown.js";

const CLIP_LINES = 12;

/** @param {string} key @param {Set<string>} opened @param {any} summary @param {...any} body */
export function fold(key, opened, summary, ...body) {
  const node = el("details", { class: "fold", "data-fold": key, open: opened.has(key) }, el("summary", {}, summary), ...body);
  node.addEventListener("toggle", () => {
    if (/** @type {HTMLDetailsElement} */ (node).open) opened.add(key);
    else opened.delete(key);
  });
  return node;
}

/** Long text clipped to a few lines (`limit`, 12 unless said) with "Show all".
 * @param {HTMLElement} node @param {number} lines @param {number} [limit] */
export function clippable(node, lines, limit = CLIP_LINES) {
  if (lines <= limit) return node;
  const box = el("div", { class: "clip clipped", "data-clip-lines": limit === CLIP_LINES ? null : limit }, node);
  const button = el("button", { type: "button", class: "link show-all" }, `Show all ${lines} lines`);
  button.addEventListener("click", () => {
    const clipped = box.classList.toggle("clipped");
    button.textContent = clipped ? `Show all ${lines} lines` : "Show less";
  });
  return el("div", {}, box, button);
}

/** Tool output, monospaced; its terminal colours as classed runs where it had any.
 * @param {string} text @param {[string, string][]} [runs] */
export function preText(text, runs) {
  const body = runs ? runs.map(([cls, part]) => (cls ? el("span", { class: cls }, part) : part)) : text;
  return clippable(el("pre", { class: "output" }, body), text.split("\n").length);
}

/**
 * A message's or reply's text: rendered Markdown where the server sent its tree (`md`),
 * else the text as it is; long ones fold.
 * @param {string} text @param {any[]} [md]
 */
export function prose(text, md) {
  const out = md ? el("div", { class: "prose md" }, copyCodeBlocks(build(md))) : el("div", { class: "prose plain" }, text);
  // a line is as long as a wide pane shows: a 45,000-character paste on one line folds too
  const lines = Math.max(md ? lineCount(md) : text.split("\n").length, Math.ceil(text.length / 120));
  return clippable(out, lines > 40 ? lines : 0);
}
