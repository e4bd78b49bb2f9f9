// The queries a difference needs (power.js), from the table Python sends, against statsmodels'
// power of the paired t-test (workbench_power_oracle.py): exact up to 2,000 queries, a range
// that holds statsmodels' count beyond.
import assert from "node:assert/strict";
import { test } from "node:test";
import { queriesNeeded } from "explainer/workbench-power";
import { oracle } from "./oracle.mjs";

const { tables, cases } = oracle("workbench_power_oracle.py");

test("the queries a difference needs are statsmodels' count: exact to 2,000, between two counts beyond", () => {
  let exact = 0;
  let ranged = 0;
  for (const { effect, difference, queries } of cases) {
    const found = queriesNeeded(effect, difference, tables);
    const what = `${JSON.stringify(effect)} ${difference}: statsmodels ${queries}, ours ${JSON.stringify(found)}`;
    if (queries <= 2000) {
      assert.deepEqual(found, { fewest: queries, most: queries }, what);
      exact += 1;
    } else {
      assert.ok(found.fewest <= queries && queries <= found.most && found.most < found.fewest * 1.011, what);
      ranged += 1;
    }
  }
  assert.ok(exact >= 40 && ranged >= 4, `${exact} exact, ${ranged} ranged`);
});

test("a difference not past H0, no spread, or past the table's end says so", () => {
  const table = { n: [2, 3, 4], effect: [3, 2, 1] };
  const effect = { detectable: "t", alternative: "greater", power: { shift: 0.05 }, sd_of_differences: 0.1 };
  // 0.31 past H0's 0.05 is 3.1 sd: 2 queries find it; 2.1 sd needs 3; 1.6 sd needs 4; 0.5 sd more than the table has.
  assert.deepEqual(queriesNeeded(effect, 0.36, { t: table }), { fewest: 2, most: 2 });
  assert.deepEqual(queriesNeeded(effect, 0.26, { t: table }), { fewest: 3, most: 3 });
  assert.deepEqual(queriesNeeded(effect, 0.21, { t: table }), { fewest: 4, most: 4 });
  assert.deepEqual(queriesNeeded(effect, 0.1, { t: table }), { beyond: 4 });
  assert.match(queriesNeeded(effect, 0.05, { t: table }).problem, /above 0.05/);
  assert.match(queriesNeeded(effect, Number.NaN, { t: table }).problem, /Type a difference/);
  assert.match(queriesNeeded({ ...effect, detectable: undefined }, 0.3, { t: table }).problem, /not all the same/);
  const twoSided = { ...effect, alternative: "two-sided", power: { shift: 0 } };
  assert.deepEqual(queriesNeeded(twoSided, -0.31, { t: table }), { fewest: 2, most: 2 });
  assert.match(queriesNeeded(twoSided, 0, { t: table }).problem, /other than 0/);
  // A sparse table: the answer lies between the count before and the one that suffices.
  assert.deepEqual(queriesNeeded(effect, 0.21, { t: { n: [2, 10, 20], effect: [3, 2, 1] } }), { fewest: 11, most: 20 });
});
