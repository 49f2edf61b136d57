// @ts-check
// Runs folded into one row: a reply's tool calls (and those of the call-only replies after it)
// as "6 tool calls: Read ×3, Bash ×2, Edit", calls made together marked parallel, opening to
// one line per call; and runs of bookkeeping records ("started", "named", "resumed") as
// "3 events: …". A run of one stays as it is. Rows are gathered while the transcript is
// built and folded at the end, once every call has its result.

import { el } from "./dom.js";

/** @typedef {{slot: HTMLElement, kind: "calls"|"meta", rows: HTMLElement[], key: string}} Run */

/** "Read ×3, Bash ×2, Edit": tools in the order first used, counted. @param {string[]} tools */
export function toolCounts(tools) {
  /** @type {Map<string, number>} */
  const counts = new Map();
  for (const tool of tools) counts.set(tool, (counts.get(tool) || 0) + 1);
  return [...counts].map(([tool, n]) => (n > 1 ? `${tool} ×${n}` : tool)).join(", ");
}

/** @param {Set<string>} opened */
export function createRuns(opened) {
  /** @type {Map<Node, Run>} the run each target is adding to */
  const current = new Map();
  /** @type {Run[]} */
  const runs = [];

  return {
    /** Add a row to the target's run of `kind`, starting one where it has none.
     * @param {HTMLElement|DocumentFragment} target @param {"calls"|"meta"} kind @param {HTMLElement} row @param {string} key */
    add(target, kind, row, key) {
      let run = current.get(target);
      if (!run || run.kind !== kind) {
        run = { slot: el("div", { class: "run-slot" }), kind, rows: [], key };
        target.append(run.slot);
        current.set(target, run);
        runs.push(run);
      }
      run.rows.push(row);
      run.slot.append(row);
    },
    /** Whatever comes next in `target` starts after its run. @param {HTMLElement|DocumentFragment} target */
    end(target) {
      current.delete(target);
    },
    /** Whether the target is in a run of calls (a call-only reply goes on with it). @param {HTMLElement|DocumentFragment} target */
    inCalls: (target) => current.get(target)?.kind === "calls",
    /** Fold every run of two or more rows. */
    finish() {
      for (const run of runs) {
        const calls = run.rows.filter((row) => row.matches("details.call"));
        if (run.kind === "calls" ? calls.length < 2 && run.rows.length < 2 : run.rows.length < 2) {
          run.slot.replaceWith(...run.rows);
          continue;
        }
        const summary = run.kind === "calls" ? callsSummary(calls) : metaSummary(run.rows);
        const key = `run:${run.key}`;
        const node = el("details", { class: `run ${run.kind === "calls" ? "tool-group" : "meta-run"}`, "data-fold": key, "data-run": run.kind, open: opened.has(key) },
          el("summary", {}, summary), ...run.rows);
        node.addEventListener("toggle", () => (/** @type {HTMLDetailsElement} */ (node).open ? opened.add(key) : opened.delete(key)));
        if (calls.some((c) => c.classList.contains("error"))) node.classList.add("error");
        if (run.rows.some((r) => r.querySelector(".subagent"))) node.classList.add("has-subagent");
        run.slot.replaceWith(node);
      }
    },
  };
}

/** "6 tool calls: Read ×3, Bash ×2, Edit · 2 in parallel · 1 failed". @param {HTMLElement[]} calls */
function callsSummary(calls) {
  const tools = calls.map((c) => c.getAttribute("data-tool") || "call");
  const parallel = calls.filter((c) => c.hasAttribute("data-parallel")).length;
  const failed = calls.filter((c) => c.classList.contains("error")).length;
  return [
    el("span", { class: "run-count" }, `${calls.length} tool call${calls.length === 1 ? "" : "s"}`),
    el("span", { class: "run-tools" }, `: ${toolCounts(tools)}`),
    parallel ? el("span", { class: "run-parallel", title: `${parallel} of them made at once` }, parallel === calls.length ? " · parallel" : ` · ${parallel} in parallel`) : null,
    failed ? el("span", { class: "run-failed" }, ` · ${failed} failed`) : null,
  ];
}

/** "3 events: started in ~/src, named “x”, resumed". @param {HTMLElement[]} rows */
function metaSummary(rows) {
  const said = rows.map((r) => r.querySelector(".meta-text")?.textContent || r.textContent || "").map((t) => t.trim());
  const shown = said.slice(0, 3).join(", ");
  return `${rows.length} events: ${shown}${said.length > 3 ? `, +${said.length - 3} more` : ""}`;
}
