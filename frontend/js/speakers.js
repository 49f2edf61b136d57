// @ts-check
// Who speaks: each message's head names its speaker (You, the agent by its name, a sub-agent
// by the name its caller gave it) with the time, and for a reply its model and its tokens
// (the context it read in, what it wrote out), with a copy button for the text. Record
// numbers are only in the time's hover.

import { agentLabel } from "./agents.js";
import { copyButton } from "./copy.js";
import { clock, el, exact } from "./dom.js";

/** 12,345 as "12.3k", 1,234,567 as "1.2M". @param {number} n */
export function tokens(n) {
  if (n < 1000) return String(n);
  if (n < 1e6) return `${(n / 1000).toFixed(n < 1e4 ? 1 : 0)}k`;
  return `${(n / 1e6).toFixed(1)}M`;
}

/** "12.3k in · 450 out" for a reply's usage, the parts on hover; null without usage. @param {any} usage */
function usageEl(usage) {
  if (!usage) return null;
  const context = (usage.input || 0) + (usage.cache_read || 0) + (usage.cache_write || 0);
  const out = usage.output || 0;
  if (!context && !out) return null;
  const hover = [`context in: ${context.toLocaleString()} tokens`, `new input ${(usage.input || 0).toLocaleString()}`,
    `cache reads ${(usage.cache_read || 0).toLocaleString()}`, `cache writes ${(usage.cache_write || 0).toLocaleString()}`,
    `output: ${out.toLocaleString()} tokens`].join("\n");
  return el("span", { class: "speaker-tokens", title: hover }, `${tokens(context)} in · ${tokens(out)} out`);
}

/** The sub-agent's name its caller gave it (Claude Code's Task `subagent_type` or `description`). @param {any} input */
export function subagentName(input) {
  const data = input && typeof input === "object" ? input : {};
  const name = data.subagent_type || data.agent_type || data.description || data.name;
  return typeof name === "string" && name.trim() ? name.trim() : "sub-agent";
}

/**
 * A message's head: who, when, and for a reply its model and tokens; `copy` gives the text.
 * @param {any} ev @param {{who: string, role: string}} speaker @param {() => string} copy
 */
export function speakerHead(ev, speaker, copy) {
  const seqs = (ev.part_seqs || [ev.seq]).map((/** @type {number} */ s) => `#${s}`).join(" + ");
  return el("div", { class: "speaker", "data-speaker": speaker.role },
    el("span", { class: "speaker-name" }, speaker.who),
    el("time", { datetime: ev.at, title: `${exact(ev.at)} · record ${seqs}` }, clock(ev.at)),
    ev.kind === "reply" && ev.model ? el("span", { class: "speaker-model", title: "model" }, ev.model) : null,
    ev.kind === "reply" ? usageEl(ev.usage) : null,
    el("span", { class: "speaker-tools" }, copyButton("message", copy)));
}

/**
 * Who an event's speaker is: the person, the task's agent by name, or a sub-agent.
 * @param {any} ev @param {string} origin the task's agent (its log's tool) @param {string} [sub] a sub-agent's name
 */
export function speakerOf(ev, origin, sub) {
  if (ev.kind === "message" && !ev.agent) return { who: "You", role: "person" };
  const agent = agentLabel(origin) || "Agent";
  if (ev.agent) {
    return ev.kind === "message" ? { who: `${agent} → ${sub || "sub-agent"}`, role: "prompt" } : { who: sub || "sub-agent", role: "subagent" };
  }
  return { who: agent, role: "agent" };
}
