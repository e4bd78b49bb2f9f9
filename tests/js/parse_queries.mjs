// A figure's own URL parser as a process, for the link fuzzing in tests/test_url_fuzz.py: Python
// sends the figure's name and model (a JSON line), then URL queries, one JSON string a line; each
// answer is the line {state, ignored} that query.js' stateFromQuery gives for it, or {error} if it threw.
// Run as `node --import ./tests/js/register.mjs tests/js/parse_queries.mjs`.
import { createInterface } from "node:readline";
import { PAGE_KEYS, stateFromQuery } from "explainer/query";

const FILES = {
  binary: "binary.js",
  ndcg: "ndcg.js",
  queries: "queries.js",
  unjudged: "unjudged.js",
  conventions: "conventions.js",
  "recall-kinds": "recall_kinds.js",
  "which-measure": "which_measure.js",
};

let parse = null;
for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  if (parse === null) {
    const { name, model } = JSON.parse(line);
    const module = await import(new URL(`../../explainer/figures/${FILES[name]}`, import.meta.url));
    const fields = module.queryFields(model);
    parse = (search) => stateFromQuery(search, fields, model.default, model.max_query_length);
    process.stdout.write(`${JSON.stringify({ pageKeys: Object.keys(PAGE_KEYS) })}\n`);
    continue;
  }
  let answer;
  try {
    answer = parse(JSON.parse(line));
  } catch (error) {
    answer = { error: String(error?.stack ?? error) };
  }
  process.stdout.write(`${JSON.stringify(answer)}\n`);
}
