// metrics.js against metrics.py: the same calls on the same generated cases (metrics_oracle.py),
// each value to 1e-12 and the strings formatNumber writes for it; bad arguments throw a RangeError
// where Python raises a ValueError, both naming the argument.
import assert from "node:assert/strict";
import { test } from "node:test";
import * as metrics from "explainer/metrics";
import { oracle } from "./oracle.mjs";

const ABS = 1e-12;
const PY = oracle("metrics_oracle.py");

function close(actual, expected, where) {
  assert.ok(typeof actual === "number" && Math.abs(actual - expected) <= ABS, `${where}: ${actual} is not ${expected}`);
}

/** One call's JavaScript answer against Python's: lists item by item, numbers to ABS with their strings. */
function assertSame(call) {
  const where = `${call.name}(${JSON.stringify(call.args).slice(0, 300)})`;
  const value = metrics[call.name](...call.args);
  if (Array.isArray(call.value)) {
    assert.ok(Array.isArray(value), where);
    assert.equal(value.length, call.value.length, where);
    call.value.forEach((expected, i) => {
      if (Array.isArray(expected)) assert.deepEqual(value[i], expected, where); // (hits, rank) pairs: integers
      else close(value[i], expected, where);
    });
    return;
  }
  assert.equal(typeof value, "number", where);
  close(value, call.value, where);
  assert.deepEqual(PY.digits.map((d) => metrics.formatNumber(value, d)), call.formatted, where);
}

test("the module exports what Python has, and GAINS are the same in both", () => {
  const exported = Object.keys(metrics);
  const called = new Set([...PY.cases.flatMap((c) => c.calls), ...PY.shared].map((call) => call.name));
  for (const name of called) assert.ok(exported.includes(name), `metrics.js lacks ${name}`);
  for (const name of exported) assert.ok(PY.public.includes(name), `metrics.py has no twin of ${name}`);
  // The exact twins: a public function of metrics.py without one in metrics.js belongs elsewhere
  // (the many-query kernels are explainer/evaluation/kernels.py's).
  for (const name of PY.public) assert.ok(exported.includes(name), `metrics.js has no twin of ${name}`);
  assert.deepEqual(metrics.GAINS, PY.gains);
});

test("metrics.js matches metrics.py on every call of 400 generated cases", () => {
  assert.equal(PY.cases.length, 400);
  for (const { calls } of PY.cases) calls.forEach(assertSame);
});

test("metrics.js matches metrics.py on means, gains and discounts", () => {
  assert.ok(PY.shared.length > 50);
  PY.shared.forEach(assertSame);
});

test("formatNumber writes the same digits as format_number", () => {
  const { numbers, digits, written } = PY.formats;
  const mismatches = [];
  numbers.forEach((v, i) =>
    digits.forEach((d, j) => {
      const js = metrics.formatNumber(v, d);
      if (js !== written[i][j]) mismatches.push([v, d, js, written[i][j]]);
    }),
  );
  assert.deepEqual(mismatches.slice(0, 20), []);
  // Half-way cases round as the reader expects, not as the nearest double would.
  assert.equal(metrics.formatNumber(0.125, 2), "0.13");
  assert.equal(metrics.formatNumber(0.675, 2), "0.68");
});

test("bad arguments throw a RangeError where Python raises a ValueError, both naming the argument", () => {
  assert.equal(PY.bad.length, 16);
  for (const { name, args, python, pyPattern, jsPattern } of PY.bad) {
    const where = `${name}(${JSON.stringify(args)})`;
    assert.equal(python.error, "ValueError", where);
    assert.match(python.message, new RegExp(pyPattern), where);
    assert.throws(
      () => metrics[name](...args),
      (error) => error instanceof RangeError && new RegExp(jsPattern).test(error.message),
      where,
    );
  }
});

test("error messages name NaN and Infinity", () => {
  assert.throws(() => metrics.precisionAtK([1], NaN), { name: "RangeError", message: /got NaN$/ });
  assert.throws(() => metrics.precisionAtK([1], Infinity), { name: "RangeError", message: /got Infinity$/ });
  assert.throws(() => metrics.precisionAtK([NaN], 1), { name: "RangeError", message: /got NaN$/ });
});

test("averagePrecision refuses a bad k even when nRelevant is 0", () => {
  for (const k of [0, 2.5, "3"]) {
    assert.throws(() => metrics.averagePrecision([0, 0], 0, k), {
      name: "RangeError",
      message: /^k must be an integer >= 1, got /,
    });
  }
});

test("median agrees with Python", () => {
  assert.equal(PY.medians.length, 43);
  for (const { sample, median } of PY.medians) close(metrics.median(sample), median, JSON.stringify(sample));
});
