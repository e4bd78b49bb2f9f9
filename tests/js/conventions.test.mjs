// The conventions figure's readout (figures/conventions.js) on a real query's list, as the
// workbench gives it: null grades where nobody judged a document, and every judged document
// outside the list in missed_grades, grade 0 too. The expected counts and orders come from the
// qrels and the run below, as dicts, not from the figure's state.
import assert from "node:assert/strict";
import { test } from "node:test";
import { readout } from "explainer/conventions";

const QRELS = { a: 2, b: 0, c: 1, r: 3, z: 0, w: 0 };
const LIST = ["a", "x", "b", "y"]; // x and y: nobody judged them
const CONVENTIONS = [
  { key: "linear-judged", gain: "linear", ideal: "judged", cut: true },
  { key: "exponential-judged-uncut", gain: "exponential", ideal: "judged", cut: false },
  { key: "linear-list", gain: "linear", ideal: "list", cut: true },
];

const grade = (d) => (Object.hasOwn(QRELS, d) ? QRELS[d] : null);
const outside = Object.keys(QRELS).filter((d) => !LIST.includes(d));
const state = {
  grades: LIST.map(grade),
  order: LIST.map((_, i) => i),
  k: 4,
  missed_grades: outside.map((d) => QRELS[d]).sort((x, y) => y - x),
};

test("the judged documents are the qrels' (unjudged results left out, those graded 0 outside counted)", () => {
  const r = readout(state, CONVENTIONS);
  const judged = Object.keys(QRELS).length;
  const ideal = Object.values(QRELS).sort((x, y) => y - x).join(", ");
  assert.equal(r.rows[0].idealNote, `Ideal order ${ideal}: from all ${judged} judged documents (${outside.length} not retrieved), top 4 counted.`);
  assert.equal(r.rows[1].idealNote, `Ideal order ${ideal}: from all ${judged} judged documents (${outside.length} not retrieved), every one counted.`);
  const inList = LIST.filter((d) => grade(d) !== null).map(grade);
  assert.equal(r.rows[2].idealNote, `Ideal order ${inList.sort((x, y) => y - x).join(", ")}: from the ${inList.length} judged results in the list only, top 4 counted.`);
  assert.equal(r.unjudged, LIST.filter((d) => grade(d) === null).length);
});

test("an unjudged result counts as grade 0: every number is the one with 0 in its place", () => {
  const asZero = readout({ ...state, grades: state.grades.map((g) => g ?? 0) }, CONVENTIONS);
  const r = readout(state, CONVENTIONS);
  r.rows.forEach((row, i) => assert.equal(row.value, asZero.rows[i].value, row.key));
  assert.equal(r.recall, asZero.recall);
  assert.equal(r.hitRate, asZero.hitRate);
  // By hand: DCG@4 of 2, ?, 0, ? over the ideal 3, 2, 1, 0 (linear gain); R = 3 (a, c, r).
  const dcg = 2;
  const idcg = 3 + 2 / Math.log2(3) + 1 / 2;
  assert.ok(Math.abs(r.rows[0].value - dcg / idcg) < 1e-12);
  assert.equal(r.recallText, "Recall@4 = 1 / 3 = 0.33");
  assert.equal(r.recallNote, "R = 1 relevant in the list + 2 not retrieved = 3");
});

test("the article's list, all judged, says what it said", () => {
  const article = { grades: [1, 3, 0, 2, 0, 3, 1, 2], order: [0, 1, 2, 3, 4, 5, 6, 7], k: 5, missed_grades: [3, 2] };
  const r = readout(article, CONVENTIONS);
  assert.equal(r.rows[0].idealNote, "Ideal order 3, 3, 3, 2, 2, 2, 1, 1, 0, 0: from all 10 judged documents (2 not retrieved), top 5 counted.");
  assert.equal(r.rows[2].idealNote, "Ideal order 3, 3, 2, 2, 1, 1, 0, 0: from the 8 results in the list only, top 5 counted.");
  assert.equal(r.unjudged, 0);
});
