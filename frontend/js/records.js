// @ts-check
// The records around the conversation as one line each: errors, plans, a turn's end, an
// approval asked and answered, a task started, named, archived, closed or resumed. A record
// of a kind the page does not know is kept behind a fold; one that says nothing to a reader
// (an empty reply, a Codex `limit`: the quota meter has those) is not drawn at all.

import { agentLabel } from "./agents.js";
import { clock, cost, duration, el, exact } from "./dom.js";
import { callLine, errorText } from "./calls.js";
import { fold, prose } from "./folds.js";

/** An event's frame: its time (the exact time and record number on hover only) and body;
 * `head` replaces the time line (a message's speaker). @param {any} ev @param {string} cls @param {...any} body */
export function box(ev, cls, ...body) {
  const seqs = ev.part_seqs || [ev.seq]; // a joined reply answers to each part's seq
  const records = seqs.map((/** @type {number} */ s) => `#${s}`).join(" + ");
  return el("div", { class: `event ${cls}`, "data-seq": ev.seq, "data-kind": ev.kind, "data-part-seqs": ev.part_seqs ? seqs.join(" ") : null },
    el("div", { class: "event-meta" }, el("time", { datetime: ev.at, title: `${exact(ev.at)} · record ${records}` }, clock(ev.at))),
    ...body);
}

/** A message's frame: its speaker's head (speakers.js) over its body. @param {any} ev @param {string} cls @param {HTMLElement} head @param {...any} body */
export function said(ev, cls, head, ...body) {
  const seqs = ev.part_seqs || [ev.seq];
  return el("div", { class: `event ${cls}`, "data-seq": ev.seq, "data-kind": ev.kind, "data-part-seqs": ev.part_seqs ? seqs.join(" ") : null }, head, ...body);
}

/** A bookkeeping line: its words in `.meta-text`, so a run of them can be summed up. @param {any} ev @param {...any} words */
const meta = (ev, ...words) => box(ev, "meta-event", el("span", { class: "meta-text" }, ...words));

/** Kinds drawn as bookkeeping lines, folded together when several follow each other. */
export const BOOKKEEPING = new Set(["approval.answer", "session.start", "session.title", "session.archive", "session.close", "session.resume"]);

const blank = (/** @type {any} */ text) => !String(text || "").trim();

/** An event that would be drawn as a bare time stamp or as the app's own bookkeeping: a reply
 * with no text, thought or call (Codex's between calls), a sub-agent's empty prompt, an empty
 * plan or error, a rate-limit reading (shown by the quota meter). @param {any} ev */
export function nothingToShow(ev) {
  switch (ev.kind) {
    case "reply":
      return blank(ev.text) && blank(ev.thinking) && !(ev.calls || []).length;
    case "message":
      return blank(ev.text) && blank(ev.command) && !(ev.attachments || []).length;
    case "plan":
      return !(ev.items || []).length;
    case "error":
      return blank(ev.text);
    case "limit":
      return true;
    default:
      return false;
  }
}

/** @param {any} ev */
export function renderOther(ev) {
  switch (ev.kind) {
    case "message":
      return box(ev, "message sub", prose(ev.text || "", ev.md));
    case "error":
      return box(ev, "error-event error", el("strong", {}, "error "), el("span", {}, errorText(ev.text)));
    case "plan":
      return box(ev, "plan-event", el("div", { class: "label" }, "plan"),
        el("ul", { class: "plan" }, (ev.items || []).map((/** @type {any} */ p) => el("li", { "data-status": p.status || "pending" }, p.text))));
    case "turn.end":
      return box(ev, `turn-end${ev.status === "failed" ? " error" : ""}`,
        [`turn ${ev.status || "completed"}`, duration(ev.duration_ms), cost(ev.cost_usd)].filter(Boolean).join(" · "));
    case "approval.ask":
      if (ev.answered) return box(ev, "meta-event", "asked: ", el("code", {}, `${ev.tool} ${callLine(ev.input)}`));
      return box(ev, "asking", el("strong", {}, "waiting for an answer: "), el("code", {}, `${ev.tool} ${callLine(ev.input)}`));
    case "approval.answer":
      return meta(ev, ev.allowed ? "allowed" : "refused");
    case "session.start":
      return meta(ev, `started in ${ev.project}`, ev.branch ? ` on ${ev.branch}` : "", ev.origin?.tool ? ` · ${agentLabel(ev.origin.tool)}` : "");
    case "session.title":
      return meta(ev, ev.title ? `named “${ev.title}” by ${ev.actor === "agent" ? "the agent" : ev.actor || "you"}` : "name taken back");
    case "session.archive":
      return meta(ev, ev.archived === false ? "unarchived" : "archived");
    case "bookmark":
      return document.createTextNode(""); // drawn as the star under its turn's card (stars.js)
    case "session.close":
    case "session.resume":
      return meta(ev, ev.kind === "session.close" ? "closed" : "resumed");
    default:
      return box(ev, "opaque", fold(`raw:${ev.seq}`, new Set(), `record of kind ${ev.kind || "unknown"}`, el("pre", { class: "output" }, JSON.stringify(ev, null, 2))));
  }
}
