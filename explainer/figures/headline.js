// The bar of headline numbers that stays at the top of a narrow screen.
import { h, setText } from "explainer/dom";

/**
 * On a narrow screen the numbers sit under the list: a bar of the headline numbers stays at the
 * top of the screen while the reader taps rows or moves k below it, and opens to the whole
 * arithmetic (the figure's formulas). Hidden on wide screens, where the numbers are beside the list.
 */
export function createHeadline(root) {
  const el = h("div", "fig-headline");
  el.setAttribute("aria-hidden", "true"); // the live region already says these numbers
  const summary = h("p", "fig-headline-text");
  const toggle = h("button", "fig-button fig-headline-toggle", "Arithmetic");
  toggle.type = "button";
  toggle.tabIndex = -1;
  toggle.setAttribute("aria-expanded", "false");
  const details = h("div", "fig-headline-details");
  details.hidden = true;
  el.append(summary, toggle, details);
  const drawDetails = () => {
    // Only what shows: in predict mode the hidden formulas stay hidden here too.
    const formulas = [...root.querySelectorAll(".metric-formula")].filter((node) => node.checkVisibility()).map((node) => node.textContent);
    details.replaceChildren(...formulas.map((text) => h("p", "", text)));
  };
  toggle.addEventListener("click", () => {
    details.hidden = !details.hidden;
    toggle.setAttribute("aria-expanded", String(!details.hidden));
    if (!details.hidden) drawDetails();
  });
  return {
    el,
    show(text) {
      setText(summary, text);
      if (!details.hidden) drawDetails();
    },
  };
}
