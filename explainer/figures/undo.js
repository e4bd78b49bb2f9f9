// Undo: the figure's states before each change, the last one first, and the button that goes back.
import { h, setAttr } from "explainer/dom";

// Far more than a lesson's worth of clicks; the oldest are forgotten first.
const MAX_STEPS = 100;

/** The states a figure has left, newest last: push(state) before a change, pop() to go back. */
export function createHistory(max = MAX_STEPS) {
  const states = [];
  return {
    push(state) {
      if (states.at(-1) === state) return;
      states.push(state);
      if (states.length > max) states.shift();
    },
    pop: () => states.pop(),
    clear: () => (states.length = 0),
    get size() {
      return states.length;
    },
  };
}

/**
 * An Undo button over a history: `back(state)` shows the state it takes back. Ctrl+Z (⌘Z) inside
 * `frame` does the same. Returns { el, push(state), clear() }.
 */
export function createUndo(frame, back) {
  const history = createHistory();
  // A symbol, named for screen readers and speech: the header must stay two lines on a phone.
  const el = h("button", "fig-button fig-undo", "↶");
  el.type = "button";
  el.setAttribute("aria-label", "Undo");
  el.title = "Back one change (Ctrl+Z)";
  // aria-disabled, not disabled: a disabled button would drop the keyboard focus.
  const show = () => setAttr(el, "aria-disabled", String(history.size === 0));
  const undo = () => {
    const state = history.pop();
    show();
    if (state !== undefined) back(state);
  };
  el.addEventListener("click", undo);
  frame.addEventListener("keydown", (event) => {
    const typing = event.target instanceof HTMLInputElement && event.target.type !== "radio";
    if (typing || event.key.toLowerCase() !== "z" || !(event.ctrlKey || event.metaKey) || event.shiftKey || event.altKey) return;
    event.preventDefault();
    undo();
  });
  show();
  return {
    el,
    push(state) {
      history.push(state);
      show();
    },
    clear() {
      history.clear();
      show();
    },
  };
}
