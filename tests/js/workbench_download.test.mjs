// The workbench's downloads (download.js): the table as plain data, as CSV, and CSV's quoting.
import assert from "node:assert/strict";
import { test } from "node:test";
import { csvField, tableCsv, tableData } from "explainer/workbench-download";

// Two runs, two queries, two measures; live.column gives each run's column (what-if changes in).
const TABLE = {
  qids: ["q1", "q,2"],
  texts: ["first query", 'a "quoted" text'],
  measures: [
    { name: "P_10", label: "P@10" },
    { name: "map", label: "AP" },
  ],
  runs: [
    { role: "baseline", name: "base", source: "base.run", values: [[0.1, 0.2], [0.5, 0.25]] },
    { role: "candidate", name: "cand", source: "cand.run", values: [[0.3, 0.2], [0.75, 0.125]] },
  ],
  qrels_source: "qrels.txt",
};
const LIVE = {
  column: (r, j) => TABLE.runs[r].values[j].slice(),
  whatIfCount: () => 0,
};

test("each query's row holds every run's value of every measure and the difference", () => {
  const data = tableData(TABLE, LIVE);
  assert.deepEqual(data.runs, [
    { role: "baseline", name: "base", file: "base.run" },
    { role: "candidate", name: "cand", file: "cand.run" },
  ]);
  assert.deepEqual(data.queries[0], {
    qid: "q1",
    text: "first query",
    values: { baseline: { P_10: 0.1, map: 0.5 }, candidate: { P_10: 0.3, map: 0.75 } },
    difference: { P_10: 0.3 - 0.1, map: 0.75 - 0.5 },
  });
  assert.equal(data.queries[1].difference.map, 0.125 - 0.25);
});

test("a what-if change reaches the download through live.column", () => {
  const live = { column: (r, j) => (r === 1 && j === 1 ? [1, 0.125] : TABLE.runs[r].values[j].slice()), whatIfCount: () => 1 };
  const data = tableData(TABLE, live);
  assert.equal(data.queries[0].values.candidate.map, 1);
  assert.equal(data.queries[0].difference.map, 1 - 0.5);
  assert.equal(data.what_if_queries, 1);
});

test("the CSV has a column per run and measure, the difference, and quotes what needs quoting", () => {
  const lines = tableCsv(tableData(TABLE, LIVE)).split("\r\n");
  assert.equal(lines[0], "qid,text,P_10 baseline,P_10 candidate,P_10 difference,map baseline,map candidate,map difference");
  assert.equal(lines[1], `q1,first query,0.1,0.3,${0.3 - 0.1},0.5,0.75,0.25`);
  assert.equal(lines[2], `"q,2","a ""quoted"" text",0.2,0.2,0,0.25,0.125,-0.125`);
  assert.equal(lines[3], "");
  assert.equal(lines.length, 4);
});

test("one run: no difference columns, the run's role names its columns", () => {
  const one = { ...TABLE, texts: [], runs: [{ ...TABLE.runs[0], role: "run" }] };
  const lines = tableCsv(tableData(one, LIVE)).split("\r\n");
  assert.equal(lines[0], "qid,P_10 run,map run");
  assert.equal(lines[1], "q1,0.1,0.5");
});

test("csvField quotes commas, quotes and line breaks only", () => {
  assert.equal(csvField("plain"), "plain");
  assert.equal(csvField("a,b"), '"a,b"');
  assert.equal(csvField('say "x"'), '"say ""x"""');
  assert.equal(csvField("two\nlines"), '"two\nlines"');
});
