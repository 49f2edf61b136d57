// @ts-check
// Settings > Machines over SSH: computers where no nodwyn runs (a dev server, a cloud VM) whose
// agents' sessions are pulled over the person's own ssh. Lists each with its last pull or its
// error in one line and "Pull now"; adds one from the hosts of ~/.ssh/config (offered in a
// list) or any [user@]host, with the agents' folders there if they are not in the usual places.

import { api } from "./api.js";
import { clear, el, failure, timeEl } from "./dom.js";

const POLL_MS = 1000; // while a pull is under way, the list is read again this often

/** The section, filled from /api/machines/ssh; it redraws itself after each change. */
export async function sshMachines() {
  const box = el("div", { class: "ssh-machines", "data-ssh-machines": "" });
  const section = el("div", {}, el("h3", {}, "Machines over SSH"), box);
  async function load() {
    try {
      draw(await api.sshMachines());
    } catch (err) {
      clear(box).append(failure(`Could not list the SSH machines: ${err.message}`, load));
    }
  }
  /** @param {any} listing */
  function draw(listing) {
    clear(box).append(
      el("p", { class: "muted" }, "Sessions of Claude Code, Codex and the others on a computer you reach with ssh " +
        "are pulled here every 10 minutes while nodwyn runs (rsync, else sftp; only what grew)."),
      ...listing.machines.map((m) => row(m, draw)),
      addForm(listing.offered, draw));
    if (listing.machines.some((m) => m.pulling)) setTimeout(load, POLL_MS);
  }
  await load();
  return section;
}

/** One machine: its name and host, how its last pull went, its folders, "Pull now". */
function row(/** @type {any} */ m, /** @type {(listing: any) => void} */ draw) {
  const when = m.pulled ? new Date(m.pulled * 1000).toISOString() : "";
  const last = when ? el("span", { class: "muted" }, "Last pull: ", timeEl(when), ` (${m.via})`)
    : el("span", { class: "muted" }, "not pulled yet");
  // a pull under way, else its error (and when it last copied anything), else its last pull
  const state = m.pulling ? el("span", { class: "running" }, "pulling…")
    : m.error ? el("span", {}, el("span", { class: "error", role: "alert" }, m.error), when ? el("br") : null, when ? last : null)
      : last;
  const pull = el("button", { type: "button", "aria-label": `Pull ${m.name} now`, disabled: m.pulling || null }, "Pull now");
  pull.addEventListener("click", async () => {
    pull.setAttribute("disabled", "");
    try {
      draw(await api.sshPull(m.id));
    } catch (err) {
      pull.removeAttribute("disabled");
      state.replaceWith(el("span", { class: "error", role: "alert" }, `Could not pull: ${err.message}`));
    }
  });
  const folders = Object.entries(m.folders).map(([agent, paths]) => `${agent}=${paths.join(", ")}`);
  return el("div", { class: "ssh-machine", "data-ssh-machine": m.host },
    el("div", { class: "ssh-head" }, el("strong", {}, m.name), el("code", { title: `ssh ${m.host}` }, m.host), pull),
    el("div", { class: "ssh-state" }, state),
    m.named ? el("ul", { class: "ssh-folders muted" }, ...folders.map((f) => el("li", {}, el("code", {}, f))))
      : el("p", { class: "muted ssh-folders" }, "The agents' usual folders there (~/.claude/projects, ~/.codex/sessions, …)"));
}

/** Add a machine: a host (the ssh config's offered), folders as AGENT=PATH, a name. */
function addForm(/** @type {string[]} */ offered, /** @type {(listing: any) => void} */ draw) {
  const host = /** @type {HTMLInputElement} */ (el("input", { type: "text", name: "ssh-host", list: "ssh-hosts",
    "aria-label": "Host", placeholder: offered[0] || "dev-box or you@server", spellcheck: "false", autocomplete: "off" }));
  const hosts = el("datalist", { id: "ssh-hosts" }, ...offered.map((h) => el("option", { value: h })));
  const folders = /** @type {HTMLTextAreaElement} */ (el("textarea", { name: "ssh-folders", rows: "3",
    "aria-label": "Folders there, one AGENT=PATH a line", spellcheck: "false",
    placeholder: "empty: the agents' usual places\nelse one a line: claude=~/work/.claude/projects" }));
  const name = /** @type {HTMLInputElement} */ (el("input", { type: "text", name: "ssh-name", "aria-label": "Name", placeholder: "name (default: the host)" }));
  const said = el("p", { class: "muted", role: "status", "data-ssh-said": "" },
    offered.length ? `From your ssh config: ${offered.join(", ")}.` : "No hosts in ~/.ssh/config: type [user@]host.");
  const form = el("form", { class: "ssh-add", "data-ssh-add": "" }, el("h4", {}, "Add a machine"),
    el("label", { class: "field" }, el("span", {}, "Host"), host), hosts,
    el("label", { class: "field" }, el("span", {}, "Folders"), folders),
    el("label", { class: "field" }, el("span", {}, "Name"), name),
    el("div", { class: "ssh-submit" }, el("button", { type: "submit" }, "Add and pull")), said);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    said.textContent = "Adding…";
    try {
      draw(await api.sshAdd(host.value.trim(), folders.value.split("\n").map((f) => f.trim()).filter(Boolean), name.value.trim()));
    } catch (err) {
      said.textContent = `Not added: ${err.message}`;
    }
  });
  return form;
}
