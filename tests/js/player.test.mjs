// Play's speeds (figures/player.js): the time between two steps, written out.
import assert from "node:assert/strict";
import { test } from "node:test";
import { SPEEDS, stepDelay } from "../../explainer/figures/player.js";

test("Slow takes twice the step's time, Fast half of it, Normal the step's own", () => {
  assert.deepEqual(
    SPEEDS.map((s) => s.name),
    ["Slow", "Normal", "Fast"],
  );
  assert.equal(stepDelay(900, "Slow"), 1800);
  assert.equal(stepDelay(900, "Normal"), 900);
  assert.equal(stepDelay(900, "Fast"), 450);
});

test("a speed it does not know plays at Normal", () => {
  assert.equal(stepDelay(900, "Ludicrous"), 900);
  assert.equal(stepDelay(900, undefined), 900);
});
