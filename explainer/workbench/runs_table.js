// More than two runs: the table of runs by measures with its significance letters, the gate over
// the candidates, a sweep when the runs name a parameter, and the two runs the page compares below.
//
// Every number and sentence is Python's (data.runs_table: many_runs, candidates, sweep); this draws them.
import { h, setText } from "explainer/dom";
import { button, f4, section, signed } from "explainer/workbench-elements";
import { shownId } from "explainer/workbench-ids";
import { pairIn } from "explainer/workbench-pair";

/** `pick([i, j])` is called when the reader picks the two runs the rest of the page compares. */
export function createRunsTable(pick) {
  const { box } = section("The runs, measure by measure", "wb-runs");
  const parts = {
    method: h("p", "wb-note wb-runs-method"),
    gate: h("p", "wb-gate wb-runs-gate"),
    orderSwitch: h("div", "wb-run-switch wb-runs-order"),
    tableEl: h("table", "wb-means wb-runs-table"),
    cellsNote: h("p", "wb-note wb-runs-cells"),
    verdicts: h("ul", "wb-runs-verdicts"),
    picker: h("div", "wb-pair"),
  };
  parts.orderSwitch.setAttribute("role", "group");
  parts.orderSwitch.setAttribute("aria-label", "The order of the runs");
  box.append(...Object.values(parts));
  let bySetting = false; // the reader's choice: the runs as given, or in the order of the sweep's parameter

  function draw(table, pair) {
    const many = table.many;
    box.hidden = !many;
    if (!many) return;
    const sweep = many.sweep;
    if (!sweep) bySetting = false;
    setText(parts.method, sweep && bySetting ? `Sweep of ${sweep.parameter}: ${sweep.method}` : many.method);
    setText(parts.gate, `The gate over the candidates, ${many.gate.correction ?? "no correction"}: ${many.gate.summary}`);
    parts.gate.dataset.ships = String(many.gate.outcomes.slice(1).every((o) => o === "ships"));
    parts.orderSwitch.hidden = !sweep;
    if (sweep) {
      drawOrderSwitch(parts.orderSwitch, sweep, bySetting, (value) => {
        bySetting = value;
        draw(table, pair);
      });
    }
    if (sweep && bySetting) drawSweep(parts, table, sweep);
    else drawRuns(parts, table, many);
    drawPicker(parts.picker, table, pair, pick);
  }

  return { el: box, draw };
}

function drawOrderSwitch(orderSwitch, sweep, bySetting, choose) {
  const choices = [
    [false, "As given"],
    [true, `By ${sweep.parameter}`],
  ];
  orderSwitch.replaceChildren(
    ...choices.map(([value, text]) => {
      const b = button(text, "wb-button wb-run-button");
      b.setAttribute("aria-pressed", String(bySetting === value));
      b.addEventListener("click", () => choose(value));
      return b;
    }),
  );
}

/** The runs as given: each run's cells with the letters of the runs it beats, and its gate's outcome. */
function drawRuns({ tableEl, cellsNote, verdicts }, table, many) {
  const head = h("tr");
  for (const text of ["Run", ...many.measures.map((m) => m.label), "Gate"]) head.append(h("th", "", text));
  const rows = table.runs.map((run, i) => {
    const tr = h("tr");
    tr.dataset.run = run.letter;
    const th = h("th", "", `${run.letter} `);
    th.scope = "row";
    th.append(h("span", "wb-runs-name", shownId(run.name)));
    tr.append(th);
    for (const m of many.measures) tr.append(cellOf(m.cells[i], m.cells[i].beats));
    const outcome = many.gate.outcomes[i];
    const td = h("td", "wb-runs-outcome", outcome ?? "baseline");
    if (outcome) td.dataset.outcome = outcome;
    tr.append(td);
    return tr;
  });
  fill(tableEl, head, rows);
  setText(cellsNote, many.cells);
  verdicts.replaceChildren(...table.comparisons.map((c, k) => h("li", "wb-note", `${table.runs[k + 1].letter}: ${c.gate.reason}`)));
}

/** The runs in the order of the sweep's parameter: each setting's mean and interval, the best, each step's test. */
function drawSweep({ tableEl, cellsNote, verdicts }, table, sweep) {
  const measures = table.many.measures;
  const head = h("tr");
  head.append(h("th", "", sweep.parameter), h("th", "wb-runs-text", "Run"), ...measures.map((m) => h("th", "", m.label)));
  const rows = sweep.order.map((at, i) => {
    const run = table.runs[at];
    const tr = h("tr");
    tr.dataset.run = run.letter;
    const th = h("th", "num", String(sweep.values[i]));
    th.scope = "row";
    tr.append(th, h("td", "", `${run.letter} ${shownId(run.name)}`));
    for (const m of measures) {
      const s = sweep.measures[m.name];
      const td = cellOf(s.cells[i], "");
      if (i === s.best) {
        td.classList.add("is-best");
        td.querySelector(".wb-runs-mean").after(h("span", "wb-runs-best", "best"));
      }
      if (i > 0) {
        const step = s.steps[i - 1];
        td.append(h("span", "wb-runs-step", `${signed(step.difference)}, p ${step.p}${step.significant ? " *" : ""}`));
      }
      tr.append(td);
    }
    return tr;
  });
  fill(tableEl, head, rows);
  setText(cellsNote, "Each cell: the setting's mean, its interval, then the difference from the setting before and its adjusted p-value (* below alpha).");
  verdicts.replaceChildren(...measures.map((m) => h("li", "wb-note", `${m.label}: ${sweep.measures[m.name].verdict}`)));
}

function fill(tableEl, head, rows) {
  const thead = h("thead");
  thead.append(head);
  const tbody = h("tbody");
  tbody.append(...rows);
  tableEl.replaceChildren(thead, tbody);
}

/** Two menus of the runs: the two the rest of the page compares. */
function drawPicker(picker, table, pair, pick) {
  const [i, j] = pairIn(table, pair);
  const selects = [i, j].map((chosen, side) => {
    const select = h("select", "wb-pair-select");
    select.setAttribute("aria-label", side ? "The second run compared below" : "The first run compared below");
    for (const [k, run] of table.runs.entries()) select.append(Object.assign(h("option", "", `${run.letter}: ${shownId(run.name)}`), { value: String(k) }));
    select.value = String(chosen);
    select.addEventListener("change", () => {
      const next = selects.map((s) => Number(s.value));
      // The same run twice: the other menu takes the run this one left.
      if (next[0] === next[1]) next[1 - side] = [i, j][side];
      pick(next);
    });
    return select;
  });
  picker.replaceChildren(h("span", "wb-pair-label", "Compare below, query by query:"), selects[0], h("span", "", "and"), selects[1]);
}

/** A cell: the mean, its interval, and the letters of the runs it is better than. */
function cellOf(cell, beats) {
  const td = h("td", "num");
  const interval = cell.low === null ? "" : ` [${f4(cell.low)}, ${f4(cell.high)}]`;
  td.append(h("span", "wb-runs-mean", f4(cell.mean)));
  if (beats) td.append(h("sup", "wb-runs-marks", beats));
  td.append(h("span", "wb-runs-interval", interval));
  return td;
}
