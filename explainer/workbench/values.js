// The workbench's numbers for one query, with the reader's what-if changes: the twin of
// evaluation/measures.py's query_values (the tests check the two on generated collections),
// and the states of figure 1 and of the conventions figure for a run's top list, the twins of
// what drill_down.py makes with BinaryState.for_list and ConventionsState.for_list. Pure: no DOM.
//
// A query in full (drill_down.query_of) numbers its documents once: `docs` (docids), `grades` (the
// qrels grade of each, null when nobody judged it), and `runs[r].docs`, each run's document
// numbers in rank order. What-if changes are { judgments: {docid: grade or null}, orders: [order
// of run 0's top list or null, ...] }, an order listing positions 0, 1, 2... of the run's own order.
import {
  averagePrecision,
  dcgAtK,
  hitRateAtK,
  idealGrades,
  ndcgAtK,
  precisionAtK,
  recallAtK,
  reciprocalRank,
} from "explainer/metrics";

/** Each document's grade with the what-if judgments applied (null: nobody judged it). */
export function gradesWith(detail, judgments = {}) {
  return detail.grades.map((grade, i) => (Object.hasOwn(judgments, detail.docs[i]) ? judgments[detail.docs[i]] : grade));
}

/** Run r's document numbers in rank order, its top list in the what-if `order` when there is one. */
export function rankedDocs(detail, r, order = null) {
  const docs = detail.runs[r].docs;
  return order ? [...order.map((i) => docs[i]), ...docs.slice(order.length)] : docs;
}

/**
 * NDCG@k of a list under a convention { gain, ideal: "judged" | "list", cut }, as
 * measures.py's ndcg_by_convention: `judged` holds every judged grade of the query.
 */
export function ndcgByConvention(ranked, k, judged, { gain, ideal, cut }) {
  if (cut) return ndcgAtK(ranked, k, gain, ideal === "judged" ? judged : null);
  const best = idealGrades(ideal === "judged" ? judged : ranked.filter((g) => g !== null));
  const idcg = dcgAtK(best, Math.max(best.length, 1), gain);
  return idcg ? dcgAtK(ranked, k, gain) / idcg : 0;
}

/**
 * Each measure of one ranked list (grades in rank order, null unjudged), keyed by the measure's
 * name, as measures.py's query_values: `grades` are every document's of the query (for R and the
 * ideal), `measures` as data.table_of lists them, `conventions` NDCG's by key, `level` the lowest
 * relevant grade.
 */
export function queryValues(ranked, grades, measures, conventions, level = 1) {
  const binary = ranked.map((g) => (g === null ? null : Number(g >= level)));
  const judgedMask = ranked.map((g) => (g === null ? 0 : 1));
  const nRelevant = grades.filter((g) => g !== null && g >= level).length;
  const judged = grades.filter((g) => g !== null);
  const out = {};
  for (const m of measures) {
    const value = {
      precision: () => precisionAtK(binary, m.k),
      recall: () => recallAtK(binary, m.k, nRelevant),
      rr: () => reciprocalRank(binary),
      ap: () => averagePrecision(binary, nRelevant),
      hit_rate: () => hitRateAtK(binary, m.k),
      judged: () => judgedAtK(judgedMask, m.k),
      ndcg: () => ndcgByConvention(ranked, m.k, judged, conventions[m.convention]),
    }[m.key];
    out[m.name] = value();
  }
  return out;
}

/**
 * Judged@k (ir_measures'): the judged share of the results shown, judged in the top k over
 * min(k, results returned); 0 for an empty list. As kernels.py's judged_at_k_batch.
 */
function judgedAtK(judgedMask, k) {
  const shown = Math.min(k, judgedMask.length);
  if (shown === 0) return 0;
  return judgedMask.slice(0, shown).reduce((sum, j) => sum + j, 0) / shown;
}

/** A query's values for every run, with what-if changes: [{ name: value } per run]. */
export function queryValuesWith(detail, whatIf, table) {
  const grades = gradesWith(detail, whatIf.judgments);
  return detail.runs.map((run, r) => {
    if (!run.present) return Object.fromEntries(table.measures.map((m) => [m.name, 0]));
    const ranked = rankedDocs(detail, r, whatIf.orders[r]).map((d) => grades[d]);
    return queryValues(ranked, grades, table.measures, table.conventions, table.relevance_level);
  });
}

/**
 * The states of figure 1 and of the conventions figure for run r's top list (its first
 * `figures[r].depth` results), with what-if changes: what drill_down.py makes with the figures'
 * state classes without them. Documents of the conventions figure are the top list's in the
 * run's own order.
 */
export function figureStates(detail, r, whatIf, k, level) {
  const { depth } = detail.figures[r];
  const grades = gradesWith(detail, whatIf.judgments);
  const docs = detail.runs[r].docs.slice(0, depth);
  const order = whatIf.orders[r] ?? docs.map((_, i) => i);
  const shown = new Set(docs);
  // null where nobody judged the document: the figures mark it unjudged and count it as not relevant.
  const relevant = order.map((i) => (grades[docs[i]] === null ? null : grades[docs[i]] >= level));
  const nRelevant = grades.filter((g) => g !== null && g >= level).length;
  // Every judged document outside the list, those graded 0 that no run retrieved (not in docs) too.
  const outside = grades.filter((g, d) => !shown.has(d) && g !== null);
  outside.push(...Array(detail.judged_not_listed).fill(0));
  outside.sort((a, b) => b - a);
  const cutoff = Math.min(Math.max(k, 1), depth);
  return {
    binary: { relevant, k: cutoff, missed: nRelevant - relevant.filter((r) => r === true).length, chart: "by-k" },
    conventions: { grades: docs.map((d) => grades[d]), order, k: cutoff, missed_grades: outside },
  };
}

/**
 * What-if judgments after changes made through one control, as [document number, value] pairs.
 * `as` says what the control shows: "flag" (figure 1: relevant or not; a relevant flag judges the
 * document at the lowest relevant grade, the other grade 0) or "grade" (the lists and the
 * conventions figure: a grade, or null for unjudged). A value that shows what the qrels say
 * removes the document's what-if.
 */
export function judged(detail, judgments, changes, as, level) {
  const next = { ...judgments };
  for (const [doc, value] of changes) {
    const original = detail.grades[doc];
    let restores = value === original;
    let grade = value;
    if (as === "flag") {
      restores = value === (original !== null && original >= level);
      grade = value ? level : 0;
    }
    if (restores) delete next[detail.docs[doc]];
    else next[detail.docs[doc]] = grade;
  }
  return next;
}
