"""metrics.js against metrics.py: the same calls on the same generated cases.

The module is loaded into a real Chromium page from a data: URL (no server),
every call of every case is evaluated in ONE page.evaluate, and each result is
compared with the Python function of the same name (camelCase in JS) to 1e-12,
together with the strings formatNumber / format_number write for it. Bad
arguments must throw a RangeError in JS where Python raises ValueError, both
naming the argument. Node must be able to import the file as it is.
"""

from __future__ import annotations

import base64
import json
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from metric_cases import generated_cases

from explainer import metrics

MODULE = Path(metrics.__file__).with_name("metrics.js")
CASES = generated_cases(400, 20240611)
CUTOFFS = (1, 3, 5, 10)
DIGITS = (2, 3)
ABS = 1e-12


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def case_calls(case) -> list[tuple[str, list]]:
    """Every metric call to make on one case, as (python name, positional args); JS uses the camelCase name."""
    g, n, judged = case["grades"], case["n_relevant"], case["judged"]
    calls = [
        ("reciprocal_rank", [g]),
        ("average_precision", [g, n]),
        ("relevant_ranks", [g]),
        ("ideal_grades", [g]),
        ("average_precision_terms", [g]),
    ]
    for k in sorted({*CUTOFFS, case["k"]}):
        calls += [
            ("precision_at_k", [g, k]),
            ("recall_at_k", [g, k, n]),
            ("reciprocal_rank", [g, k]),
            ("hit_rate_at_k", [g, k]),
            ("average_precision", [g, n, k]),
            ("relevant_ranks", [g, k]),
            ("average_precision_terms", [g, k]),
        ]
        for gain in metrics.GAINS:
            calls += [
                ("dcg_at_k", [g, k, gain]),
                ("dcg_terms", [g, k, gain]),
                ("ndcg_at_k", [g, k, gain]),
                ("ndcg_at_k", [g, k, gain, None]),
                ("ndcg_at_k", [g, k, gain, judged]),
            ]
    return calls


def shared_calls() -> list[tuple[str, list]]:
    """Calls over all cases at once, and the building blocks on their own."""
    rankings = [c["grades"] for c in CASES]
    n_relevants = [c["n_relevant"] for c in CASES]
    calls = [
        ("mean_reciprocal_rank", [rankings]),
        ("mean_average_precision", [rankings, n_relevants]),
        ("mean_reciprocal_rank", [[]]),
        ("mean_average_precision", [[], []]),
    ]
    for start in range(0, len(CASES), 37):
        calls.append(("mean_reciprocal_rank", [rankings[start : start + 37]]))
        calls.append(("mean_average_precision", [rankings[start : start + 37], n_relevants[start : start + 37]]))
    for gain in metrics.GAINS:
        calls += [("gain_value", [grade, gain]) for grade in (None, 0, 1, 2, 3, 4, 10)]
    calls += [("discount", [rank]) for rank in range(1, 40)]
    return calls


def python_result(name: str, args: list):
    value = getattr(metrics, name)(*args)
    if isinstance(value, list):
        return [list(v) if isinstance(v, tuple) else v for v in value]
    return value


# Evaluated in the page and in Node: import the module, run each call, format every number.
RUNNER_JS = """
function runCalls(m, calls, digits) {
  return calls.map(([name, args]) => {
    const value = m[name](...args);
    const formatted = typeof value === "number" ? digits.map((d) => m.formatNumber(value, d)) : null;
    return { value, formatted };
  });
}
"""


def js_calls(calls):
    return [[camel(name), args] for name, args in calls]


def assert_same(name, args, js, py):
    """js is {"value", "formatted"} from the runner; py the Python value."""
    where = f"{name}{tuple(args) if len(repr(args)) < 300 else '(...)'}"
    if isinstance(py, list):
        assert isinstance(js["value"], list), where
        assert len(js["value"]) == len(py), where
        for j, p in zip(js["value"], py, strict=True):
            if isinstance(p, list):
                assert j == p, where  # (hits, rank) pairs: integers
            else:
                assert j == pytest.approx(p, abs=ABS), where
        return
    assert isinstance(js["value"], (int, float)) and not isinstance(js["value"], bool), where
    assert js["value"] == pytest.approx(py, abs=ABS), where
    assert js["formatted"] == [metrics.format_number(py, d) for d in DIGITS], where


def module_data_url() -> str:
    return "data:text/javascript;base64," + base64.b64encode(MODULE.read_bytes()).decode("ascii")


@pytest.fixture(scope="module")
def module_page(browser):
    """A blank page with metrics.js imported as window.metrics (no server involved)."""
    context = browser.new_context()
    page = context.new_page()
    page.goto("about:blank")
    exported = page.evaluate(
        """async (url) => {
            window.metrics = await import(url);
            return Object.keys(window.metrics).sort();
        }""",
        module_data_url(),
    )
    py_public = {camel(name) for name in metrics.__dict__ if not name.startswith("_")}
    assert {camel(n) for n, _ in CASE_AND_SHARED_CALLS} <= set(exported)
    assert "formatNumber" in exported and "GAINS" in exported and py_public >= set(exported)
    yield page
    context.close()


CASE_CALLS = [case_calls(c) for c in CASES]
CASE_AND_SHARED_CALLS = [call for calls in CASE_CALLS for call in calls] + shared_calls()


@pytest.fixture(scope="module")
def js_results(module_page):
    """Every call of every case and the shared calls, in ONE page.evaluate."""
    batches = [js_calls(calls) for calls in CASE_CALLS] + [js_calls(shared_calls())]
    # Passed and returned as JSON text: Playwright's own serialisation of ~35,000 nested
    # calls is slow, and JSON keeps every finite double exactly (there are no NaNs here).
    results = json.loads(
        module_page.evaluate(
            "([batches, digits]) => {"
            + RUNNER_JS
            + " return JSON.stringify(JSON.parse(batches).map((calls) => runCalls(window.metrics, calls, digits))); }",
            [json.dumps(batches), list(DIGITS)],
        )
    )
    assert len(results) == len(batches)
    return results


@pytest.mark.browser
def test_gains_are_the_same_in_both(module_page):
    assert module_page.evaluate("() => window.metrics.GAINS") == list(metrics.GAINS)


@pytest.mark.browser
@pytest.mark.parametrize("index", range(len(CASES)), ids=[c["id"] for c in CASES])
def test_js_matches_python_on_generated_case(js_results, index):
    calls = CASE_CALLS[index]
    assert len(js_results[index]) == len(calls)
    for (name, args), js in zip(calls, js_results[index], strict=True):
        assert_same(name, args, js, python_result(name, args))


@pytest.mark.browser
def test_js_matches_python_on_means_gains_and_discounts(js_results):
    calls = shared_calls()
    assert len(js_results[-1]) == len(calls)
    for (name, args), js in zip(calls, js_results[-1], strict=True):
        assert_same(name, args, js, python_result(name, args))


def tricky_numbers() -> list[float]:
    rng = np.random.default_rng(7)
    halves = [i / 2**s for s in (1, 2, 3, 4, 5) for i in range(0, 2**s * 3 + 1)]
    decimals = [i / 1000 for i in range(0, 3001)]  # 0.675, 1.005, 0.125, ... as the nearest doubles
    fractions = [p / q for q in range(1, 25) for p in range(0, q + 1)]
    randoms = [float(x) for x in rng.random(500) * 20]
    return halves + decimals + fractions + randoms


@pytest.mark.browser
def test_format_number_writes_the_same_digits_as_format_number_in_js(module_page):
    values = tricky_numbers()
    digits = [0, 1, 2, 3, 4]
    js = module_page.evaluate(
        "([values, digits]) => values.map((v) => digits.map((d) => window.metrics.formatNumber(v, d)))",
        [values, digits],
    )
    mismatches = [
        (v, d, j, metrics.format_number(v, d))
        for v, row in zip(values, js, strict=True)
        for d, j in zip(digits, row, strict=True)
        if j != metrics.format_number(v, d)
    ]
    assert not mismatches, mismatches[:20]
    assert js[values.index(0.125)][2] == "0.13" and js[values.index(0.675)][2] == "0.68"


# Bad arguments: the Python call, a regex its ValueError must match, a regex the JS RangeError must match.
BAD_CALLS = [
    ("precision_at_k", [[1, 0], 0], r"^k must be an integer >= 1, got 0$", r"^k must be an integer >= 1, got 0$"),
    ("precision_at_k", [[1, 0], 2.5], r"^k .* got 2\.5$", r"^k .* got 2\.5$"),
    ("hit_rate_at_k", [[1, 0], True], r"^k .* got True$", r"^k .* got true$"),
    ("ndcg_at_k", [[1, 0], "3"], r"^k .* got '3'$", r'^k .* got "3"$'),
    ("precision_at_k", [[1, -1], 2], r"^grades\[1\] \(rank 2\) .* got -1$", r"^grades\[1\] \(rank 2\) .* got -1$"),
    ("dcg_at_k", [[1.5], 1], r"^grades\[0\] \(rank 1\) .* got 1\.5$", r"^grades\[0\] \(rank 1\) .* got 1\.5$"),
    (
        "recall_at_k",
        [[1, 1, 0], 3, 1],
        r"^n_relevant .* the 2 relevant .* got 1$",
        r"^nRelevant .* the 2 relevant .* got 1$",
    ),
    ("average_precision", [[3, 2], 1], r"^n_relevant .* got 1$", r"^nRelevant .* got 1$"),
    ("ndcg_at_k", [[1], 1, "cubic"], r"^gain must be one of .* got 'cubic'$", r'^gain must be one of .* got "cubic"$'),
    ("gain_value", [1, "log"], r"^gain .* got 'log'$", r'^gain .* got "log"$'),
    (
        "ndcg_at_k",
        [[3, 1], 2, "linear", [3]],
        r"^judged .* lacks \[1\], got \[3\]$",
        r"^judged .* lacks \[1\], got \[3\]$",
    ),
    ("ndcg_at_k", [[1], 1, "linear", [1, None]], r"^judged\[1\] .* got None$", r"^judged\[1\] .* got null$"),
    ("mean_average_precision", [[[1], [0]], [1]], r"^n_relevants .* \(2\), got 1$", r"^nRelevants .* \(2\), got 1$"),
    ("mean_reciprocal_rank", ["101"], r"^rankings must be .* got '101'$", r'^rankings must be .* got "101"$'),
    ("mean_average_precision", [5, [1]], r"^rankings .* got 5$", r"^rankings .* got 5$"),
    ("discount", [0], r"^rank must be an integer >= 1, got 0$", r"^rank must be an integer >= 1, got 0$"),
]


@pytest.mark.browser
def test_js_throws_range_errors_where_python_raises_value_errors(module_page):
    for name, args, py_pattern, _ in BAD_CALLS:
        with pytest.raises(ValueError, match=py_pattern):
            getattr(metrics, name)(*args)
    thrown = module_page.evaluate(
        """(calls) => calls.map(([name, args]) => {
            try { return { returned: window.metrics[name](...args) }; }
            catch (e) { return { name: e.name, isRange: e instanceof RangeError, message: e.message }; }
        })""",
        [[camel(name), args] for name, args, _, _ in BAD_CALLS],
    )
    for (name, args, _, js_pattern), error in zip(BAD_CALLS, thrown, strict=True):
        assert "returned" not in error, (name, args, error)
        assert error["name"] == "RangeError" and error["isRange"], (name, args, error)
        assert re.search(js_pattern, error["message"]), (name, args, error["message"])


@pytest.mark.browser
def test_js_error_messages_name_nan_and_infinity(module_page):
    messages = module_page.evaluate(
        """() => [() => window.metrics.precisionAtK([1], NaN),
                  () => window.metrics.precisionAtK([1], Infinity),
                  () => window.metrics.precisionAtK([NaN], 1)].map((f) => {
            try { f(); return null; } catch (e) { return e.message; }
        })"""
    )
    assert re.search(r"got NaN$", messages[0]), messages
    assert re.search(r"got Infinity$", messages[1]), messages
    assert re.search(r"got NaN$", messages[2]), messages


@pytest.mark.browser
def test_js_average_precision_rejects_a_bad_k_even_when_n_relevant_is_zero(module_page):
    thrown = module_page.evaluate(
        """() => [0, 2.5, "3"].map((k) => {
            try { return { returned: window.metrics.averagePrecision([0, 0], 0, k) }; }
            catch (e) { return { name: e.name, message: e.message }; }
        })"""
    )
    for error in thrown:
        assert error.get("name") == "RangeError", thrown
        assert error["message"].startswith("k must be an integer >= 1, got "), thrown


def test_node_imports_the_module_as_it_is_and_agrees_with_python():
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not on PATH: cannot check that Node imports metrics.js as it is")
    picked = [c for c in CASES if c["kind"] in ("mixed", "unjudged")][:2] + [
        c for c in CASES if c["kind"] == "k_beyond"
    ][:1]
    calls = [call for case in picked for call in case_calls(case)]
    script = (
        RUNNER_JS
        + f"import({json.dumps(MODULE.as_uri())}).then((m) => "
        + f"console.log(JSON.stringify(runCalls(m, {json.dumps(js_calls(calls))}, {json.dumps(list(DIGITS))}))));"
    )
    done = subprocess.run([node, "--input-type=module", "-e", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout)
    assert len(results) == len(calls)
    for (name, args), js in zip(calls, results, strict=True):
        assert_same(name, args, js, python_result(name, args))


@pytest.mark.browser
def test_js_median_agrees_with_python(module_page):
    rng = np.random.default_rng(7)
    samples = [[], [0.5], [0.1, 0.9]] + [list(rng.random(int(rng.integers(1, 9)))) for _ in range(40)]
    got = module_page.evaluate("(samples) => samples.map((s) => window.metrics.median(s))", samples)
    assert got == pytest.approx([metrics.median(s) for s in samples], abs=1e-15)
