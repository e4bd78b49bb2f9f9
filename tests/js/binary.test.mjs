// Figure 1's logic (figures/binary.js): the cards' numbers and arithmetic, the flip rule that keeps
// R where it can, the charts' numbers for every k, and its URL keys. Expected values are
// arithmetic written out here; the Python twins are checked in twins.test.mjs.
import assert from "node:assert/strict";
import { test } from "node:test";
import { formatNumber as f } from "explainer/metrics";
import { stateFromQuery } from "explainer/query";
import { everyK, flip, flipRule, queryFields, readout, toQuery } from "../../explainer/figures/binary.js";

const LIMITS = { relevant: { length: 12 }, k: { min: 1, max: 12 }, missed: { min: 0, max: 12 } };
const ARTICLE = [false, true, true, false, true, false, false, true, false, false, true, false]; // ranks 2, 3, 5, 8, 11
const STATE = { relevant: ARTICLE, k: 5, missed: 1 };
const withRanks = (ranks) => Array.from({ length: 12 }, (_, i) => ranks.includes(i + 1));
const close = (a, b) => assert.ok(Math.abs(a - b) < 1e-12, `${a} is not ${b}`);

test("the article's numbers and their arithmetic", () => {
  const r = readout(STATE);
  assert.deepEqual(r.formulas, {
    precision: "P@5 = 3 / 5 = 0.60",
    recall: "R@5 = 3 / 6 = 0.50",
    rr: "RR = 1 / 2 = 0.50",
    ap: "AP = (1/2 + 2/3 + 3/5 + 4/8 + 5/11) / 6 = 0.45",
  });
  assert.deepEqual(r.notes, {
    precision: "3 relevant in the top 5",
    recall: "R = 5 in the list + 1 missed = 6",
    rr: "First relevant result at rank 2",
    ap: "Precision at each relevant rank, summed, divided by R = 6",
  });
  close(r.values.ap, (1 / 2 + 2 / 3 + 3 / 5 + 4 / 8 + 5 / 11) / 6);
  assert.equal(r.announcement, "P@5 0.60, R@5 0.50, RR 0.50, AP 0.45");
  assert.deepEqual(r.labels, { precision: "P@5", recall: "R@5", rr: "RR", ap: "AP" });
  // The ranks each card uses, highlighted under the pointer.
  assert.deepEqual(r.uses, { precision: [2, 3, 5], recall: [2, 3, 5], rr: [2], ap: [2, 3, 5, 8, 11] });
});

test("rank 1 turned relevant is the missed document found: P@5 0.80, R@5 0.67, RR 1.00, R stays 6", () => {
  const next = flip(STATE, 1, LIMITS);
  assert.deepEqual(next, { relevant: [true, ...ARTICLE.slice(1)], k: 5, missed: 0 });
  const r = readout(next);
  const ap = (1 / 1 + 2 / 2 + 3 / 3 + 4 / 5 + 5 / 8 + 6 / 11) / 6;
  assert.deepEqual(r.formulas, {
    precision: "P@5 = 4 / 5 = 0.80",
    recall: "R@5 = 4 / 6 = 0.67",
    rr: "RR = 1 / 1 = 1.00",
    ap: `AP = (1/1 + 2/2 + 3/3 + 4/5 + 5/8 + 6/11) / 6 = ${f(ap)}`,
  });
  assert.equal(r.notes.recall, "R = 6 in the list + 0 missed = 6");
  assert.equal(r.announcement, `P@5 0.80, R@5 0.67, RR 1.00, AP ${f(ap)}`);
  // And again: the article.
  assert.deepEqual(flip(next, 1, LIMITS), STATE);
});

test("a relevant result turned not relevant joins the missed: rank 2 off, RR moves to rank 3", () => {
  const next = flip(STATE, 2, LIMITS);
  assert.deepEqual(next, { relevant: withRanks([3, 5, 8, 11]), k: 5, missed: 2 });
  const r = readout(next);
  assert.equal(r.formulas.rr, `RR = 1 / 3 = ${f(1 / 3)}`);
  assert.equal(r.notes.recall, "R = 4 in the list + 2 missed = 6");
});

test("flipping on when nothing is missed grows R by one", () => {
  let state = flip({ ...STATE, missed: 0 }, 1, LIMITS);
  assert.deepEqual(state, { relevant: withRanks([1, 2, 3, 5, 8, 11]), k: 5, missed: 0 });
  let r = readout(state);
  assert.equal(r.notes.recall, "R = 6 in the list + 0 missed = 6");
  assert.equal(r.formulas.recall, `R@5 = 4 / 6 = ${f(4 / 6)}`);
  assert.equal(r.formulas.ap, `AP = (1/1 + 2/2 + 3/3 + 4/5 + 5/8 + 6/11) / 6 = ${f((1 / 1 + 2 / 2 + 3 / 3 + 4 / 5 + 5 / 8 + 6 / 11) / 6)}`);
  state = flip(state, 4, LIMITS);
  r = readout(state);
  assert.equal(r.nRelevant, 7);
  assert.equal(r.notes.recall, "R = 7 in the list + 0 missed = 7");
});

test("flipping off when twelve are missed shrinks R by one; on again, it comes from the missed", () => {
  const full = { ...STATE, missed: 12 };
  assert.equal(readout(full).notes.recall, "R = 5 in the list + 12 missed = 17");
  const off = flip(full, 2, LIMITS);
  assert.deepEqual(off, { relevant: withRanks([3, 5, 8, 11]), k: 5, missed: 12 });
  const r = readout(off);
  assert.equal(r.notes.recall, "R = 4 in the list + 12 missed = 16");
  assert.equal(r.formulas.recall, `R@5 = 2 / 16 = ${f(2 / 16)}`);
  assert.equal(r.formulas.ap, `AP = (1/3 + 2/5 + 3/8 + 4/11) / 16 = ${f((1 / 3 + 2 / 5 + 3 / 8 + 4 / 11) / 16)}`);
  assert.equal(r.formulas.rr, `RR = 1 / 3 = ${f(1 / 3)}`);
  const on = flip(off, 2, LIMITS);
  assert.deepEqual(on, { ...STATE, missed: 11 });
  assert.equal(readout(on).notes.recall, "R = 5 in the list + 11 missed = 16");
});

test("the missed count changes recall and AP, not precision or RR", () => {
  const r = readout({ ...STATE, missed: 2 });
  assert.equal(r.formulas.recall, `R@5 = 3 / 7 = ${f(3 / 7)}`);
  assert.equal(r.formulas.ap, `AP = (1/2 + 2/3 + 3/5 + 4/8 + 5/11) / 7 = ${f((1 / 2 + 2 / 3 + 3 / 5 + 4 / 8 + 5 / 11) / 7)}`);
  assert.equal(r.formulas.precision, "P@5 = 3 / 5 = 0.60");
  assert.equal(r.formulas.rr, "RR = 1 / 2 = 0.50");
  assert.equal(r.notes.recall, "R = 5 in the list + 2 missed = 7");
  const none = readout({ ...STATE, missed: 0 });
  assert.equal(none.formulas.recall, `R@5 = 3 / 5 = ${f(3 / 5)}`);
});

test("nothing relevant, found or missed: every number 0, said without NaN", () => {
  const nothing = Array(12).fill(false);
  let state = STATE;
  for (const rank of [2, 3, 5, 8, 11]) state = flip(state, rank, LIMITS);
  // Each result turned not relevant joins the missed: 1 + 5 = 6, R still 6.
  assert.deepEqual(state, { relevant: nothing, k: 5, missed: 6 });
  let r = readout(state);
  assert.equal(r.notes.recall, "R = 0 in the list + 6 missed = 6");
  assert.equal(r.formulas.recall, "R@5 = 0 / 6 = 0.00");
  assert.equal(r.formulas.ap, "AP = 0 / 6 = 0.00");
  assert.equal(r.formulas.rr, "RR = 0 (no relevant result in the list)");
  r = readout({ relevant: nothing, k: 5, missed: 0 });
  assert.equal(r.nRelevant, 0);
  assert.deepEqual(r.values, { precision: 0, recall: 0, rr: 0, ap: 0 });
  assert.deepEqual(r.formulas, {
    precision: "P@5 = 0 / 5 = 0.00",
    recall: "R@5 = 0 (R = 0: nothing to find)",
    rr: "RR = 0 (no relevant result in the list)",
    ap: "AP = 0 (R = 0: nothing to find)",
  });
  for (const k of [1, 12]) {
    const all = readout({ relevant: nothing, k, missed: 0 });
    const text = JSON.stringify([all.formulas, all.notes, all.announcement, everyK(all)]);
    for (const bad of ["NaN", "Infinity", "undefined", "null"]) assert.ok(!text.includes(bad), `${bad} at k = ${k}: ${text}`);
  }
  r = readout({ relevant: nothing, k: 12, missed: 1 });
  assert.equal(r.formulas.recall, "R@12 = 0 / 1 = 0.00");
  assert.equal(r.formulas.ap, "AP = 0 / 1 = 0.00");
});

test("the chart's numbers at every k: P@k and R@k, AP's terms as dots, and the missed as zeros", () => {
  const state = { relevant: withRanks([1, 4, 5, 9]), k: 3, missed: 2 }; // R = 6
  const r = readout(state);
  const { byK, apLegend, pr } = everyK(r);
  const hits = [1, 1, 1, 2, 3, 3, 3, 3, 4, 4, 4, 4];
  byK.precision.forEach((p, i) => close(p, hits[i] / (i + 1)));
  byK.recall.forEach((v, i) => close(v, hits[i] / 6));
  assert.deepEqual(r.apTerms.map(([rank]) => rank), [1, 4, 5, 9]);
  r.apTerms.forEach(([rank, p], i) => close(p, (i + 1) / rank));
  const ap = (1 + 2 / 4 + 3 / 5 + 4 / 9) / 6;
  close(r.values.ap, ap);
  assert.equal(
    apLegend,
    `● the precision at each relevant rank. AP = (the sum of the 4 ● + 2 zeros for the relevant documents the list missed) / 6 = ${f(ap)}, dividing by R = 6.`,
  );
  assert.deepEqual(pr.points.map((p) => p.relevant), withRanks([1, 4, 5, 9]));
  pr.points.forEach((p, i) => {
    assert.equal(p.k, i + 1);
    close(p.recall, hits[i] / 6);
    close(p.precision, hits[i] / (i + 1));
  });
  assert.equal(pr.missed, 2);
  assert.equal(pr.nRelevant, 6);
  assert.equal(
    pr.legend,
    `AP = (1.00 + 0.50 + 0.60 + 0.44 + 0 + 0) / 6 = ${f(ap)}: the mean of the precision at each relevant rank (●), and 0 for each relevant document never retrieved (○), the dashed line.`,
  );
  // One missed; none missed.
  assert.match(everyK(readout({ ...state, missed: 1 })).apLegend, /\+ 1 zero for the relevant document the list missed\) \/ 5 = .*, dividing by R = 5\./);
  assert.equal(
    everyK(readout({ ...state, missed: 0 })).apLegend,
    `● the precision at each relevant rank. AP = the mean of the 4 ● = ${f((1 + 2 / 4 + 3 / 5 + 4 / 9) / 4)}.`,
  );
  const empty = everyK(readout({ relevant: Array(12).fill(false), k: 2, missed: 0 }));
  assert.equal(empty.apLegend, "AP = 0: no relevant document, found or missed.");
  assert.equal(empty.pr.legend, "AP = 0: no relevant document, found or missed.");
  assert.ok(empty.pr.points.every((p) => p.recall === 0 && p.precision === 0));
});

test("a link sets relevant, missed and k within their bounds, and writes them back", () => {
  const fields = queryFields({ limits: LIMITS });
  const parse = (search) => stateFromQuery(search, fields, STATE, 4000);
  assert.deepEqual(parse("?relevant=1,4,5,9&missed=2&k=3"), { state: { relevant: withRanks([1, 4, 5, 9]), k: 3, missed: 2 }, ignored: [] });
  assert.deepEqual(toQuery(STATE), [["relevant", "2,3,5,8,11"], ["missed", "1"], ["k", "5"]]);
  assert.deepEqual(parse(`?${new URLSearchParams(toQuery(STATE))}`).state, STATE);
  assert.deepEqual(parse("?relevant=&missed=0&k=12"), { state: { relevant: Array(12).fill(false), k: 12, missed: 0 }, ignored: [] });
  assert.deepEqual(parse("?relevant=13&missed=13&k=0"), {
    state: STATE,
    ignored: [
      "Ignored relevant=“13”: relevant must list ranks from 1 to 12, separated by commas.",
      "Ignored missed=“13”: missed must be a whole number from 0 to 12.",
      "Ignored k=“0”: k must be a whole number from 1 to 12.",
    ],
  });
});

// A real query's list (the workbench): null where nobody judged the document.
test("an unjudged rank is marked unjudged and counted as not relevant, as trec_eval counts it", () => {
  const relevant = [true, null, false, null, true];
  const state = { relevant, k: 4, missed: 2 };
  const r = readout(state);
  assert.deepEqual(r.marks, [
    ["✓", "relevant"],
    ["?", "unjudged"],
    ["✗", "not relevant"],
    ["?", "unjudged"],
    ["✓", "relevant"],
  ]);
  // Relevant at ranks 1 and 5, R = 2 + 2 missed: the numbers written out, as for a list of 0s there.
  assert.equal(r.nRelevant, 4);
  assert.equal(r.formulas.precision, "P@4 = 1 / 4 = 0.25");
  assert.equal(r.formulas.recall, "R@4 = 1 / 4 = 0.25");
  assert.equal(r.formulas.ap, "AP = (1/1 + 2/5) / 4 = 0.35");
  close(r.values.ap, (1 / 1 + 2 / 5) / 4);
  close(r.values.rr, 1);
  // A flip judges it: relevant, one of the missed documents found.
  const limits = { relevant: { length: 5 }, k: { min: 1, max: 5 }, missed: { min: 0, max: 5 } };
  assert.deepEqual(flip(state, 2, limits), { relevant: [true, true, false, null, true], k: 4, missed: 1 });
  // The article's list has no unjudged rank: its marks are ✓ and ✗ only.
  assert.deepEqual(new Set(readout(STATE).marks.map(([symbol]) => symbol)), new Set(["✓", "✗"]));
});

test("with nothing missed, a flip to relevant makes R 6 and says so; flipping back keeps 6 and says nothing", () => {
  const start = { relevant: ARTICLE, k: 5, missed: 0 }; // R = 5
  const found = flip(start, 1, LIMITS);
  assert.equal(readout(found).nRelevant, 6);
  assert.equal(
    flipRule(start, found, LIMITS),
    "R went from 5 to 6: no missed document was left to be the one now found. Flipping it back keeps R = 6; Undo returns to R = 5.",
  );
  const back = flip(found, 1, LIMITS);
  assert.deepEqual(back, { ...start, missed: 1 }); // not the start: the document joined the missed
  assert.equal(readout(back).nRelevant, 6);
  assert.equal(flipRule(found, back, LIMITS), "");
});

test("with the missed count at its limit, a flip to not relevant makes R shrink and says why", () => {
  const start = { relevant: ARTICLE, k: 5, missed: 12 }; // R = 17
  const lost = flip(start, 2, LIMITS);
  assert.equal(readout(lost).nRelevant, 16);
  assert.equal(
    flipRule(start, lost, LIMITS),
    "R went from 17 to 16: the missed count was already at its limit, 12. Flipping it back keeps R = 16; Undo returns to R = 17.",
  );
});

test("a flip that keeps R, and any flip on a real query's list (missed fixed), says nothing", () => {
  assert.equal(flipRule(STATE, flip(STATE, 1, LIMITS), LIMITS), "");
  const fixed = { ...LIMITS, missed: { min: 0, max: 0 } };
  const start = { relevant: ARTICLE, k: 5, missed: 0 };
  assert.equal(flipRule(start, flip(start, 1, fixed), fixed), "");
});

test("the precision-recall view is kept in the link as chart=precision-recall, and by k is not written", () => {
  const model = { limits: { ...LIMITS, chart: { options: ["by-k", "precision-recall"] } } };
  const base = { ...STATE, chart: "by-k" };
  assert.deepEqual(toQuery(base), [["relevant", "2,3,5,8,11"], ["missed", "1"], ["k", "5"]]);
  const pr = { ...base, chart: "precision-recall" };
  assert.deepEqual(toQuery(pr).at(-1), ["chart", "precision-recall"]);
  const search = `?${new URLSearchParams(toQuery(pr))}`;
  assert.deepEqual(stateFromQuery(search, queryFields(model), base, 4000), { state: pr, ignored: [] });
  assert.deepEqual(stateFromQuery("?chart=pie", queryFields(model), base, 4000), {
    state: base,
    ignored: ["Ignored chart=“pie”: chart must be by-k or precision-recall."],
  });
});
