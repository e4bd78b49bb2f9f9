"""What metrics.py says on the generated cases, as JSON for metrics.test.mjs (metrics.js must say the same).

Prints one JSON object: every call of every case (tests/metric_cases.py, the cases trec_eval is
checked on) with Python's value and the strings format_number writes for it; the means, gains and
discounts on their own; tricky numbers for format_number; the median of random samples; bad calls
with the message of the ValueError Python raises; and the public names of metrics.py.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests/, for metric_cases

from metric_cases import generated_cases  # noqa: E402

from explainer import metrics  # noqa: E402

CASES = generated_cases(400, 20240611)
CUTOFFS = (1, 3, 5, 10)
DIGITS = (2, 3)


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def case_calls(case) -> list[tuple[str, list]]:
    """Every metric call to make on one case, as (python name, positional args)."""
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


def answered(calls) -> list[dict]:
    """Each call with Python's value and, for a number, format_number's strings at DIGITS."""
    out = []
    for name, args in calls:
        value = getattr(metrics, name)(*args)
        if isinstance(value, list):
            value = [list(v) if isinstance(v, tuple) else v for v in value]
        formatted = [metrics.format_number(value, d) for d in DIGITS] if not isinstance(value, list) else None
        out.append({"name": camel(name), "args": args, "value": value, "formatted": formatted})
    return out


def tricky_numbers() -> list[float]:
    rng = np.random.default_rng(7)
    halves = [i / 2**s for s in (1, 2, 3, 4, 5) for i in range(0, 2**s * 3 + 1)]
    decimals = [i / 1000 for i in range(0, 3001)]  # 0.675, 1.005, 0.125, ... as the nearest doubles
    fractions = [p / q for q in range(1, 25) for p in range(0, q + 1)]
    randoms = [float(x) for x in rng.random(500) * 20]
    return halves + decimals + fractions + randoms


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


def refused(name: str, args: list) -> dict:
    """What Python does with a bad call: the ValueError's message, or what it returned instead."""
    try:
        return {"returned": getattr(metrics, name)(*args)}
    except ValueError as error:
        return {"error": type(error).__name__, "message": str(error)}


def public_names() -> list[str]:
    """metrics.py's own public functions and GAINS, camel-cased: what metrics.js must export, no more, no less."""
    own = [n for n, v in vars(metrics).items() if callable(v) and getattr(v, "__module__", "") == metrics.__name__]
    return sorted(["GAINS", *(camel(name) for name in own if not name.startswith("_"))])


def main() -> None:
    rng = np.random.default_rng(7)
    samples = [[], [0.5], [0.1, 0.9]] + [list(rng.random(int(rng.integers(1, 9)))) for _ in range(40)]
    numbers = tricky_numbers()
    format_digits = [0, 1, 2, 3, 4]
    oracle = {
        "gains": list(metrics.GAINS),
        "public": public_names(),
        "digits": list(DIGITS),
        "cases": [{"id": case["id"], "calls": answered(case_calls(case))} for case in CASES],
        "shared": answered(shared_calls()),
        "formats": {
            "digits": format_digits,
            "numbers": numbers,
            "written": [[metrics.format_number(v, d) for d in format_digits] for v in numbers],
        },
        "medians": [{"sample": s, "median": metrics.median(s)} for s in samples],
        "bad": [
            {"name": camel(name), "args": args, "python": refused(name, args), "pyPattern": py, "jsPattern": js}
            for name, args, py, js in BAD_CALLS
        ],
    }
    json.dump(oracle, sys.stdout, allow_nan=False)


if __name__ == "__main__":
    main()
