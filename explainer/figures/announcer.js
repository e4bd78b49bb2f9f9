// The live region that reads a figure's numbers out to a screen reader once changes settle.
import { h } from "explainer/dom";
import { settled } from "explainer/settled";

/** A polite live region that reads out the numbers once changes settle. */
export function createAnnouncer(delay = 500) {
  const el = h("div", "sr-only");
  el.setAttribute("aria-live", "polite");
  el.setAttribute("role", "status");
  return {
    el,
    say: settled(delay, (text) => {
      el.textContent = text;
    }),
  };
}
