// @ts-check
// The transcript pane: a task's latest events (live), or a historical window around one
// event (a search hit or a turn opened from the history panel) with the event highlighted
// and its folds open. "Earlier" and "Later" read at most 500 more records each. Nothing
// here writes: historical views never change a task.

import { api } from "./api.js";
import { clear, el } from "./dom.js";
import { renderEvents } from "./events.js";
import { markWords } from "./marks.js";
import { createTurnNav } from "./turnnav.js";
import { turnTools } from "./stars.js";

const PAGE = 500;
const AFTER_JUMP = 80; // records read from a turn jumped to, it and what follows (as many as a task opens with)

/**
 * @param {{pane: HTMLElement, onBack: () => void, onOpenTurn: (seq: number) => void,
 *          failure: (message: string, retry: () => void) => HTMLElement,
 *          onError: (message: string, retry: () => void) => void}} options
 */
export function createTranscript({ pane, onBack, onOpenTurn, failure, onError }) {
  /** @type {{task: string, turns: Map<number, string>}} */
  let stars = { task: "", turns: new Map() }; // the open task's starred turns: turn -> note
  /** @type {{task: string, hit: number|null, events: any[], cards: Map<number, any>, turns: any[],
   *   hasEarlier: boolean, hasLater: boolean, total: number, backLabel: string}|null} */
  let view = null;
  /** @type {Set<string>} */
  let opened = new Set();
  let loading = 0; // the number of the latest load: an older answer is dropped
  const nav = createTurnNav({
    pane,
    turns: () => view?.turns || [],
    firstShown: () => view?.events[0]?.seq ?? null,
    read: (seq) => view && load(view.task, null, "", seq),
  });
  /** @type {string[]} */
  let words = []; // the search's words, marked inside the highlighted event
  let origin = ""; // the open task's agent, named over its replies
  /** @type {number|null} */

  /** @param {string} task @param {number|null} hit @param {string} backLabel
   * @param {number|null} [anchor] a turn jumped to from the outline: read from it on */
  async function load(task, hit, backLabel, anchor = null) {
    const mine = ++loading;
    if (anchor === null) clear(pane).append(el("p", { class: "muted loading" }, "Reading…"));
    const around = anchor !== null ? { seq: anchor, before: 0, after: AFTER_JUMP } : { seq: hit, before: 40, after: 40 };
    const known = anchor !== null && view?.task === task ? view : null; // a jump keeps the cards read
    try {
      const [window_, cards, starred] = await Promise.all([
        api.context(task, around),
        known ? { cards: known.turns } : api.cards(task),
        api.taskStars(task).catch(() => ({ turns: {} })),
      ]);
      if (mine !== loading) return;
      stars = { task, turns: new Map(Object.entries(starred.turns).map(([turn, note]) => [Number(turn), String(note)])) };
      if (!view || view.task !== task) opened = new Set();
      view = {
        task, hit, events: window_.events, cards: new Map(cards.cards.map((/** @type {any} */ c) => [c.first_seq, c])), turns: cards.cards,
        hasEarlier: window_.has_earlier, hasLater: window_.has_later, total: window_.total, backLabel,
      };
      render();
      if (anchor !== null) nav.showTurn(anchor);
      else if (hit !== null) reveal(hit);
      else pane.scrollTop = pane.scrollHeight;
      if (hit !== null) takeFocus(pane.querySelector(".events [data-hit]"));
    } catch (err) {
      if (mine !== loading) return;
      clear(pane).append(failure(`Could not read this task: ${err.message}`, () => load(task, hit, backLabel, anchor)));
    }
  }

  /** Read a page of up to 500 more records before or after what is shown. @param {boolean} earlier */
  async function more(earlier) {
    if (!view) return;
    const current = view;
    const mine = ++loading;
    const seq = earlier ? current.events[0].seq - 1 : current.events[current.events.length - 1].seq + 1;
    const around = earlier ? { seq, before: PAGE - 1, after: 0 } : { seq, before: 0, after: PAGE - 1 };
    try {
      const page = await api.context(current.task, around);
      if (mine !== loading || view !== current) return;
      const anchor = earlier ? pane.querySelector("[data-seq]") : null;
      const offset = anchor ? anchor.getBoundingClientRect().top : 0;
      const known = new Set(current.events.map((e) => e.seq));
      const fresh = page.events.filter((/** @type {any} */ e) => !known.has(e.seq));
      current.events = earlier ? [...fresh, ...current.events] : [...current.events, ...fresh];
      if (earlier) current.hasEarlier = page.has_earlier;
      else current.hasLater = page.has_later;
      render();
      if (anchor instanceof HTMLElement) {
        const again = pane.querySelector(`[data-seq="${anchor.dataset.seq}"]`);
        if (again) pane.scrollTop += again.getBoundingClientRect().top - offset; // nothing jumps
      }
    } catch (err) {
      if (mine !== loading) return;
      // said beside the button that was pressed: at the far end of the pane it would go unseen
      for (const old of pane.querySelectorAll("[data-more-failure]")) old.remove();
      const box = failure(`Could not read more: ${err.message}`, () => {
        box.remove();
        more(earlier);
      });
      box.setAttribute("data-more-failure", "");
      const button = pane.querySelector(earlier ? "[data-earlier]" : "[data-later]");
      if (button) button.after(box);
      else pane.prepend(box);
      box.scrollIntoView({ block: "nearest" });
    }
  }

  /** Where the keyboard is in the pane, as a selector that finds it again after a render. */
  function focusedPlace() {
    const active = document.activeElement;
    if (!(active instanceof HTMLElement) || !pane.contains(active)) return null;
    if (active.matches("[data-earlier], [data-later], [data-hit]")) {
      return active.hasAttribute("data-earlier") ? "[data-earlier]" : active.hasAttribute("data-later") ? "[data-later]" : ".events [data-hit]";
    }
    if (active.matches("[data-star], [data-star-note]")) {
      const name = active.hasAttribute("data-star") ? "data-star" : "data-star-note";
      return `[${name}="${active.getAttribute(name)}"]`;
    }
    const fold = active.closest("[data-fold]")?.getAttribute("data-fold");
    if (active.tagName === "SUMMARY" && fold) return `[data-fold="${CSS.escape(fold)}"] > summary`;
    const note = active.getAttribute("data-star-note");
    if (note !== null) return `input[data-star-note="${CSS.escape(note)}"]`;
    return ""; // somewhere in the pane: the pane itself
  }

  /** @param {string|null} place */
  function refocus(place) {
    if (place === null) return;
    const node = (place && pane.querySelector(place)) || pane;
    if (node instanceof HTMLElement) node.focus({ preventScroll: true });
  }

  function render() {
    if (!view) return;
    const scroll = pane.scrollTop;
    const place = focusedPlace(); // a refresh or another page never drops the keyboard's place
    const typed = typedNotes(); // nor a star's note being typed (a refresh can land mid-word)
    const main = el("div", { class: "reader-main" });
    clear(pane).append(el("div", { class: "reader" }, main));
    const historical = view.hit !== null;
    if (historical) {
      main.append(el("div", { class: "banner", "data-historical": "" },
        el("span", { title: `record #${view.hit}` }, "Historical view around a search hit"),
        el("button", { type: "button", class: "link", onclick: onBack }, view.backLabel)));
    }
    if (!view.events.length) {
      main.append(el("p", { class: "empty muted" }, "This task has no events yet."));
      return;
    }
    const first = view.events[0].seq;
    const last = view.events[view.events.length - 1].seq;
    if (view.hasEarlier) {
      main.append(el("button", { type: "button", class: "page-button", "data-earlier": "", title: `records before #${first}`, onclick: () => more(true) },
        `Earlier (${nav.turnsBefore(first)})`));
    }
    main.append(el("div", { class: "events", "data-events": "" }, renderEvents(view.events, view.cards, opened,
      (turn) => turnTools(view?.task || "", turn, stars.turns, onError), origin)));
    if (view.hasLater) {
      main.append(el("button", { type: "button", class: "page-button", "data-later": "", title: `records after #${last}`, onclick: () => more(false) },
        "Later"));
    }
    main.append(el("p", { class: "muted window-note", title: `records #${first}–#${last} of ${view.total}` }, nav.shownTurns(first, last)));
    nav.draw(main);
    if (historical && view.hit !== null) mark(view.hit);
    pane.scrollTop = scroll;
    for (const [turn, value] of typed) {
      const field = pane.querySelector(`input[data-star-note="${CSS.escape(turn)}"]`);
      if (field instanceof HTMLInputElement) field.value = value;
    }
    refocus(place);
    nav.follow();
  }

  /** The star notes whose text differs from what was drawn: [turn, text]. */
  function typedNotes() {
    return [...pane.querySelectorAll("input[data-star-note]")]
      .filter((field) => field instanceof HTMLInputElement && field.value !== field.defaultValue)
      .map((field) => [field.getAttribute("data-star-note") || "", /** @type {HTMLInputElement} */ (field).value]);
  }

  /** Highlight an event and open every fold around it. @param {number} seq */
  function mark(seq) {
    // a reply joined from two parts answers to the second part's seq too (events.js)
    const node = pane.querySelector(`.events [data-seq="${seq}"]`) || pane.querySelector(`.events [data-part-seqs~="${seq}"]`);
    if (!node) return null;
    node.classList.add("hit");
    node.setAttribute("data-hit", "");
    node.setAttribute("tabindex", "-1"); // the keyboard starts from here
    markWords(node, words);
    for (let up = node.parentElement; up && up !== pane; up = up.parentElement) {
      if (up instanceof HTMLDetailsElement) up.open = true;
    }
    for (const inner of node.querySelectorAll("details.call")) {
      if (inner instanceof HTMLDetailsElement) inner.open = true; // a reply's calls: show them
    }
    for (const clip of node.querySelectorAll(".clip.clipped")) {
      clip.classList.remove("clipped"); // the matched words may lie past the first lines
      const button = clip.nextElementSibling;
      if (button instanceof HTMLButtonElement) button.textContent = "Show less";
    }
    return node;
  }

  /** Give the keyboard to a node of the pane, unless the person is busy elsewhere (typing
   * in a field): the link or button that led here is gone, and the page's top is no place
   * to leave the focus. @param {Element|null} node */
  function takeFocus(node) {
    const active = document.activeElement;
    const lost = !active || active === document.body || active === pane || pane.contains(active);
    if (lost && node instanceof HTMLElement) node.focus({ preventScroll: true });
  }

  /** @param {number} seq */
  function reveal(seq) {
    const node = mark(seq);
    const first = node?.querySelector("mark") || node;
    if (first) first.scrollIntoView({ block: "center" });
  }

  return {
    /** @param {string} task @param {string} [agent] the task's origin */
    live: (task, agent = "") => {
      origin = agent;
      return load(task, null, "");
    },
    /** @param {string} task @param {number} seq @param {string} backLabel @param {string[]} [marks] @param {string} [agent] */
    around: (task, seq, backLabel, marks = [], agent = "") => {
      words = marks;
      origin = agent;
      return load(task, seq, backLabel);
    },
    /** Read the live view again after a change, keeping the reader's place. @param {string} task */
    async refresh(task) {
      if (!view || view.task !== task || view.hit !== null || view.hasLater) return;
      const atBottom = pane.scrollTop + pane.clientHeight >= pane.scrollHeight - 40;
      try {
        const mine = ++loading;
        const [window_, cards] = await Promise.all([api.context(task, {}), api.cards(task)]);
        if (mine !== loading || !view || view.task !== task) return;
        const from = window_.events.length ? window_.events[0].seq : Infinity;
        const shownTo = view.events.length ? view.events[view.events.length - 1].seq : 0;
        const added = window_.events.filter((/** @type {any} */ e) => e.seq > shownTo);
        // a star is drawn where it was given: drawing the pane again would take the note
        // being typed away (and the star adds nothing to the events shown)
        const quiet = added.length > 0 && added.every((/** @type {any} */ e) => e.kind === "bookmark");
        view.events = [...view.events.filter((e) => e.seq < from), ...window_.events];
        view.cards = new Map(cards.cards.map((/** @type {any} */ c) => [c.first_seq, c]));
        view.turns = cards.cards;
        view.hasEarlier = view.events.length ? view.events[0].seq > 1 : false;
        view.total = window_.total;
        if (quiet) return;
        render();
        if (atBottom) pane.scrollTop = pane.scrollHeight;
      } catch {
        // the next change will try again; the page keeps what it shows
      }
    },
    cancel: () => {
      loading++;
      view = null;
    },
  };
}
