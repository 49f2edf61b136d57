// @ts-check
// Turns named as people count them in lists that come from memory (search results, starred
// turns): memory's head line
// ("turn seq 116-127 · completed · 2s · asked …", also what the MCP tools print) is shown as
// "turn 12 of 40 · completed · 2s · asked …", the record numbers on hover. The number needs
// the task's turns: each task's cards are read once, after the list is drawn.

import { api } from "./api.js";
import { recordsOf, turnName } from "./turncard.js";

const SEQS = /^turn seq (\d+)-(\d*)(, not finished)?( · )?/;

/** A head line without its record numbers: [the rest, "records #116–#127"].
 * @param {string} head @returns {[string, string]} */
export function withoutSeqs(head) {
  const found = SEQS.exec(head || "");
  if (!found) return [head || "", ""];
  const rest = head.slice(found[0].length);
  const unfinished = found[3] ? "not finished" : "";
  return [[unfinished, rest].filter(Boolean).join(" · "), recordsOf({ first_seq: found[1], last_seq: found[2] || null })];
}

/**
 * Write "turn 12 of 40" into each `[data-turn-name]` (its task in data-task, its first seq in
 * the value), one request per task. A task that cannot be read keeps the plain "turn".
 * @param {HTMLElement} root @param {AbortSignal} [signal]
 */
export async function numberTurns(root, signal) {
  /** @type {Map<string, HTMLElement[]>} */
  const byTask = new Map();
  for (const node of root.querySelectorAll("[data-turn-name]")) {
    const task = node.getAttribute("data-task") || "";
    if (!byTask.has(task)) byTask.set(task, []);
    byTask.get(task)?.push(/** @type {HTMLElement} */ (node));
  }
  for (const [task, nodes] of byTask) {
    try {
      const { cards } = await api.cards(task, signal);
      const order = new Map(cards.map((/** @type {any} */ c, /** @type {number} */ i) => [String(c.first_seq), i + 1]));
      for (const node of nodes) {
        const number = order.get(node.getAttribute("data-turn-name") || "");
        if (number) node.textContent = turnName(number, cards.length);
      }
    } catch {
      if (signal?.aborted) return; // the person asked something else
    }
  }
}
