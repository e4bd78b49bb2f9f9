// The URL parsers every figure shares (figures/query.js): what a link may set, and the sentence for
// each value ignored.
import assert from "node:assert/strict";
import { test } from "node:test";
import { flaggedRanks, Ignored, ignoredPageKeys, parseChoice, parseGradeList, parseInteger, parseIntegers, parseRankFlags, queryText, quoted, stateFromQuery } from "explainer/query";

const ignored = (message) => (error) => error instanceof Ignored && error.message === message;

test("parseInteger takes a whole number within its bounds, blanks around it allowed", () => {
  assert.equal(parseInteger("5", "k", 1, 12), 5);
  assert.equal(parseInteger(" 12 ", "k", 1, 12), 12);
  assert.equal(parseInteger("1", "k", 1, 12), 1);
  assert.equal(parseInteger("007", "k", 1, 12), 7);
  for (const text of ["0", "13", "-1", "1.5", "5e0", "", "abc", "0x5", "1234567", "+5"]) {
    assert.throws(() => parseInteger(text, "k", 1, 12), ignored("k must be a whole number from 1 to 12"), text);
  }
});

test("parseIntegers takes a comma-separated list, empty text an empty list, at most 64 items", () => {
  assert.deepEqual(parseIntegers("2,3,5", "a", 1, 20), [2, 3, 5]);
  assert.deepEqual(parseIntegers("", "a", 1, 20), []);
  assert.deepEqual(parseIntegers("  ", "a", 1, 20), []);
  assert.deepEqual(parseIntegers("3,3", "a", 1, 20), [3, 3]);
  const bad = ignored("a must list whole numbers from 1 to 20, separated by commas");
  for (const text of ["1,,2", "1,21", "0", "1;2", "1,", Array(65).fill("1").join(",")]) {
    assert.throws(() => parseIntegers(text, "a", 1, 20), bad, text);
  }
  assert.deepEqual(parseIntegers(Array(64).fill("1").join(","), "a", 1, 20), Array(64).fill(1));
  assert.throws(() => parseIntegers("30", "a", 1, 20, "ranks from 1 to 20 for each query"), ignored("a must list ranks from 1 to 20 for each query, separated by commas"));
});

test("parseChoice takes one of its options exactly, and names them", () => {
  assert.equal(parseChoice("linear", "gain", ["exponential", "linear"]), "linear");
  for (const text of ["Linear", " linear", "", "cubic"]) {
    assert.throws(() => parseChoice(text, "gain", ["exponential", "linear"]), ignored("gain must be exponential or linear"), text);
  }
  assert.throws(() => parseChoice("x", "theme", ["light", "dark", "auto"]), ignored("theme must be light, dark or auto"));
});

test("rank flags: ranks 1 to length as one flag per rank, and back", () => {
  const article = [false, true, true, false, true, false, false, true, false, false, true, false];
  assert.deepEqual(parseRankFlags("2,3,5,8,11", "relevant", 12), article);
  assert.deepEqual(parseRankFlags("11,2,3,5,8,5", "relevant", 12), article);
  assert.deepEqual(parseRankFlags("", "relevant", 12), Array(12).fill(false));
  assert.equal(flaggedRanks(article), "2,3,5,8,11");
  assert.equal(flaggedRanks(article, false), "1,4,6,7,9,10,12");
  assert.throws(() => parseRankFlags("13", "relevant", 12), ignored("relevant must list ranks from 1 to 12, separated by commas"));
  assert.throws(() => parseRankFlags("0", "relevant", 12), ignored("relevant must list ranks from 1 to 12, separated by commas"));
});

test("a grade list has exactly its length of grades within the bounds", () => {
  const limits = { length: 8, min_grade: 0, max_grade: 3 };
  assert.deepEqual(parseGradeList("1,3,0,2,0,3,1,2", "grades", limits), [1, 3, 0, 2, 0, 3, 1, 2]);
  const bad = ignored("grades must list exactly 8 grades from 0 to 3, separated by commas");
  for (const text of ["1,3,0,2,0,3,1", "1,3,0,2,0,3,1,2,0", "1,3,0,2,0,3,1,4", ""]) {
    assert.throws(() => parseGradeList(text, "grades", limits), bad, text);
  }
});

test("what the reader typed is quoted, cut after 40 characters, never inside a character", () => {
  assert.equal(quoted("<b>x</b>"), "“<b>x</b>”");
  assert.equal(quoted("x".repeat(40)), `“${"x".repeat(40)}”`);
  assert.equal(quoted("x".repeat(41)), `“${"x".repeat(40)}…”`);
  assert.equal(quoted("✓".repeat(39) + "😀😀"), `“${"✓".repeat(39)}😀…”`);
});

const FIELDS = {
  k: (text, state) => ({ ...state, k: parseInteger(text, "k", 1, 12) }),
  gain: (text, state) => ({ ...state, gain: parseChoice(text, "gain", ["exponential", "linear"]) }),
};
const BASE = { k: 5, gain: "exponential" };

test("a query sets each valid key, the last value of a repeated key, and leaves the base alone", () => {
  const base = structuredClone(BASE);
  assert.deepEqual(stateFromQuery("?gain=linear&k=3&k=7", FIELDS, base, 4000), { state: { k: 7, gain: "linear" }, ignored: [] });
  assert.deepEqual(base, BASE);
  assert.deepEqual(stateFromQuery("", FIELDS, BASE, 4000), { state: BASE, ignored: [] });
});

test("each ignored value gets a sentence naming the key, the text and the rule; unknown keys too", () => {
  const { state, ignored: lines } = stateFromQuery("?k=13&gain=cubic&foo=%3Cb%3Ex%3C/b%3E&k2=1", FIELDS, BASE, 4000);
  assert.deepEqual(state, BASE);
  assert.deepEqual(lines, [
    "Ignored “foo”: this figure has no such setting.",
    "Ignored “k2”: this figure has no such setting.",
    "Ignored k=“13”: k must be a whole number from 1 to 12.",
    "Ignored gain=“cubic”: gain must be exponential or linear.",
  ]);
});

test("the page's own keys are no figure's setting: left alone, and noticed only when set to what they do not take", () => {
  const search = "?present=1&theme=dark&embed=0&predict=1&k=3";
  assert.deepEqual(stateFromQuery(search, FIELDS, BASE, 4000), { state: { ...BASE, k: 3 }, ignored: [] });
  assert.deepEqual(ignoredPageKeys(search), []);
  assert.deepEqual(ignoredPageKeys("?present=2&theme=blue&predict=yes"), [
    "Ignored present=“2”: present must be 0 or 1.",
    "Ignored theme=“blue”: theme must be light, dark or auto.",
    "Ignored predict=“yes”: predict must be 0 or 1.",
  ]);
});

test("a query longer than the figure's limit is ignored whole, with its length", () => {
  const search = `?k=3&x=${"a".repeat(3995)}`;
  assert.equal(search.length - 1, 4001);
  assert.deepEqual(stateFromQuery(search, FIELDS, BASE, 4000), {
    state: BASE,
    ignored: ["Ignored the whole query: it is 4,001 characters long, and no figure's settings take more than 4,000."],
  });
  // One character fewer, 4,000, is read: k is set, and only the key "x" is ignored.
  const longest = stateFromQuery(search.slice(0, -1), FIELDS, BASE, 4000);
  assert.deepEqual(longest, { state: { ...BASE, k: 3 }, ignored: ["Ignored “x”: this figure has no such setting."] });
});

test("a value that breaks a field's code is not taken for a bad value: the error goes on", () => {
  const fields = { k: () => { throw new TypeError("a bug"); } };
  assert.throws(() => stateFromQuery("?k=1", fields, BASE, 4000), TypeError);
});

test("a link keeps commas, bars and question marks as typed", () => {
  assert.equal(queryText(new URLSearchParams([["a", "1,2|3"], ["q", "why?"], ["t", "a b&c"]])), "a=1,2|3&q=why?&t=a+b%26c");
});
