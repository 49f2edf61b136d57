// @ts-check
// Records of a log as DOM: turns with their cards (turncard.js), messages, replies (code
// blocks in monospace), tool calls with input and result folded (calls.js), compactions as
// separators, the other records as one line each (records.js), and sub-agent events nested
// under the call that started them. Every piece of log text goes in as a text node (dom.js).

import { callEl, resultEl } from "./calls.js";
import { el } from "./dom.js";
import { fold, prose } from "./folds.js";
import { build } from "./markdown.js";
import { box, nothingToShow, renderOther } from "./records.js";
import { cardEl } from "./turncard.js";

/** @param {number|null|undefined} a @param {number|null|undefined} b */
function sum(a, b) {
  return a === null || a === undefined ? b : b === null || b === undefined ? a : a + b;
}

/**
 * Replies that follow each other with one response id (`src.id`) and one agent as one reply:
 * an import that found its source quiet mid-response wrote the response in two parts
 * (docs/decisions/0003-imported-sessions.md, "split replies"). Text joined as the importer
 * joins a response's blocks, calls in order; usage and cost added up, which counts them
 * once, as the log does (only the first part carries them). The parts' seqs stay known.
 * @param {any[]} events
 */
export function joinSplitReplies(events) {
  /** @type {any[]} */
  const out = [];
  for (const ev of events) {
    const last = out[out.length - 1];
    const id = ev.kind === "reply" ? ev.src?.id : null;
    if (!id || !last || last.kind !== "reply" || last.src?.id !== id || (last.agent || null) !== (ev.agent || null)) {
      out.push(ev);
      continue;
    }
    const both = (/** @type {string} */ key) => [last[key], ev[key]].filter(Boolean).join("\n\n");
    const usage = !last.usage ? ev.usage : !ev.usage ? last.usage
      : Object.fromEntries(["input", "output", "cache_read", "cache_write"].map((k) => [k, (last.usage[k] || 0) + (ev.usage[k] || 0)]));
    out[out.length - 1] = {
      ...last, text: both("text"), thinking: both("thinking"), calls: [...(last.calls || []), ...(ev.calls || [])],
      usage, cost_usd: sum(last.cost_usd, ev.cost_usd), cut: last.cut || ev.cut,
      md: last.md && ev.md ? [...last.md, ...ev.md] : undefined,
      part_seqs: [...(last.part_seqs || [last.seq]), ev.seq],
    };
  }
  return out;
}

/**
 * Events (plain records) and cards as DOM, grouped by turn.
 * @param {any[]} events @param {Map<number, any>} cards @param {Set<string>} opened
 * @param {(turn: number) => HTMLElement|null} [tools] what goes under a turn's card (its star)
 */
export function renderEvents(events, cards, opened, tools) {
  const out = document.createDocumentFragment();
  /** @type {HTMLElement|DocumentFragment} */
  let turn = out;
  /** @type {Map<string, {node: HTMLElement, body: HTMLElement, summary: HTMLElement}>} */
  const calls = new Map();
  /** @type {{id: string, body: HTMLElement, agents: Map<string, HTMLElement>}[]} */
  const open = []; // main-agent calls waiting for their result: sub-agent events nest there
  // each turn's place among all the task's turns (the cards are the whole task's), counted from 0
  const numbers = new Map([...cards.keys()].sort((a, b) => a - b).map((seq, i) => [seq, i]));

  const targetFor = (/** @type {any} */ ev) => {
    if (!ev.agent || !open.length) return turn;
    const parent = open[open.length - 1];
    if (!parent.agents.has(ev.agent)) {
      const nest = el("div", { class: "subagent", "data-agent": ev.agent }, el("div", { class: "subagent-name" }, `sub-agent ${ev.agent}`));
      parent.body.append(nest);
      parent.agents.set(ev.agent, nest);
      const details = parent.body.closest("details");
      if (details) details.classList.add("has-subagent");
    }
    return /** @type {HTMLElement} */ (parent.agents.get(ev.agent));
  };

  // asks the person answered further on: read as asked, not as waiting
  const answered = new Set(events.filter((e) => e.kind === "approval.answer").map((e) => e.call));

  for (const ev of joinSplitReplies(events)) {
    if (ev.kind === "message" && !ev.agent) {
      const card = cards.get(ev.seq);
      turn = el("section", { class: "turn", "data-turn": ev.seq });
      out.append(turn);
      if (card) turn.append(cardEl(card, opened, (numbers.get(ev.seq) || 0) + 1, numbers.size));
      if (tools) turn.append(tools(ev.seq) || "");
      turn.append(box(ev, "message", ev.command ? el("code", {}, ev.command) : null, prose(ev.text || "", ev.md)));
      continue;
    }
    if (nothingToShow(ev)) continue; // not drawn; its seq still counts in "events #a-#b"
    const target = targetFor(ev);
    switch (ev.kind) {
      case "reply": {
        const parts = [];
        if (ev.thinking) parts.push(fold(`think:${ev.seq}`, opened, "thinking", el("pre", { class: "output" }, ev.thinking)));
        if (ev.text) parts.push(prose(ev.text, ev.md));
        const node = box(ev, "reply", parts);
        for (const c of ev.calls || []) {
          const call = callEl(c, opened);
          node.append(call.node);
          calls.set(c.id, call);
          if (!ev.agent) open.push({ id: c.id, body: call.body, agents: new Map() });
        }
        target.append(node);
        break;
      }
      case "result": {
        const call = calls.get(ev.call);
        const { node: result, status } = resultEl(ev);
        if (call) {
          call.body.append(result);
          if (status) call.summary.append(el("span", { class: `call-status${ev.error ? " error" : ""}` }, status));
          if (ev.error) call.node.classList.add("error");
          const at = open.findIndex((o) => o.id === ev.call);
          if (at >= 0) open.splice(at, 1);
        } else {
          target.append(box(ev, "result-alone", el("div", { class: "label" }, ev.tool || "result"), result));
        }
        break;
      }
      case "context.compact":
        out.append(el("div", { class: "compaction", role: "separator", "data-seq": ev.seq, "data-kind": ev.kind },
          el("div", { class: "compaction-line", title: `a note of records #${ev.first_seq}–#${ev.last_seq}` }, "compaction · the agent's note of what came before"),
          el("div", { class: "compaction-note" }, ev.md ? build(ev.md) : ev.note || "")));
        turn = out;
        break;
      default:
        target.append(renderOther(ev.kind === "approval.ask" && answered.has(ev.call) ? { ...ev, answered: true } : ev));
    }
  }
  return out;
}
