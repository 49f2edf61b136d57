// @ts-check
// The parts of a provider's choice in Settings that search by meaning (embeddings.js) and the
// summaries of past tasks (summarize.js) share: the radios of the kinds, and the address, model
// and write-only key fields, named by the setting's prefix ("embeddings", "summaries").

import { el } from "./dom.js";

/**
 * A radio and its label for each [value, label, hint] of `kinds`; `chosen` is checked.
 * @param {string[][]} kinds @param {string} prefix @param {string} chosen
 */
export function kindRadios(kinds, prefix, chosen) {
  return kinds.map(([value, label, hint]) => {
    const radio = /** @type {HTMLInputElement} */ (el("input", { type: "radio", name: prefix, value, [`data-${prefix}-kind`]: value }));
    radio.checked = value === chosen;
    return { radio, label: el("label", { class: "switch" }, radio, ` ${label} `, el("span", { class: "muted" }, `(${hint})`)) };
  });
}

/**
 * The address and model fields (filled from `${prefix}_url` and `${prefix}_model`) and the key's
 * (never filled: the key is write-only), each with its label row.
 * @param {string} prefix @param {Record<string, any>} current
 */
export function providerFields(prefix, current) {
  const field = (/** @type {string} */ label, /** @type {Record<string, any>} */ attrs) => {
    const input = /** @type {HTMLInputElement} */ (el("input", { spellcheck: "false", autocomplete: "off", ...attrs }));
    return { input, row: el("label", { class: "field" }, el("span", {}, label), input) };
  };
  const url = field("Address", { type: "url", [`data-${prefix}-url`]: "" });
  const model = field("Model", { type: "text", [`data-${prefix}-model`]: "" });
  const key = field("API key", { type: "password", [`data-${prefix}-key`]: "", autocomplete: "new-password" });
  url.input.value = current[`${prefix}_url`] || "";
  model.input.value = current[`${prefix}_model`] || "";
  return { url, model, key };
}
