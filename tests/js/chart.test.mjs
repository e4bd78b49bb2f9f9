// The charts' geometry and words (figures/chart.js): where each column and value is drawn, which
// column a pointer is over, and the precision-recall view's missed documents and description.
import assert from "node:assert/strict";
import { test } from "node:test";
import { kChartScale, missedRecalls, prDescription } from "explainer/chart";

test("a pointer over a column's centre, or anywhere within the column, is over that k", () => {
  for (const count of [8, 12, 30]) {
    const { x, step, nearest } = kChartScale(count);
    for (let k = 1; k <= count; k++) {
      assert.equal(nearest(x(k)), k);
      assert.equal(nearest(x(k) - step * 0.49), k);
      assert.equal(nearest(x(k) + step * 0.49), k);
    }
    // Columns sit side by side, the first at the plot's left edge (30 in the 360-wide viewBox).
    assert.ok(Math.abs(x(1) - step / 2 - 30) < 1e-9);
    assert.ok(Math.abs(x(count) + step / 2 - (360 - 40)) < 1e-9);
    assert.ok(nearest(0) < 1); // left of the plot: the chart clamps it to k = 1
  }
});

test("values run from 0 at the bottom to 1 at the top; columns are scaled to their largest", () => {
  const { y, innerH } = kChartScale(12);
  assert.equal(y(1), 12);
  assert.equal(y(0), 12 + innerH);
  assert.equal(y(0.5), 12 + innerH / 2);
  assert.equal(y(3, 6), y(0.5));
  assert.equal(y(0, 0), y(0)); // nothing to scale to: every column at 0
});

test("up to 15 columns every k is labelled; beyond, 1 and every fifth", () => {
  const twelve = kChartScale(12);
  assert.ok([...Array(12).keys()].every((i) => twelve.labelled(i + 1)));
  const thirty = kChartScale(30);
  const labelled = [...Array(30).keys()].map((i) => i + 1).filter((k) => thirty.labelled(k));
  assert.deepEqual(labelled, [1, 5, 10, 15, 20, 25, 30]);
});

test("a relevant document never retrieved is drawn where recall would have reached", () => {
  const points = [1, 4, 5, 9].map((k) => ({ k, relevant: true }));
  assert.deepEqual(missedRecalls(points, 2, 6), [5 / 6, 6 / 6]);
  assert.deepEqual(missedRecalls(points, 0, 4), []);
  assert.deepEqual(missedRecalls([], 0, 0), []);
});

test("the precision-recall view's description says every point, the current k and the legend", () => {
  const points = [
    { k: 1, recall: 1 / 6, precision: 1, relevant: true },
    { k: 2, recall: 1 / 6, precision: 1 / 2, relevant: false },
  ];
  assert.equal(
    prDescription(points, 2, "AP = 0.17."),
    "k = 1 (relevant): R@1 0.17, P@1 1.00; k = 2: R@2 0.17, P@2 0.50. The current k is 2. AP = 0.17.",
  );
});
