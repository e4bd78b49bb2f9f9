// Figure 3's logic (figures/queries.js): each query's RR or AP, the mean and median with their
// arithmetic, the lowest queries called out, and its URL keys. Expected values written out.
import assert from "node:assert/strict";
import { test } from "node:test";
import { formatNumber as f } from "explainer/metrics";
import { stateFromQuery } from "explainer/query";
import { gradesOf, queryFields, systemReadout, toQuery } from "../../explainer/figures/queries.js";

const LIMITS = {
  a: { min_queries: 1, max_queries: 8, max_rank: 20 },
  b: { min_queries: 0, max_queries: 8, max_rank: 20 },
  measure: { options: ["rr", "ap"] },
};
const STATE = { a: [[1], [3], [10]], b: [], measure: "rr" };

test("three queries: MRR, the median and the lowest query", () => {
  const r = systemReadout(STATE.a, "rr", 20);
  const mrr = (1 + 1 / 3 + 1 / 10) / 3;
  assert.equal(r.meanText, `MRR = (1/1 + 1/3 + 1/10) / 3 = ${f(mrr)}`);
  assert.equal(r.medianText, `Median RR = ${f(1 / 3)}`);
  assert.deepEqual(r.rowText, ["1/1 = 1.00", `1/3 = ${f(1 / 3)}`, "1/10 = 0.10"]);
  assert.deepEqual(r.lowest, [false, false, true]);
  assert.equal(r.lowestText, `Lowest: Q3 at 0.10, against a mean of ${f(mrr)}.`);
});

test("AP per query divides by the query's relevant ranks, and MAP is their mean", () => {
  const runs = [[1, 3], [2], [5, 6, 7]];
  const ap = [(1 + 2 / 3) / 2, 1 / 2, (1 / 5 + 2 / 6 + 3 / 7) / 3];
  const r = systemReadout(runs, "ap", 20);
  r.values.forEach((v, q) => assert.ok(Math.abs(v - ap[q]) < 1e-12));
  const map = (ap[0] + ap[1] + ap[2]) / 3;
  assert.equal(r.meanText, `MAP = (${ap.map((v) => f(v)).join(" + ")}) / 3 = ${f(map)}`);
  assert.equal(r.medianText, `Median AP = ${f(ap[1])}`);
});

test("the consistency preset: the same MRR from steady and from all-or-nothing queries", () => {
  const a = systemReadout([[1], [1], [20], [20], [20], [20]], "rr", 20);
  const b = systemReadout([[2], [2], [2], [2], [2], [2]], "rr", 20);
  assert.ok(Math.abs(a.mean - (2 + 4 / 20) / 6) < 1e-12);
  assert.ok(Math.abs(b.mean - 1 / 2) < 1e-12);
  assert.equal(a.medianText, `Median RR = ${f(1 / 20)}`);
  assert.equal(b.lowestText, ""); // every query at the mean: none called out
  assert.equal(systemReadout([], "rr", 20).meanText, "MRR = 0 (no queries)");
  assert.equal(systemReadout([[]], "rr", 20).rowText[0], "0 (no hit)");
  assert.deepEqual(gradesOf([2, 4], 5), [0, 1, 0, 1, 0]);
});

test("a link sets each system's ranks by query and the measure; a bad value keeps the default, named", () => {
  const fields = queryFields({ limits: LIMITS });
  const parse = (search) => stateFromQuery(search, fields, STATE, 4000);
  const linked = { a: [[1], [2], [4]], b: [[2], [2], [2]], measure: "rr" };
  assert.deepEqual(parse("?a=1|2|4&b=2|2|2&measure=rr"), { state: linked, ignored: [] });
  assert.deepEqual(toQuery({ ...linked, b: [[2, 5], [2], [2]] }), [["a", "1|2|4"], ["b", "2,5|2|2"], ["measure", "rr"]]);
  assert.deepEqual(parse("?a=1|30&measure=rr"), {
    state: STATE,
    ignored: ["Ignored a=“1|30”: a must list ranks from 1 to 20 for each query, separated by commas."],
  });
  assert.deepEqual(parse("?a=&b=1,1&measure=map").ignored, [
    "Ignored a=“”: a must list 1 to 8 queries, split by |.",
    "Ignored b=“1,1”: b lists a rank twice in one query.",
    "Ignored measure=“map”: measure must be rr or ap.",
  ]);
  assert.deepEqual(parse(`?a=${Array(9).fill("1").join("|")}`).ignored, ["Ignored a=“1|1|1|1|1|1|1|1|1”: a must list 1 to 8 queries, split by |."]);
  assert.deepEqual(parse("?b=").state, STATE);
});
