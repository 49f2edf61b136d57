// @ts-check
// Settings > Agents' live states: each agent's hooks (nodwyn hooks install AGENT --write), which
// tell nodwyn at once when a session needs your answer, runs, or waits for your next prompt;
// "Install" puts them into the agent's user settings (your own hooks kept as they were),
// "Remove" takes only nodwyn's out. And whether a desktop notification says it.

import { api } from "./api.js";
import { el } from "./dom.js";

/** @typedef {{agent: string, label: string, file: string, installed: boolean, detected: boolean, said: string}} Hooked */

/**
 * The section: a row per agent found on this computer (or with hooks installed), then the
 * notification switch.
 * @param {Record<string, any>} current the settings @param {HTMLElement} said
 * @param {(settings: any) => void} onChange
 */
export async function agentHooks(current, said, onChange) {
  const box = el("div", { class: "switches", "data-hooks": "" },
    el("h3", {}, "Agents' live states"),
    el("p", { class: "muted" }, "With an agent's hooks installed, a session that asks a permission or a question " +
      "moves into “Needs an answer” within a second, saying what it asks."));
  /** @type {Hooked[]} */
  let agents = [];
  try {
    agents = (await api.hooks()).agents;
  } catch (err) {
    box.append(el("p", { class: "muted" }, `Could not list the agents: ${err.message}`));
    return box;
  }
  const shown = agents.filter((a) => a.detected || a.installed);
  for (const agent of shown) box.append(row(agent));
  if (!shown.length) box.append(el("p", { class: "muted" }, "No agent with hooks was found on this computer."));
  const notify = /** @type {HTMLInputElement} */ (el("input", { type: "checkbox", "data-setting": "notify_answers" }));
  notify.checked = current.notify_answers !== false;
  notify.addEventListener("change", async () => {
    try {
      onChange(await api.saveSettings({ notify_answers: notify.checked }));
      said.textContent = "Saved.";
    } catch (err) {
      notify.checked = !notify.checked;
      said.textContent = `Not saved: ${err.message}`;
    }
  });
  box.append(el("label", { class: "switch" }, notify, " Notify me when a session needs my answer"));
  return box;
}

/** One agent: its name, Install or Remove, its file, and what the last press did. @param {Hooked} agent */
function row(agent) {
  const said = el("span", { class: "muted", role: "status", "data-hooks-said": agent.agent });
  const button = /** @type {HTMLButtonElement} */ (el("button", { type: "button", "data-hooks-agent": agent.agent }));
  let installed = agent.installed;
  const label = () => {
    button.textContent = installed ? "Remove" : "Install";
    button.setAttribute("aria-label", `${installed ? "Remove" : "Install"} ${agent.label}'s hooks`);
  };
  label();
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      const done = /** @type {Hooked} */ (await api.setHooks(agent.agent, !installed));
      installed = done.installed;
      said.textContent = done.said;
    } catch (err) {
      said.textContent = `Not changed: ${err.message}`;
    }
    label();
    button.disabled = false;
  });
  return el("div", { class: "connection", "data-agent-hooks": agent.agent },
    el("strong", {}, agent.label), " ", button, " ", el("code", { title: agent.file }, agent.file), " ", said);
}
