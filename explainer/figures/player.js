// Play and Step, for a figure whose numbers build up in an order worth watching.
import { h, setAttr, setText } from "explainer/dom";

// Play's speeds, as a teacher picks one for the room: each runs a step every stepMs / factor.
export const SPEEDS = [
  { name: "Slow", factor: 0.5 },
  { name: "Normal", factor: 1 },
  { name: "Fast", factor: 2 },
];

/** The time between two of Play's steps at the speed named `name` (Normal for a name it does not know). */
export function stepDelay(stepMs, name) {
  const speed = SPEEDS.find((s) => s.name === name) ?? SPEEDS[1];
  return Math.round(stepMs / speed.factor);
}

/**
 * Play and Step, for a figure whose numbers build up in an order worth watching (figure 2's swaps
 * to the ideal order, figure 1's AP terms, the unjudged figure's documents judged one by one).
 * `advance()` takes one step and returns false when none is left; Play runs a step every
 * `stepMs` at Normal speed (twice as long Slow, half Fast: the Speed menu, which takes effect at
 * once, even mid-run), Step runs one. `what` ends the buttons' accessible names ("Play the animation"), and
 * `label`, if given, stands before them;
 * `onEnd()` forgets the figure's progress when the run ends (its last step, or a reader's change).
 * Returns { el (the buttons), status (a line for what the step did), stop(), end() }.
 */
export function createPlayer({ what = "the animation", label = "", advance, stepMs = 900, onEnd = () => {} }) {
  const el = h("div", "player");
  // A short visible label says what Play plays where the figure has more than one thing to play.
  if (label) el.append(h("span", "player-label", label));
  const play = h("button", "fig-button", "▶ Play");
  const step = h("button", "fig-button", "Step");
  for (const b of [play, step]) b.type = "button";
  play.setAttribute("aria-label", `Play ${what}`);
  step.setAttribute("aria-label", `One step of ${what}`);
  // The progress, on its own line: as it grows and shrinks it moves no button.
  const status = h("p", "player-status");
  status.setAttribute("role", "status");
  const speed = h("select", "grade-select");
  speed.setAttribute("aria-label", `Speed of ${what}`);
  for (const { name } of SPEEDS) speed.append(new Option(name, name, name === "Normal", name === "Normal"));
  const speedLabel = h("label", "player-speed", "Speed ");
  speedLabel.append(speed);
  el.append(play, step, speedLabel);
  let timer = null;
  const run = () => {
    clearInterval(timer);
    timer = setInterval(() => advance() || stop(), stepDelay(stepMs, speed.value));
  };
  speed.addEventListener("change", () => timer !== null && run());

  // Every reader's change ends a run (stop, end): when none is running they write nothing, so a
  // click pays no style work for a button and a line that stay as they are (with no run, Play
  // already says Play).
  function stop() {
    if (timer === null) return;
    clearInterval(timer);
    timer = null;
    setText(play, "▶ Play");
    setAttr(play, "aria-label", `Play ${what}`);
  }
  play.addEventListener("click", () => {
    if (timer) return stop();
    if (!advance()) return;
    play.textContent = "❚❚ Pause";
    play.setAttribute("aria-label", `Pause ${what}`);
    run();
  });
  step.addEventListener("click", () => {
    stop();
    advance();
  });
  function end() {
    stop();
    onEnd();
    setText(status, "");
  }
  return { el, status, stop, end };
}
