// @ts-check
// The machines of one archive (GET /api/machines): the name to show for the machine a task ran
// on, where the archive holds more than one; and Settings > Machines: the shared folder, each
// machine in words (last seen, tasks, size, tasks nodwyn alone keeps, last error), "Sync now",
// this machine's name, forgetting another.
import { api } from "./api.js";
import { el } from "./dom.js";

/** @typedef {{id: string, name: string, kind: string, last_seen: string, tasks: number,
 *   size: number, kept_only: number, error: string, forgotten: boolean}} MachineRow */

/** @type {Map<string, string>} machine id -> name; "" is this machine */
const names = new Map();

/** @param {{this: string, machines: MachineRow[]}} shown */
function learn(shown) {
  names.clear();
  for (const row of shown.machines) names.set(row.kind === "this" ? "" : row.id, row.name);
  names.set(shown.this, names.get("") || "");
}

/** Ask once for the machines' names; without an answer no machine is named. */
export async function loadMachines() {
  try {
    learn(await api.machines());
  } catch {
    names.clear();
  }
}

/** The name of the machine a task ran on, or "" where every task ran on this one.
 * @param {string | undefined} ranOn */
export function machineLabel(ranOn) {
  if (!ranOn) return "";
  return names.get(ranOn) || ranOn.slice(0, 8);
}

/** The name of the machine a task ran on, this one's included (what the list's filter reads).
 * @param {string | undefined} ranOn */
export function machineName(ranOn) {
  return names.get(ranOn || "") || machineLabel(ranOn);
}

const UNITS = ["bytes", "KB", "MB", "GB"];

/** @param {number} count */
function size(count) {
  let unit = 0;
  while (count >= 1024 && unit < UNITS.length - 1) {
    count /= 1024;
    unit += 1;
  }
  return unit ? `${count.toFixed(1)} ${UNITS[unit]}` : `${count} bytes`;
}

/** @param {string} at */
function ago(at) {
  if (!at) return "never";
  const seconds = (Date.now() - Date.parse(at)) / 1000;
  if (!(seconds >= 0)) return at.slice(0, 16).replace("T", " ");
  if (seconds < 60) return "just now";
  if (seconds < 3600) return `${Math.floor(seconds / 60)} minutes ago`;
  if (seconds < 86400) return `${Math.floor(seconds / 3600)} hours ago`;
  return `${Math.floor(seconds / 86400)} days ago`;
}

/** One machine in words. @param {MachineRow} row @param {(id: string) => void} forget */
function machineLine(row, forget) {
  const words = [`${row.tasks} task${row.tasks === 1 ? "" : "s"}`, size(row.size)];
  if (row.kept_only) words.push(`${row.kept_only} kept only by nodwyn (the agent deleted its file)`);
  const head = row.kind === "this" ? `${row.name} (this machine)` : `${row.name}, last seen ${ago(row.last_seen)}`;
  return el("li", { "data-machine": row.id, "data-machine-kind": row.kind },
    el("strong", {}, head), ` · ${words.join(" · ")}`,
    row.forgotten ? el("span", { class: "muted" }, " · forgotten: not read") : null,
    row.error ? el("div", { class: "muted", "data-machine-error": "" }, `Last error: ${row.error}`) : null,
    row.kind !== "this" && !row.forgotten
      ? el("button", { type: "button", "data-forget": row.id, onclick: () => forget(row.id),
        title: "Its tasks leave this archive; nothing on it or in the shared folder is touched" }, "Forget")
      : null);
}

/** Settings > Machines, drawn into a section of its own. @param {(changed: any) => void} onChange */
export async function machinesSection(onChange) {
  const box = el("section", { class: "machines", "data-machines": "" }, el("h3", {}, "Machines"));
  const list = el("ul", { class: "machine-list" });
  const said = el("p", { class: "muted", role: "status", "data-machines-said": "" });
  const folder = /** @type {HTMLInputElement} */ (el("input", { type: "text", "data-share-folder": "",
    "aria-label": "Shared folder", placeholder: "/home/you/Sync/nodwyn", spellcheck: "false", autocomplete: "off" }));
  const name = /** @type {HTMLInputElement} */ (el("input", { type: "text", "data-machine-name": "",
    "aria-label": "This machine's name", autocomplete: "off" }));

  /** @param {{folder: string, this: string, machines: MachineRow[], problems?: string[]}} shown */
  function draw(shown) {
    learn(shown);
    folder.value = shown.folder;
    name.value = shown.machines.find((m) => m.kind === "this")?.name || "";
    list.replaceChildren(...shown.machines.map((row) => machineLine(row, forget)));
    const problems = shown.problems || [];
    said.textContent = problems.length ? `${problems.length} thing${problems.length === 1 ? "" : "s"} not read: ${problems[0]}` : "";
  }

  /** @param {() => Promise<any>} change @param {string} doing */
  async function run(change, doing) {
    said.textContent = doing;
    try {
      const shown = await change();
      draw(shown);
      said.textContent ||= "Done.";
      onChange(shown);
    } catch (err) {
      said.textContent = `Not done: ${err.message}`;
    }
  }

  /** @param {string} id */
  function forget(id) {
    if (!confirm(`Forget ${names.get(id) || id}? Its tasks leave this archive.`)) return;
    run(() => api.forgetMachine(id), "Forgetting…");
  }

  const shareForm = el("form", { class: "import-form", "data-share-form": "" },
    el("label", {}, "Shared folder "), folder, el("button", { type: "submit" }, "Share"),
    el("button", { type: "button", "data-sync-now": "", onclick: () => run(api.syncMachines, "Syncing…") }, "Sync now"));
  shareForm.addEventListener("submit", (event) => {
    event.preventDefault();
    run(() => api.shareFolder(folder.value), "Sharing…");
  });
  const nameForm = el("form", { class: "import-form", "data-name-form": "" },
    el("label", {}, "This machine's name "), name, el("button", { type: "submit" }, "Rename"));
  nameForm.addEventListener("submit", (event) => {
    event.preventDefault();
    run(() => api.nameMachine(name.value), "Renaming…");
  });
  box.append(el("p", { class: "muted" }, "A folder you already sync (Syncthing, Dropbox, OneDrive, iCloud Drive, Nextcloud): " +
    "each machine writes its own sub-folder there and reads the others'."), shareForm, list, nameForm, said);
  try {
    draw(await api.machines());
  } catch (err) {
    said.textContent = `Could not list the machines: ${err.message}`;
  }
  return box;
}
