// How the workbench writes its parts: numbers to four places, run names, buttons, sections, SVG nodes.
import { formatNumber } from "explainer/metrics";
import { h } from "explainer/dom";
import { shownId } from "explainer/workbench-ids";

export const f4 = (x) => formatNumber(x, 4);
export const signed = (x) => `${x >= 0 ? "+" : "−"}${f4(Math.abs(x))}`;
const SVG = "http://www.w3.org/2000/svg";

export function svg(tag, attrs = {}) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  return node;
}

/** A run as the page names it: its role, and its own name (escaped, shortened) when that says more. */
export function runLabel(run) {
  if (run.role === "run") return shownId(run.name);
  return run.name === run.role ? run.role : `${run.role}: ${shownId(run.name)}`;
}

/** A run in a sentence: "the baseline", "the candidate", or with more runs "run c". */
export function theRun(run) {
  return run.role === "baseline" || run.role === "candidate" ? `the ${run.role}` : run.role;
}

/** A sentence's first letter in capitals. */
export const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);

export function button(text, className = "wb-button") {
  const b = h("button", className, text);
  b.type = "button";
  return b;
}

export function section(title, className) {
  const box = h("section", `wb-section ${className}`);
  const heading = h("h2", "wb-heading", title);
  box.append(heading);
  return { box, heading };
}
