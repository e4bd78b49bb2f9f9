// The page's own address: the state a figure page opens with, written back as the reader changes it.
import { settled } from "explainer/settled";
import { PAGE_KEYS, queryText, stateFromQuery, tooLong } from "explainer/query";

/** Put the state into the page URL (replacing, not adding, a history entry), keeping the page's own keys. */
export const writeQuery = settled(120, (pairs) => {
  const params = new URLSearchParams(window.location.search);
  for (const key of [...params.keys()]) if (!Object.hasOwn(PAGE_KEYS, key)) params.delete(key);
  for (const [key, value] of pairs) params.set(key, value);
  const query = queryText(params);
  const url = `${window.location.pathname}${query ? `?${query}` : ""}${window.location.hash}`;
  try {
    window.history.replaceState(window.history.state, "", url);
  } catch {
    // Some hosts (sandboxed frames, odd file: origins) forbid it; the figure works on without.
  }
});

/** The state a figure page's own URL asks for: its query, or the notice for one the server turned away. */
export function stateFromPage(fields, base, maxLength) {
  const turnedAway = /^#ignored-query=(\d{1,9})$/.exec(window.location.hash);
  if (!turnedAway) return stateFromQuery(window.location.search, fields, base, maxLength);
  try {
    // The fragment has said what it had to; the address becomes a plain link again.
    window.history.replaceState(window.history.state, "", window.location.pathname + window.location.search);
  } catch {
    // A sandboxed frame may forbid it; the notice shows all the same.
  }
  return { state: structuredClone(base), ignored: [tooLong(Number(turnedAway[1]), maxLength)] };
}

/**
 * Write a page key into the page URL (present=1, predict=1, theme=dark), or take it away (false),
 * keeping the rest of the address: true writes "1".
 */
export function setPageKey(key, value) {
  const params = new URLSearchParams(window.location.search);
  if (value === false) params.delete(key);
  else params.set(key, value === true ? "1" : value);
  const query = queryText(params);
  try {
    window.history.replaceState(window.history.state, "", `${window.location.pathname}${query ? `?${query}` : ""}${window.location.hash}`);
  } catch {
    // As in writeQuery: the mode still switches.
  }
}

// Where a page's history entry keeps the query it was first opened with.
const OPENED = "explainerOpened";

/**
 * The query a page was opened with: the one its history entry keeps, once the page has rewritten
 * its address (a reload, back and forward), else the address's own. A link typed or followed
 * makes a new entry, which keeps its own.
 */
export function openingQuery(historyState, search) {
  const kept = historyState?.[OPENED];
  return typeof kept === "string" ? kept : search;
}

/** A history entry's state with `opening` kept in it beside what others keep there. */
export function withOpening(historyState, opening) {
  const others = historyState !== null && typeof historyState === "object" ? historyState : {};
  return { ...others, [OPENED]: opening };
}

/** Keep the query this page was opened with in its history entry, where a reload finds it; returns it. */
export function rememberOpening() {
  const opening = openingQuery(window.history.state, window.location.search);
  try {
    window.history.replaceState(withOpening(window.history.state, opening), "", window.location.href);
  } catch {
    // A sandboxed frame may forbid it: Reset then returns to the address as it is at load.
  }
  return opening;
}
