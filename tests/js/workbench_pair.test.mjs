// Two runs picked among four (pair.js): what the page draws of them equals what data.py and drill_down.py give for
// the two runs alone (workbench_pair_oracle.py), lists, figures and counts; the values by query.
import assert from "node:assert/strict";
import { test } from "node:test";
import { pairDetail, pairFromLink, pairIn, pairInLink, pairTable } from "explainer/workbench-pair";
import { oracle } from "./oracle.mjs";

const PY = oracle("workbench_pair_oracle.py");

/** A detail's lists by docid, as they read whatever the documents' numbering. */
function lists(detail) {
  return detail.runs.map((run) => ({ docs: run.docs.map((d) => detail.docs[d]), scores: run.scores, present: run.present }));
}

for (const { level, table, details, pairs } of PY) {
  test(`a query's two lists picked among four are those of the two runs alone (level ${level})`, () => {
    let checked = 0;
    for (const { pair, details: alone } of pairs) {
      for (const [qid, theirs] of Object.entries(alone)) {
        const ours = pairDetail(details[qid], pair, level);
        assert.deepEqual(lists(ours), lists(theirs), `${qid} ${pair}`);
        assert.deepEqual(ours.figures, theirs.figures, `${qid} ${pair} figures`);
        assert.equal(ours.judged_not_relevant_outside, theirs.judged_not_relevant_outside, `${qid} ${pair}`);
        checked += 1;
      }
    }
    assert.ok(checked >= 100, `${checked} queries`);
    // The four runs' own lists leave some judged documents to the runs not picked: the count moves.
    assert.ok(pairs.some(({ details: alone }) => Object.keys(alone).some((q) => alone[q].judged_not_relevant_outside !== details[q].judged_not_relevant_outside)));
  });

  test(`the table of two runs picked among four has their values by query and the candidate's comparison (level ${level})`, () => {
    for (const { pair, table: alone } of pairs) {
      const ours = pairTable(table, pair);
      assert.deepEqual(ours.runs.map((run) => run.at), pair);
      assert.equal(ours.n_runs, 4);
      for (const [r, run] of ours.runs.entries()) {
        const where = new Map(table.qids.map((q, i) => [q, i]));
        alone.qids.forEach((qid, i) => {
          table.measures.forEach((m, j) => assert.equal(run.values[j][where.get(qid)], alone.runs[r].values[j][i], `${qid} ${m.name}`));
        });
      }
      // Against the baseline: that candidate's comparison, its gate adjusted over the three; else none.
      assert.equal(ours.comparison, pair[0] === 0 ? table.comparisons[pair[1] - 1] : null);
      if (pair[0] === 0) assert.match(ours.comparison.gate.reason, /adjusted over 3 candidates by Holm/);
    }
  });
}

test("a pair is two different runs in order, else the first two", () => {
  const table = { runs: [{}, {}, {}, {}] };
  assert.deepEqual(pairIn(table, [3, 1]), [1, 3]);
  for (const bad of [[2, 2], [0, 4], [-1, 2], ["0", 1], [0.5, 2], []]) assert.deepEqual(pairIn(table, bad), [0, 1], JSON.stringify(bad));
});

test("one run or two are drawn as they are", () => {
  const two = { runs: [{ role: "baseline" }, { role: "candidate" }], comparison: {} };
  assert.equal(pairTable(two, [0, 1]), two);
  const detail = { runs: [{ docs: [] }, { docs: [] }] };
  assert.equal(pairDetail(detail, [0, 1], 1), detail);
});

test("a link names a pair by the runs' letters, and names none for the first two", () => {
  const table = { runs: ["a", "b", "c", "d"].map((letter) => ({ letter })) };
  assert.deepEqual(pairFromLink("?pair=a,c", table), [0, 2]);
  assert.deepEqual(pairFromLink("?query=q1&pair=d%2Cb", table), [1, 3]); // either order, escaped or not
  for (const bad of ["", "?pair=", "?pair=a", "?pair=a,a", "?pair=a,e", "?pair=a,b,c", "?pair=A,C", "?pair=0,2"]) {
    assert.equal(pairFromLink(bad, table), null, bad);
  }
  assert.equal(pairFromLink("?pair=a,b", { runs: [{ letter: "a" }, { letter: "b" }] }), null); // two runs: no choice
  assert.equal(pairInLink(table, [2, 0]), "a,c");
  assert.equal(pairInLink(table, [1, 3]), "b,d");
  assert.equal(pairInLink(table, [0, 1]), null);
  for (const pair of [[0, 2], [1, 3], [2, 3]]) assert.deepEqual(pairFromLink(`?pair=${pairInLink(table, pair)}`, table), pair);
});
