// @ts-check
// The words a search looked for, marked in text the way search matched them (app/memory/words/tokens.py):
// a word is a run of letters and digits, matched whole and without regard to case; a compound
// identifier (`TestPagerOrder`, `http2`) is also matched by its parts, cut at case changes and
// between letters and digits. So "pager" marks "pager" and the "Pager" of "TestPagerOrder", but
// never the "app" of "Applications" nor the "the" of "themed", and stop words are never marked.
// Marks are <mark> elements around text nodes: the text itself never goes through HTML.

import { el } from "./dom.js";

// tokens.py's STOP, word for word (tests/test_marks.py checks the two agree)
const COMMON = `a an and are as at be but by for if in into is it no not of on or such that the their
    then there these they this to was will with i you he she we me my your our its them what
    which who whom do does did have has had been being were am so than too very can could
    would should just also from up out about over only own same any all both each few more most
    other some here when where why how again further once`;
export const STOP = new Set(COMMON.split(/\s+/).filter(Boolean));
const LONG = 64; // bytes from which the index drops a token (words.LONG)

const WORD = /[\p{L}\p{N}]+/gu; // Python's [^\W_]: letters and digits
const ASCII_RUN = /[A-Za-z0-9]+/g;
const JOIN = /[a-z][A-Z]|[A-Za-z][0-9]|[0-9][A-Za-z]/; // what makes a run a compound
const PART = /[A-Z]?[a-z]+|[A-Z]+|[0-9]+/g;
const bytes = new TextEncoder();

/** @param {string} token */
const kept = (token) => !STOP.has(token) && bytes.encode(token).length < LONG;

/** The parts of the compounds in a text, with where each starts and ends. @param {string} text */
function compoundParts(text) {
  /** @type {{start: number, end: number, part: string}[]} */
  const found = [];
  for (const run of text.matchAll(ASCII_RUN)) {
    if (!JOIN.test(run[0])) continue;
    for (const part of run[0].matchAll(PART)) {
      const start = /** @type {number} */ (run.index) + /** @type {number} */ (part.index);
      found.push({ start, end: start + part[0].length, part: part[0].toLowerCase() });
    }
  }
  return found;
}

/** The distinct words and parts of a query, as words.query_terms makes them. @param {string} q */
export function queryTerms(q) {
  const words = [...q.matchAll(WORD)].map((m) => m[0].toLowerCase());
  const parts = compoundParts(q).map((p) => p.part);
  return [...new Set([...words, ...parts])].filter(kept);
}

/**
 * Where the terms match a text: [start, end] spans in order, touching spans joined (the
 * "Pager" and "Order" of "TestPagerOrder" make one mark, not two with a seam).
 * @param {string} text @param {Set<string>} terms
 */
export function spans(text, terms) {
  /** @type {[number, number][]} */
  const found = [];
  for (const run of text.matchAll(WORD)) {
    const start = /** @type {number} */ (run.index);
    if (terms.has(run[0].toLowerCase())) {
      found.push([start, start + run[0].length]);
      continue;
    }
    for (const part of compoundParts(run[0])) {
      if (terms.has(part.part)) found.push([start + part.start, start + part.end]);
    }
  }
  /** @type {[number, number][]} */
  const joined = [];
  for (const span of found) {
    const last = joined.at(-1);
    if (last && last[1] === span[0]) last[1] = span[1];
    else joined.push([...span]);
  }
  return joined;
}

/** @param {string[]} terms */
const termSet = (terms) => new Set(terms.map((t) => t.toLowerCase()).filter(kept));

/**
 * Text with the terms marked: strings for the rest, <mark> elements for the matches.
 * @param {string} text @param {string[]} terms
 * @returns {(string|HTMLElement)[]}
 */
export function marked(text, terms) {
  const wanted = termSet(terms);
  if (!wanted.size || !text) return [text];
  /** @type {(string|HTMLElement)[]} */
  const out = [];
  let at = 0;
  for (const [start, end] of spans(text, wanted)) {
    if (start > at) out.push(text.slice(at, start));
    out.push(el("mark", {}, text.slice(start, end)));
    at = end;
  }
  if (at < text.length) out.push(text.slice(at));
  return out;
}

/**
 * Mark the terms inside a node's text, in place (text nodes split, never HTML); headings,
 * labels and what is marked already are left alone.
 * @param {Element} node @param {string[]} terms
 */
export function markWords(node, terms) {
  const wanted = termSet(terms);
  if (!wanted.size) return;
  const walker = document.createTreeWalker(node, NodeFilter.SHOW_TEXT);
  /** @type {Text[]} */
  const found = [];
  for (let text = walker.nextNode(); text; text = walker.nextNode()) {
    // already marked: a render marks the hit, then revealing it marks it again
    if (text.parentElement?.closest("summary, .event-meta, .speaker, .label, mark, button")) continue;
    if (spans(text.nodeValue || "", wanted).length) found.push(/** @type {Text} */ (text));
  }
  for (const text of found) {
    const pieces = marked(text.nodeValue || "", [...wanted]);
    text.replaceWith(...pieces.map((piece) => (typeof piece === "string" ? document.createTextNode(piece) : piece)));
  }
}
