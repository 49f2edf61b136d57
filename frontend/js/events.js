// @ts-check
// Records of a log as DOM: turns with their cards (turncard.js), messages, replies (code
// blocks in monospace), tool calls with input and result folded (calls.js), compactions as
// separators, the other records as one line each (records.js), and sub-agent events nested
// under the call that started them. Every piece of log text goes in as a text node (dom.js).

import { callEl, resultEl } from "./calls.js";
import { compactionEl } from "./notes.js";
import { duration, el } from "./dom.js";
import { fold, prose } from "./folds.js";
import { BOOKKEEPING, box, nothingToShow, renderOther, said } from "./records.js";
import { speakerHead, speakerOf, subagentName } from "./speakers.js";
import { createRuns } from "./toolgroups.js";
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

const ID = /^(a?[0-9a-f]{6,}|acompact-[0-9a-f]+|[0-9a-f-]{20,})$/i; // a sub-agent named by an id only

/** The time from a call to its result, "" where either has no time. @param {string} from @param {string} to */
function took(from, to) {
  const ms = Date.parse(to) - Date.parse(from);
  return Number.isFinite(ms) && ms >= 0 ? duration(ms) || "0s" : "";
}

/**
 * Events (plain records) and cards as DOM, grouped by turn: each message under its speaker's
 * head, a reply's calls folded as one row (toolgroups.js), runs of bookkeeping folded.
 * @param {any[]} events @param {Map<number, any>} cards @param {Set<string>} opened
 * @param {(turn: number) => HTMLElement|null} [tools] what goes under a turn's card (its star)
 * @param {string} [origin] the task's agent (its log's origin), named in the replies' heads
 */
export function renderEvents(events, cards, opened, tools, origin = "") {
  const out = document.createDocumentFragment();
  /** @type {HTMLElement|DocumentFragment} */
  let turn = out;
  /** @type {Map<string, {node: HTMLElement, body: HTMLElement, summary: HTMLElement, at: string}>} */
  const calls = new Map();
  /** @type {{id: string, body: HTMLElement, agents: Map<string, HTMLElement>, name: string}[]} */
  const open = []; // main-agent calls waiting for their result: sub-agent events nest there
  /** @type {Map<string, string>} sub-agent -> the name its caller gave it */
  const names = new Map();
  const runs = createRuns(opened);
  /** @type {Map<Node, string>} the speaker whose head was drawn last in each target */
  const speaking = new Map();
  // each turn's place among all the task's turns (the cards are the whole task's), counted from 0
  const numbers = new Map([...cards.keys()].sort((a, b) => a - b).map((seq, i) => [seq, i]));

  const targetFor = (/** @type {any} */ ev) => {
    if (!ev.agent || !open.length) return turn;
    const parent = open[open.length - 1];
    if (!parent.agents.has(ev.agent)) {
      names.set(ev.agent, ID.test(ev.agent) ? parent.name : ev.agent);
      const nest = el("div", { class: "subagent", "data-agent": ev.agent, title: `sub-agent ${ev.agent}` }, el("div", { class: "subagent-name" }, `sub-agent · ${nameOf(ev.agent)}`));
      parent.body.append(nest);
      parent.agents.set(ev.agent, nest);
      const details = parent.body.closest("details");
      if (details) details.classList.add("has-subagent");
    }
    return /** @type {HTMLElement} */ (parent.agents.get(ev.agent));
  };
  const nameOf = (/** @type {string} */ agent) => names.get(agent) || (ID.test(agent) ? "sub-agent" : agent);
  const place = (/** @type {HTMLElement|DocumentFragment} */ target, /** @type {Node} */ node) => {
    runs.end(target);
    speaking.delete(target);
    target.append(node);
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
      const text = [ev.command, ev.text].filter(Boolean).join("\n");
      turn.append(said(ev, "message", speakerHead(ev, speakerOf(ev, origin), () => text),
        ev.command ? el("code", {}, ev.command) : null, prose(ev.text || "", ev.md)));
      continue;
    }
    if (nothingToShow(ev)) continue; // not drawn; its seq still counts in "events #a-#b"
    const target = targetFor(ev);
    switch (ev.kind) {
      case "reply":
        reply(ev, target);
        break;
      case "result":
        result(ev, target);
        break;
      case "message":
        place(target, said(ev, "message sub", speakerHead(ev, speakerOf(ev, origin, nameOf(ev.agent)), () => ev.text || ""), prose(ev.text || "", ev.md)));
        break;
      case "context.compact":
        runs.end(turn);
        out.append(compactionEl(ev, opened));
        turn = out;
        break;
      default: {
        const shown = ev.kind === "approval.ask" && answered.has(ev.call) ? { ...ev, answered: true } : ev;
        const node = renderOther(shown);
        if (BOOKKEEPING.has(ev.kind) && node instanceof HTMLElement) runs.add(target, "meta", node, String(ev.seq));
        else place(target, node);
      }
    }
  }
  runs.finish();
  return out;

  /** A reply: its text under its speaker's head; its calls into the run of calls. @param {any} ev @param {HTMLElement|DocumentFragment} target */
  function reply(ev, target) {
    const who = speakerOf(ev, origin, nameOf(ev.agent));
    const thinking = ev.thinking ? fold(`think:${ev.seq}`, opened, "thinking", el("pre", { class: "output" }, ev.thinking)) : null;
    const quiet = !ev.text && !thinking && speaking.get(target) === who.who; // drawn only as its calls
    if (ev.text || speaking.get(target) !== who.who) {
      // a reply with words, or the first of this speaker here: a message of its own
      const text = ev.text ? prose(ev.text, ev.md) : null;
      place(target, said(ev, "reply", speakerHead(ev, who, () => ev.text || ""), thinking, text));
      speaking.set(target, who.who);
    } else if (thinking) {
      runs.add(target, "calls", el("div", { class: "event reply thought", "data-seq": ev.seq, "data-kind": ev.kind }, thinking), String(ev.seq));
    }
    for (const [i, c] of (ev.calls || []).entries()) {
      const call = callEl(c, opened, (ev.calls || []).length);
      if (quiet && i === 0) call.node.setAttribute("data-seq", ev.seq); // a search hit on it lands here
      runs.add(target, "calls", call.node, c.id);
      calls.set(c.id, { ...call, at: ev.at });
      if (!ev.agent) open.push({ id: c.id, body: call.body, agents: new Map(), name: subagentName(c.input) });
    }
  }

  /** A result under its call (its status and time on the call's line), or alone. @param {any} ev @param {HTMLElement|DocumentFragment} target */
  function result(ev, target) {
    const call = calls.get(ev.call);
    const { node, status } = resultEl(ev);
    if (!call) {
      place(target, box(ev, "result-alone", el("div", { class: "label" }, ev.tool || "result"), node));
      return;
    }
    call.body.append(node);
    const time = took(call.at, ev.at);
    if (time) call.summary.append(el("span", { class: "call-time", title: "from the call to its result" }, time));
    if (status) call.summary.append(el("span", { class: `call-status${ev.error ? " error" : ""}` }, status));
    if (ev.error) call.node.classList.add("error");
    const at = open.findIndex((o) => o.id === ev.call);
    if (at >= 0) open.splice(at, 1);
  }
}
