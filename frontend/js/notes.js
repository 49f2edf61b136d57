// @ts-check
// A compaction or checkpoint note as a separator between what came before and after: a line
// naming it ("Checkpoint 0 · the agent's note of what came before"), then the note itself at
// the transcript's own size, folded to its first lines with "Show all". Its template markup
// was taken off by the server (app/reading/notes.py).

import { copyButton } from "./copy.js";
import { el } from "./dom.js";
import { clippable } from "./folds.js";
import { build, lineCount } from "./markdown.js";

const FIRST_LINES = 4;

/** @param {any} ev @param {Set<string>} _opened */
export function compactionEl(ev, _opened) {
  const text = String(ev.note || "");
  const name = ev.note_name ? `${ev.note_name} · ` : "compaction · ";
  const note = ev.md && ev.md.length ? el("div", { class: "compaction-note md" }, build(ev.md)) : el("div", { class: "compaction-note plain" }, text);
  const lines = ev.md && ev.md.length ? lineCount(ev.md) : text.split("\n").length;
  return el("div", { class: "compaction", role: "separator", "aria-label": `${name}the agent's note of what came before`, "data-seq": ev.seq, "data-kind": ev.kind },
    el("div", { class: "compaction-line", title: `a note of records #${ev.first_seq}–#${ev.last_seq}` },
      el("span", {}, `${name}the agent's note of what came before`), text.trim() ? copyButton("note", () => text) : null),
    text.trim() ? clippable(note, lines, FIRST_LINES) : null);
}
