// @ts-check
// Records of a log as DOM: turns with their cards, messages, replies (code blocks in
// monospace), tool calls with input and result folded, errors marked, compactions as
// separators, and sub-agent events nested under the call that started them. Every piece
// of log text goes in as a text node (see dom.js).

import { diffEl } from "./diffs.js";
import { clock, cost, duration, el, exact, plainText } from "./dom.js";
import { build, lineCount } from "./markdown.js";

const CLIP_LINES = 12;

/** @param {string} key @param {Set<string>} opened @param {any} summary @param {...any} body */
function fold(key, opened, summary, ...body) {
  const node = el("details", { class: "fold", "data-fold": key, open: opened.has(key) }, el("summary", {}, summary), ...body);
  node.addEventListener("toggle", () => {
    if (/** @type {HTMLDetailsElement} */ (node).open) opened.add(key);
    else opened.delete(key);
  });
  return node;
}

/** Long text clipped to a few lines with "Show all". @param {HTMLElement} node @param {number} lines */
export function clippable(node, lines) {
  if (lines <= CLIP_LINES) return node;
  const box = el("div", { class: "clip clipped" }, node);
  const button = el("button", { type: "button", class: "link show-all" }, `Show all ${lines} lines`);
  button.addEventListener("click", () => {
    const clipped = box.classList.toggle("clipped");
    button.textContent = clipped ? `Show all ${lines} lines` : "Show less";
  });
  return el("div", {}, box, button);
}

/** Tool output, monospaced; its terminal colours as classed runs where it had any.
 * @param {string} text @param {[string, string][]} [runs] */
function preText(text, runs) {
  const body = runs ? runs.map(([cls, part]) => (cls ? el("span", { class: cls }, part) : part)) : text;
  return clippable(el("pre", { class: "output" }, body), text.split("\n").length);
}

/**
 * A message's or reply's text: rendered Markdown where the server sent its tree (`md`),
 * else the text as it is; long ones fold.
 * @param {string} text @param {any[]} [md]
 */
export function prose(text, md) {
  const out = md ? el("div", { class: "prose md" }, build(md)) : el("div", { class: "prose plain" }, text);
  const lines = md ? lineCount(md) : text.split("\n").length;
  return clippable(out, lines > 40 ? lines : 0);
}

/** "+3 −1" for a diff's summary line. @param {any} diff */
function diffCount(diff) {
  const added = diff.files.reduce((/** @type {number} */ n, /** @type {any} */ f) => n + f.added, 0);
  const removed = diff.files.reduce((/** @type {number} */ n, /** @type {any} */ f) => n + f.removed, 0);
  return ` +${added} −${removed}`;
}

/** A one-line summary of a call's input. @param {any} input */
function callLine(input) {
  if (input === null || input === undefined) return "";
  if (typeof input !== "object") return String(input);
  for (const key of ["command", "cmd", "file_path", "path", "pattern", "url", "description", "query"]) {
    if (typeof input[key] === "string") return input[key];
    if (Array.isArray(input[key])) return input[key].join(" ");
  }
  return JSON.stringify(input).slice(0, 200);
}

/**
 * Open the last edit in this turn that wrote `file` (its diff names it), and bring it into view.
 * @param {HTMLElement} from the card's button @param {string} file
 */
function openEdit(from, file) {
  const turn = from.closest("[data-turn]");
  const paths = [...(turn?.querySelectorAll("[data-diff-path]") || [])];
  const path = (/** @type {Element} */ n) => n.getAttribute("data-diff-path") || "";
  // the same name first; else a patch's path relative to the project ("pager/order.go")
  const exact = paths.filter((n) => path(n) === file || path(n).startsWith(`${file} →`));
  const named = exact.length ? exact : paths.filter((n) => file.endsWith(`/${path(n)}`) || path(n).endsWith(`/${file}`));
  const call = named.at(-1)?.closest("details.call");
  if (!(call instanceof HTMLDetailsElement)) return;
  call.open = true;
  call.scrollIntoView({ block: "start" });
  /** @type {HTMLElement|null} */ (call.querySelector("summary"))?.focus();
}

/** @param {any} card @param {Set<string>} opened */
function cardEl(card, opened) {
  const plan = card.plan || [];
  const commands = card.commands || [];
  const files = card.files || [];
  const errors = card.errors || [];
  const failed = commands.filter((c) => c.error).length;
  // the head line as UI.md draws it; the ask has its own line below (memory's `head`, which
  // carries the ask too, is for lists where the card stands alone: results, history)
  const seqs = `turn seq ${card.first_seq}–${card.last_seq ?? "…"}`;
  const head = [seqs, card.outcome, duration(card.duration_ms), card.cost_usd ? cost(card.cost_usd) : ""].filter(Boolean).join(" · ");
  const body = el("div", { class: "card-body" },
    card.asked ? el("p", { class: "asked" }, "asked “", card.asked, "”") : null,
    el("div", { class: "card-folds" },
      plan.length ? fold(`plan:${card.first_seq}`, opened,
        `plan (${plan.filter((p) => p.status === "completed").length}/${plan.length} done)`,
        el("ul", { class: "plan" }, plan.map((p) => el("li", { "data-status": p.status }, p.text)))) : null,
      commands.length ? fold(`cmds:${card.first_seq}`, opened,
        `${commands.length} command${commands.length > 1 ? "s" : ""}${failed ? ` (${failed} failed)` : ""}`,
        el("ul", { class: "commands" }, commands.map((c) => el("li", { class: c.error ? "error" : "" },
          el("code", {}, plainText(c.command)), c.exit !== null && c.exit !== undefined ? el("span", { class: "muted" }, ` exit ${c.exit}`) : null)))) : null,
      files.length ? fold(`files:${card.first_seq}`, opened, `${files.length} file${files.length > 1 ? "s" : ""}`,
        el("ul", { class: "files" }, files.map((f) => el("li", {}, el("button", { type: "button", class: "link file-link", "data-file": f,
          title: "Show the edit that wrote it", onclick: (/** @type {Event} */ e) => openEdit(/** @type {HTMLElement} */ (e.currentTarget), f) }, el("code", {}, f)))))) : null),
    errors.length ? el("ul", { class: "errors" }, errors.map((e) => el("li", { class: "error" }, plainText(e)))) : null);
  const key = `card:${card.first_seq}`;
  const node = el("details", { class: `card outcome-${String(card.outcome).replace(/ /g, "-")}`, "data-fold": key, "data-card": card.first_seq, open: !opened.has(`closed:${key}`) },
    el("summary", { class: "card-head" }, head), body);
  node.addEventListener("toggle", () => {
    if (/** @type {HTMLDetailsElement} */ (node).open) opened.delete(`closed:${key}`);
    else opened.add(`closed:${key}`);
  });
  return node;
}

/** @param {any} ev @param {string} cls @param {...any} body */
function box(ev, cls, ...body) {
  const seqs = ev.part_seqs || [ev.seq]; // a joined reply answers to each part's seq
  return el("div", { class: `event ${cls}`, "data-seq": ev.seq, "data-kind": ev.kind, "data-part-seqs": ev.part_seqs ? seqs.join(" ") : null },
    el("div", { class: "event-meta" }, el("time", { datetime: ev.at, title: exact(ev.at) }, clock(ev.at)),
      el("span", { class: "seq" }, seqs.map((/** @type {number} */ s) => `#${s}`).join(" + ")), ev.agent ? el("span", { class: "agent" }, ev.agent) : null),
    ...body);
}

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

  for (const ev of joinSplitReplies(events)) {
    if (ev.kind === "message" && !ev.agent) {
      const card = cards.get(ev.seq);
      turn = el("section", { class: "turn", "data-turn": ev.seq });
      out.append(turn);
      if (card) turn.append(cardEl(card, opened));
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
          const summary = el("summary", {}, el("span", { class: "tool" }, c.tool), " ", el("code", { class: "call-line" }, callLine(c.input)));
          const input = preText(typeof c.input === "string" ? c.input : JSON.stringify(c.input, null, 2));
          const body = c.diff
            ? el("div", { class: "call-body" }, diffEl(c.diff), fold(`input:${c.id}`, opened, "input as sent", input))
            : el("div", { class: "call-body" }, el("div", { class: "label" }, "input"), input);
          if (c.diff) summary.append(el("span", { class: "diff-count" }, diffCount(c.diff)));
          const key = `call:${c.id}`;
          const details = el("details", { class: "call", "data-call": c.id, "data-fold": key, open: opened.has(key) }, summary, body);
          details.addEventListener("toggle", () => (/** @type {HTMLDetailsElement} */ (details).open ? opened.add(key) : opened.delete(key)));
          node.append(details);
          calls.set(c.id, { node: details, body, summary });
          if (!ev.agent) open.push({ id: c.id, body, agents: new Map() });
        }
        target.append(node);
        break;
      }
      case "result": {
        const call = calls.get(ev.call);
        const status = ev.error ? `error${ev.exit !== undefined && ev.exit !== null ? ` · exit ${ev.exit}` : ""}` : ev.exit !== undefined && ev.exit !== null ? `exit ${ev.exit}` : "";
        const result = el("div", { class: `result${ev.error ? " error" : ""}`, "data-seq": ev.seq, "data-kind": "result" },
          el("div", { class: "label" }, "result ", el("span", { class: "seq" }, `#${ev.seq}`), status ? ` · ${status}` : ""),
          preText(ev.output || "", ev.ansi));
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
          el("div", { class: "compaction-line" }, `compaction · note of seq ${ev.first_seq}–${ev.last_seq}`),
          el("div", { class: "compaction-note" }, ev.md ? build(ev.md) : ev.note || "")));
        turn = out;
        break;
      default:
        target.append(renderOther(ev));
    }
  }
  return out;
}

const blank = (/** @type {any} */ text) => !String(text || "").trim();

/** An event that would be drawn as a bare time stamp: a reply with no text, thought or call
 * (Codex's between calls), a sub-agent's empty prompt, an empty plan or error. @param {any} ev */
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
    default:
      return false;
  }
}

/** @param {any} ev */
function renderOther(ev) {
  switch (ev.kind) {
    case "message":
      return box(ev, "message sub", prose(ev.text || "", ev.md));
    case "error":
      return box(ev, "error-event error", el("strong", {}, "error "), el("span", {}, ev.text || ""));
    case "plan":
      return box(ev, "plan-event", el("div", { class: "label" }, "plan"),
        el("ul", { class: "plan" }, (ev.items || []).map((/** @type {any} */ p) => el("li", { "data-status": p.status || "pending" }, p.text))));
    case "turn.end":
      return box(ev, `turn-end${ev.status === "failed" ? " error" : ""}`,
        [`turn ${ev.status || "completed"}`, duration(ev.duration_ms), cost(ev.cost_usd)].filter(Boolean).join(" · "));
    case "approval.ask":
      return box(ev, "asking", el("strong", {}, "waiting for an answer: "), el("code", {}, `${ev.tool} ${callLine(ev.input)}`));
    case "approval.answer":
      return box(ev, "meta-event", ev.allowed ? "allowed" : "refused");
    case "session.start":
      return box(ev, "meta-event", `started in ${ev.project}`, ev.branch ? ` on ${ev.branch}` : "", ev.origin?.tool ? ` · ${ev.origin.tool}` : "");
    case "session.title":
      return box(ev, "meta-event", ev.title ? `named “${ev.title}” by ${ev.actor || "person"}` : "name taken back");
    case "session.archive":
      return box(ev, "meta-event", ev.archived === false ? "unarchived" : "archived");
    case "bookmark":
      return document.createTextNode(""); // drawn as the star under its turn's card (stars.js)
    case "session.close":
    case "session.resume":
      return box(ev, "meta-event", ev.kind === "session.close" ? "closed" : "resumed");
    default:
      return box(ev, "opaque", fold(`raw:${ev.seq}`, new Set(), `record of kind ${ev.kind || "unknown"}`, el("pre", { class: "output" }, JSON.stringify(ev, null, 2))));
  }
}
