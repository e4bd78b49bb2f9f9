// One query's values in a table: each run's, the difference, what each was before a what-if change.
import { h } from "explainer/dom";
import { f4, signed } from "explainer/workbench-elements";

/** Draw the values of the open query (`view`: the pane's table, detail, state, live) into `valuesTable`. */
export function drawQueryValues(valuesTable, view) {
  const { table, detail, state, live } = view;
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
