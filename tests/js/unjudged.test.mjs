// The unjudged figure's logic (figures/unjudged.js): Judged@k, P@k and NDCG@k with unjudged results
// counted as 0, left out, or revealed, and its URL keys. Expected values are written out as arithmetic.
import assert from "node:assert/strict";
import { test } from "node:test";
import { formatNumber as f } from "explainer/metrics";
import { stateFromQuery } from "explainer/query";
import { queryFields, readout, scoredGrades, toQuery } from "../../explainer/figures/unjudged.js";

// The article's list (ranks 2, 3 and 7 unjudged) and the judged documents outside it.
const GRADES = [3, 2, 3, 0, 2, 1, 3, 0, 1, 2];
const JUDGED = [true, false, false, true, true, true, false, true, true, true];
const OUTSIDE = [3, 2, 2, 1, 0, 0];
const STATE = { grades: GRADES, judged: JUDGED, k: 10, unjudged_as: "nonrelevant", reveal: false };
const LIMITS = {
  grades: { length: 10, min_grade: 0, max_grade: 3, unjudged: false },
  judged: { length: 10 },
  k: { min: 1, max: 10 },
  unjudged_as: { options: ["nonrelevant", "condensed"] },
  reveal: {},
};
const d = (rank) => Math.log2(rank + 1);
const close = (a, b) => assert.ok(Math.abs(a - b) < 1e-12, `${a} is not ${b}`);
// The best 10 of the 13 judged grades: the list's 3, 0, 2, 1, 0, 1, 2 and the outside's 3, 2, 2, 1, 0, 0.
const IDCG = 7 / d(1) + 7 / d(2) + 3 / d(3) + 3 / d(4) + 3 / d(5) + 3 / d(6) + 1 / d(7) + 1 / d(8) + 1 / d(9);

test("the article's list: unjudged results count as not relevant", () => {
  assert.deepEqual(scoredGrades(STATE), [3, null, null, 0, 2, 1, null, 0, 1, 2]);
  const r = readout(STATE, OUTSIDE);
  const dcg = 7 / d(1) + 3 / d(5) + 1 / d(6) + 1 / d(9) + 3 / d(10);
  close(r.values.judged, 7 / 10);
  close(r.values.precision, 5 / 10);
  close(r.values.ndcg, dcg / IDCG);
  assert.equal(r.judgedText, "Judged@10 = 7 / 10 = 0.70");
  assert.equal(r.precisionText, "P@10 = 5 / 10 = 0.50");
  assert.equal(r.ndcgText, `NDCG@10 = ${f(dcg)} / ${f(IDCG)} = ${f(dcg / IDCG)}`);
  assert.equal(
    r.poolText,
    "Ideal DCG@10 takes the best 10 of all 13 judged documents (7 in the list, 6 outside it graded 3, 2, 2, 1, 0, 0): grades 3, 3, 2, 2, 2, 2, 1, 1, 1, 0.",
  );
  assert.equal(r.short, `Judged@10 0.70, P@10 0.50, NDCG@10 ${f(dcg / IDCG)}`);
});

test("revealing the grades raises the scores: every result judged", () => {
  const r = readout({ ...STATE, reveal: true }, OUTSIDE);
  const dcg = 7 / d(1) + 3 / d(2) + 7 / d(3) + 3 / d(5) + 1 / d(6) + 7 / d(7) + 1 / d(9) + 3 / d(10);
  // 16 judged: the list's ten (3, 2, 3, 0, 2, 1, 3, 0, 1, 2) and the six outside; the best ten.
  const idcg = 7 / d(1) + 7 / d(2) + 7 / d(3) + 7 / d(4) + 3 / d(5) + 3 / d(6) + 3 / d(7) + 3 / d(8) + 3 / d(9) + 1 / d(10);
  close(r.values.judged, 1);
  close(r.values.precision, 8 / 10);
  close(r.values.ndcg, dcg / idcg);
  assert.equal(r.judgedText, "Judged@10 = 10 / 10 = 1.00");
});

test("leaving unjudged results out condenses the list: the judged ones move up", () => {
  const r = readout({ ...STATE, unjudged_as: "condensed" }, OUTSIDE);
  // The list as scored: 3, 0, 2, 1, 0, 1, 2 at ranks 1 to 7.
  const dcg = 7 / d(1) + 3 / d(3) + 1 / d(4) + 1 / d(6) + 3 / d(7);
  close(r.values.judged, 7 / 10); // Judged@k still reads the list as shown
  close(r.values.precision, 5 / 10);
  close(r.values.ndcg, dcg / IDCG);
});

test("the ideal DCG can be checked by hand from the grades the note lists, at any k", () => {
  for (const state of [STATE, { ...STATE, k: 4 }, { ...STATE, reveal: true, k: 6 }]) {
    const r = readout(state, OUTSIDE);
    assert.ok(r.poolText.includes(`graded ${OUTSIDE.join(", ")}`));
    const listed = r.poolText.match(/: grades ([\d, ]+)\.$/)[1].split(", ").map(Number);
    assert.equal(listed.length, state.k);
    const idcg = listed.reduce((sum, g, i) => sum + (2 ** g - 1) / d(i + 1), 0);
    assert.ok(r.ndcgText.includes(`/ ${f(idcg)} = `), r.ndcgText);
  }
});

test("nothing relevant judged: NDCG is 0, said in words", () => {
  const r = readout({ ...STATE, grades: Array(10).fill(0) }, [0, 0]);
  assert.equal(r.ndcgText, "NDCG@10 = 0 (nothing relevant is judged)");
});

test("a link sets the unjudged ranks, k, the convention and reveal; a bad value is named", () => {
  const fields = queryFields({ limits: LIMITS });
  const parse = (search) => stateFromQuery(search, fields, STATE, 4000);
  const judged = JUDGED.map((_, i) => ![1, 2].includes(i + 1));
  const linked = { ...STATE, judged, k: 5, unjudged_as: "condensed" };
  assert.deepEqual(parse("?unjudged=1,2&k=5&unjudged_as=condensed&reveal=0&foo=<b>x</b>"), {
    state: linked,
    ignored: ["Ignored “foo”: this figure has no such setting."],
  });
  assert.deepEqual(toQuery({ ...linked, reveal: true }), [
    ["grades", "3,2,3,0,2,1,3,0,1,2"],
    ["unjudged", "1,2"],
    ["k", "5"],
    ["unjudged_as", "condensed"],
    ["reveal", "1"],
  ]);
  assert.deepEqual(parse("?reveal=yes&grades=4,2,3,0,2,1,3,0,1,2").ignored, [
    "Ignored grades=“4,2,3,0,2,1,3,0,1,2”: grades must list exactly 10 grades from 0 to 3, separated by commas.",
    "Ignored reveal=“yes”: reveal must be 0 or 1.",
  ]);
});
