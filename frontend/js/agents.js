// @ts-check
// The agents' labels (the names people read), keyed by the origin a task's log names
// ("claude-code", "gemini-cli", ...). The server sends them from its registry of importers
// (/api/places), so an agent added there needs nothing here.
import { api } from "./api.js";

/** @type {Map<string, string>} */
const labels = new Map([["nodwyn", ""]]); // nodwyn's own tasks carry no agent label

/** Ask the server once for every agent's name; without an answer, origins are shown as they are. */
export async function loadAgents() {
  try {
    const { places } = await api.places();
    for (const place of places) if (place.origin) labels.set(place.origin, place.label);
  } catch {
    // the labels fall back to the origin itself
  }
}

/** The short name of the agent whose log a task was imported from ("" for nodwyn's own).
 * @param {string | undefined} origin */
export function agentLabel(origin) {
  if (!origin) return "";
  return labels.has(origin) ? /** @type {string} */ (labels.get(origin)) : origin;
}

/** The label as an element for a row or heading, or null when there is none.
 * @param {(tag: string, attrs: any, ...children: any[]) => HTMLElement} el @param {string | undefined} origin */
export function agentTag(el, origin) {
  const label = agentLabel(origin);
  return label ? el("span", { class: "agent-label", "data-agent": origin }, label) : null;
}
