// Light or dark: what a page's link, a tag's attribute or the page around a tag asks for, and the switch.
import { h } from "explainer/dom";
import { setPageKey } from "explainer/page-url";

const THEMES = ["light", "dark"];
// Sent on window when a switch changes the page's theme, so that every switch and link follows.
const CHANGED = "relevance-explainer:theme";

/** "light" or "dark" when the query's theme key says one; null for auto, no key or anything else. */
export function themeOfQuery(search) {
  const theme = new URLSearchParams(search).get("theme");
  return THEMES.includes(theme) ? theme : null;
}

/**
 * The theme a host page asks for around a tag whose theme is auto, or null to follow the system:
 * furo's `data-theme` on <body> ("light" or "dark"; its "auto" is the system's), else the
 * computed `color-scheme` around the tag when it names one scheme alone ("dark", "only light").
 * "normal" or "light dark" leave it to the system.
 */
export function hostTheme({ dataTheme, colorScheme }) {
  if (THEMES.includes(dataTheme)) return dataTheme;
  const schemes = String(colorScheme ?? "")
    .split(/\s+/)
    .filter((word) => THEMES.includes(word));
  return schemes.length === 1 ? schemes[0] : null;
}

/** Set --explainer-theme on `el`'s style, which the stylesheets read for their color-scheme; null removes it. */
export function setTheme(el, theme) {
  if (theme) el.style.setProperty("--explainer-theme", theme);
  else el.style.removeProperty("--explainer-theme");
}

/** Light or dark for the whole page, as its URL's theme key asks (auto, or no key: the system's setting). */
export function applyPageTheme(search) {
  setTheme(document.documentElement, themeOfQuery(search));
}

/**
 * Follow the page around `tag` (theme="auto"): calls `apply(theme or null)` now, and again whenever
 * the host changes its theme (an attribute of <html> or <body>: furo's switch, a class that sets
 * color-scheme) or the system does. Returns a function that stops watching.
 */
export function watchHostTheme(tag, apply) {
  let last;
  const check = () => {
    const around = tag.parentElement ?? document.documentElement;
    const theme = hostTheme({ dataTheme: document.body?.dataset.theme, colorScheme: getComputedStyle(around).colorScheme });
    if (theme !== last) apply((last = theme));
  };
  const observer = new MutationObserver(check);
  for (const el of [document.documentElement, document.body]) if (el) observer.observe(el, { attributes: true });
  const system = window.matchMedia("(prefers-color-scheme: dark)");
  system.addEventListener("change", check);
  window.addEventListener(CHANGED, check);
  check();
  return () => {
    observer.disconnect();
    system.removeEventListener("change", check);
    window.removeEventListener(CHANGED, check);
  };
}

/** The theme the page shows now: its link's, else the system's. */
function pageTheme() {
  return themeOfQuery(window.location.search) ?? (window.matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light");
}

/**
 * A switch between light and dark for the whole page (the explainer's own pages): it writes theme=
 * into the page's link, so a reload, a copied link and the story's links to each figure keep it.
 * Several on one page (the story's figures) stay in step.
 */
export function createThemeSwitch() {
  // A symbol, named for screen readers and speech, as Undo: the header stays two lines on a phone.
  const button = h("button", "fig-button theme-switch", "◐");
  button.type = "button";
  button.setAttribute("aria-label", "Dark");
  button.title = "Light or dark, for this page and its links";
  const show = () => button.setAttribute("aria-pressed", String(pageTheme() === "dark"));
  button.addEventListener("click", () => {
    const theme = pageTheme() === "dark" ? "light" : "dark";
    setPageKey("theme", theme);
    applyPageTheme(window.location.search);
    window.dispatchEvent(new CustomEvent(CHANGED, { detail: theme }));
  });
  window.addEventListener(CHANGED, show);
  window.matchMedia("(prefers-color-scheme: dark)").addEventListener("change", show);
  show();
  return button;
}

/** Call `run` whenever a switch changes the page's theme. */
export function onThemeChange(run) {
  window.addEventListener(CHANGED, run);
}
