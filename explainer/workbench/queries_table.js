// Every query in a table that draws only the rows in view, sorted by any column, searched by id or text.
import { h, setText } from "explainer/dom";
import { button, f4, section, signed } from "explainer/workbench-elements";
import { idNode } from "explainer/workbench-ids";

const ROW_HEIGHT = 36; // px: the queries table draws only the rows in view, each this tall

export function createQueriesTable(open) {
  const { box } = section("Every query", "wb-queries");
  const { search, count, grid, header, spacer, body } = createParts();
  box.append(search, count, grid);

  let table = null;
  let live = null;
  let current = "";
  let columns = [];
  let rows = []; // query positions in the order shown
  let sort = { column: 0, descending: false };
  let drawn = "";

  function build() {
    columns = columnsOf(table, () => cache);
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
      const row = rowOf(table, columns, i, at, { open, current, live });
      made.push(row);
    }
    body.replaceChildren(...made);
  }

  let painting = 0;
  grid.addEventListener("scroll", () => {
    if (!painting) painting = requestAnimationFrame(() => ((painting = 0), paint()));
  });
  keepHeadingsInView(header, grid);
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

/** The table's columns: the query, its text (when the files have texts), each measure of each run, the difference. `cache()` holds each run's values of each measure. */
function columnsOf(table, cache) {
  const two = table.runs.length === 2;
  const columns = [{ label: "Query", className: "wb-col-qid", value: (i) => table.qids[i], text: (i) => table.qids[i] }];
  if (table.texts.length) columns.push({ label: "Text", className: "wb-col-text", value: (i) => table.texts[i].toLowerCase(), text: (i) => table.texts[i] });
  table.measures.forEach((m, j) => {
    table.runs.forEach((run, r) => {
      const label = two ? `${m.label} ${{ baseline: "base", candidate: "cand." }[run.role] ?? run.letter}` : m.label;
      columns.push({ label, className: `num wb-col-m${j}${two ? "" : " wb-col-main"}`, value: (i) => cache()[r][j][i], text: (i) => f4(cache()[r][j][i]) });
    });
    if (two) columns.push({ label: `${m.label}\u00a0Δ`, className: `num wb-col-delta wb-col-m${j}`, value: (i) => cache()[1][j][i] - cache()[0][j][i], text: (i) => signed(cache()[1][j][i] - cache()[0][j][i]) });
  });
  return columns;
}

/** The row of query i, shown at place `at`; `current` is the query open in full. */
function rowOf(table, columns, i, at, { open, current, live }) {
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
      const b = button("", "wb-link");
      b.append(idNode(table.qids[i]));
      b.addEventListener("click", () => open(table.qids[i]));
      cell.append(b);
    } else {
      cell.textContent = column.text(i);
      if (column.className.includes("wb-col-delta")) cell.dataset.sign = String(Math.sign(Math.round(column.value(i) * 1e12)));
    }
    row.append(cell);
  });
  return row;
}

/** The search box, the count of queries, the grid: a header row over a spacer as tall as every row, whose body holds the rows drawn. */
function createParts() {
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
  return { search, count, grid, header, spacer, body };
}

// A heading reached by Tab comes wholly into view beside the query column, not under it (the
// browser scrolls a focused element only until some of it shows, and knows nothing of what sticks).
function keepHeadingsInView(header, grid) {
  header.addEventListener("focusin", (event) => {
    const cell = event.target.closest(".wb-cell");
    if (!cell || cell === header.firstChild) return;
    const left = cell.offsetLeft - header.firstChild.offsetWidth;
    const right = cell.offsetLeft + cell.offsetWidth - grid.clientWidth;
    if (grid.scrollLeft > left) grid.scrollLeft = left;
    else if (grid.scrollLeft < right) grid.scrollLeft = right;
  });
}
