// The evaluation workbench: a team's judged queries and runs. The gate and the means, where the
// two runs differ most, each measure's distribution (lowest queries first), every query in a
// table that draws only the rows in view, and one query in full: its two ranked lists with their
// grades, what-if judgments and moves, the terms of each measure, and figure 1 and the
// conventions figure mounted from their own modules on its lists.
//
// Model (from Python, workbench/view.py): table (data.table_of), details and detail (data.query_of),
// state (WorkbenchState: query, run, k, judgments, orders), status, uploads, upload_limits,
// figure_data. Every number of a query with what-if changes comes from values.js (metrics.js).
import { averagePrecisionTerms, formatNumber, idealGrades, median, relevantRanks } from "explainer/metrics";
import { h, setText } from "explainer/dom";
import { applyPageTheme } from "explainer/page-url";
import { createAnnouncer } from "explainer/announcer";
import { dcgSum } from "explainer/grades";
import { render as renderBinary } from "explainer/binary";
import { render as renderConventions } from "explainer/conventions";
import { figureStates, gradesWith, judged, queryValuesWith, rankedDocs } from "explainer/workbench-values";

const ROW_HEIGHT = 36; // px: the queries table draws only the rows in view, each this tall
const SHOWN_AT_ONCE = 50; // rows of a ranked list shown before "Show more"
const LOWEST_SHOWN = 3; // lowest queries named under each distribution
const DIFFER_SHOWN = 5; // queries listed as lost most and won most
const TERMS_SHOWN = 12; // terms of AP written out before "…"
const f4 = (x) => formatNumber(x, 4);
const signed = (x) => `${x >= 0 ? "+" : "−"}${f4(Math.abs(x))}`;
const SVG = "http://www.w3.org/2000/svg";

function svg(tag, attrs = {}) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  return node;
}

/** A run as the page names it: its role, and its own name when that says more. */
function runLabel(run) {
  if (run.role === "run") return run.name;
  return run.name === run.role ? run.role : `${run.role}: ${run.name}`;
}

function button(text, className = "wb-button") {
  const b = h("button", className, text);
  b.type = "button";
  return b;
}

function section(title, className) {
  const box = h("section", `wb-section ${className}`);
  const heading = h("h2", "wb-heading", title);
  box.append(heading);
  return { box, heading };
}

export function render({ model, el }) {
  const root = h("div", "wb");
  el.append(root);
  if (model.on_page) applyPageTheme(window.location.search);
  const app = createWorkbench(model, root);
  model.on("table", () => app.load());
  model.on("detail", () => app.received(model.detail));
  model.on("status", () => app.showStatus(model.status));
  model.on("state", () => app.fromPython());
}

function createWorkbench(model, root) {
  const announcer = createAnnouncer();
  let table = null; // model.table
  let state = structuredClone(model.state);
  let sent = JSON.stringify(state);
  const details = new Map(Object.entries(model.details ?? {}));
  let chosen = null; // the measure of the differ-most chart, by name

  const head = h("header", "wb-head");
  const title = h("h1", "wb-title", "Evaluate runs, query by query");
  const sources = h("p", "wb-sources");
  const statusBox = createStatus();
  const upload = model.uploads ? createUpload(model, statusBox) : null;
  head.append(title, sources, statusBox.el);
  if (upload) head.append(upload.el);
  const summary = createSummary();
  const differ = createDiffer((qid) => open(qid, true), (name) => {
    chosen = name;
    differ.draw(table, chosen, live);
  });
  const distributions = createDistributions((qid) => open(qid, true));
  const queries = createQueriesTable((qid) => open(qid, true));
  const pane = createQueryPane(model, {
    change: (edit) => commit(edit(structuredClone(state))),
    close: () => open("", false),
  });
  root.append(head, summary.el, differ.el, distributions.el, queries.el, pane.el, announcer.el);

  // -- values, with what-if changes ---------------------------------------------------------
  const live = {
    whatIf(qid) {
      return { judgments: state.judgments[qid] ?? {}, orders: state.orders[qid] ?? [null, null] };
    },
    changed(qid) {
      return Object.hasOwn(state.judgments, qid) || Object.hasOwn(state.orders, qid);
    },
    /** Each run's values of query qid: [{ name: value }], with its what-if changes when its lists are here. */
    query(qid) {
      const detail = details.get(qid);
      if (detail && live.changed(qid)) return queryValuesWith(detail, live.whatIf(qid), table);
      const i = table.index.get(qid);
      return table.runs.map((run) => Object.fromEntries(table.measures.map((m, j) => [m.name, run.values[j][i]])));
    },
    /** One run's values of measure j for every query (what-if changes included). */
    column(r, j) {
      const values = table.runs[r].values[j].slice();
      for (const qid of Object.keys({ ...state.judgments, ...state.orders })) {
        const i = table.index.get(qid);
        if (i === undefined || !details.has(qid)) continue;
        values[i] = live.query(qid)[r][table.measures[j].name];
      }
      return values;
    },
    mean(r, j) {
      let mean = table.runs[r].means[j];
      const n = table.qids.length;
      for (const qid of Object.keys({ ...state.judgments, ...state.orders })) {
        const i = table.index.get(qid);
        if (i === undefined || !details.has(qid)) continue;
        mean += (live.query(qid)[r][table.measures[j].name] - table.runs[r].values[j][i]) / n;
      }
      return mean;
    },
    whatIfCount() {
      return new Set([...Object.keys(state.judgments), ...Object.keys(state.orders)]).size;
    },
  };

  function load() {
    table = model.table;
    if (!table || !table.qids) return;
    table.index = new Map(table.qids.map((q, i) => [q, i]));
    for (const [qid, detail] of Object.entries(model.details ?? {})) details.set(qid, detail);
    const gate = table.comparison?.gate.measure;
    chosen = table.measures.some((m) => m.name === gate) ? gate : table.measures[0].name;
    const files = [`judgments: ${table.qrels_source}`, ...table.runs.map((run) => `${run.role}: ${run.source} (run ${run.name})`)];
    setText(sources, `${table.qids.length.toLocaleString("en")} queries · ${files.join(" · ")}`);
    redraw();
    const asked = new URLSearchParams(window.location.search).get("query");
    // A link that names a query shows it, as a link to a part of a page does.
    if (model.on_page && asked && table.index.has(asked) && !state.query) open(asked, true);
    else if (state.query) pane.show(table, details.get(state.query) ?? null, state, live);
  }

  function redraw() {
    summary.draw(table, live);
    differ.draw(table, chosen, live);
    distributions.draw(table, live);
    queries.draw(table, live, state.query);
  }

  function commit(next) {
    state = next;
    sent = JSON.stringify(state);
    model.state = next;
    redraw();
    pane.show(table, details.get(state.query) ?? null, state, live);
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
    writeQuery(qid);
    if (qid && focus) pane.focus();
  }

  function writeQuery(qid) {
    if (!model.on_page) return;
    const params = new URLSearchParams(window.location.search);
    if (qid) params.set("query", qid);
    else params.delete("query");
    const query = params.toString();
    try {
      window.history.replaceState(window.history.state, "", `${window.location.pathname}${query ? `?${query}` : ""}`);
    } catch {
      // A sandboxed frame may forbid it; the page works on without.
    }
  }

  load();
  statusBox.show(model.status);
  return {
    load,
    received(detail) {
      if (!detail || !detail.qid) return;
      details.set(detail.qid, detail);
      if (detail.qid === state.query) pane.show(table, detail, state, live);
    },
    showStatus: (status) => statusBox.show(status),
    fromPython() {
      const incoming = JSON.stringify(model.state);
      if (incoming === sent) return;
      sent = incoming;
      state = structuredClone(model.state);
      if (table) {
        redraw();
        pane.show(table, details.get(state.query) ?? null, state, live);
      }
    },
  };
}

// -- what the page is doing, or what went wrong -----------------------------------------------

function createStatus() {
  const el = h("div", "wb-status");
  el.setAttribute("role", "status");
  const text = h("div", "wb-status-text");
  const bar = h("progress", "wb-progress");
  el.append(text, bar);
  el.hidden = true;
  return {
    el,
    show(status) {
      const kind = status?.kind ?? "";
      el.hidden = !kind;
      el.dataset.kind = kind;
      text.replaceChildren(...(status?.lines ?? []).map((line) => h("p", "", line)));
      bar.hidden = kind !== "busy";
      if (kind === "busy" && status.total) {
        bar.max = status.total;
        bar.value = Math.min(status.done, status.total);
      } else {
        bar.removeAttribute("value");
      }
    },
  };
}

// -- uploads: drag and drop, or pick files ----------------------------------------------------

const SLOTS = [
  ["qrels", "Judgments (qrels)", "qid iter docid grade"],
  ["baseline", "Run: the baseline", "qid Q0 docid rank score tag"],
  ["candidate", "Run: the candidate (optional)", "the same, for a second system"],
  ["topics", "Query texts (optional)", "qid, a tab, the text"],
  ["documents", "Document titles (optional)", "docid, a tab, the title"],
];

function createUpload(model, statusBox) {
  const limits = model.upload_limits;
  const el = h("details", "wb-upload");
  const summaryLine = h("summary", "", "Use your own files");
  const mb = (bytes) => `${(bytes / 2 ** 20).toLocaleString("en")} MB`;
  const note = h(
    "p",
    "wb-note",
    `Files stay in this page's session on the server, for you alone, until you close the page; nothing is written to disk. Each file at most ${mb(limits.max_file_bytes)} (gzipped files are fine, up to ${mb(limits.max_unpacked_bytes)} unpacked).`,
  );
  el.append(summaryLine, note);
  for (const [slot, label, format] of SLOTS) {
    const zone = h("label", "wb-drop");
    zone.dataset.slot = slot;
    const input = h("input");
    input.type = "file";
    input.className = "wb-file";
    zone.append(h("span", "wb-drop-label", label), h("span", "wb-drop-format", format), input);
    zone.append(h("span", "wb-drop-hint", "Drop a file here, or choose one"));
    input.addEventListener("change", () => input.files[0] && send(slot, input.files[0]));
    zone.addEventListener("dragover", (event) => {
      event.preventDefault();
      zone.classList.add("is-over");
    });
    zone.addEventListener("dragleave", () => zone.classList.remove("is-over"));
    zone.addEventListener("drop", (event) => {
      event.preventDefault();
      zone.classList.remove("is-over");
      const file = event.dataTransfer?.files?.[0];
      if (file) send(slot, file);
    });
    el.append(zone);
  }

  // A file goes in pieces, each sent when the server has the one before: the page shows how far
  // it is, and no message is larger than upload_limits.chunk_bytes of the file. Files chosen while
  // one is on its way wait their turn (qrels and a run may be dropped back to back).
  let queue = Promise.resolve();
  function send(slot, file) {
    queue = queue.then(() => sendNow(slot, file));
  }

  async function sendNow(slot, file) {
    if (file.size > limits.max_file_bytes) {
      statusBox.show({ kind: "error", lines: [`${file.name}: ${mb(file.size)} is more than the ${mb(limits.max_file_bytes)} a file may have here. Evaluate it from the command line: relevance-explainer evaluate … --serve.`] });
      return;
    }
    const chunk = limits.chunk_bytes;
    const pieces = Math.max(1, Math.ceil(file.size / chunk));
    try {
      await request({ type: "start", slot, name: file.name.slice(0, 200), size: file.size, pieces });
      for (let i = 0; i < pieces; i++) {
        const bytes = new Uint8Array(await file.slice(i * chunk, (i + 1) * chunk).arrayBuffer());
        statusBox.show({ kind: "busy", lines: [`Sending ${file.name}…`], done: i, total: pieces });
        await request({ type: "chunk", slot, index: i, data: toBase64(bytes) });
      }
      model.send_msg({ type: "end", slot });
    } catch (error) {
      statusBox.show({ kind: "error", lines: [`${file.name} did not arrive: ${error.message}`] });
    }
  }

  // One message, then wait for the server's answer to it.
  let waiting = null;
  model.on("msg:custom", (msg) => {
    if (!waiting) return;
    const { resolve, reject } = waiting;
    waiting = null;
    if (msg.ok) resolve();
    else reject(new Error(msg.error ?? "the server refused it"));
  });
  function request(msg) {
    return new Promise((resolve, reject) => {
      waiting = { resolve, reject };
      model.send_msg(msg);
    });
  }
  return { el };
}

function toBase64(bytes) {
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}

// -- the gate and the means ----------------------------------------------------------------

function createSummary() {
  const { box } = section("The means, and whether the candidate ships", "wb-summary");
  const gate = h("p", "wb-gate");
  const tableEl = h("table", "wb-means");
  const whatIfNote = h("p", "wb-note wb-whatif-note");
  const summaries = h("div", "wb-summaries");
  box.append(gate, tableEl, whatIfNote, summaries);
  return {
    el: box,
    draw(table, live) {
      const two = table.runs.length === 2;
      const c = table.comparison;
      gate.hidden = !c;
      if (c) {
        setText(gate, c.gate.reason);
        gate.dataset.ships = String(c.gate.ships);
      }
      const heads = ["Measure", ...table.runs.map((run) => `${run.role === "run" ? "mean" : run.role}`)];
      if (two) heads.push("difference", `${Math.round((Object.values(c.measures)[0]?.confidence ?? 0.95) * 100)}% interval`, "wins / ties / losses", "p (t-test)", "p (randomization)");
      const thead = h("thead");
      const hr = h("tr");
      for (const text of heads) hr.append(h("th", "", text));
      thead.append(hr);
      const tbody = h("tbody");
      table.measures.forEach((m, j) => {
        const tr = h("tr");
        tr.dataset.measure = m.name;
        const th = h("th", "", m.label);
        th.scope = "row";
        tr.append(th);
        const means = table.runs.map((_, r) => live.mean(r, j));
        for (const mean of means) tr.append(h("td", "num", f4(mean)));
        if (two) {
          const s = c.measures[m.name];
          const p = (x) => (x === null ? "n/a" : x < 0.0001 ? x.toExponential(1) : f4(x));
          const ci = s.ci_low === null ? "n/a" : `[${signed(s.ci_low)}, ${signed(s.ci_high)}]`;
          tr.append(h("td", "num wb-delta", signed(means[1] - means[0])), h("td", "num", ci));
          tr.append(h("td", "num", `${s.wins} / ${s.ties} / ${s.losses}`), h("td", "num", p(s.t_p)), h("td", "num", p(s.randomization_p)));
        }
        tbody.append(tr);
      });
      tableEl.replaceChildren(thead, tbody);
      const n = live.whatIfCount();
      whatIfNote.hidden = !n;
      setText(whatIfNote, n ? `The means include your what-if changes to ${n} ${n === 1 ? "query" : "queries"}; the interval, the counts, the p-values and the verdict are of the files as loaded.` : "");
      summaries.replaceChildren(...table.runs.flatMap((run) => run.summary.map((line) => h("p", "wb-note", `${run.role === "run" ? "" : `${run.role}: `}${line}`))));
    },
  };
}

// -- where the two runs differ most ---------------------------------------------------------

function createDiffer(open, choose) {
  const { box } = section("Where the two runs differ most", "wb-differ");
  const pick = h("select", "wb-measure-select");
  pick.setAttribute("aria-label", "Measure of the differences");
  pick.addEventListener("change", () => choose(pick.value));
  const chart = svg("svg", { class: "wb-chart wb-differ-chart", viewBox: "0 0 600 160", preserveAspectRatio: "none", role: "img" });
  const lists = h("div", "wb-differ-lists");
  box.append(h("p", "wb-note", "Each bar is one query: the candidate's value minus the baseline's, from the worst loss to the best win. Pick a query to see both lists."), pick, chart, lists);
  let order = [];
  let qids = [];
  chart.addEventListener("click", (event) => {
    if (!order.length) return;
    const box = chart.getBoundingClientRect();
    const i = Math.min(order.length - 1, Math.max(0, Math.floor(((event.clientX - box.left) / box.width) * order.length)));
    open(qids[order[i]]);
  });
  return {
    el: box,
    draw(table, name, live) {
      box.hidden = table.runs.length !== 2;
      if (box.hidden) return;
      if (pick.options.length !== table.measures.length) {
        pick.replaceChildren(...table.measures.map((m) => Object.assign(h("option", "", m.label), { value: m.name })));
      }
      pick.value = name;
      const j = table.measures.findIndex((m) => m.name === name);
      const a = live.column(0, j);
      const b = live.column(1, j);
      const delta = b.map((v, i) => v - a[i]);
      qids = table.qids;
      order = delta.map((_, i) => i).sort((x, y) => delta[x] - delta[y] || x - y);
      const top = Math.max(1e-9, ...delta.map(Math.abs));
      const n = order.length;
      let path = "";
      order.forEach((i, at) => {
        const x = (600 * (at + 0.5)) / n;
        path += `M${x.toFixed(2)} 80V${(80 - (75 * delta[i]) / top).toFixed(2)}`;
      });
      const width = Math.max(0.6, Math.min(8, (600 / n) * 0.8));
      chart.replaceChildren(svg("line", { x1: 0, x2: 600, y1: 80, y2: 80, class: "wb-axis" }), svg("path", { d: path, class: "wb-bars", "stroke-width": width }));
      const label = table.measures[j].label;
      chart.setAttribute("aria-label", `${label}: candidate minus baseline for each of ${n} queries, sorted. ${delta.filter((d) => d < -1e-12).length} losses, ${delta.filter((d) => d > 1e-12).length} wins.`);
      const listOf = (title, picks) => {
        const group = h("div", "wb-differ-list");
        group.append(h("h3", "wb-subheading", title));
        const ul = h("ul", "wb-query-list");
        for (const i of picks) {
          const li = h("li");
          const b = button(`${qids[i]} ${signed(delta[i])}`, "wb-link");
          b.dataset.qid = qids[i];
          b.addEventListener("click", () => open(qids[i]));
          li.append(b);
          if (table.texts.length) li.append(h("span", "wb-text", ` ${table.texts[i]}`));
          ul.append(li);
        }
        if (!picks.length) ul.append(h("li", "wb-note", "none"));
        group.append(ul);
        return group;
      };
      const losses = order.filter((i) => delta[i] < -1e-12).slice(0, DIFFER_SHOWN);
      const wins = order.filter((i) => delta[i] > 1e-12).reverse().slice(0, DIFFER_SHOWN);
      lists.replaceChildren(listOf(`The candidate lost most on (${label})`, losses), listOf(`The candidate won most on (${label})`, wins));
    },
  };
}

// -- each measure's distribution, lowest first -------------------------------------------------

function createDistributions(open) {
  const { box } = section("Each measure, query by query: averages hide distributions", "wb-distributions");
  const grid = h("div", "wb-dist-grid");
  box.append(h("p", "wb-note", "Each curve is one run's values sorted from the lowest query to the highest; the lines mark the mean (dashed) and the median (dotted). The lowest queries are named under each."), grid);
  return {
    el: box,
    draw(table, live) {
      grid.replaceChildren(
        ...table.measures.map((m, j) => {
          const card = h("figure", "wb-dist");
          card.dataset.measure = m.name;
          const plot = svg("svg", { class: "wb-chart", viewBox: "0 0 300 120", preserveAspectRatio: "none", role: "img" });
          const captionLines = [];
          const lowest = h("ul", "wb-query-list");
          table.runs.forEach((run, r) => {
            const values = live.column(r, j);
            const order = values.map((_, i) => i).sort((x, y) => values[x] - values[y] || x - y);
            const n = order.length;
            const y = (v) => (115 - 110 * v).toFixed(2);
            let path = `M0 ${y(values[order[0]] ?? 0)}`;
            order.forEach((i, at) => {
              path += `H${((300 * at) / n).toFixed(2)}V${y(values[i])}`;
            });
            path += "H300";
            const mean = live.mean(r, j);
            const mid = median(values);
            plot.append(svg("path", { d: path, class: `wb-curve wb-run-${r}` }));
            plot.append(svg("line", { x1: 0, x2: 300, y1: y(mean), y2: y(mean), class: `wb-mean wb-run-${r}` }));
            plot.append(svg("line", { x1: 0, x2: 300, y1: y(mid), y2: y(mid), class: `wb-median wb-run-${r}` }));
            const zeros = values.filter((v) => v === 0).length;
            captionLines.push(`${run.role === "run" ? "" : `${run.role}: `}mean ${f4(mean)}, median ${f4(mid)}, ${zeros} at 0`);
            for (const i of order.slice(0, LOWEST_SHOWN)) {
              const li = h("li");
              const b = button(`${table.qids[i]} ${f4(values[i])}`, "wb-link");
              b.dataset.qid = table.qids[i];
              b.addEventListener("click", () => open(table.qids[i]));
              li.append(table.runs.length === 2 ? h("span", `wb-run-tag wb-run-${r}`, run.role) : "", b);
              lowest.append(li);
            }
          });
          plot.setAttribute("aria-label", `${m.label} of each query, sorted: ${captionLines.join("; ")}`);
          const caption = h("figcaption");
          caption.append(h("strong", "", m.label), ...captionLines.map((line) => h("span", "wb-dist-line", line)));
          card.append(caption, plot, h("p", "wb-subheading", "Lowest:"), lowest);
          return card;
        }),
      );
    },
  };
}

// -- every query, in a table that draws only the rows in view ---------------------------------

function createQueriesTable(open) {
  const { box } = section("Every query", "wb-queries");
  const search = h("input", "wb-search");
  search.type = "search";
  search.maxLength = 200;
  search.setAttribute("aria-label", "Find a query by its id or its text");
  search.placeholder = "Find a query by id or text";
  const count = h("p", "wb-note wb-count");
  count.setAttribute("aria-live", "polite");
  // One scroller for the header and the rows, both ways: the header sticks to its top and the
  // query column to its left, so every heading moves with its numbers however it is scrolled
  // (a header scrolled on its own lags or drifts from rows that a trackpad scrolls sideways).
  // It is focusable, so that keys scroll it, and it is the table for screen readers.
  const grid = h("div", "wb-grid");
  grid.tabIndex = 0;
  grid.setAttribute("role", "table");
  grid.setAttribute("aria-label", "Every query");
  const header = h("div", "wb-grid-head");
  header.setAttribute("role", "row");
  // The spacer is as tall as every row would be; the body in it holds the rows drawn.
  const spacer = h("div", "wb-grid-spacer");
  spacer.setAttribute("role", "none");
  const body = h("div", "wb-grid-body");
  body.setAttribute("role", "rowgroup");
  spacer.append(body);
  grid.append(header, spacer);
  box.append(search, count, grid);

  let table = null;
  let live = null;
  let current = "";
  let columns = [];
  let rows = []; // query positions in the order shown
  let sort = { column: 0, descending: false };
  let drawn = "";

  function build() {
    const two = table.runs.length === 2;
    columns = [{ label: "Query", className: "wb-col-qid", value: (i) => table.qids[i], text: (i) => table.qids[i] }];
    if (table.texts.length) columns.push({ label: "Text", className: "wb-col-text", value: (i) => table.texts[i].toLowerCase(), text: (i) => table.texts[i] });
    table.measures.forEach((m, j) => {
      table.runs.forEach((run, r) => {
        const label = two ? `${m.label} ${run.role === "baseline" ? "base" : "cand."}` : m.label;
        columns.push({ label, className: `num wb-col-m${j}${two ? "" : " wb-col-main"}`, value: (i) => cache[r][j][i], text: (i) => f4(cache[r][j][i]) });
      });
      if (two) columns.push({ label: `${m.label}\u00a0Δ`, className: `num wb-col-delta wb-col-m${j}`, value: (i) => cache[1][j][i] - cache[0][j][i], text: (i) => signed(cache[1][j][i] - cache[0][j][i]) });
    });
    header.replaceChildren(
      ...columns.map((column, c) => {
        const cell = h("div", `wb-cell ${column.className}`);
        cell.setAttribute("role", "columnheader");
        const b = button(column.label, "wb-sort");
        b.addEventListener("click", () => {
          sort = { column: c, descending: sort.column === c ? !sort.descending : c > 0 };
          order();
        });
        cell.append(b);
        return cell;
      }),
    );
    // Every row is a grid of its own: fixed widths keep the columns of all rows and the header in
    // line (the stylesheet sets the query's and the text's, narrower on a phone).
    const width = (c) => (c.className.includes("wb-col-qid") ? "var(--wb-qid-width)" : c.className.includes("wb-col-text") ? "var(--wb-text-width)" : "6.5em");
    grid.style.setProperty("--wb-columns", columns.map(width).join(" "));
  }

  let cache = [];
  function order() {
    cache = table.runs.map((_, r) => table.measures.map((_, j) => live.column(r, j)));
    const needle = search.value.trim().toLowerCase();
    const all = table.qids.map((_, i) => i);
    const kept = needle ? all.filter((i) => table.qids[i].toLowerCase().includes(needle) || (table.texts[i] ?? "").toLowerCase().includes(needle)) : all;
    const value = columns[sort.column].value;
    const sign = sort.descending ? -1 : 1;
    rows = kept.sort((x, y) => {
      const a = value(x);
      const b = value(y);
      return (a < b ? -1 : a > b ? 1 : 0) * sign || x - y;
    });
    header.querySelectorAll(".wb-cell").forEach((cell, c) => {
      cell.setAttribute("aria-sort", c === sort.column ? (sort.descending ? "descending" : "ascending") : "none");
    });
    grid.setAttribute("aria-rowcount", String(rows.length + 1));
    setText(count, needle ? `${rows.length.toLocaleString("en")} of ${table.qids.length.toLocaleString("en")} queries match.` : `${table.qids.length.toLocaleString("en")} queries. Sort by any column; pick a query to open it.`);
    spacer.style.height = `${rows.length * ROW_HEIGHT}px`;
    drawn = "";
    paint();
  }

  // Only the rows in view (and a few around them) are in the page: ten thousand queries scroll
  // as smoothly as ten.
  function paint() {
    // The rows start under the header, which stays in view: scrollTop is the body's offset in view.
    const first = Math.max(0, Math.floor(grid.scrollTop / ROW_HEIGHT) - 8);
    const last = Math.min(rows.length, Math.ceil((grid.scrollTop + (grid.clientHeight || 480)) / ROW_HEIGHT) + 8);
    const key = `${first} ${last} ${current}`;
    if (key === drawn) return;
    drawn = key;
    body.style.transform = `translateY(${first * ROW_HEIGHT}px)`;
    const made = [];
    for (let at = first; at < last; at++) {
      const i = rows[at];
      const row = h("div", "wb-row");
      row.setAttribute("role", "row");
      row.setAttribute("aria-rowindex", String(at + 2));
      row.dataset.qid = table.qids[i];
      if (table.qids[i] === current) row.classList.add("is-open");
      if (live.changed(table.qids[i])) row.classList.add("is-whatif");
      columns.forEach((column, c) => {
        const cell = h("div", `wb-cell ${column.className}`);
        cell.setAttribute("role", "cell");
        if (c === 0) {
          const b = button(column.text(i), "wb-link");
          b.addEventListener("click", () => open(table.qids[i]));
          cell.append(b);
        } else {
          cell.textContent = column.text(i);
          if (column.className.includes("wb-col-delta")) cell.dataset.sign = String(Math.sign(Math.round(column.value(i) * 1e12)));
        }
        row.append(cell);
      });
      made.push(row);
    }
    body.replaceChildren(...made);
  }

  let painting = 0;
  grid.addEventListener("scroll", () => {
    if (!painting) painting = requestAnimationFrame(() => ((painting = 0), paint()));
  });
  // A heading reached by Tab comes wholly into view beside the query column, not under it (the
  // browser scrolls a focused element only until some of it shows, and knows nothing of what sticks).
  header.addEventListener("focusin", (event) => {
    const cell = event.target.closest(".wb-cell");
    if (!cell || cell === header.firstChild) return;
    const left = cell.offsetLeft - header.firstChild.offsetWidth;
    const right = cell.offsetLeft + cell.offsetWidth - grid.clientWidth;
    if (grid.scrollLeft > left) grid.scrollLeft = left;
    else if (grid.scrollLeft < right) grid.scrollLeft = right;
  });
  search.addEventListener("input", () => {
    grid.scrollTop = 0;
    order();
  });
  new ResizeObserver(() => paint()).observe(grid);

  return {
    el: box,
    draw(nextTable, nextLive, open_) {
      const rebuilt = nextTable !== table;
      table = nextTable;
      live = nextLive;
      current = open_;
      if (rebuilt) build();
      order();
    },
  };
}

// -- one query in full -------------------------------------------------------------------------

function createQueryPane(model, { change, close }) {
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
  const figureHead = h("div", "wb-figure-head");
  const figureNote = h("p", "wb-note wb-figure-note");
  const figures = h("div", "wb-figures");
  el.append(headRow, loading, valuesTable, terms, lists, missedLine, figureHead, figureNote, figures);

  let table = null;
  let detail = null;
  let state = null;
  let live = null;
  let shownRows = [SHOWN_AT_ONCE, SHOWN_AT_ONCE];
  let mounted = {}; // the figures on show: { binary, binaryKey, conventions, convKey }
  // A query opened from a link scrolls to the top of the screen; before its lists arrive from
  // Python the pane is one line at the foot of the page and cannot, so it scrolls again then.
  let scrollWhenLoaded = false;

  undo.addEventListener("click", () =>
    change((s) => {
      delete s.judgments[s.query];
      delete s.orders[s.query];
      return s;
    }),
  );

  function whatIf() {
    return live.whatIf(state.query);
  }

  function setJudgments(changes, as) {
    change((s) => {
      const next = judged(detail, s.judgments[s.query] ?? {}, changes, as, table.relevance_level);
      if (Object.keys(next).length) s.judgments[s.query] = next;
      else delete s.judgments[s.query];
      return s;
    });
  }

  function setOrder(r, order) {
    change((s) => {
      const orders = s.orders[s.query] ?? [null, null];
      orders[r] = order.every((d, i) => d === i) ? null : order;
      if (orders.some(Boolean)) s.orders[s.query] = orders;
      else delete s.orders[s.query];
      return s;
    });
  }

  function drawValues() {
    const values = live.query(state.query);
    const original = table.runs.map((run) => Object.fromEntries(table.measures.map((m, j) => [m.name, run.values[j][table.index.get(state.query)]])));
    const two = table.runs.length === 2;
    const hr = h("tr");
    const heads = table.runs.map((run, r) => `${run.role === "run" ? "value" : run.role}${detail.runs[r].present ? "" : " (no results)"}`);
    for (const text of ["Measure", ...heads, ...(two ? ["difference"] : [])]) hr.append(h("th", "", text));
    const thead = h("thead");
    thead.append(hr);
    const tbody = h("tbody");
    for (const m of table.measures) {
      const tr = h("tr");
      tr.dataset.measure = m.name;
      const th = h("th", "", m.label);
      th.scope = "row";
      tr.append(th);
      values.forEach((v, r) => {
        const td = h("td", "num", f4(v[m.name]));
        if (Math.abs(v[m.name] - original[r][m.name]) > 1e-12) td.append(h("span", "wb-was", ` (was ${f4(original[r][m.name])})`));
        tr.append(td);
      });
      if (two) tr.append(h("td", "num wb-delta", signed(values[1][m.name] - values[0][m.name])));
      tbody.append(tr);
    }
    valuesTable.replaceChildren(thead, tbody);
  }

  // The terms of each run's AP and NDCG: where the difference between the two comes from.
  function drawTerms() {
    const grades = gradesWith(detail, whatIf().judgments);
    const level = table.relevance_level;
    const judgedGrades = grades.filter((g) => g !== null);
    const rows = [];
    const ap = table.measures.find((m) => m.key === "ap");
    const ndcg = table.measures.find((m) => m.key === "ndcg");
    const box = h("div", "wb-terms-grid");
    box.append(h("h3", "wb-subheading", "The terms behind the numbers"));
    // Every document of the query that has a grade: those of detail.docs (the lists' and those
    // judged 1 or more that no run retrieved), with what-if judgments, and those graded 0 that no
    // run retrieved.
    const nJudged = judgedGrades.length + detail.judged_not_listed;
    const nRelevant = grades.filter((g) => g !== null && g >= level).length;
    detail.runs.forEach((run, r) => {
      const lines = [];
      if (!run.present) {
        const missed = nRelevant === 1 ? ", and its 1 relevant document is missed" : nRelevant ? `, and all ${nRelevant} relevant documents are missed` : "";
        lines.push(`No results for this query: every measure counts 0${missed}.`);
        const card = h("div", `wb-terms-run wb-run-${r}`);
        card.append(h("p", "wb-terms-title", runLabel(table.runs[r])), ...lines.map((line) => h("p", "wb-term", line)));
        rows.push(card);
        return;
      }
      const ranked = rankedDocs(detail, r, whatIf().orders[r]).map((d) => grades[d]);
      const binary = ranked.map((g) => (g === null ? null : Number(g >= level)));
      const found = relevantRanks(binary);
      const first = found.length ? `First relevant at rank ${found[0]}.` : "No relevant result retrieved.";
      lines.push(`R = ${nRelevant}: ${found.length} retrieved, ${nRelevant - found.length} missed. ${first}`);
      if (ap) {
        const t = averagePrecisionTerms(binary).map(([hits, rank]) => `${hits}/${rank}`);
        const shown = t.length > TERMS_SHOWN ? [...t.slice(0, TERMS_SHOWN), `… ${t.length - TERMS_SHOWN} more`] : t;
        const value = f4(live.query(state.query)[r][ap.name]);
        lines.push(nRelevant ? `AP = (${shown.join(" + ") || "0"}) / ${nRelevant} = ${value}` : `AP = ${value} (R = 0: nothing relevant to find)`);
      }
      if (ndcg) {
        const { gain, ideal, cut } = table.conventions[ndcg.convention];
        const idealList = idealGrades(ideal === "judged" ? judgedGrades : ranked.filter((g) => g !== null));
        const depth = cut ? ndcg.k : Math.max(idealList.length, 1);
        const source = ideal === "judged" ? `the ${nJudged} judged ${nJudged === 1 ? "document" : "documents"} of this query` : "this list's judged grades";
        lines.push(`DCG@${ndcg.k} = ${dcgSum(ranked, ndcg.k, gain)}`);
        lines.push(`Ideal DCG${cut ? `@${ndcg.k}` : ""} = ${dcgSum(idealList, depth, gain)} (from ${source})`);
      }
      const card = h("div", `wb-terms-run wb-run-${r}`);
      card.append(h("p", "wb-terms-title", runLabel(table.runs[r])), ...lines.map((line) => h("p", "wb-term", line)));
      rows.push(card);
    });
    box.append(...rows);
    terms.replaceChildren(box);
  }

  function drawLists() {
    const grades = gradesWith(detail, whatIf().judgments);
    const maxGrade = table.max_grade;
    const other = detail.runs.map((_, r) => new Map(rankedDocs(detail, r, whatIf().orders[r]).map((d, i) => [d, i + 1])));
    const columns = detail.runs.map((run, r) => {
      const col = h("div", `wb-list wb-run-${r}`);
      const label = runLabel(table.runs[r]);
      col.append(h("h3", "wb-subheading", label));
      if (!run.present) {
        col.append(h("p", "wb-note", "No results for this query: every measure counts 0."));
        return col;
      }
      const ranked = rankedDocs(detail, r, whatIf().orders[r]);
      const ol = h("ol", "wb-ranked");
      ranked.slice(0, shownRows[r]).forEach((d, i) => {
        const li = h("li", "wb-result");
        li.dataset.docid = detail.docs[d];
        const grade = grades[d];
        const changed = Object.hasOwn(whatIf().judgments, detail.docs[d]);
        if (grade === null) li.classList.add("is-unjudged");
        else if (grade >= table.relevance_level) li.classList.add("is-relevant");
        if (changed) li.classList.add("is-whatif");
        const name = h("span", "wb-doc");
        name.append(h("span", "wb-docid", detail.docs[d]));
        if (detail.titles.length && detail.titles[d]) name.append(h("span", "wb-doc-title", detail.titles[d]));
        const select = h("select", "wb-grade");
        select.setAttribute("aria-label", `Grade of ${detail.docs[d]}, rank ${i + 1}${changed ? " (what-if)" : ""}`);
        const options = [["", "unjudged"], ...Array.from({ length: maxGrade + 1 }, (_, g) => [String(g), `grade ${g}`])];
        for (const [value, text] of options) select.append(Object.assign(h("option", "", text), { value }));
        select.value = grade === null ? "" : String(grade);
        select.addEventListener("change", () => setJudgments([[d, select.value === "" ? null : Number(select.value)]], "grade"));
        const mark = h("span", "wb-mark", grade === null ? "? unjudged" : grade >= table.relevance_level ? "✓ relevant" : "✗ not relevant");
        const cells = [h("span", "wb-rank", String(i + 1)), name, mark, select];
        if (detail.runs.length === 2) {
          const there = other[1 - r].get(d);
          const otherRole = table.runs[1 - r].role;
          const text = there ? `${otherRole}: rank ${there}` : `not in the ${otherRole}`;
          cells.push(h("span", "wb-other", text));
        }
        cells.push(h("span", "wb-score", String(run.scores[detail.runs[r].docs.indexOf(d)])));
        li.append(...cells);
        ol.append(li);
      });
      col.append(ol);
      if (ranked.length > shownRows[r]) {
        const more = button(`Show ${Math.min(SHOWN_AT_ONCE, ranked.length - shownRows[r])} more of ${ranked.length}`, "wb-button");
        more.addEventListener("click", () => {
          shownRows[r] += SHOWN_AT_ONCE;
          drawLists();
        });
        col.append(more);
      }
      const nRelevant = grades.filter((g) => g !== null && g >= table.relevance_level).length;
      const inRun = new Set(run.docs);
      const found = [...inRun].filter((x) => grades[x] !== null && grades[x] >= table.relevance_level).length;
      const unjudged = ranked.slice(0, 10).filter((x) => grades[x] === null).length;
      col.append(h("p", "wb-note wb-list-counts", `${found} of the ${nRelevant} relevant documents retrieved, ${nRelevant - found} missed; ${unjudged} of the top 10 unjudged.`));
      return col;
    });
    lists.replaceChildren(...columns);
    const missed = detail.docs.map((_, d) => d).filter((d) => !detail.runs.some((run) => run.docs.includes(d)) && grades[d] !== null && grades[d] >= table.relevance_level);
    setText(missedLine, missed.length ? `Judged relevant, retrieved by neither run: ${missed.length} (grades ${missed.map((d) => grades[d]).join(", ")}). ${detail.judged_not_relevant_outside} more judged not relevant.` : "Every document judged relevant was retrieved by a run.");
  }

  function drawFigures() {
    const r = state.run < detail.runs.length ? state.run : 0;
    figureHead.replaceChildren(h("h3", "wb-subheading", "The arithmetic, live: figure 1 and the NDCG conventions on this list"));
    if (detail.runs.length === 2) {
      const group = h("div", "wb-run-switch");
      group.setAttribute("role", "group");
      group.setAttribute("aria-label", "Which run the figures show");
      table.runs.forEach((run, i) => {
        const b = button(`${run.role}`, "wb-button wb-run-button");
        b.setAttribute("aria-pressed", String(i === r));
        b.addEventListener("click", () => change((s) => ({ ...s, run: i })));
        group.append(b);
      });
      figureHead.append(group);
    }
    const spec = detail.figures[r];
    if (!spec) {
      setText(figureNote, "");
      figures.replaceChildren(h("p", "wb-note", "No results for this query in this run: no list to show."));
      mounted = {};
      return;
    }
    const full = detail.runs[r].docs.length;
    const ap = table.measures.find((m) => m.key === "ap");
    const values = live.query(state.query)[r];
    // How many of the figures' results nobody judged: marked "? unjudged" there, counted as not relevant.
    const grades = gradesWith(detail, whatIf().judgments);
    const unjudged = detail.runs[r].docs.slice(0, spec.depth).filter((d) => grades[d] === null).length;
    const them = unjudged === 1 ? ["is", "it"] : ["are", "them"];
    const unjudgedNote = unjudged ? ` ${unjudged} of these results ${them[0]} unjudged: the figures mark ${them[1]} unjudged (?) and count ${them[1]} as not relevant, as trec_eval does.` : "";
    // Which of the figures' numbers are trec_eval's, at this relevance level: the second figure's
    // other rows are the conventions of the other tools they name.
    const trecNumbers = "figure 1's P@k, R@k, RR and AP, and the second figure's trec_eval ndcg_cut row, recall@k and hit rate@k";
    setText(
      figureNote,
      spec.depth < full
        ? `The figures show the top ${spec.depth} of this run's ${full} results: their AP and RR are over those ${spec.depth}${ap ? `, where trec_eval's over all ${full} gives AP ${f4(values[ap.name])}` : ""}. Judged relevant documents below rank ${spec.depth} count as missed.${unjudgedNote}`
        : `The figures show all ${full} results of this run: ${trecNumbers} are trec_eval's.${unjudgedNote} Flip a result in figure 1 or change a grade to judge it (what-if); press a result in the second figure to move it up.`,
    );
    const states = figureStates(detail, r, whatIf(), state.k, table.relevance_level);
    const binaryLimits = { ...spec.binary.limits, missed: { min: states.binary.missed, max: states.binary.missed } };
    const convLimits = { ...spec.conventions.limits, missed_grades: { ...spec.conventions.limits.missed_grades, length: states.conventions.missed_grades.length } };
    const order = whatIf().orders[r];
    const docs = detail.runs[r].docs.slice(0, spec.depth);
    const titleOf = (d) => (detail.titles[d] ? `${detail.docs[d]}: ${detail.titles[d]}` : detail.docs[d]);
    const shared = { ...model.figure_data, max_query_length: model.max_query_length, query: detail.text || detail.qid, caption: "" };
    // Figure 1 shows titles by rank, so a move mounts it again; the conventions figure moves its
    // own rows. A missed count that changed (a document judged below the top list) changes limits.
    const binaryKey = JSON.stringify([state.query, r, order, binaryLimits.missed]);
    const convKey = JSON.stringify([state.query, r, convLimits.missed_grades.length]);
    if (binaryKey !== mounted.binaryKey) {
      const byRank = (order ?? docs.map((_, i) => i)).map((i) => titleOf(docs[i]));
      mounted.binary = mountWith(renderBinary, { ...shared, titles: byRank, limits: binaryLimits, default: spec.binary.default, state: states.binary }, (next, prev) => {
        const docsNow = (order ?? docs.map((_, i) => i)).map((i) => docs[i]);
        const flips = next.relevant.flatMap((flag, i) => (flag !== prev.relevant[i] ? [[docsNow[i], flag]] : []));
        if (flips.length) setJudgments(flips, "flag");
        else if (next.k !== prev.k) change((s) => ({ ...s, k: next.k }));
        else refresh();
      });
      mounted.binaryKey = binaryKey;
    } else {
      mounted.binary.push(states.binary);
    }
    if (convKey !== mounted.convKey) {
      mounted.conventions = mountWith(renderConventions, { ...shared, titles: docs.map(titleOf), limits: convLimits, default: spec.conventions.default, state: states.conventions }, (next, prev) => {
        const regraded = next.grades.flatMap((g, j) => (g !== prev.grades[j] ? [[docs[j], g]] : []));
        if (regraded.length) setJudgments(regraded, "grade");
        else if (JSON.stringify(next.order) !== JSON.stringify(prev.order)) setOrder(r, next.order);
        else if (next.k !== prev.k) change((s) => ({ ...s, k: next.k }));
        else refresh();
      });
      mounted.convKey = convKey;
    } else {
      mounted.conventions.push(states.conventions);
    }
    if (figures.firstChild !== mounted.binary.el || figures.lastChild !== mounted.conventions.el) {
      figures.replaceChildren(mounted.binary.el, mounted.conventions.el);
    }
    function refresh() {
      const again = figureStates(detail, r, whatIf(), state.k, table.relevance_level);
      mounted.binary?.push(again.binary);
      mounted.conventions?.push(again.conventions);
    }
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
      setText(heading, `${state.query}${table.texts.length && table.texts[i] ? `: ${table.texts[i]}` : ""}`);
      detail = nextDetail;
      loading.hidden = Boolean(detail);
      for (const part of [valuesTable, terms, lists, missedLine, figureHead, figureNote, figures]) part.hidden = !detail;
      undo.hidden = !live.changed(state.query);
      if (!detail) return;
      drawValues();
      drawTerms();
      drawLists();
      drawFigures();
      if (scrollWhenLoaded) {
        scrollWhenLoaded = false;
        requestAnimationFrame(() => el.scrollIntoView({ block: "start" }));
      }
    },
  };
}

/**
 * A figure module mounted on a model of our own, as a Panel view would be: `data` are the view's
 * properties; `onCommit(next, previous)` gets each state the figure commits. Returns { el,
 * push(state) }, which hands the figure a state as Python would.
 */
function mountWith(renderFigure, data, onCommit) {
  const el = h("div", "wb-figure");
  const listeners = [];
  let current = data.state;
  const model = {
    ...data,
    standalone: false,
    on_page: false,
    get state() {
      return current;
    },
    set state(next) {
      const previous = current;
      current = next;
      onCommit(next, previous);
    },
    on(name, callback) {
      if (name === "state") listeners.push(callback);
    },
  };
  renderFigure({ model, el });
  return {
    el,
    push(next) {
      current = next;
      for (const callback of listeners) callback();
    },
  };
}
