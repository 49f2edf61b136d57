// @ts-check
// Copy buttons: a small "Copy" beside a message, a code block, a command or a path. The text
// goes to the clipboard; where the page may not write it (a window without the permission),
// it is selected in a field beside the button for Ctrl+C. A button inside a fold's summary
// copies without opening or closing the fold.

import { el } from "./dom.js";

/** Put `text` on the clipboard: true when it is there. @param {string} text */
async function write(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const field = /** @type {HTMLTextAreaElement} */ (el("textarea", { class: "copy-field", readonly: "" }));
    field.value = text;
    document.body.append(field);
    field.select();
    const done = document.execCommand("copy"); // the older way, allowed on a click
    field.remove();
    return done;
  }
}

/**
 * A button that copies what `text` gives when pressed.
 * @param {string} what what it copies, for its accessible name ("message", "command")
 * @param {() => string} text
 */
export function copyButton(what, text) {
  const button = /** @type {HTMLButtonElement} */ (el("button", { type: "button", class: "copy", "aria-label": `Copy ${what}`, title: `Copy ${what}`, "data-copy": what }));
  // its words are drawn by CSS (::before): the text of a summary or a message stays its own
  button.addEventListener("click", async (event) => {
    event.preventDefault(); // inside a <summary>: the fold stays as it is
    event.stopPropagation();
    const value = text();
    const done = await write(value);
    button.classList.toggle("copied", done);
    button.classList.toggle("refused", !done);
    if (!done) {
      button.nextElementSibling?.matches(".copy-field") && button.nextElementSibling.remove();
      const field = /** @type {HTMLInputElement} */ (el("input", { class: "copy-field shown mono", readonly: "", "aria-label": what }));
      field.value = value;
      button.after(field);
      field.select();
    }
    setTimeout(() => button.classList.remove("copied", "refused"), 1500);
  });
  return button;
}

/** Each code block under `node` gets a copy button in its corner. @param {ParentNode} node */
export function copyCodeBlocks(node) {
  for (const pre of node.querySelectorAll("pre")) {
    if (pre.parentElement?.classList.contains("code-box")) continue;
    const box = el("div", { class: "code-box" });
    pre.replaceWith(box);
    box.append(pre, copyButton("code", () => pre.textContent || ""));
  }
  return node;
}
