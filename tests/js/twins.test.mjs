// Each figure module against its Python state class, the twin a served page and a notebook use
// (figures_oracle.py): the same state after each flip, promotion or toggle of random sequences,
// the same values, and each figure's default state written into a link and read back unchanged.
import assert from "node:assert/strict";
import { test } from "node:test";
import { stateFromQuery } from "explainer/query";
import { promoted } from "explainer/graded-list";
import * as binary from "../../explainer/figures/binary.js";
import * as ndcg from "../../explainer/figures/ndcg.js";
import * as queries from "../../explainer/figures/queries.js";
import * as recallKinds from "../../explainer/figures/recall_kinds.js";
import * as unjudged from "../../explainer/figures/unjudged.js";
import * as conventions from "explainer/conventions";
import * as whichMeasure from "../../explainer/figures/which_measure.js";
import { oracle } from "./oracle.mjs";

const PY = oracle("figures_oracle.py");
const MODULES = {
  binary,
  ndcg,
  queries,
  unjudged,
  conventions,
  "recall-kinds": recallKinds,
  "which-measure": whichMeasure,
};

function close(actual, expected, where) {
  assert.ok(Math.abs(actual - expected) <= 1e-12, `${where}: ${actual} is not ${expected}`);
}

test("every figure's default state goes into a link and comes back as it was", () => {
  assert.deepEqual(Object.keys(PY.models).sort(), Object.keys(MODULES).sort());
  for (const [name, model] of Object.entries(PY.models)) {
    const m = MODULES[name];
    const search = `?${new URLSearchParams(m.toQuery(model.default, model))}`;
    const { state, ignored } = stateFromQuery(search, m.queryFields(model), model.default, model.max_query_length);
    assert.deepEqual(ignored, [], name);
    assert.deepEqual(state, model.default, name);
  }
});

test("flip matches BinaryState.flip on random sequences, bounds included", () => {
  const { limits } = PY.models.binary;
  let grew = 0;
  let shrank = 0;
  for (const { start, ranks, steps } of PY.binary) {
    let state = start;
    let before = binary.readout(state).nRelevant;
    ranks.forEach((rank, i) => {
      state = binary.flip(state, rank, limits);
      const where = `${JSON.stringify(start)} after ${ranks.slice(0, i + 1)}`;
      assert.deepEqual(state, steps[i].state, where);
      const r = binary.readout(state);
      assert.equal(r.nRelevant, steps[i].n_relevant, where);
      for (const key of ["precision", "recall", "rr", "ap"]) close(r.values[key], steps[i].values[key], `${where} ${key}`);
      grew += r.nRelevant > before;
      shrank += r.nRelevant < before;
      before = r.nRelevant;
    });
  }
  assert.ok(grew && shrank, "both bounds were reached: R grew at missed 0 and shrank at missed 12");
});

test("promotion matches GradedListState.promote (rank 1 stays), and DCG, ideal DCG and NDCG match", () => {
  for (const { start, ranks, steps } of PY.ndcg) {
    let state = start;
    ranks.forEach((rank, i) => {
      if (rank > 1) state = { ...state, order: promoted(state.order, rank) };
      const where = `${JSON.stringify(start)} after ${ranks.slice(0, i + 1)}`;
      assert.deepEqual(state, steps[i].state, where);
      const r = ndcg.readout(state);
      close(r.dcg, steps[i].values.dcg, where);
      close(r.idcg, steps[i].values.ideal_dcg, where);
      close(r.ndcg, steps[i].values.ndcg, where);
    });
  }
});

test("the two recalls' toggle, the index's results and the three numbers match RecallKindsState", () => {
  const { models, relevant } = PY.models["recall-kinds"];
  for (const { start, ranks, steps } of PY.recall_kinds) {
    let state = start;
    ranks.forEach((rank, i) => {
      state = recallKinds.toggle(state, rank);
      const where = `${start.model} after ${ranks.slice(0, i + 1)}`;
      assert.deepEqual(state, steps[i].state, where);
      const r = recallKinds.readout(state, models, relevant);
      assert.deepEqual(r.results, steps[i].results, where);
      close(r.values.ann, steps[i].values.ann_recall, where);
      close(r.values.recall, steps[i].values.recall, where);
      close(r.values.precision, steps[i].values.precision, where);
    });
  }
});

test("the unjudged figure's scored list and Judged@k, P@k and NDCG@k match UnjudgedState", () => {
  const { outside } = PY.models.unjudged;
  for (const { state, scored, values } of PY.unjudged) {
    const where = JSON.stringify(state);
    assert.deepEqual(unjudged.scoredGrades(state), scored, where);
    const r = unjudged.readout(state, outside);
    for (const key of ["judged", "precision", "ndcg"]) close(r.values[key], values[key], `${where} ${key}`);
  }
});

test("figure 3's RR or AP per query, mean and median match QueriesState", () => {
  const depth = PY.models.queries.limits.a.max_rank;
  for (const { state, systems } of PY.queries) {
    for (const system of ["a", "b"]) {
      const where = `${JSON.stringify(state)} ${system}`;
      const r = queries.systemReadout(state[system], state.measure, depth);
      const py = systems[system];
      assert.equal(r.values.length, py.per_query.length, where);
      r.values.forEach((v, q) => close(v, py.per_query[q], `${where} Q${q + 1}`));
      close(r.mean, py.summary.mean, where);
      close(r.median, py.summary.median, where);
    }
  }
});

test("the two recalls' numbers and sentences, for the article's models, by hand", () => {
  const { models, relevant } = PY.models["recall-kinds"];
  const suited = recallKinds.readout({ model: "suited", missed_neighbours: [] }, models, relevant);
  assert.equal(suited.annText, "ANN recall@10 = 10 / 10 = 1.00");
  assert.equal(suited.recallText, "Recall@10 = 7 / 8 = 0.88");
  assert.equal(suited.precisionText, "P@10 = 7 / 10 = 0.70");
  assert.equal(suited.announcement, "ANN recall@10 1.00, recall@10 0.88, precision@10 0.70");
  assert.equal(suited.lesson, "A perfect index and a suitable model: both recalls are high. Switch the model to see them part.");
  const unfound = relevant.filter((title) => !models.suited.neighbours.includes(title));
  assert.equal(unfound.length, 1);
  assert.equal(suited.unfoundNote, `People judged 8 documents relevant. Not in the index's 10: ${unfound[0]}.`);
  const mismatched = recallKinds.readout({ model: "mismatched", missed_neighbours: [] }, models, relevant);
  assert.equal(mismatched.annText, "ANN recall@10 = 10 / 10 = 1.00");
  assert.equal(mismatched.recallText, "Recall@10 = 4 / 8 = 0.50");
  assert.equal(mismatched.precisionText, "P@10 = 4 / 10 = 0.40");
  assert.match(mismatched.lesson, /^ANN recall is 1\.00, yet the list holds only 4 of the 8 relevant documents: /);
  // Neighbour 6 is not relevant: only ANN recall drops. Neighbour 2 is: both drop.
  const six = recallKinds.readout({ model: "suited", missed_neighbours: [6] }, models, relevant);
  assert.equal(six.annText, "ANN recall@10 = 9 / 10 = 0.90");
  assert.equal(six.annNote, "9 of the exact top 10 are in the index's 10. Same vectors; no judgment involved.");
  assert.equal(six.recallText, "Recall@10 = 7 / 8 = 0.88");
  assert.match(six.lesson, /^Each miss lowers ANN recall by 0\.10\. /);
  const two = recallKinds.readout({ model: "suited", missed_neighbours: [2] }, models, relevant);
  assert.equal(two.announcement, "ANN recall@10 0.90, recall@10 0.75, precision@10 0.60");
  assert.equal(recallKinds.indexResults({ model: "suited", missed_neighbours: [2, 6] }, models)[1], models.suited.next[0]);
  assert.equal(recallKinds.indexResults({ model: "suited", missed_neighbours: [2, 6] }, models)[5], models.suited.next[1]);
});

test("the two recalls' link: the model and the missed neighbours, sorted and once each", () => {
  const model = PY.models["recall-kinds"];
  const fields = recallKinds.queryFields(model);
  const parse = (search) => stateFromQuery(search, fields, model.default, model.max_query_length);
  assert.deepEqual(parse("?model=mismatched&missed_neighbours=7,3,7"), {
    state: { model: "mismatched", missed_neighbours: [3, 7] },
    ignored: [],
  });
  assert.deepEqual(recallKinds.toQuery({ model: "mismatched", missed_neighbours: [3, 7] }), [
    ["model", "mismatched"],
    ["missed_neighbours", "3,7"],
  ]);
  assert.deepEqual(parse("?model=big&missed_neighbours=11").ignored, [
    "Ignored model=“big”: model must be suited or mismatched.",
    "Ignored missed_neighbours=“11”: missed_neighbours must list neighbour ranks from 1 to 10, separated by commas.",
  ]);
});
