// Predict, then reveal (figures/predict.js): how a typed guess is read and how Reveal judges it.
import assert from "node:assert/strict";
import { test } from "node:test";
import { judgeGuess, parseGuess, stepped } from "explainer/predict";

const NOT_A_NUMBER = (typed) => `“${typed}” is not a number from 0 to 1: type one as 0.4 (or 40%).`;

test("a guess is read as 0.4, .4, 0,4 or 40%, from 0 to 1", () => {
  for (const typed of ["0.4", ".4", "0,4", "40%", "40 %", ",4"]) assert.deepEqual(parseGuess(typed), { value: 0.4 }, typed);
  assert.deepEqual(parseGuess("1"), { value: 1 });
  assert.deepEqual(parseGuess("0"), { value: 0 });
  assert.deepEqual(parseGuess("100%"), { value: 1 });
  assert.deepEqual(parseGuess("  0.25 "), { value: 0.25 });
  assert.deepEqual(parseGuess(""), { value: null });
  assert.deepEqual(parseGuess("   "), { value: null });
});

test("anything else gets a plain sentence saying how to type one, quoting at most 12 characters", () => {
  for (const typed of ["1.01", "-0.1", "abc", "101%", "1.5", "0.4.1", "4e-1", "0x1"]) {
    assert.deepEqual(parseGuess(typed), { problem: NOT_A_NUMBER(typed) }, typed);
  }
  assert.deepEqual(parseGuess("<b>1.5</b>"), { problem: NOT_A_NUMBER("<b>1.5</b>") });
  assert.deepEqual(parseGuess("0.1234567890123"), { problem: NOT_A_NUMBER("0.1234567890…") });
});

test("the arrow keys step a guess by 0.05, from one half when there is none, kept from 0 to 1", () => {
  assert.equal(stepped("", 0.05), 0.5);
  assert.equal(stepped("abc", -0.05), 0.5);
  assert.ok(Math.abs(stepped("0.4", 0.05) - 0.45) < 1e-12);
  assert.ok(Math.abs(stepped("40%", -0.05) - 0.35) < 1e-12);
  assert.equal(stepped("1", 0.05), 1);
  assert.equal(stepped("0", -0.05), 0);
});

test("a guess is right when it rounds to the number shown, else off by the difference of the two as written", () => {
  assert.deepEqual(judgeGuess(0.451, 0.454), { right: true, text: "0.45: your guess 0.45, right." });
  assert.deepEqual(judgeGuess(0.456, 0.454), { right: false, text: "0.45: your guess 0.46, off by 0.01." });
  assert.deepEqual(judgeGuess(0.4, 0.6), { right: false, text: "0.60: your guess 0.40, off by 0.20." });
  assert.deepEqual(judgeGuess(null, 1), { right: false, text: "1.00: no guess." });
  // Recall 3/8 is shown as 0.38: a guess of 0.50 is 0.12 from what the reader sees (not 0.125).
  assert.deepEqual(judgeGuess(0.5, 3 / 8), { right: false, text: "0.38: your guess 0.50, off by 0.12." });
  // P@5 of the article, 3/5, typed as a percentage.
  assert.deepEqual(judgeGuess(parseGuess("60%").value, 3 / 5), { right: true, text: "0.60: your guess 0.60, right." });
});
