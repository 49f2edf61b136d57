// @ts-check
// Finding one's way through a task's turns in the transcript pane: the outline drawn beside
// (or folded above) the events, the turn at the pane's top marked in it as the reader
// scrolls, a jump to any turn (scrolled to where it is drawn, else read from the log from it
// on, transcript.js), the keys [ ] { } e, and the turn counts the page says instead of
// record numbers ("3 earlier turns", "turns 7–9 of 9 shown").

import { markTurn, outlineEl, target } from "./outline.js";

const NARROW = matchMedia("(max-width: 900px)"); // the outline folds above the transcript
const KEYS = { "[": "previous", "]": "next", "{": "first", "}": "last", e: "error" };

/**
 * @param {{pane: HTMLElement, turns: () => any[], firstShown: () => number|null,
 *   read: (seq: number) => void}} options the task's cards (oldest first), the first record
 *   shown, and how to read the events from a turn on when it is not drawn
 */
export function createTurnNav({ pane, turns, firstShown, read }) {
  /** The index of the turn a record belongs to (-1 before the first turn). @param {number} seq */
  function turnIndex(seq) {
    const all = turns();
    let at = -1;
    for (let i = 0; i < all.length && all[i].first_seq <= seq; i++) at = i;
    return at;
  }

  /** The first seq of the turn a record belongs to. @param {number} seq */
  function turnAt(seq) {
    const at = turnIndex(seq);
    return at >= 0 ? turns()[at].first_seq : null;
  }

  /** Go to a turn: scrolled to where it is drawn, else read from the log. @param {number} seq */
  function jump(seq) {
    if (pane.querySelector(`.events [data-turn="${seq}"]`)) {
      showTurn(seq);
      return;
    }
    const outline = pane.querySelector("[data-outline]"); // said while the log is read (drawn anew after)
    outline?.setAttribute("aria-busy", "true");
    const where = outline?.querySelector("[data-outline-where]");
    if (where) where.textContent = "reading…";
    read(seq);
  }

  /** Scroll a drawn turn to the pane's top, the keyboard on its card. @param {number} seq */
  function showTurn(seq) {
    const turn = pane.querySelector(`.events [data-turn="${seq}"]`);
    if (!(turn instanceof HTMLElement)) return;
    const outline = pane.querySelector(".outline.narrow");
    if (outline instanceof HTMLDetailsElement) outline.open = false; // before measuring: it shrinks
    const covered = outline?.getBoundingClientRect().height || 0;
    pane.scrollTop += turn.getBoundingClientRect().top - pane.getBoundingClientRect().top - covered;
    const head = turn.querySelector(".card-head") || turn;
    if (head === turn) turn.setAttribute("tabindex", "-1");
    if (head instanceof HTMLElement) head.focus({ preventScroll: true });
    follow(seq);
  }

  /** Mark in the outline the turn at the pane's top (or `seq`, just jumped to). @param {number} [seq] */
  function follow(seq) {
    const outline = pane.querySelector("[data-outline]");
    const first = firstShown();
    if (!(outline instanceof HTMLElement) || first === null) return;
    let current = seq ?? turnAt(first);
    if (seq === undefined) {
      const narrow = outline.classList.contains("narrow") ? outline.getBoundingClientRect().height : 0;
      const top = pane.getBoundingClientRect().top + narrow + 24;
      const drawn = [...pane.querySelectorAll(".events [data-turn]")];
      for (const turn of drawn) {
        if (turn.getBoundingClientRect().top > top) break;
        current = Number(turn.getAttribute("data-turn"));
      }
      // at the very end the last turn is the one being read, however short it is
      const end = pane.scrollTop + pane.clientHeight >= pane.scrollHeight - 4 && !pane.querySelector("[data-later]");
      if (end && drawn.length) current = Number(drawn[drawn.length - 1].getAttribute("data-turn"));
    }
    if (outline.dataset.current !== String(current)) markTurn(outline, turns(), current);
  }

  let following = false;
  pane.addEventListener("scroll", () => {
    if (following) return;
    following = true;
    requestAnimationFrame(() => {
      following = false;
      follow();
    });
  }, { passive: true });

  pane.addEventListener("keydown", (event) => {
    const key = KEYS[/** @type {keyof KEYS} */ (event.key)];
    const outline = pane.querySelector("[data-outline]");
    if (!key || !(outline instanceof HTMLElement) || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.target instanceof HTMLElement && event.target.closest("input, textarea, select, [contenteditable]")) return;
    const card = target(turns(), key, outline);
    if (!card) return;
    event.preventDefault();
    jump(card.first_seq);
  });

  return {
    showTurn,
    follow,
    /** The outline beside `main` (or at its top on a narrow window), for a task of two turns or more.
     * @param {HTMLElement} main */
    draw(main) {
      const first = firstShown();
      if (turns().length < 2 || first === null) return;
      const outline = outlineEl(turns(), turnAt(first), jump, NARROW.matches);
      if (NARROW.matches) {
        main.prepend(outline);
        return;
      }
      // as tall as the pane less its paddings, so that it never rides up; its rows scroll inside
      // (the page's CSP refuses style attributes; the CSSOM is allowed)
      outline.style.setProperty("max-height", `${Math.max(200, pane.clientHeight - 60)}px`);
      main.after(outline);
    },
    /** "3 earlier turns" (one begun before the first record shown counts), for the Earlier button. @param {number} first */
    turnsBefore(first) {
      const before = turns().filter((c) => c.first_seq < first).length;
      return before ? `${before} earlier turn${before === 1 ? "" : "s"}` : "the task's start";
    },
    /** "turns 3–12 of 72 shown". @param {number} first @param {number} last */
    shownTurns(first, last) {
      const of = turns().length;
      if (!of) return "";
      const from = Math.max(0, turnIndex(first)) + 1;
      const to = Math.max(0, turnIndex(last)) + 1;
      return from === to ? `turn ${from} of ${of} shown` : `turns ${from}–${to} of ${of} shown`;
    },
  };
}
