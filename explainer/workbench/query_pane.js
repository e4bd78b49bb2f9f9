// One query in full: its values, the terms behind them, its two lists, the figures on them, with what-if changes.
import { h } from "explainer/dom";
import { button } from "explainer/workbench-elements";
import { escaped, idNode } from "explainer/workbench-ids";
import { judged } from "explainer/workbench-values";
import { drawQueryValues } from "explainer/workbench-query-values";
import { drawTerms } from "explainer/workbench-terms";
import { SHOWN_AT_ONCE, drawLists } from "explainer/workbench-lists";
import { createQueryFigures } from "explainer/workbench-query-figures";

/**
 * The pane of the open query. `change(edit)` commits the workbench's state as `edit` changes a
 * copy of it; `whatIf(edit, changes)` commits a what-if edit with the messages that say it to
 * Python, one change each (workbench/what_if.py); `close()` closes the query. Returns { el,
 * focus(), show(table, detail, state, live) }.
 */
export function createQueryPane(model, { change, whatIf: commitWhatIf, close }) {
  const el = h("section", "wb-section wb-query");
  el.hidden = true;
  const heading = h("h2", "wb-heading");
  heading.tabIndex = -1;
  const closeButton = button("Close", "wb-button wb-close");
  closeButton.addEventListener("click", close);
  const undo = button("Undo this query's what-if changes", "wb-button wb-undo");
  const headRow = h("div", "wb-query-head");
  headRow.append(heading, undo, closeButton);
  const loading = h("p", "wb-note", "Loading this query's lists…");
  const valuesTable = h("table", "wb-means wb-query-values");
  const terms = h("div", "wb-terms");
  const lists = h("div", "wb-lists");
  const missedLine = h("p", "wb-missed");

  let table = null;
  let detail = null;
  let state = null;
  let live = null;
  let shownRows = [SHOWN_AT_ONCE, SHOWN_AT_ONCE];
  // A query opened from a link scrolls to the top of the screen; before its lists arrive from
  // Python the pane is one line at the foot of the page and cannot, so it scrolls again then.
  let scrollWhenLoaded = false;
  // What the pane's parts draw from, as it is when they read it.
  const view = {
    get table() {
      return table;
    },
    get detail() {
      return detail;
    },
    get state() {
      return state;
    },
    get live() {
      return live;
    },
    get shownRows() {
      return shownRows;
    },
    /** How many runs the files hold (two of them seen in a pair): the state's orders have one entry each. */
    get nRuns() {
      return table.n_runs ?? table.runs.length;
    },
    whatIf,
    change,
    commitWhatIf,
    setJudgments: (changes, as) => judge(view, changes, as),
    setOrder: (r, order) => reorder(view, r, order),
  };
  const figures = createQueryFigures(model, view);
  el.append(headRow, loading, valuesTable, terms, lists, missedLine, ...figures.parts);

  undo.addEventListener("click", () =>
    commitWhatIf(
      (s) => {
        delete s.judgments[s.query];
        delete s.orders[s.query];
        return s;
      },
      [{ type: "undo", qid: state.query }],
    ),
  );

  function whatIf() {
    return live.whatIf(state.query);
  }

  return {
    el,
    focus() {
      scrollWhenLoaded = !detail;
      requestAnimationFrame(() => {
        el.scrollIntoView({ block: "start" });
        heading.focus({ preventScroll: true });
      });
    },
    show(nextTable, nextDetail, nextState, nextLive) {
      const opened = nextState.query !== state?.query;
      table = nextTable;
      state = nextState;
      live = nextLive;
      el.hidden = !state.query;
      if (!state.query) return;
      if (opened) shownRows = [SHOWN_AT_ONCE, SHOWN_AT_ONCE];
      const i = table.index.get(state.query);
      heading.replaceChildren(idNode(state.query), table.texts.length && table.texts[i] ? `: ${escaped(table.texts[i])}` : "");
      detail = nextDetail;
      loading.hidden = Boolean(detail);
      for (const part of [valuesTable, terms, lists, missedLine, ...figures.parts]) part.hidden = !detail;
      undo.hidden = !live.changed(state.query);
      if (!detail) return;
      drawQueryValues(valuesTable, view);
      drawTerms(terms, view);
      drawLists({ lists, missedLine }, view);
      figures.draw();
      if (scrollWhenLoaded) {
        scrollWhenLoaded = false;
        requestAnimationFrame(() => el.scrollIntoView({ block: "start" }));
      }
    },
  };
}

/** What-if judgments of documents of the open query (`changes`: [doc, grade or flag], `as` which), through the pane's `view`. */
function judge(view, changes, as) {
  const { detail, state } = view;
  const next = judged(detail, state.judgments[state.query] ?? {}, changes, as, view.table.relevance_level);
  const messages = judgeMessages(detail, state.query, changes, next);
  view.commitWhatIf((s) => {
    if (Object.keys(next).length) s.judgments[s.query] = next;
    else delete s.judgments[s.query];
    return s;
  }, messages);
}

/** One message per document judged: its what-if grade, or "qrels" for the files' own again. */
export function judgeMessages(detail, qid, changes, next) {
  return changes.map(([doc]) => {
    const docid = detail.docs[doc];
    return { type: "judge", qid, docid, grade: Object.hasOwn(next, docid) ? next[docid] : "qrels" };
  });
}

/** A what-if order of run r's top list for the open query (none when it is the run's own); `at` is its place among all the runs. */
function reorder(view, r, order) {
  const own = order.every((d, i) => d === i);
  const at = view.table.runs[r].at ?? r;
  view.commitWhatIf((s) => {
    const orders = s.orders[s.query] ?? Array(view.nRuns).fill(null);
    orders[at] = own ? null : order;
    if (orders.some(Boolean)) s.orders[s.query] = orders;
    else delete s.orders[s.query];
    return s;
  }, [{ type: "move", qid: view.state.query, run: at, order: own ? null : order }]);
}
