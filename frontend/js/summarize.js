// @ts-check
// "Summarize…" (ADR 0033): past tasks summarized by the provider chosen in Settings, only
// after the person has seen the estimate (tasks, turns, tokens, cost, time) and exactly what
// would be sent where, and pressed Confirm: the estimate asks nothing of the provider, and the
// run presents the estimate's token. While it runs the dialog shows its progress and Stop.
// `summariesChoice` is the Settings section where the provider is chosen.

import { api } from "./api.js";
import { el } from "./dom.js";
import { kindRadios, providerFields } from "./providers.js";

const POLL_MS = 500; // how often a run's progress is read while the dialog is open

/** @param {number} seconds */
const minutes = (seconds) => (seconds >= 60 ? `about ${Math.round(seconds / 60)} min` : `about ${seconds} s`);

/** @param {any} plan */
function facts(plan) {
  const rows = [
    ["Tasks", plan.tasks], ["Turns", plan.turns], ["Requests", plan.requests.length],
    ["Input tokens", `about ${plan.input_tokens.toLocaleString()}`],
    ["Output tokens", `at most ${plan.output_tokens.toLocaleString()}`],
    ["Cost", plan.price], ["Time", minutes(plan.seconds)],
    ["Sent to", plan.address], ["Model", plan.model],
  ];
  return el("dl", { class: "summarize-facts", "data-summarize-estimate": "" },
    rows.map(([name, value]) => [el("dt", {}, String(name)),
      el("dd", { "data-fact": String(name).toLowerCase().replace(/ /g, "-") }, String(value))]));
}

/** The exact texts that would be sent, one per request, folded away. @param {any} plan */
function texts(plan) {
  return el("details", { "data-summarize-texts": "" }, el("summary", {}, "The exact text of each request"),
    plan.requests.map((/** @type {any} */ r) => el("pre", { class: "mono" }, r.prompt)));
}

/**
 * Open the dialog for some tasks (or a folder) and estimate; nothing is sent until Confirm.
 * @param {HTMLDialogElement} dialog @param {{tasks?: string[], project?: string}} asked
 * @param {string} heading
 */
export function openSummarize(dialog, asked, heading) {
  const said = el("p", { class: "muted", role: "status", "data-summarize-status": "" }, "Estimating… nothing is sent yet.");
  const body = el("div", {});
  const confirm = /** @type {HTMLButtonElement} */ (el("button", { type: "button", "data-summarize-confirm": "", disabled: true }, "Confirm and send"));
  const close = el("button", { value: "cancel", "data-summarize-close": "" }, "Cancel");
  dialog.replaceChildren(el("form", { method: "dialog" }, el("h2", {}, heading), body, said,
    el("div", { class: "dialog-buttons" }, confirm, close)));
  dialog.showModal();
  let plan = null;
  api.summariesEstimate(asked).then((found) => {
    plan = found;
    if (!found.requests.length) {
      said.textContent = "Nothing to summarize: every turn already has a provider's summary.";
      return;
    }
    body.replaceChildren(facts(found), el("p", { class: "leaves", role: "note", "data-summarize-sentence": "" }, found.sentence), texts(found));
    said.textContent = "Nothing has been sent. Confirm to send these requests.";
    confirm.disabled = false;
  }, (err) => {
    said.textContent = `Cannot summarize: ${err.message}`;
    said.classList.add("error");
  });
  confirm.addEventListener("click", async () => {
    confirm.disabled = true;
    try {
      watch(dialog, await api.summariesRun({ ...asked, token: plan.token }), said, close);
    } catch (err) {
      said.textContent = `Not sent: ${err.message}`;
      said.classList.add("error");
    }
  });
}

/** @param {HTMLDialogElement} dialog @param {any} progress @param {HTMLElement} said @param {HTMLElement} close */
function watch(dialog, progress, said, close) {
  const stop = el("button", { type: "button", "data-summarize-stop": "" }, "Stop");
  stop.addEventListener("click", () => api.summariesCancel());
  close.textContent = "Close";
  close.before(stop);
  const show = (/** @type {any} */ p) => {
    const count = `${p.done} of ${p.requests} summaries written`;
    said.textContent = p.state === "running" ? `${count}${p.title ? `; now: ${p.title}` : ""}…`
      : p.state === "failed" ? `Stopped: ${p.error} (${count})`
      : p.state === "cancelled" ? `Stopped: ${count}. Summarize again to go on.` : `Done: ${count}.`;
    stop.hidden = p.state !== "running";
    if (p.state === "running" && dialog.open) setTimeout(() => api.summariesProgress().then(show, () => {}), POLL_MS);
  };
  show(progress);
}

const KINDS = [
  ["off", "Off", "nothing is sent"],
  ["ollama", "Ollama", "this computer; free"],
  ["openai", "OpenAI format", "OpenAI, llama.cpp, LM Studio, vLLM"],
  ["anthropic", "Anthropic", "Messages API"],
];
const EXAMPLES = {
  ollama: ["http://127.0.0.1:11434", "llama3.2", "/api/chat"],
  openai: ["https://api.openai.com", "gpt-5-mini", "/v1/chat/completions"],
  anthropic: ["https://api.anthropic.com", "claude-haiku-4-5", "/v1/messages"],
};

/**
 * Settings' "Summaries of past tasks": the provider, its address, model and write-only key,
 * and the sentence saying exactly what would be sent where. Saved by "Use this provider".
 * @param {Record<string, any>} current @param {HTMLElement} said
 * @param {(settings: Record<string, any>) => void} onChange
 */
export function summariesChoice(current, said, onChange) {
  const radios = kindRadios(KINDS, "summaries", current.summaries || "off");
  const { url, model, key } = providerFields("summaries", current);
  const sentence = el("p", { class: "leaves", role: "note", "data-summaries-note": "" });
  const use = el("button", { type: "submit", "data-summaries-use": "" }, "Use this provider");
  const form = el("form", { class: "provider" }, url.row, model.row, key.row, sentence, use);
  let saved = current;
  const chosen = () => radios.find((r) => r.radio.checked)?.radio.value || "off";
  function show() {
    const kind = chosen();
    form.hidden = kind === "off";
    const [address, example, path] = EXAMPLES[/** @type {"ollama"} */ (kind)] || ["", "", ""];
    url.input.placeholder = address;
    model.input.placeholder = example;
    key.input.placeholder = saved.summaries_key_set ? "a key is set (never shown); type one to replace it" : "only if the server needs one";
    const where = `${(url.input.value.trim() || address).replace(/\/+$/, "")}${path}`;
    sentence.textContent = `When you summarize tasks (Summarize… on a task), and only after you confirm its estimate, ` +
      `the cards of the turns not summarized yet (the project folder, each prompt, the start of each answer, the files, ` +
      `commands and errors, redacted) are sent to ${where} for the model ${model.input.value.trim() || example}` +
      `${kind === "ollama" ? "" : ", with the API key"}. Nothing else is sent, and nothing before you confirm.`;
  }
  for (const { radio } of radios) {
    radio.addEventListener("change", () => {
      show();
      if (radio.value === "off" && saved.summaries !== "off") save({ summaries: "off" });
    });
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
    show();
  }
  url.input.addEventListener("input", show);
  model.input.addEventListener("input", show);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const kind = chosen();
    /** @type {Record<string, any>} */
    const changes = { summaries: kind, summaries_url: url.input.value.trim() || EXAMPLES[/** @type {"ollama"} */ (kind)][0], summaries_model: model.input.value.trim() };
    if (key.input.value.trim()) changes.summaries_key = key.input.value.trim();
    save(changes);
  });
  show();
  return el("fieldset", { class: "embeddings", "data-summaries": "" }, el("legend", {}, "Summaries of past tasks"), ...radios.map((r) => r.label), form);
}
