// @ts-check
// First run and Settings: where nodwyn looks for the agents' sessions, "Import a folder…", and
// the person's settings in sections (settingsections.js: which agents to follow, how search
// ranks, which projects' earlier tasks agents may search, the terminal, the window). Each
// change is saved at once.

import { api } from "./api.js";
import { clear, el } from "./dom.js";
import { agentConnections } from "./connect.js";
import { agentHooks } from "./hooks.js";
import { embeddingsChoice } from "./embeddings.js";
import { summariesChoice } from "./summarize.js";
import { terminalChoice } from "./resume.js";
import { machinesSection } from "./machines.js";
import { sshMachines } from "./sshmachines.js";
import { SETTINGS_SECTIONS, addSettingsSection } from "./settingsections.js";

/** @typedef {import("./settingsections.js").SettingsContext} SettingsContext */

/** An agent's key -> its label, from the server's registry (/api/places, whose `tool` is the key). */
const AGENT_LABELS = { claude: "Claude Code", codex: "Codex" };

/** @param {{tool: string, label?: string}[]} places */
function learnNames(places) {
  for (const p of places) if (p.label) AGENT_LABELS[p.tool] = p.label;
}

/** The form that imports a folder the person names, and says how it went. */
function importForm() {
  const agent = /** @type {HTMLSelectElement} */ (el("select", { name: "agent", "aria-label": "Agent" },
    ...Object.entries(AGENT_LABELS).map(([value, label]) => el("option", { value }, label))));
  const path = /** @type {HTMLInputElement} */ (el("input", {
    type: "text", name: "path", "data-import-path": "", "aria-label": "Folder to import",
    placeholder: "/home/you/.claude/projects", spellcheck: "false", autocomplete: "off",
  }));
  const said = el("p", { class: "muted", "data-import-said": "", role: "status" });
  const form = el("form", { class: "import-form", "data-import-form": "" },
    el("label", {}, "Import a folder… ", agent), path, el("button", { type: "submit" }, "Import"), said);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    said.textContent = "Starting…";
    try {
      const started = await api.importFolder(agent.value, path.value);
      said.textContent = `Importing ${started.files} session files; progress shows at the bottom of the task list. ` +
        "nodwyn keeps following this folder for new sessions (Settings).";
    } catch (err) {
      said.textContent = `Could not import: ${err.message}`;
    }
  });
  return form;
}

/** The empty pane of a data directory with no task yet: where nodwyn looked, and an import. */
export async function firstRun(/** @type {HTMLElement} */ pane) {
  const box = el("div", { class: "empty", "data-empty": "start" }, el("h2", {}, "Nothing here yet"),
    el("p", {}, "nodwyn keeps the history of your coding-agent sessions on this computer."));
  clear(pane).append(box);
  let places = [];
  try {
    places = (await api.places()).places;
  } catch (err) {
    box.append(el("p", { class: "muted" }, `Could not ask where to look: ${err.message}`));
  }
  learnNames(places);
  const found = places.filter((p) => p.exists && p.followed);
  box.append(el("p", {}, found.length
    ? "It found your agents' sessions and is importing them; they appear on the left as they arrive."
    : "It looked for your agents' sessions and found none:"));
  box.append(el("ul", { class: "places", "data-places": "" }, ...places.map((p) =>
    el("li", { "data-place": p.tool },
      `${AGENT_LABELS[p.tool] || p.tool}: `, el("code", { title: p.path }, p.shown), " — ",
      !p.followed ? "not followed (Settings)" : p.exists ? "found" : "not there"))));
  box.append(importForm());
  box.append(el("p", { class: "muted" }, "From a terminal: ", el("code", {}, "nodwyn import claude"), " (or ",
    Object.keys(AGENT_LABELS).filter((t) => t !== "claude").join(", "), "), with a folder after it to import that folder."),
    el("p", { class: "muted" }, "To look around first: ", el("code", {}, "nodwyn app --demo"), "."));
}

/** The plain switches, each under the section it belongs to. */
const SWITCHES = [
  ["follow_claude", "Follow Claude Code's sessions", "agents"],
  ["follow_codex", "Follow Codex's sessions", "agents"],
  ["search_tool_output", "Search tool output (commands' output, files read)", "search"],
  ["show_machine_runs", "List machine runs (sessions no person typed into)", "list"],
  ["close_to_tray", "Closing the app's window keeps nodwyn in the tray", "window"],
];

/** The switches of one section. @param {string} section @param {SettingsContext} ctx */
function switches(section, { current, said, onChange }) {
  const list = el("div", { class: "switches" });
  for (const [name, label, where] of SWITCHES) {
    if (where !== section) continue;
    const box = /** @type {HTMLInputElement} */ (el("input", { type: "checkbox", name, "data-setting": name }));
    box.checked = Boolean(current[name]);
    box.addEventListener("change", async () => {
      try {
        onChange(await api.saveSettings({ [name]: box.checked }));
        said.textContent = "Saved.";
      } catch (err) {
        box.checked = !box.checked;
        said.textContent = `Not saved: ${err.message}`;
      }
    });
    list.append(el("label", { class: "switch" }, box, ` ${label}`));
  }
  return list;
}

addSettingsSection({ id: "agents", title: "Agents", draw: async (ctx) => el("div", {}, switches("agents", ctx),
  await agentSwitches(ctx.said, ctx.onChange), followedFolders(ctx.current, ctx.said, ctx.onChange)) });
addSettingsSection({ id: "live", title: "Live states", draw: (ctx) => agentHooks(ctx.current, ctx.said, ctx.onChange) });
addSettingsSection({ id: "search", title: "Search", draw: (ctx) => el("div", {}, switches("search", ctx),
  modeChoice(ctx.current, ctx.said, ctx.onChange), embeddingsChoice(ctx.current, ctx.said, ctx.onChange)) });
addSettingsSection({ id: "summaries", title: "Summaries", draw: (ctx) => summariesChoice(ctx.current, ctx.said, ctx.onChange) });
addSettingsSection({ id: "memory", title: "Agents' memory", draw: async (ctx) => el("div", {}, await agentConnections(),
  await earlierSwitches(ctx.current, ctx.said, ctx.onChange)) });
addSettingsSection({ id: "machines", title: "Machines", draw: async (ctx) => el("div", {},
  await machinesSection(ctx.onChange), await sshMachines()) });
addSettingsSection({ id: "list", title: "Task list", draw: (ctx) => switches("list", ctx) });
addSettingsSection({ id: "terminal", title: "Terminal", draw: (ctx) => terminalChoice(ctx.current, ctx.said, ctx.onChange) });
addSettingsSection({ id: "window", title: "Window", draw: (ctx) => switches("window", ctx) });

/**
 * The Settings dialog: a side navigation of its sections (settingsections.js) and a filter that
 * keeps the sections and settings whose words hold what is typed; `onChange(settings)` hears
 * every saved change.
 * @param {HTMLDialogElement} dialog
 * @param {(settings: Record<string, any>) => void} onChange
 */
export async function openSettings(dialog, onChange) {
  const said = el("p", { class: "muted settings-said", role: "status" });
  const filter = /** @type {HTMLInputElement} */ (el("input", { type: "search", class: "settings-filter", placeholder: "Filter settings", "aria-label": "Filter settings", "data-settings-filter": "" }));
  const nav = el("nav", { class: "settings-nav", "aria-label": "Settings sections" });
  const body = el("div", { class: "settings-body" }, el("p", { class: "muted" }, "Reading…"));
  clear(dialog).append(el("div", { class: "settings-top" }, el("h2", {}, "Settings"), filter),
    el("div", { class: "settings-layout" }, nav, body), said,
    el("form", { method: "dialog", class: "dialog-buttons" }, el("button", { value: "close" }, "Close")));
  dialog.showModal();
  let current;
  try {
    current = await api.settings();
  } catch (err) {
    said.textContent = `Could not read the settings: ${err.message}`;
    return;
  }
  clear(body);
  /** @type {SettingsContext} */
  const ctx = { current, said, onChange };
  for (const section of SETTINGS_SECTIONS) {
    const place = el("section", { class: "settings-section", id: `settings-${section.id}`, "data-settings-section": section.id, "aria-label": `${section.title} settings` },
      el("h3", {}, section.title));
    body.append(place);
    nav.append(el("a", { href: `#settings-${section.id}`, "data-settings-nav": section.id, onclick: (/** @type {MouseEvent} */ event) => {
      event.preventDefault();
      place.scrollIntoView({ block: "start" });
    } }, section.title));
    try {
      place.append(await section.draw(ctx));
    } catch (err) {
      place.append(el("p", { class: "muted" }, `Could not show this section: ${err.message}`));
    }
  }
  filter.addEventListener("input", () => filterSettings(body, nav, filter.value));
  filter.focus();
}

/** Keep the sections, and within them the settings, whose words hold `words`. @param {HTMLElement} body @param {HTMLElement} nav @param {string} words */
function filterSettings(body, nav, words) {
  const wanted = words.trim().toLowerCase();
  for (const section of body.querySelectorAll("[data-settings-section]")) {
    const title = section.querySelector("h3")?.textContent?.toLowerCase() || "";
    const whole = !wanted || title.includes(wanted);
    let any = whole;
    for (const item of section.querySelectorAll("label.switch, .field, .choice, fieldset")) {
      const holds = whole || (item.textContent || "").toLowerCase().includes(wanted);
      /** @type {HTMLElement} */ (item).hidden = !holds;
      any ||= holds;
    }
    /** @type {HTMLElement} */ (section).hidden = !any;
    const link = nav.querySelector(`[data-settings-nav="${section.getAttribute("data-settings-section")}"]`);
    if (link instanceof HTMLElement) link.hidden = !any;
  }
}

/**
 * A "Follow …" switch for each agent after Claude Code and Codex (setting `follow`); one not
 * set is followed when its folder exists, as /api/places says.
 */
async function agentSwitches(said, onChange) {
  const box = el("div", { class: "agent-switches" });
  let places = [];
  try {
    places = (await api.places()).places;
  } catch (err) {
    box.append(el("p", { class: "muted" }, `Could not list the agents: ${err.message}`));
  }
  learnNames(places);
  const agents = [...new Set(places.map((p) => p.tool))].filter((t) => t !== "claude" && t !== "codex");
  for (const name of agents) {
    const tick = /** @type {HTMLInputElement} */ (el("input", { type: "checkbox", "data-follow-agent": name }));
    tick.checked = places.some((p) => p.tool === name && p.followed);
    tick.addEventListener("change", async () => {
      try {
        onChange(await api.saveSettings({ follow: { [name]: tick.checked } }));
        said.textContent = "Saved.";
      } catch (err) {
        tick.checked = !tick.checked;
        said.textContent = `Not saved: ${err.message}`;
      }
    });
    box.append(el("label", { class: "switch" }, tick, ` Follow ${AGENT_LABELS[name] || name}'s sessions`));
  }
  return box;
}

/**
 * Settings > Agents' memory: per project folder, whether agents connected to `nodwyn mcp` may
 * search its earlier tasks (their own conversation they may always search).
 */
async function earlierSwitches(current, said, onChange) {
  const box = el("div", { class: "switches", "data-earlier-tasks": "" },
    el("p", { class: "muted" }, "Agents connected to nodwyn (nodwyn mcp) always search their own conversation. " +
      "Tick a project to let them search its earlier tasks too."));
  let folders = [];
  try {
    folders = [...new Set((await api.tasks()).tasks.map((t) => t.project).filter(Boolean))].sort();
  } catch (err) {
    box.append(el("p", { class: "muted" }, `Could not list the projects: ${err.message}`));
  }
  const allowed = current.earlier_tasks || {};
  if (folders.length > 8) {
    const find = /** @type {HTMLInputElement} */ (el("input", { type: "search", class: "folder-filter", placeholder: "Filter projects", "aria-label": "Filter projects", "data-folder-filter": "" }));
    find.addEventListener("input", () => {
      const wanted = find.value.trim().toLowerCase();
      for (const row of box.querySelectorAll("label.switch")) /** @type {HTMLElement} */ (row).hidden = !(row.textContent || "").toLowerCase().includes(wanted);
    });
    box.append(find);
  }
  folders.sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase()));
  for (const folder of folders) {
    const tick = /** @type {HTMLInputElement} */ (el("input", { type: "checkbox", "data-earlier": folder }));
    tick.checked = Boolean(allowed[folder]);
    tick.addEventListener("change", async () => {
      try {
        onChange(await api.saveSettings({ earlier_tasks: { [folder]: tick.checked } }));
        said.textContent = "Saved.";
      } catch (err) {
        tick.checked = !tick.checked;
        said.textContent = `Not saved: ${err.message}`;
      }
    });
    box.append(el("label", { class: "switch" }, tick, " ", el("code", { title: folder }, folder)));
  }
  if (!folders.length) box.append(el("p", { class: "muted" }, "No projects yet."));
  return box;
}

const MODES = [
  ["both", "Words and meaning (finds turns said in other words)"],
  ["words", "Words only"],
  ["meaning", "Meaning only"],
];

/** Settings > Search: how search ranks turns (the `search_mode` setting). */
function modeChoice(current, said, onChange) {
  const pick = /** @type {HTMLSelectElement} */ (el("select", { name: "search_mode", "data-setting": "search_mode" },
    ...MODES.map(([value, label]) => el("option", { value }, label))));
  pick.value = current.search_mode || "both";
  let shown = pick.value;
  pick.addEventListener("change", async () => {
    try {
      onChange(await api.saveSettings({ search_mode: pick.value }));
      shown = pick.value;
      said.textContent = "Saved.";
    } catch (err) {
      pick.value = shown;
      said.textContent = `Not saved: ${err.message}`;
    }
  });
  return el("label", { class: "switch" }, "Find turns by ", pick);
}

/**
 * Settings > Search: the folders imported with "Import a folder…", which the app keeps
 * following like the agents' own folders, each with a button to stop following it.
 */
function followedFolders(current, said, onChange) {
  const box = el("div", { class: "followed", "data-extra-folders": "" });
  let extra = /** @type {Record<string, string[]>} */ (current.extra_folders || {});
  function draw() {
    const rows = Object.entries(extra).flatMap(([agent, folders]) => folders.map((folder) => ({ agent, folder })));
    clear(box).append(el("p", { class: "muted" }, rows.length
      ? "Imported folders nodwyn keeps following for new sessions:"
      : "Folders you import with “Import a folder…” are followed here too."));
    for (const { agent, folder } of rows) {
      const stop = el("button", { type: "button", "aria-label": `Stop following ${folder}` }, "Stop following");
      stop.addEventListener("click", async () => {
        const left = { ...extra, [agent]: extra[agent].filter((f) => f !== folder) };
        try {
          const saved = await api.saveSettings({ extra_folders: left });
          extra = saved.extra_folders || {};
          onChange(saved);
          said.textContent = `Saved. ${folder} is no longer followed; its tasks stay.`;
          draw();
        } catch (err) {
          said.textContent = `Not saved: ${err.message}`;
        }
      });
      box.append(el("div", { class: "followed-row", "data-extra-folder": folder },
        el("span", { class: "muted" }, `${AGENT_LABELS[agent] || agent}:`), el("code", { title: folder }, folder), stop));
    }
  }
  draw();
  return box;
}
