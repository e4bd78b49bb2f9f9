// What a figure page does with a bad link, as its own parser has it (each module's queryFields with
// query.js's stateFromQuery and ignoredPageKeys, the calls a page makes before it draws): the sentence
// for each value ignored, and the state the rest of the link still sets. These cases ran in
// Chromium, one page load each (test_pages.py's malformed links, test_conventions_figure.py's bad
// link values); a page showing such a notice as text, escaped, and working on is still checked there.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ignoredPageKeys, stateFromQuery } from "explainer/query";
import * as binary from "../../explainer/figures/binary.js";
import * as ndcg from "../../explainer/figures/ndcg.js";
import * as conventions from "explainer/conventions";

// The limits and defaults each page's model carries (written out here as the figures' Python
// classes set them: 12 ranks, k to 12, up to 12 missed; 8 documents graded 0 to 3, k to 8; the
// conventions' k to 10 and up to 6 missed documents graded 1 to 3), and the longest query read.
const MAX_QUERY_LENGTH = 4000;
const ARTICLE_RANKS = [false, true, true, false, true, false, false, true, false, false, true, false];
const ARTICLE_GRADES = [1, 3, 0, 2, 0, 3, 1, 2];
const IDENTITY = [0, 1, 2, 3, 4, 5, 6, 7];
const GRADED = { grades: { length: 8, min_grade: 0, max_grade: 3 }, order: { length: 8 } };
const FIGURES = {
  binary: {
    module: binary,
    limits: { relevant: { length: 12 }, k: { min: 1, max: 12 }, missed: { min: 0, max: 12 } },
    base: { relevant: ARTICLE_RANKS, k: 5, missed: 1 },
  },
  ndcg: {
    module: ndcg,
    limits: { ...GRADED, k: { min: 1, max: 8 }, gain: { options: ["exponential", "linear"] } },
    base: { grades: ARTICLE_GRADES, order: IDENTITY, k: 8, gain: "exponential" },
  },
  conventions: {
    module: conventions,
    limits: { ...GRADED, k: { min: 1, max: 10 }, missed_grades: { max_length: 6, min_grade: 1, max_grade: 3 } },
    base: { grades: ARTICLE_GRADES, order: IDENTITY, k: 5, missed_grades: [3, 2] },
  },
};

/** The notice's lines and the state a page of `name` opens with for the link query `search`. */
function opened(name, search) {
  const { module, limits, base } = FIGURES[name];
  const { state, ignored } = stateFromQuery(search, module.queryFields({ limits }), base, MAX_QUERY_LENGTH);
  return { state, lines: [...ignored, ...ignoredPageKeys(search)] };
}

// [figure, query, the notice's one line]: the figure opens in its default state.
const MALFORMED = [
  ["binary", "colour=blue", "Ignored “colour”: this figure has no such setting."],
  ["binary", "k=five", "Ignored k=“five”: k must be a whole number from 1 to 12."],
  ["binary", "k=13", "Ignored k=“13”: k must be a whole number from 1 to 12."],
  ["binary", "k=-1", "Ignored k=“-1”: k must be a whole number from 1 to 12."],
  ["binary", "missed=99", "Ignored missed=“99”: missed must be a whole number from 0 to 12."],
  ["binary", "relevant=2,x", "Ignored relevant=“2,x”: relevant must list ranks from 1 to 12, separated by commas."],
  ["ndcg", "grades=1,2,3", "Ignored grades=“1,2,3”: grades must list exactly 8 grades from 0 to 3, separated by commas."],
  [
    "ndcg",
    `grades=${Array(30).fill("1").join(",")}`,
    `Ignored grades=“${"1,".repeat(20)}…”: grades must list exactly 8 grades from 0 to 3, separated by commas.`,
  ],
  [
    "ndcg",
    "grades=1,3,0,2,0,3,1,9",
    "Ignored grades=“1,3,0,2,0,3,1,9”: grades must list exactly 8 grades from 0 to 3, separated by commas.",
  ],
  ["ndcg", "gain=cubic", "Ignored gain=“cubic”: gain must be exponential or linear."],
  ["ndcg", "order=1,1,2,3,4,5,6,7", "Ignored order=“1,1,2,3,4,5,6,7”: order must list documents 1 to 8, each once."],
  ["ndcg", "k=0", "Ignored k=“0”: k must be a whole number from 1 to 8."],
  ["binary", "<script>alert(1)</script>=1", "Ignored “<script>alert(1)</script>”: this figure has no such setting."],
  ["ndcg", "gain=<img src=x onerror=alert(1)>", "Ignored gain=“<img src=x onerror=alert(1)>”: gain must be exponential or linear."],
  // Forty characters, not forty UTF-16 units: no emoji cut in half.
  ["binary", `${"\u{1F600}".repeat(45)}=1`, `Ignored “${"\u{1F600}".repeat(40)}…”: this figure has no such setting.`],
];

test("a malformed link value gets one sentence naming it and its rule, and the figure opens as it is by default", () => {
  for (const [name, query, line] of MALFORMED) {
    const { state, lines } = opened(name, `?${query}`);
    assert.deepEqual(lines, [line], query);
    assert.deepEqual(state, FIGURES[name].base, query);
  }
});

test("a link keeps its valid values when one is bad", () => {
  const { state, lines } = opened("binary", "?relevant=1&k=99&missed=0");
  assert.deepEqual(lines, ["Ignored k=“99”: k must be a whole number from 1 to 12."]);
  assert.deepEqual(state, { relevant: [true, ...Array(11).fill(false)], k: 5, missed: 0 });
});

// [query, what the notice says, the k the rest of the link sets]: the conventions figure's other
// values stay the article's.
const CONVENTIONS_BAD = [
  ["missed_grades=4&k=2", "Ignored missed_grades=“4”: missed_grades must list at most 6 grades from 1 to 3, separated by commas.", 2],
  [
    "missed_grades=1,1,1,1,1,1,1&k=2",
    "Ignored missed_grades=“1,1,1,1,1,1,1”: missed_grades must list at most 6 grades from 1 to 3, separated by commas.",
    2,
  ],
  ["k=11", "Ignored k=“11”: k must be a whole number from 1 to 10.", 5],
  ["grades=1,2&k=2", "Ignored grades=“1,2”: grades must list exactly 8 grades from 0 to 3, separated by commas.", 2],
  ["gain=linear&k=2", "Ignored “gain”: this figure has no such setting.", 2],
];

test("the conventions figure: a bad link value is ignored with a notice and the rest applies", () => {
  for (const [query, line, k] of CONVENTIONS_BAD) {
    const { state, lines } = opened("conventions", `?${query}`);
    assert.deepEqual(lines, [line], query);
    assert.deepEqual(state, { ...FIGURES.conventions.base, k }, query);
  }
});
