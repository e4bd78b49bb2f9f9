// Ids from a reader's files as the workbench shows them (ids.js): escaped as the command line
// escapes them (Python's escaping.py, through ids_oracle.py), and long ones shortened.
import assert from "node:assert/strict";
import { test } from "node:test";
import { MAX_SHOWN, escaped, shownId } from "explainer/workbench-ids";
import { oracle } from "./oracle.mjs";

test("control and bidi characters are written as escapes, as on the command line", () => {
  assert.equal(escaped("\x1b[32mSHIPS"), "\\x1b[32mSHIPS");
  assert.equal(escaped("doc\u202eabc"), "doc\\u202eabc");
  assert.equal(escaped("caf\u00e9"), "caf\u00e9");
  for (const { text, escaped: expected } of oracle("ids_oracle.py")) assert.equal(escaped(text), expected, JSON.stringify(text));
});

test("a surrogate pair is a character, not an undecodable byte", () => {
  assert.equal(escaped("\u{1f480}"), "\u{1f480}");
  assert.equal(escaped("x\udc80"), "x\\x80");
});

test("an id of MAX_SHOWN characters is shown whole; a longer one by its start and its end", () => {
  const fits = "d".repeat(MAX_SHOWN);
  assert.equal(shownId(fits), fits);
  const long = `start-${"x".repeat(20_000)}-end`;
  const shown = shownId(long);
  assert.equal(Array.from(shown).length, MAX_SHOWN);
  assert.ok(shown.startsWith("start-") && shown.endsWith("-end") && shown.includes("…"), shown);
});

test("an id is shortened after it is escaped, so an escape is never the reason it fits", () => {
  const shown = shownId("\u202e".repeat(MAX_SHOWN));
  assert.ok(shown.startsWith("\\u202e") && shown.includes("…"), shown);
});
