// The workbench's page: its parts, from the gate to one query in full, over one state Python checks.
//
// With more than two runs, the table of runs by measures, the gate over the candidates and a sweep
// (runs_table.js), where the reader picks the two runs the rest compares (pair.js). Then the gate
// and the means (summary.js), where the two runs differ most (differ.js), each measure's
// distribution (distributions.js), every query in a table that draws only the rows in view
// (queries_table.js), and one query in full (query_pane.js): its two ranked lists, what-if
// judgments and moves, the terms of each measure, and figure 1 and the conventions figure mounted
// from their own modules on its lists.
//
// Model (from Python, workbench/view.py): table_text (data.page_table, as JSON), details and detail (drill_down.query_of),
// state (WorkbenchState: query, run, k, judgments, orders), status, uploads, upload_limits,
// figure_data. Every number of a query with what-if changes comes from values.js (metrics.js).
// The page sends Python its open query, run and k as the state, and each what-if change as a
// message of its own (workbench/what_if.py); Python sends its whole state back.
import { h, setText } from "explainer/dom";
import { applyPageTheme, createThemeSwitch } from "explainer/theme";
import { createAnnouncer } from "explainer/announcer";
import { f4 } from "explainer/workbench-elements";
import { shownId } from "explainer/workbench-ids";
import { createLive } from "explainer/workbench-live";
import { createStatus } from "explainer/workbench-status";
import { createUpload } from "explainer/workbench-upload";
import { pairDetail, pairFromLink, pairInLink, pairTable } from "explainer/workbench-pair";
import { createRunsTable } from "explainer/workbench-runs-table";
import { createSummary } from "explainer/workbench-summary";
import { createDiffer } from "explainer/workbench-differ";
import { createDistributions } from "explainer/workbench-distributions";
import { createQueriesTable } from "explainer/workbench-queries-table";
import { createQueryPane } from "explainer/workbench-query-pane";
import { createDownloads } from "explainer/workbench-download";

export function render({ model, el }) {
  const root = h("div", "wb");
  el.append(root);
  if (model.on_page) applyPageTheme(window.location.search);
  const app = createWorkbench(model, root);
  model.on("table_text", () => app.load());
  model.on("detail", () => app.received(model.detail));
  model.on("status", () => app.showStatus(model.status));
  model.on("state", () => app.fromPython());
}

/** The page's header: its title, the files it shows, the status line, the theme switch and the uploads. */
function createHead(model) {
  const head = h("header", "wb-head");
  const title = h("h1", "wb-title", "Evaluate runs, query by query");
  const sources = h("p", "wb-sources");
  const statusBox = createStatus();
  const upload = model.uploads ? createUpload(model, statusBox) : null;
  // The theme switch stands at the title's right, as on the figure pages: not on a line of its own.
  const titleRow = h("div", "wb-title-row");
  titleRow.append(title);
  if (model.on_page) titleRow.append(createThemeSwitch());
  head.append(titleRow, sources, statusBox.el);
  if (upload) head.append(upload.el);
  return { head, sources, statusBox };
}

function createWorkbench(model, root) {
  const announcer = createAnnouncer();
  let full = null; // model.table_text, read: every run
  let table = null; // the two runs the page compares (all of them when there are one or two)
  let pair = [0, 1]; // which two, the reader's choice (runs_table.js)
  let state = structuredClone(model.state);
  let sent = JSON.stringify(state);
  const details = new Map(Object.entries(model.details ?? {}));
  let chosen = null; // the measure of the differ-most chart, by name

  const { head, sources, statusBox } = createHead(model);
  const runsTable = createRunsTable((next) => {
    writeLink(model, "pair", pairInLink(full, next));
    (pair = next), (table = pairTable(full, pair)), redraw(), showPane();
  });
  const summary = createSummary();
  const differ = createDiffer((qid) => open(qid, true), (name) => {
    chosen = name;
    differ.draw(table, chosen, live);
  });
  const distributions = createDistributions((qid) => open(qid, true));
  const queries = createQueriesTable((qid) => open(qid, true));
  const pane = createQueryPane(model, {
    change: (edit) => commit(edit(structuredClone(state))),
    whatIf: (edit, changes) => commit(edit(structuredClone(state)), changes),
    close: () => open("", false),
  });
  root.append(head, runsTable.el, summary.el, differ.el, distributions.el, queries.el, pane.el, announcer.el);

  // -- values, with what-if changes ---------------------------------------------------------
  const { shown, live, liveFull } = createLives(() => ({ full, table, pair, state }), details);
  queries.el.append(createDownloads({ table: () => full, live: liveFull }).el);

  function load() {
    full = model.table_text ? JSON.parse(model.table_text) : null;
    if (!full || !full.qids) return;
    full.index = new Map(full.qids.map((q, i) => [q, i]));
    // A link that names two runs compares them (after an upload too, while the runs have those letters).
    pair = (model.on_page && pairFromLink(window.location.search, full)) || [0, 1];
    table = pairTable(full, pair);
    for (const [qid, detail] of Object.entries(model.details ?? {})) details.set(qid, detail);
    const gate = table.comparison?.gate.measure;
    chosen = table.measures.some((m) => m.name === gate) ? gate : table.measures[0].name;
    const files = [`judgments: ${shownId(full.qrels_source)}`, ...full.runs.map((run) => `${run.role}: ${shownId(run.source)} (run ${shownId(run.name)})`)];
    setText(sources, `${full.qids.length.toLocaleString("en")} queries · ${files.join(" · ")}`);
    redraw();
    const asked = new URLSearchParams(window.location.search).get("query");
    // A link that names a query shows it, as a link to a part of a page does.
    if (model.on_page && asked && table.index.has(asked) && !state.query) open(asked, true);
    else if (state.query) showPane();
  }

  function showPane() {
    pane.show(table, shown.get(state.query) ?? null, state, live);
  }

  function redraw() {
    runsTable.draw(full, pair);
    summary.draw(table, live);
    differ.draw(table, chosen, live);
    distributions.draw(table, live);
    queries.draw(table, live, state.query);
  }

  // `changes`: the what-if messages that make `next` from the state before.
  function commit(next, changes = []) {
    sendToPython(model, state, next, changes);
    state = next;
    sent = JSON.stringify(state);
    redraw();
    showPane();
    if (state.query) {
      const values = live.query(state.query);
      const m = table.measures.find((x) => x.name === chosen);
      announcer.say(`${state.query}: ${m.label} ${values.map((v) => f4(v[m.name])).join(" and ")}; mean ${table.runs.map((_, r) => f4(live.mean(r, table.measures.indexOf(m)))).join(" and ")}`);
    }
  }

  function open(qid, focus) {
    if (qid === state.query) {
      if (focus) pane.focus();
      return;
    }
    commit({ ...structuredClone(state), query: qid });
    writeLink(model, "query", qid);
    if (qid && focus) pane.focus();
  }

  load();
  statusBox.show(model.status);
  return {
    load,
    received(detail) {
      if (!detail || !detail.qid) return;
      details.set(detail.qid, detail);
      if (detail.qid === state.query) pane.show(table, shown.get(detail.qid), state, live);
    },
    showStatus: (status) => statusBox.show(status),
    fromPython() {
      // Python's whole state, or the page's own open query, run and k (sendToPython) coming back.
      const merged = { ...state, ...structuredClone(model.state) };
      const incoming = JSON.stringify(merged);
      if (incoming === sent) return;
      sent = incoming;
      state = merged;
      if (table) {
        redraw();
        showPane();
      }
    },
  };
}

/**
 * The page's values (live.js), from `now()` (the page's full table, table, pair and state as they
 * are) and `details`: `live` of the two runs compared, with the queries in full as those two see
 * them (`shown`, pair.js), and `liveFull` of every run, for the downloads.
 */
function createLives(now, details) {
  const shown = {
    get: (qid) => pairDetail(details.get(qid), now().pair, now().table.relevance_level),
    has: (qid) => details.has(qid),
  };
  const live = createLive({
    get table() {
      return now().table;
    },
    get state() {
      return now().state;
    },
    details: shown,
  });
  const liveFull = createLive({
    get table() {
      return now().full;
    },
    get state() {
      return now().state;
    },
    details,
  });
  return { shown, live, liveFull };
}

/** Tell Python of a commit: each what-if change a message; the open query, the run and k as the state. */
function sendToPython(model, before, next, changes) {
  for (const change of changes) model.send_msg(change);
  if (["query", "run", "k"].some((key) => next[key] !== before[key])) model.state = { query: next.query, run: next.run, k: next.k };
}

/** `key` in the page's link, on the workbench's own page: the open query (`?query=g044`), the pair (`?pair=a,c`); null removes it. */
function writeLink(model, key, value) {
  if (!model.on_page) return;
  const params = new URLSearchParams(window.location.search);
  if (value) params.set(key, value);
  else params.delete(key);
  // A comma needs no escape in a query (RFC 3986's sub-delims): `pair=a,c` reads as it is meant.
  const query = params.toString().replaceAll("%2C", ",");
  try {
    window.history.replaceState(window.history.state, "", `${window.location.pathname}${query ? `?${query}` : ""}`);
  } catch {
    // A sandboxed frame may forbid it; the page works on without.
  }
}
