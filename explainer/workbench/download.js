// The queries table as a file to download: CSV or JSON of every query's values, what-if changes included.
//
// One row per query, in the files' order (trec_eval's), whatever the table's sort or search:
// its id, its text when the files have texts, then for each measure each run's value and, with
// two runs, the difference candidate - baseline. Numbers are written in full (JavaScript's
// shortest exact form), not to the four places the table shows. Made in the page, so it works
// from a saved file with no server.
import { h } from "explainer/dom";
import { button } from "explainer/workbench-elements";

/** The table as plain data: the runs, the measures, and each query's values (`live` adds the what-if changes). */
export function tableData(table, live) {
  const two = table.runs.length === 2;
  const columns = table.measures.map((_, j) => table.runs.map((_, r) => live.column(r, j)));
  const queries = table.qids.map((qid, i) => {
    const row = { qid };
    if (table.texts.length) row.text = table.texts[i];
    row.values = Object.fromEntries(table.runs.map((run, r) => [run.role, Object.fromEntries(table.measures.map((m, j) => [m.name, columns[j][r][i]]))]));
    if (two) row.difference = Object.fromEntries(table.measures.map((m, j) => [m.name, columns[j][1][i] - columns[j][0][i]]));
    return row;
  });
  return {
    qrels: table.qrels_source,
    runs: table.runs.map((run) => ({ role: run.role, name: run.name, file: run.source })),
    measures: table.measures.map((m) => ({ name: m.name, label: m.label })),
    what_if_queries: live.whatIfCount(),
    queries,
  };
}

/** The table as CSV text: a header line, then a line per query. */
export function tableCsv(data) {
  const header = ["qid"];
  const hasText = data.queries.some((q) => "text" in q);
  if (hasText) header.push("text");
  const two = data.runs.length === 2;
  for (const m of data.measures) {
    for (const run of data.runs) header.push(`${m.name} ${run.role}`);
    if (two) header.push(`${m.name} difference`);
  }
  const lines = [header];
  for (const q of data.queries) {
    const line = [q.qid];
    if (hasText) line.push(q.text ?? "");
    for (const m of data.measures) {
      for (const run of data.runs) line.push(String(q.values[run.role][m.name]));
      if (two) line.push(String(q.difference[m.name]));
    }
    lines.push(line);
  }
  return lines.map((line) => line.map(csvField).join(",")).join("\r\n") + "\r\n";
}

/** A CSV field, quoted when it holds a comma, a quote or a line break (RFC 4180). */
export function csvField(text) {
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The two buttons, Download CSV and Download JSON, of the table `page.table()` with `page.live`. */
export function createDownloads(page) {
  const box = h("p", "wb-downloads");
  const csv = button("Download CSV", "wb-button wb-download-csv");
  const json = button("Download JSON", "wb-button wb-download-json");
  csv.addEventListener("click", () => save("workbench-queries.csv", "text/csv", tableCsv(tableData(page.table(), page.live))));
  json.addEventListener("click", () => save("workbench-queries.json", "application/json", `${JSON.stringify(tableData(page.table(), page.live), null, 2)}\n`));
  box.append(csv, " ", json);
  return { el: box };
}

function save(name, type, text) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = h("a");
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
