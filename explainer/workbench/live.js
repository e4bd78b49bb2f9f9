// A query's values as the page shows them: the files' numbers, with the reader's what-if changes.
import { queryValuesWith } from "explainer/workbench-values";

/**
 * The values the workbench draws, from `page`: its table (model.table, or the two runs of it a
 * reader picked: pair.js), its state (the what-if changes) and the queries it has in full
 * (details, by qid, as the table sees them), read as they are when asked.
 */
export function createLive(page) {
  const live = {
    /** The query's what-if judgments, and the orders of the table's runs (a run seen in a pair by its place `at`). */
    whatIf(qid) {
      const orders = page.state.orders[qid] ?? [];
      return { judgments: page.state.judgments[qid] ?? {}, orders: page.table.runs.map((run, r) => orders[run.at ?? r] ?? null) };
    },
    changed(qid) {
      return Object.hasOwn(page.state.judgments, qid) || Object.hasOwn(page.state.orders, qid);
    },
    /** Each run's values of query qid: [{ name: value }], with its what-if changes when its lists are here. */
    query(qid) {
      const detail = page.details.get(qid);
      if (detail && live.changed(qid)) return queryValuesWith(detail, live.whatIf(qid), page.table);
      const i = page.table.index.get(qid);
      return page.table.runs.map((run) => Object.fromEntries(page.table.measures.map((m, j) => [m.name, run.values[j][i]])));
    },
    /** One run's values of measure j for every query (what-if changes included). */
    column(r, j) {
      const values = page.table.runs[r].values[j].slice();
      for (const qid of Object.keys({ ...page.state.judgments, ...page.state.orders })) {
        const i = page.table.index.get(qid);
        if (i === undefined || !page.details.has(qid)) continue;
        values[i] = live.query(qid)[r][page.table.measures[j].name];
      }
      return values;
    },
    mean(r, j) {
      let mean = page.table.runs[r].means[j];
      const n = page.table.qids.length;
      for (const qid of Object.keys({ ...page.state.judgments, ...page.state.orders })) {
        const i = page.table.index.get(qid);
        if (i === undefined || !page.details.has(qid)) continue;
        mean += (live.query(qid)[r][page.table.measures[j].name] - page.table.runs[r].values[j][i]) / n;
      }
      return mean;
    },
    whatIfCount() {
      return new Set([...Object.keys(page.state.judgments), ...Object.keys(page.state.orders)]).size;
    },
  };
  return live;
}
