// @ts-check
// The status line under the search box: what nodwyn is doing in the background (importing,
// indexing, encoding N of M tasks with the time left), or the last import's note, or nothing.

import { clear, el } from "./dom.js";

/**
 * @typedef {{phase?: string, done?: number, total?: number, left?: number, note?: string}} Snapshot
 */

/** "encoding 412 of 1,216 tasks, about 3 min left", or "indexing 3/40". @param {Snapshot} snapshot */
export function progressText(snapshot) {
  const done = snapshot.done || 0;
  const total = snapshot.total || 0;
  if (snapshot.phase === "encoding" && total) {
    const seconds = snapshot.left ?? -1;
    const left = seconds >= 0 ? `, about ${Math.max(1, Math.round(seconds / 60))} min left` : "";
    return `encoding ${done.toLocaleString()} of ${total.toLocaleString()} tasks${left}`;
  }
  return `${snapshot.phase} ${total ? `${done}/${total}` : "…"}`;
}

/** Draw the change feed's progress into the line (hidden when there is nothing to say).
 * @param {HTMLElement} line @param {Snapshot|null|undefined} snapshot */
export function showProgress(line, snapshot) {
  const busy = snapshot && snapshot.phase;
  line.hidden = !busy && !(snapshot && snapshot.note);
  clear(line);
  if (!snapshot || !busy) {
    if (snapshot && snapshot.note) line.append(el("span", { "data-import-note": "" }, snapshot.note));
    return;
  }
  line.append(el("span", {}, progressText(snapshot)),
    el("progress", { max: String(snapshot.total || 1), value: String(snapshot.done || 0), "aria-label": snapshot.phase || "" }));
}
