// The page's own address: the state a figure page opens with, written back as the reader changes it.
import { settled } from "explainer/settled";
import { PAGE_KEYS, queryText, stateFromQuery, tooLong } from "explainer/query";

/**
 * Light or dark for the whole page, as its URL's theme key asks (auto, or no key: the system's
 * setting). The stylesheets read --explainer-theme for their color-scheme.
 */
export function applyPageTheme(search) {
  const theme = new URLSearchParams(search).get("theme");
  const root = document.documentElement.style;
  if (theme === "light" || theme === "dark") root.setProperty("--explainer-theme", theme);
  else if (theme === "auto") root.removeProperty("--explainer-theme");
}

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

/** Write a page key's "1" into the page URL (present=1, predict=1), or take the key away, keeping the rest. */
export function setPageKey(key, on) {
  const params = new URLSearchParams(window.location.search);
  if (on) params.set(key, "1");
  else params.delete(key);
  const query = queryText(params);
  try {
    window.history.replaceState(window.history.state, "", `${window.location.pathname}${query ? `?${query}` : ""}`);
  } catch {
    // As in writeQuery: the mode still switches.
  }
}
