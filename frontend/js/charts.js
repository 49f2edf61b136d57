// @ts-check
// Quiet charts drawn as HTML (docs/decisions/0030): bars to scale, the five largest parts in
// five colours of the Okabe-Ito set (told apart with any colour vision, ADR 0041) and the rest
// as one grey, axis labels muted, the figures on hover (a title) and in each
// bar's accessible name. Every bar and row is a button that opens what lies behind it.

import { cost, el } from "./dom.js";

/** An element with its size set through the CSSOM (the page's CSP refuses style attributes).
 * @param {HTMLElement} node @param {Record<string, string>} props */
function sized(node, props) {
  for (const [name, value] of Object.entries(props)) node.style.setProperty(name, value);
  return node;
}

const SHADES = 5; // five colours told apart by colour-blind readers too; past them "other", a grey

/** The agents with a colour of their own, the same in every view (style.css's --agent-*):
 * an agent is told by its colour wherever it is drawn, never by its rank in one chart. */
export const AGENT_COLOURS = new Set(["claude-code", "codex", "gemini-cli", "copilot-cli", "cursor", "opencode", "aider", "antigravity"]);

/** The class that colours a part: an agent's own colour when the split is by agent and it has
 * one, else the shade of its rank. @param {string} split @param {string} key @param {number} shade */
export function colourClass(split, key, shade) {
  return split === "agent" && AGENT_COLOURS.has(key) ? `agent-colour agent-${key}` : `shade-${shade}`;
}

/**
 * A figure as a person reads it: "$2.34", "482k", "14"; a cost that cannot be told says why:
 * "no usage in the log" (the agent logs no tokens: Cursor, Antigravity), "no price" (tokens of
 * a model no price is known for), "$2.34 + 3 unpriced" (turns of such a model beside priced ones).
 * @param {any} row @param {string} measure
 */
export function figure(row, measure) {
  if (measure === "turns") return String(row.turns);
  if (measure === "tokens") return compact(row.tokens);
  if (row.turns && !row.tokens && !row.cost_usd) return "no usage in the log";
  if (row.unpriced && row.unpriced === row.turns) return "no price";
  const shown = row.cost_usd ? cost(row.cost_usd) : "$0.00";
  return row.unpriced ? `${shown} + ${row.unpriced} unpriced` : shown;
}

/** @param {number} n */
function compact(n) {
  if (n >= 1e9) return `${(n / 1e9).toFixed(1)}B`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
  if (n >= 1e3) return `${Math.round(n / 1e3)}k`;
  return String(n);
}

/** @param {any} row @param {string} measure */
const value = (row, measure) => (measure === "turns" ? row.turns : measure === "tokens" ? row.tokens : row.cost_usd);

/** A period's label under its bar: "Dec 2", "Nov 30 week", "2026-11". @param {string} key @param {string} by */
function periodLabel(key, by) {
  if (by === "month") return new Date(`${key}-01T12:00:00`).toLocaleDateString(undefined, { month: "short", year: "numeric" });
  const day = new Date(`${key}T12:00:00`);
  return day.toLocaleDateString(undefined, { month: "short", day: "numeric" });
}

/** The split's keys that get a shade of their own: the largest overall. @param {any[]} rows @param {string} measure */
function shadedKeys(rows, measure) {
  /** @type {Map<string, number>} */
  const sums = new Map();
  for (const row of rows) for (const part of row.split || []) sums.set(part.key, (sums.get(part.key) || 0) + value(part, measure));
  return [...sums.entries()].sort((a, b) => b[1] - a[1]).slice(0, SHADES).map(([key]) => key);
}

/**
 * Bars over time, each stacked by the split, tallest to scale.
 * @param {any[]} rows @param {string} measure @param {string} split
 * @param {(split: string, key: string) => string} labelOf
 * @param {(title: string, row: any) => void} onOpen @param {string} by
 */
export function barChart(rows, measure, split, labelOf, onOpen, by) {
  const top = Math.max(0, ...rows.map((row) => value(row, measure)));
  const shaded = shadedKeys(rows, measure);
  const shadeOf = (/** @type {string} */ key) => {
    const at = shaded.indexOf(key);
    return at < 0 ? SHADES : at;
  };
  const every = Math.max(1, Math.ceil(rows.length / 10)); // a label on every nth bar at most
  const bars = rows.map((row, i) => {
    const label = periodLabel(row.key, by);
    const named = `${by === "week" ? `week of ${label}` : label}: ${figure(row, measure)}, ${row.turns} turn${row.turns === 1 ? "" : "s"}`;
    const height = top ? (100 * value(row, measure)) / top : 0;
    const parts = (row.split || []).slice().sort((/** @type {any} */ a, /** @type {any} */ b) => shadeOf(a.key) - shadeOf(b.key));
    const stack = sized(el("span", { class: "bar-stack" },
      parts.map((/** @type {any} */ part) => sized(el("span", { class: `bar-part ${colourClass(split, part.key, shadeOf(part.key))}` }),
        { "flex-grow": String(value(part, measure) || 0) }))), { height: `${height}%` });
    return el("div", { class: "bar-slot" },
      el("button", {
        type: "button", class: "bar", "data-bar": row.key, "aria-label": named, title: partsTitle(named, row, measure, split, labelOf),
        disabled: !row.turns, onclick: () => onOpen(by === "week" ? `week of ${label}` : label, row),
      }, stack),
      el("span", { class: `bar-label${(i / every) % 2 ? " minor" : ""}`, "aria-hidden": "true" }, i % every === 0 ? label : ""));
  });
  const legend = el("div", { class: "legend", "aria-hidden": "true" },
    [...shaded, ...(rows.some((row) => (row.split || []).some((/** @type {any} */ p) => shadeOf(p.key) === SHADES)) ? ["other"] : [])]
      .map((key, i) => el("span", { class: "legend-item" }, el("span", { class: `swatch ${key === "other" ? `shade-${SHADES}` : colourClass(split, key, i)}` }), key === "other" ? "other" : labelOf(split, key))));
  return el("div", { class: "chart", "data-chart": measure },
    el("div", { class: "chart-scale muted", "aria-hidden": "true" }, figure({ cost_usd: top, tokens: top, turns: top, unpriced: 0 }, measure)),
    el("div", { class: "bars", role: "group", "aria-label": `${measure} by ${by}` }, bars),
    legend);
}

/** The hover text of a bar: its figures, then each part's. @param {string} named @param {any} row
 * @param {string} measure @param {string} split @param {(split: string, key: string) => string} labelOf */
function partsTitle(named, row, measure, split, labelOf) {
  const lines = (row.split || []).map((/** @type {any} */ part) => `${labelOf(split, part.key)}: ${figure(part, measure)}`);
  return [named, ...lines].join("\n");
}

/**
 * Horizontal rows, one per share, a bar each to scale with the largest.
 * @param {any[]} shares @param {string} measure @param {(share: any) => string} labelOf
 * @param {(share: any) => void} onOpen @param {string} [split] by agent: each in its own colour
 */
export function shareRows(shares, measure, labelOf, onOpen, split = "") {
  if (!shares.length) return el("p", { class: "muted" }, "No turns in this time.");
  shares = shares.slice().sort((a, b) => value(b, measure) - value(a, measure)); // the measure chosen orders them
  const top = Math.max(...shares.map((share) => value(share, measure))) || 1;
  return el("ul", { class: "share-rows" }, shares.map((share, i) => el("li", {},
    el("button", { type: "button", class: "share-row", "data-share": share.key, title: `${labelOf(share)}: ${figure(share, measure)}, ${share.turns} turns`,
      onclick: () => onOpen(share) },
    el("span", { class: "share-name" }, labelOf(share)), // whole: a model's name differs at its end
    el("span", { class: "share-track", "aria-hidden": "true" },
      sized(el("span", { class: `share-bar ${colourClass(split, share.key, Math.min(i, SHADES))}` }), { width: `${(100 * value(share, measure)) / top}%` })),
    el("span", { class: "share-figure" }, figure(share, measure))))));
}
