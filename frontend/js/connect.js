// @ts-check
// Settings > Agents' memory: each agent that speaks MCP found on this computer, with "Connect",
// which adds nodwyn's server to that agent's configuration as `nodwyn mcp install AGENT
// --write` does (the person's other servers and comments kept, the file's first version kept
// beside it). What would be added, and where, is shown beside the button.

import { api } from "./api.js";
import { el } from "./dom.js";

/**
 * @typedef {{agent: string, label: string, detected: boolean, connected: boolean,
 *   file: string, lines: string, said: string}} Connection
 */

/** The list of agents to connect, or why it could not be read. */
export async function agentConnections() {
  const box = el("div", { class: "switches", "data-connections": "" },
    el("p", { class: "muted" }, "Connect an agent to let it search its own conversation with nodwyn's tools."));
  /** @type {Connection[]} */
  let agents = [];
  try {
    agents = (await api.connections()).agents;
  } catch (err) {
    box.append(el("p", { class: "muted" }, `Could not list the agents: ${err.message}`));
    return box;
  }
  const found = agents.filter((a) => a.detected || a.connected);
  for (const agent of found) box.append(row(agent));
  if (!found.length) box.append(el("p", { class: "muted" }, "No agent that speaks MCP was found on this computer."));
  return box;
}

/** One agent: its name, its file, "Connect" (or "Connected") and what it adds. @param {Connection} agent */
function row(agent) {
  const said = el("span", { class: "muted", role: "status", "data-connect-said": agent.agent });
  const button = /** @type {HTMLButtonElement} */ (el("button", { type: "button", "data-connect": agent.agent },
    agent.connected ? "Connected" : "Connect"));
  button.disabled = agent.connected;
  button.setAttribute("aria-label", `Connect ${agent.label}`);
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      const done = /** @type {Connection} */ (await api.connect(agent.agent));
      said.textContent = done.said;
      button.textContent = done.connected ? "Connected" : "Connect";
      button.disabled = done.connected;
    } catch (err) {
      said.textContent = `Not connected: ${err.message}`;
      button.disabled = false;
    }
  });
  const lines = el("details", {}, el("summary", {}, "What is added"), el("pre", {}, agent.lines));
  return el("div", { class: "connection", "data-agent-connection": agent.agent },
    el("strong", {}, agent.label), " ", button, " ", el("code", { title: agent.file }, agent.file), " ", said, lines);
}
