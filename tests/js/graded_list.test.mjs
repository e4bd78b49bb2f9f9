// The graded list's rules (figures/graded_list.js): a promote, and its order and grades in the URL.
import assert from "node:assert/strict";
import { test } from "node:test";
import { gradedListFields, gradedListQuery, promoted } from "explainer/graded-list";
import { Ignored } from "explainer/query";

const ignored = (message) => (error) => error instanceof Ignored && error.message === message;

test("promote swaps a result with the one above; a graded list's order and grades travel in the URL", () => {
  assert.deepEqual(promoted([0, 1, 2, 3], 3), [0, 2, 1, 3]);
  assert.deepEqual(promoted([0, 1, 2, 3], 2), [1, 0, 2, 3]);
  const limits = { order: { length: 4 }, grades: { length: 4, min_grade: 0, max_grade: 3 } };
  const fields = gradedListFields(limits);
  const state = { grades: [1, 3, 0, 2], order: [0, 1, 2, 3], k: 4 };
  // order first: documents by rank, from 1; then the grades in rank order, as the reader writes them.
  const moved = fields.grades("0,1,2,3", fields.order("4,3,2,1", state));
  assert.deepEqual(moved, { grades: [3, 2, 1, 0], order: [3, 2, 1, 0], k: 4 });
  assert.deepEqual(gradedListQuery(moved), [["grades", "0,1,2,3"], ["order", "4,3,2,1"]]);
  assert.deepEqual(gradedListQuery(state), [["grades", "1,3,0,2"]]);
  assert.throws(() => fields.order("1,2,2,4", state), ignored("order must list documents 1 to 4, each once"));
  assert.throws(() => fields.order("1,2,3", state), ignored("order must list documents 1 to 4, each once, separated by commas"));
  assert.throws(() => fields.order("1,2,3,5", state), ignored("order must list documents 1 to 4, each once, separated by commas"));
});
