// A measure's card: its name, its formula with the numbers filled in, a note under it.
import { h } from "explainer/dom";

/**
 * A measure's card: its name, its formula with the numbers filled in, and with `note`, a line
 * under it; `blind` adds what the measure is blind to. `metric` names it for the page
 * (data-metric). Returns { el, formula, note }.
 */
export function createCard(name, { metric = null, className = "", note = true, blind = null } = {}) {
  const el = h("section", `metric ${className}`.trim());
  if (metric) el.dataset.metric = metric;
  const parts = { el, formula: h("p", "metric-formula"), note: note ? h("p", "metric-note") : null };
  el.append(h("h3", "metric-name", name), parts.formula);
  if (parts.note) el.append(parts.note);
  if (blind) el.append(h("p", "metric-blind", blind));
  return parts;
}
