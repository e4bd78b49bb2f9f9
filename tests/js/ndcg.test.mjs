// Figure 2's logic (figures/ndcg.js): DCG, the ideal DCG and NDCG with their sums, the swaps to the
// ideal order, and its URL keys. Expected values are the article's, written out.
import assert from "node:assert/strict";
import { test } from "node:test";
import { stateFromQuery } from "explainer/query";
import { firstInversion, queryFields, readout, swapsToIdeal, toQuery } from "../../explainer/figures/ndcg.js";

const GRADES = [1, 3, 0, 2, 0, 3, 1, 2];
const IDENTITY = [0, 1, 2, 3, 4, 5, 6, 7];
const STATE = { grades: GRADES, order: IDENTITY, k: 8, gain: "exponential" };
const LIMITS = {
  grades: { length: 8, min_grade: 0, max_grade: 3 },
  order: { length: 8 },
  k: { min: 1, max: 8 },
  gain: { options: ["exponential", "linear"] },
};

test("the article's numbers for both gains and both cutoffs", () => {
  for (const [k, gain, text] of [
    [8, "exponential", "NDCG@8 = 10.48 / 14.95 = 0.70"],
    [3, "exponential", "NDCG@3 = 5.42 / 12.92 = 0.42"],
    [3, "linear", "NDCG@3 = 2.89 / 5.89 = 0.49"],
    [8, "linear", "NDCG@8 = 5.79 / 7.50 = 0.77"],
  ]) {
    assert.equal(readout({ ...STATE, k, gain }).ndcgText, text);
  }
  const r = readout(STATE);
  assert.equal(r.dcgText, "DCG@8 = 1/1.00 + 7/1.58 + 0/2.00 + 3/2.32 + 0/2.58 + 7/2.81 + 1/3.00 + 3/3.17 = 10.48");
  assert.equal(r.idcgText, "Ideal DCG@8 = 7/1.00 + 7/1.58 + 3/2.00 + 3/2.32 + 1/2.58 + 1/2.81 + 0/3.00 + 0/3.17 = 14.95");
  assert.deepEqual(r.ideal, [3, 3, 2, 2, 1, 1, 0, 0]);
  assert.equal(r.announcement, "NDCG@8 0.70: DCG 10.48, ideal DCG 14.95");
  const linear = readout({ ...STATE, k: 3, gain: "linear" });
  assert.equal(linear.dcgText, "DCG@3 = 1/1.00 + 3/1.58 + 0/2.00 = 2.89");
});

test("the chart's DCG@k and NDCG@k at every k", () => {
  const r = readout(STATE);
  const gains = [1, 7, 0, 3, 0, 7, 1, 3];
  const ideal = [7, 7, 3, 3, 1, 1, 0, 0];
  let dcg = 0;
  let idcg = 0;
  gains.forEach((g, i) => {
    dcg += g / Math.log2(i + 2);
    idcg += ideal[i] / Math.log2(i + 2);
    assert.ok(Math.abs(r.byK.dcg[i] - dcg) < 1e-12);
    assert.ok(Math.abs(r.byK.ndcg[i] - dcg / idcg) < 1e-12);
  });
});

test("a list of zeros says its ideal is 0, not NaN", () => {
  const r = readout({ ...STATE, grades: Array(8).fill(0) });
  assert.equal(r.ndcgText, "NDCG@8 = 0 (no graded result: the ideal is 0)");
  assert.equal(r.ndcg, 0);
  assert.ok(!/NaN|Infinity|undefined/.test(JSON.stringify(r)));
});

test("the animation swaps the topmost pair out of order, as many times as pairs are out of order", () => {
  assert.equal(firstInversion(GRADES), 0); // 1 above 3
  assert.equal(firstInversion([3, 3, 2, 2, 1, 1, 0, 0]), -1);
  assert.equal(firstInversion([3, 1, 2]), 1);
  // 1,3,0,2,0,3,1,2: pairs (i < j) with grades[i] < grades[j], counted by hand: 4 + 0 + 4 + 1 + 3 + 0 + 1 = 13.
  assert.equal(swapsToIdeal(GRADES), 13);
  assert.equal(swapsToIdeal([3, 2, 1, 0]), 0);
  assert.equal(swapsToIdeal([0, 1, 2, 3]), 6);
});

test("a link sets grades in rank order, the order, k and the gain; bad values are named", () => {
  const fields = queryFields({ limits: LIMITS });
  const parse = (search) => stateFromQuery(search, fields, STATE, 4000);
  const moved = { ...STATE, order: [1, 0, 2, 3, 4, 5, 6, 7], k: 3, gain: "linear" };
  assert.deepEqual(toQuery(moved), [["grades", "3,1,0,2,0,3,1,2"], ["order", "2,1,3,4,5,6,7,8"], ["k", "3"], ["gain", "linear"]]);
  assert.deepEqual(parse(`?${new URLSearchParams(toQuery(moved))}`), { state: moved, ignored: [] });
  assert.deepEqual(toQuery(STATE), [["grades", "1,3,0,2,0,3,1,2"], ["k", "8"], ["gain", "exponential"]]);
  assert.deepEqual(parse("?k=9&gain=log&grades=1,2"), {
    state: STATE,
    ignored: [
      "Ignored grades=“1,2”: grades must list exactly 8 grades from 0 to 3, separated by commas.",
      "Ignored k=“9”: k must be a whole number from 1 to 8.",
      "Ignored gain=“log”: gain must be exponential or linear.",
    ],
  });
});
