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
  belowHostHeader(el, root.parentElement ?? root); // the figure's frame, which the bar heads
  return {
    el,
    show(text) {
      setText(summary, text);
      if (!details.hidden) drawDetails();
    },
  };
}

/**
 * A documentation page's own bar, fixed or sticky at the top of the screen (furo's header on a
 * phone), would cover ours, which sticks at the top too: while the figure is on the screen, ours
 * sticks below the host's. And sticky holds only inside a scroller that scrolls: furo's phone
 * layout puts the page in an `overflow-x: auto` column that never scrolls up or down, where the bar
 * would stay at the figure's top; there it is moved down by hand, within its figure. Measured as
 * the reader scrolls, once a frame at most.
 */
function belowHostHeader(bar, figure) {
  let frame = 0;
  let shift = 0; // px the bar is moved down by hand
  const move = (px) => {
    shift = px;
    bar.style.transform = px ? `translateY(${px}px)` : "";
  };
  const measure = () => {
    frame = 0;
    if (getComputedStyle(bar).position !== "sticky") return move(0); // a wide screen: no bar
    const top = hostHeaderBottom(bar.getRootNode().host ?? bar);
    const px = top > 0 ? `${top}px` : "";
    if (bar.style.top !== px) bar.style.top = px;
    const natural = bar.getBoundingClientRect().top - shift; // where sticky alone puts it
    const last = figure.getBoundingClientRect().bottom - bar.offsetHeight;
    move(Math.max(0, Math.min(top, last) - natural));
  };
  const onScroll = () => {
    frame ||= requestAnimationFrame(measure);
  };
  // The figure is on the screen: only then does a scroll measure.
  new IntersectionObserver(([entry]) => {
    if (entry.isIntersecting) {
      window.addEventListener("scroll", onScroll, { passive: true, capture: true });
      onScroll();
    } else window.removeEventListener("scroll", onScroll, { capture: true });
  }).observe(figure);
}

/** The bottom of what the host page fixes at the top of the screen over `host`'s column (0 for nothing). */
function hostHeaderBottom(host) {
  const box = host.getBoundingClientRect();
  const x = Math.min(Math.max(box.left + box.width / 2, 0), window.innerWidth - 1);
  let bottom = 0;
  for (const el of document.elementsFromPoint(x, 1)) {
    if (el === host || el.contains(host)) continue;
    const { position } = getComputedStyle(el);
    if (position === "fixed" || position === "sticky") bottom = Math.max(bottom, el.getBoundingClientRect().bottom);
  }
  // A host's bar, not a whole panel over the page (a menu opened over it).
  return bottom < window.innerHeight / 3 ? bottom : 0;
}
