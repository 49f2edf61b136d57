// @ts-check
// A task's title as a list shows it: its Markdown marks taken off (`**Peer-Review**`, a `#`
// heading's hashes, a link's brackets, backticks), and a URL in it given places to break at
// its separators (after / . - _ ? & =), never inside a word.

import { el, exact, relative } from "./dom.js";

const MONTH = 30 * 86400000;

/** A list row's time, short: "2h", "yesterday", "5d", then "Jun 15" this year, "Jun 2025"
 * before (the exact time on hover), so the row's line keeps it whole. @param {string} at */
export function listTime(at) {
  const when = new Date(at);
  if (!at || Number.isNaN(when.getTime()) || Date.now() - when.getTime() < MONTH) return el("time", { datetime: at, title: exact(at) }, relative(at));
  const thisYear = when.getFullYear() === new Date().getFullYear();
  return el("time", { datetime: at, title: exact(at) }, when.toLocaleDateString(undefined, thisYear ? { month: "short", day: "numeric" } : { month: "short", year: "numeric" }));
}

/** The title without Markdown's marks. @param {string} title */
export function plainTitle(title) {
  return String(title || "")
    .replace(/^\s{0,3}#{1,6}\s+/, "") // a heading's hashes
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1") // a link or an image: its words
    .replace(/(\*\*|__)(?=\S)(.+?)(?<=\S)\1/g, "$2") // bold
    .replace(/(^|[\s(])[*_](?=\S)([^*_]+?)(?<=\S)[*_](?=$|[\s).,:;!?])/g, "$1$2") // italic, not snake_case
    .replace(/`([^`]+)`/g, "$1")
    .replace(/^\s*(\*\*|__)\s*/, "") // a bold mark left open at the start, the title cut short
    .replace(/\s+/g, " ")
    .trim();
}

const URL = /\bhttps?:\/\/\S+/g;

/** The title's text with a break allowed after each separator of a URL in it. @param {string} title */
export function titleNodes(title) {
  const text = plainTitle(title);
  /** @type {(string|HTMLElement)[]} */
  const out = [];
  let at = 0;
  for (const found of text.matchAll(URL)) {
    out.push(text.slice(at, found.index));
    for (const part of found[0].split(/(?<=[/.\-_?&=#])/)) out.push(part, el("wbr"));
    out.pop();
    at = (found.index || 0) + found[0].length;
  }
  out.push(text.slice(at));
  return out.filter((part) => part !== "");
}
