// The two runs the workbench compares below its table of runs: the table and a query seen through them. Pure: no DOM.
//
// With more than two runs (data.table_of's `many`), the reader picks two, `pair` [i, j] with i < j,
// and the gate's summary, the differences, the queries table and the query pane draw them as they
// draw two runs. Each run seen keeps `at`, its place among all the runs: what-if moves name it, and
// the state's orders hold one entry per run. With one run or two the table and queries are as given.
// On the workbench's own page the pair is in the link (`?pair=a,c`), so a link shows what it showed.

/** The runs `pair` as two indices in order, each a run of `table`; [0, 1] when it is not. */
export function pairIn(table, pair) {
  const n = table.runs.length;
  const [i, j] = [...pair].sort((a, b) => a - b);
  return Number.isInteger(i) && Number.isInteger(j) && 0 <= i && i < j && j < n ? [i, j] : [0, 1];
}

/**
 * The pair a page's link names, `?pair=a,c` (the runs' letters, `a` the baseline), as indices of
 * `table`'s runs; null when the link names none, or not two different runs of more than two.
 */
export function pairFromLink(search, table) {
  const named = new URLSearchParams(search).get("pair");
  if (named === null || table.runs.length <= 2) return null;
  const letters = table.runs.map((run) => run.letter);
  const pair = named.split(",").map((letter) => letters.indexOf(letter));
  if (pair.length !== 2 || pair.includes(-1) || pair[0] === pair[1]) return null;
  return pairIn(table, pair);
}

/** What the link says of `pair`: its runs' letters ("a,c"), or null for the first two (the link names none). */
export function pairInLink(table, pair) {
  const [i, j] = pairIn(table, pair);
  return table.runs.length <= 2 || (i === 0 && j === 1) ? null : `${table.runs[i].letter},${table.runs[j].letter}`;
}

/**
 * The table as the two-run parts draw it: its runs `pair`, and the comparison of the pair when
 * one of them is the baseline (each candidate's with it: `comparisons`), else none.
 */
export function pairTable(table, pair) {
  if (table.runs.length <= 2) return table;
  const [i, j] = pairIn(table, pair);
  return {
    ...table,
    runs: [i, j].map((at) => ({ ...table.runs[at], at })),
    n_runs: table.runs.length,
    comparison: i === 0 ? table.comparisons[j - 1] : null,
  };
}

/**
 * A query in full (drill_down.query_of, every run's list) as the two-run parts draw it: the lists of
 * `pair`. The judged documents not relevant that neither of the two retrieved are counted anew:
 * those retrieved by the other runs are in `docs`, the rest in `judged_not_relevant_outside`.
 */
export function pairDetail(detail, pair, level) {
  if (!detail || detail.runs.length <= 2) return detail;
  const [i, j] = pairIn({ runs: detail.runs }, pair);
  const shown = new Set([...detail.runs[i].docs, ...detail.runs[j].docs]);
  const byOthers = new Set(detail.runs.flatMap((run) => run.docs).filter((d) => !shown.has(d)));
  const elsewhere = [...byOthers].filter((d) => detail.grades[d] !== null && detail.grades[d] < level).length;
  return {
    ...detail,
    runs: [detail.runs[i], detail.runs[j]],
    figures: [detail.figures[i], detail.figures[j]],
    judged_not_relevant_outside: detail.judged_not_relevant_outside + elsewhere,
  };
}
