// The Presenter view toggle: large type, strong contrast, nothing but the figure.
import { h } from "explainer/dom";
import { setPageKey } from "explainer/page-url";

/** A toggle for presenter mode, on when the URL says present=1. It marks the figure root and the page. */
export function createPresenterToggle(root) {
  const button = h("button", "fig-button present-toggle", "Presenter view");
  button.type = "button";
  const set = (on) => {
    root.classList.toggle("present", on);
    // The page gives the figure the whole width of the screen (page.css reads this).
    if (on) document.documentElement.style.setProperty("--explainer-page-width", "100%");
    else document.documentElement.style.removeProperty("--explainer-page-width");
    button.setAttribute("aria-pressed", String(on));
  };
  button.addEventListener("click", () => {
    const on = !root.classList.contains("present");
    set(on);
    setPageKey("present", on);
  });
  set(new URLSearchParams(window.location.search).get("present") === "1");
  return button;
}
