// @ts-check
// Settings > Search, "Vectors for search by meaning": the built-in model (the default; sends
// nothing anywhere) or a provider's embeddings (Ollama's /api/embed, the OpenAI format's
// /v1/embeddings, or Voyage AI's, which needs a key). Choosing a provider only shows its fields and what would leave the
// computer, with what embedding every task would cost; nothing is sent until the person presses
// "Use this provider". The API key is
// write-only: the page is told only whether one is set.

import { api } from "./api.js";
import { el } from "./dom.js";
import { kindRadios, providerFields } from "./providers.js";

const KINDS = [
  ["builtin", "Built-in model", "nothing leaves this computer"],
  ["ollama", "Ollama", "POST /api/embed"],
  ["openai", "OpenAI format", "OpenAI, llama.cpp, LM Studio, vLLM"],
  ["voyage", "Voyage AI", "api.voyageai.com, needs a key"],
];
const NAMES = { ollama: "Ollama", openai: "OpenAI format", voyage: "Voyage AI" };
const EXAMPLES = {
  ollama: { url: "http://127.0.0.1:11434", model: "nomic-embed-text" },
  openai: { url: "http://127.0.0.1:8080", model: "text-embedding-3-small" },
  voyage: { url: "https://api.voyageai.com", model: "voyage-3.5" },
};

/** Whether an address names this computer (then nothing leaves it). @param {string} address */
function onThisComputer(address) {
  try {
    const host = new URL(address).hostname;
    return host === "localhost" || host === "[::1]" || /^127\./.test(host);
  } catch {
    return false;
  }
}

/** @param {Record<string, any>} current */
function describe(current) {
  if (current.embeddings === "builtin" || !current.embeddings) return "Now: the built-in model.";
  const name = NAMES[/** @type {"ollama"|"openai"|"voyage"} */ (current.embeddings)] || current.embeddings;
  return `Now: ${name} at ${current.embeddings_url} (${current.embeddings_model}).`;
}

/**
 * @param {Record<string, any>} current the settings as read
 * @param {HTMLElement} said where "Saved." and errors are written
 * @param {(settings: Record<string, any>) => void} onChange
 */
export function embeddingsChoice(current, said, onChange) {
  const now = el("p", { class: "muted", "data-embeddings-now": "" }, describe(current));
  const radios = kindRadios(KINDS, "embeddings", current.embeddings || "builtin");
  const { url, model, key } = providerFields("embeddings", current);
  const keyState = el("span", { class: "muted", "data-key-state": "" });
  const forget = el("button", { type: "button", "data-forget-key": "" }, "Forget the key");
  const keyRow = el("div", { class: "key-row" }, key.row, el("div", { class: "key-state" }, keyState, forget));
  const warning = el("p", { class: "leaves", "data-embeddings-note": "", role: "note" });
  const cost = el("p", { class: "muted", "data-embeddings-cost": "" });
  const use = el("button", { type: "submit", "data-use-provider": "" }, "Use this provider");
  const form = el("form", { class: "provider", "data-provider-form": "" }, url.row, model.row, keyRow, warning, cost, use);

  let saved = current;
  const chosen = () => radios.find((r) => r.radio.checked)?.radio.value || "builtin";
  function show() {
    const kind = chosen();
    form.hidden = kind === "builtin";
    keyRow.hidden = kind !== "openai" && kind !== "voyage";
    const example = EXAMPLES[/** @type {"ollama"|"openai"|"voyage"} */ (kind)];
    if (example) {
      url.input.placeholder = example.url;
      model.input.placeholder = example.model;
      // Voyage's own address filled in, and taken away again for another kind
      if (kind === "voyage" && !url.input.value.trim()) url.input.value = example.url;
      else if (kind !== "voyage" && url.input.value.trim() === EXAMPLES.voyage.url) url.input.value = "";
    }
    keyState.textContent = saved.embeddings_key_set ? "A key is set (it is never shown)." : "No key set.";
    forget.hidden = !saved.embeddings_key_set;
    key.input.placeholder = saved.embeddings_key_set ? "type a new key to replace it" : "only if the server needs one";
    const address = url.input.value.trim() || "the address above";
    warning.textContent = "What leaves this computer: the text of every turn's card (its project folder's name, its prompt, " +
      "the start of its answer, the files and commands it touched, its errors), every compaction note, and the words of every " +
      `search are sent to ${address}. ` + (onThisComputer(address)
      ? "That address is on this computer, so nothing leaves it."
      : "If that server is not on this computer, all of that leaves it.");
    clearTimeout(waiting);
    waiting = setTimeout(() => price(kind), 300);  // once typing pauses: it reads every card
  }
  let asked = "", waiting = 0;
  /** What sending every task once would cost, asked again only when the choice changed. @param {string} kind */
  async function price(kind) {
    const query = { kind, model: model.input.value.trim(), url: url.input.value.trim() };
    if (kind === "builtin" || JSON.stringify(query) === asked) return;
    asked = JSON.stringify(query);
    try {
      const found = await api.embeddingsCost(query);
      if (asked !== JSON.stringify(query)) return;
      cost.textContent = `Every task once: ${found.texts} cards and notes, about ${found.tokens} tokens; ${found.price}. Then each new turn and each search.`;
    } catch (err) {
      cost.textContent = `No estimate: ${err.message}`;
    }
  }
  async function save(/** @type {Record<string, any>} */ changes) {
    try {
      saved = await api.saveSettings(changes);
      onChange(saved);
      said.textContent = "Saved.";
      key.input.value = "";
    } catch (err) {
      said.textContent = `Not saved: ${err.message}`;
    }
    now.textContent = describe(saved);
    show();
  }
  for (const { radio } of radios) {
    radio.addEventListener("change", () => {
      show();
      // Back to the built-in model at once: that sends nothing. A provider waits for "Use".
      if (radio.value === "builtin" && saved.embeddings !== "builtin") save({ embeddings: "builtin" });
    });
  }
  url.input.addEventListener("input", show);
  model.input.addEventListener("change", show);
  forget.addEventListener("click", () => save({ embeddings_key: "" }));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    /** @type {Record<string, any>} */
    const changes = { embeddings: chosen(), embeddings_url: url.input.value.trim(), embeddings_model: model.input.value.trim() };
    if (chosen() !== "ollama" && key.input.value.trim()) changes.embeddings_key = key.input.value.trim();
    save(changes);
  });
  show();
  return el("fieldset", { class: "embeddings", "data-embeddings": "" },
    el("legend", {}, "Vectors for search by meaning"), ...radios.map((r) => r.label), form, now);
}
