// The workbench's numbers (values.js) against trec_eval, with what-if changes: the collections,
// the what-ifs and pytrec_eval's numbers on the changed collections come from
// workbench_values_oracle.py; with no change, the table's own values, from the evaluation core.
import assert from "node:assert/strict";
import { test } from "node:test";
import { figureStates, judged, queryValuesWith } from "explainer/workbench-values";
import { oracle } from "./oracle.mjs";

const PY = oracle("workbench_values_oracle.py");

function close(actual, expected, where) {
  assert.ok(Math.abs(actual - expected) <= 1e-12, `${where}: ${actual} is not ${expected}`);
}

for (const { seed, level, table, cases } of PY.collections) {
  test(`values with what-if changes equal trec_eval on the changed collection (seed ${seed}, level ${level})`, () => {
    assert.ok(cases.length >= 60);
    for (const { qid, detail, whatIf, expected } of cases) {
      const got = queryValuesWith(detail, whatIf, table);
      for (const r of [0, 1]) {
        for (const [name, value] of Object.entries(expected[r])) {
          close(got[r][name], value, `${qid} run ${r} ${name} ${JSON.stringify(whatIf)}`);
        }
      }
      if (Object.keys(whatIf.judgments).length || whatIf.orders.some(Boolean)) continue;
      const i = table.qids.indexOf(qid);
      for (const r of [0, 1]) {
        table.measures.forEach((m, j) => close(got[r][m.name], table.runs[r].values[j][i], `${qid} table ${m.name}`));
      }
    }
  });
}

test("the figure states made in the page equal those the state classes made", () => {
  assert.equal(PY.golden.length, 100);
  for (const detail of PY.golden) {
    for (const r of [0, 1]) {
      const states = figureStates(detail, r, { judgments: {}, orders: [null, null] }, 10, 1);
      assert.deepEqual(states.binary, detail.figures[r].binary.default, detail.qid);
      assert.deepEqual(states.conventions, detail.figures[r].conventions.default, detail.qid);
    }
  }
});

test("a judgment that restores the qrels' grade leaves no what-if", () => {
  const d = { docs: ["a", "b", "c"], grades: [2, null, 0] };
  assert.deepEqual(judged(d, {}, [[0, false]], "flag", 1), { a: 0 }); // a relevant document judged not relevant: grade 0
  assert.deepEqual(judged(d, { a: 0 }, [[0, true]], "flag", 1), {}); // and back: the qrels' grade 2 again
  assert.deepEqual(judged(d, {}, [[1, true]], "flag", 2), { b: 2 }); // unjudged judged relevant at level 2: grade 2
  assert.deepEqual(judged(d, { b: 3 }, [[1, null]], "grade", 1), {}); // a what-if grade made unjudged again: back to the qrels
  assert.deepEqual(judged(d, {}, [[1, 0]], "grade", 1), { b: 0 }); // the conventions figure's 0 for an unjudged one judges it
  assert.deepEqual(judged(d, {}, [[1, null]], "grade", 1), {}); // the lists' "unjudged" for an unjudged one: nothing
  assert.deepEqual(judged(d, {}, [[2, null]], "grade", 1), { c: null }); // a judged document made unjudged
});
