"""The evaluation against trec_eval 10.0's own output, recorded once (tests/trec_eval_10/README.md).

Every line of ``trec_eval -q -c -m all_trec`` (with -l 2, -J and -M 5 too) whose measure the
evaluation computes must print the same text: integers for the counts, four decimals otherwise,
for each query and for ``all``. This is where trec_eval 10.0 is held for what 9.0.8 (inside
pytrec_eval) does not have: ``unj``, and ``-c`` printing the judged queries the run missed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from explainer.evaluation.measures import Measure, evaluate

HERE = Path(__file__).parent / "trec_eval_10"
FLAGS = {
    "c": {"complete": True},
    "cl2": {"complete": True, "relevance_level": 2},
    "cJ": {"complete": True, "judged_only": True},
    "cM5": {"complete": True, "max_results": 5},
}


NAN = ("nan", "-nan")
"""What trec_eval 10.0 prints for iprec_at_recall and 11pt_avg of a list that -J left empty (0/0)."""


def _recorded(path: Path) -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    for line in path.read_text().splitlines():
        name, qid, value = line.split("\t")
        out.setdefault(name.strip(), {})[qid] = value
    return out


def _computed(name: str) -> Measure | None:
    try:
        m = Measure.parse(name)
    except ValueError:
        return None  # runid: the run's tag, not a measure
    return m if m.name == name else None


def _text(m: Measure, value: float | str) -> str:
    if isinstance(value, str):
        return f"'{value}'"  # relstring (m_relstring.c prints it in quotes)
    return str(round(value)) if m.family.integer else f"{value:.4f}"


@pytest.mark.parametrize("seed", [21, 22])
@pytest.mark.parametrize("flags", sorted(FLAGS))
def test_every_line_the_evaluation_computes_is_trec_eval_10_s(seed, flags):
    recorded = _recorded(HERE / f"c{seed}.{flags}.txt")
    chosen = [m for name in recorded if (m := _computed(name)) is not None]
    assert {m.name for m in chosen} == set(recorded) - {"runid"}  # every family of all_trec is computed
    result = evaluate(HERE / f"c{seed}.qrels", HERE / f"c{seed}.run", chosen, **FLAGS[flags])
    lines = 0
    for m in chosen:
        theirs = recorded[m.name]
        if m.family.per_query:
            assert set(theirs) - {"all"} == set(result.qids), m.name
            for qid in result.qids:
                if theirs[qid].strip() in NAN:  # 0/0 where -J empties a list: we say 0 (README)
                    assert result.value(m, qid) == 0, (m.name, qid)
                    continue
                assert _text(m, result.value(m, qid)) == theirs[qid], (m.name, qid)
                lines += 1
        if not m.family.per_query or m.family.average != "none":
            assert "all" in theirs, m.name
        else:
            assert "all" not in theirs, m.name  # relstring: per query only
            continue
        if theirs["all"].strip() not in NAN:
            assert _text(m, result.means[m.name]) == theirs["all"], (m.name, "all")
            lines += 1
    families = {m.key for m in chosen}
    assert {"unj", "num_q", "gm_map", "utility", "set_f", "bpref", "num_nonrel_judged_ret"} <= families
    assert {"g", "ndcg_uncut", "ndcg_rel", "rndcg", "rbp", "relstring"} <= families
    assert lines > 1000


@pytest.mark.parametrize("seed", [21, 22])
def test_without_complete_trec_eval_10_stops_at_a_judged_query_with_no_result_and_we_count_it(seed):
    (stderr,) = (HERE / f"c{seed}.no_c.stderr").read_text().splitlines()
    assert stderr.startswith("trec_eval: result qid '") and stderr.endswith("' not found in qrels")
    missed = stderr.split("'")[1]
    result = evaluate(HERE / f"c{seed}.qrels", HERE / f"c{seed}.run", ["map"])
    assert missed in result.summary.qrels_only and missed not in result.qids
    assert "trec_eval 10 stops with exit code 4" in result.summary.lines()[0]
