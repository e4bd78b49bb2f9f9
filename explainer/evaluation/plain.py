"""Results as plain data: an evaluation and a comparison as dicts of numbers and text, and as DataFrames.

``Evaluation.to_dict()`` is pytrec_eval's shape, ``{qid: {measure: value}}``; ``to_frame()`` the
same as a pandas DataFrame (a row per query, a column per measure). ``Comparison.to_dict()`` is
the ``comparison`` object of ``evaluate --format json`` (README, "The JSON output"), and
``to_frame()`` its table: a row per measure. Every value is a Python ``int``, ``float``, ``str``,
``bool`` or ``None``, so ``json.dumps`` takes them as they are; pandas is imported only by the
``to_frame`` functions.
"""

from __future__ import annotations

import math


def number(value):
    """A numpy or Python number as a plain ``int`` or ``float``; NaN and infinities as ``None`` (JSON has neither)."""
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, int) or getattr(getattr(value, "dtype", None), "kind", "") in ("i", "u"):
        return int(value)
    value = float(value)
    return value if math.isfinite(value) else None


def evaluation_dict(evaluation) -> dict[str, dict]:
    """``{qid: {measure name: value}}``, queries in trec_eval's order, measures in the evaluation's."""
    names = [m.name for m in evaluation.measures]
    columns = {name: evaluation.values[name].tolist() for name in names}
    return {qid: {name: columns[name][i] for name in names} for i, qid in enumerate(evaluation.qids)}


def evaluation_frame(evaluation):
    """A pandas DataFrame: index ``qid``, one column per measure (its name), in the evaluation's order."""
    import pandas as pd

    names = [m.name for m in evaluation.measures]
    frame = pd.DataFrame({name: evaluation.values[name] for name in names}, index=list(evaluation.qids))
    frame.index.name = "qid"
    return frame


def comparison_dict(comparison) -> dict:
    """The comparison: runs, queries paired, each measure's statistics, and the gate's question and verdict."""
    any_m = next(iter(comparison.measures.values()))
    gate = comparison.gate
    return {
        "baseline": comparison.baseline_name,
        "candidate": comparison.candidate_name,
        "queries": len(any_m.qids),
        "only_baseline": list(comparison.only_baseline),
        "only_candidate": list(comparison.only_candidate),
        "measures": [_measure_dict(m) for m in comparison.measures.values()],
        "gate": {
            "question": gate.question,
            "null": gate.null,
            "margin": gate.margin,
            "alpha": gate.alpha,
            "test": gate.test,
            "outcome": gate.outcome,
            "reason": gate.reason,
            "correction": gate.correction,
            "candidates": gate.family,
            "measures": [_verdict_dict(v) for v in gate.verdicts],
        },
    }


def _measure_dict(m) -> dict:
    return {
        "measure": m.measure,
        "label": m.label,
        "baseline_mean": number(m.mean_baseline),
        "candidate_mean": number(m.mean_candidate),
        "mean_difference": number(m.mean_delta),
        "interval": {
            "low": number(m.ci_low),
            "high": number(m.ci_high),
            "confidence": m.confidence,
            "method": f"bootstrap {m.bootstrap_method}",
            "resamples": m.n_bootstrap,
        },
        "d_z": number(m.d_z),
        "wins": m.wins,
        "ties": m.ties,
        "losses": m.losses,
        "p_values": {"t-test": number(m.t_p), "randomization": number(m.randomization_p)},
        "permutations": m.n_permutations,
        "exact": m.exact,
        "seed": m.seed,
    }


def _verdict_dict(v) -> dict:
    return {
        "measure": v.measure,
        "shift": v.shift,
        "mean_difference": number(v.mean),
        "low": number(v.low),
        "high": number(v.high),
        "interval_method": v.interval_method,
        "p": number(v.p),
        "p_text": v.p_text(),
        "p_adjusted": number(v.p_adjusted),
        "p_adjusted_low": number(v.p_adjusted_low),
        "p_adjusted_high": number(v.p_adjusted_high),
        "p_low": number(v.p_low),
        "p_high": number(v.p_high),
        "permutations": v.n_permutations,
        "exact": v.exact,
        "outcome": v.outcome,
        "queries": v.n,
        "sd": number(v.sd),
        "minimum_detectable_effect": number(v.mde),
    }


def comparison_frame(comparison):
    """A pandas DataFrame of the comparison's table: index ``measure``, a column per statistic."""
    import pandas as pd

    rows = []
    for m in comparison.measures.values():
        row = _measure_dict(m)
        interval, p_values = row.pop("interval"), row.pop("p_values")
        row.update(ci_low=interval["low"], ci_high=interval["high"])
        row.update({f"p_{name.replace('-', '_')}": p for name, p in p_values.items()})
        rows.append(row)
    return pd.DataFrame(rows).set_index("measure")
