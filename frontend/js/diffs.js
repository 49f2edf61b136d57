// @ts-check
// An edit call as a unified diff (the server reads the tool's input: app/reading/edits.py):
// per file its name and counts, then hunks of lines marked +, − or unchanged, with the old
// and new line numbers where the input gave them. A long diff folds after FOLD_AT lines.

import { pageUrl } from "./api.js";
import { el } from "./dom.js";

const FOLD_AT = 40;
const OPS = { update: "edited", add: "added", delete: "deleted", write: "written" };

/** @param {any} diff */
export function diffEl(diff) {
  return el("div", { class: "diff", "data-diff": "" }, diff.files.map(fileEl));
}

/** @param {any} file */
function fileEl(file) {
  const lines = file.hunks.flatMap((/** @type {any} */ h) => h.lines);
  const head = el("div", { class: "diff-file" },
    el("code", { class: "diff-path", "data-diff-path": file.path }, file.path),
    " ", el("a", { class: "link", href: pageUrl({ view: "who", file: file.path.split(" → ").pop() }), "data-blame-link": file.path,
      title: "Each line of this file with the turn that wrote it" }, "who wrote it"),
    el("span", { class: "muted" }, ` ${OPS[/** @type {keyof OPS} */ (file.op)] || file.op} · `),
    el("span", { class: "diff-added" }, `+${file.added}`), " ",
    el("span", { class: "diff-removed" }, `−${file.removed}`),
    file.cut ? el("span", { class: "muted" }, " · cut: the rest is in the input") : null);
  const table = el("table", { class: "diff-lines" },
    el("tbody", {}, file.hunks.map((/** @type {any} */ hunk, /** @type {number} */ i) => [
      i > 0 || hunk.head ? el("tr", { class: "diff-hunk" }, el("td", { colspan: 3 }, hunk.head ? `@@ ${hunk.head}` : "⋯")) : null,
      hunk.lines.map(lineEl),
    ])));
  if (lines.length <= FOLD_AT) return el("div", { class: "diff-part" }, head, table);
  const box = el("div", { class: "clip clipped diff-clip" }, table);
  const button = el("button", { type: "button", class: "link show-all" }, `Show all ${lines.length} lines`);
  button.addEventListener("click", () => {
    const clipped = box.classList.toggle("clipped");
    button.textContent = clipped ? `Show all ${lines.length} lines` : "Show less";
  });
  return el("div", { class: "diff-part" }, head, box, button);
}

/** @param {[string, string, number|null, number|null]} line */
function lineEl([mark, text, oldNo, newNo]) {
  const kind = mark === "+" ? "add" : mark === "-" ? "del" : "same";
  return el("tr", { class: `diff-${kind}`, "data-mark": mark },
    el("td", { class: "diff-no", "aria-hidden": "true" }, oldNo ?? ""),
    el("td", { class: "diff-no", "aria-hidden": "true" }, newNo ?? ""),
    el("td", { class: "diff-text" }, el("span", { class: "diff-mark", "aria-label": kind === "add" ? "added" : kind === "del" ? "removed" : null }, mark === "-" ? "−" : mark), text));
}
