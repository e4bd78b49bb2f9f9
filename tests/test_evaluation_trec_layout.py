"""``evaluate -q -m M`` prints trec_eval's lines for M, line by line: the names, their order, the
number formats and the ``all`` lines, against pytrec_eval's numbers written as trec_eval writes them.

The numbers are the evaluation core's business (tested family by family elsewhere); this file
tests the table: that each ``-m`` form and nickname asks for what trec_eval's does, printed where
and as trec_eval prints it. What trec_eval does is read from its source (usnistgov/trec_eval 10.0):
measures.c for the order of the families, meas_print_single.c and meas_print_final.c for the
formats (``%-22s\\t%s\\t%6.4f``, ``%ld`` for counts), m_*.c for which families print per query
and how each ``all`` line combines the queries.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import pytrec_eval
from test_evaluation_cli import call, files

# measures.c, te_trec_measures: trec_eval computes and prints its families in this order, whatever -m's.
TREC_EVAL_ORDER = [
    "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
    "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref", "Rprec_mult", "utility", "11pt_avg",
    "binG", "G", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut", "map_cut", "relative_P", "success", "set_P",
    "set_relative_P", "set_recall", "set_map", "set_F", "num_nonrel_judged_ret", "rbp", "rbp_resid", "unj",
]  # fmt: skip
COUNTS = {"num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret"}  # te_print_*_meas_s_long; summed
GEOMETRIC = {"gm_map", "gm_bpref"}  # te_calc_avg_meas_s_gm, and no line per query
MIN_GEO_MEAN = 0.00001
DIFFER_IN_10 = {"iprec_at_recall", "11pt_avg"}  # 10.0 rounds their levels otherwise than 9.0.8 (pytrec_eval)
RECORDED = Path(__file__).parent / "trec_eval_10"  # trec_eval 10.0's own output (its README says how)


def family_of(name: str) -> str:
    """The trec_eval family of a printed name: ``P_10`` -> ``P``, ``iprec_at_recall_0.10`` -> ``iprec_at_recall``."""
    for family in sorted(TREC_EVAL_ORDER, key=len, reverse=True):
        if name == family or name.startswith(family + "_"):
            return family
    raise AssertionError(name)


def parameter(name: str) -> float:
    rest = name[len(family_of(name)) + 1 :]
    return float(rest) if rest else 0.0


def trec_eval_lines(per_query: dict, tag: str, queries: bool = True) -> list[str]:
    """What trec_eval -q prints for pytrec_eval's values: each query's lines, then the all lines."""
    names = {n for values in per_query.values() for n in values if n not in ("runid", "num_q")}
    names = sorted(names, key=lambda n: (TREC_EVAL_ORDER.index(family_of(n)), parameter(n)))
    asked_runid = any("runid" in values for values in per_query.values())
    asked_num_q = any("num_q" in values for values in per_query.values())

    def text(name, value):
        return f"{int(round(value))}" if name in COUNTS else f"{value:6.4f}"

    lines = []
    if queries:
        for qid in sorted(per_query):
            lines += [f"{n:<22}\t{qid}\t{text(n, per_query[qid][n])}" for n in names if family_of(n) not in GEOMETRIC]
    if asked_runid:
        lines.append(f"{'runid':<22}\tall\t{tag}")
    if asked_num_q:
        lines.append(f"{'num_q':<22}\tall\t{len(per_query)}")
    for n in names:
        values = [per_query[q][n] for q in per_query]
        if n in COUNTS:
            total = sum(values)
        elif family_of(n) in GEOMETRIC:  # pytrec_eval gives each query's log(max(value, MIN_GEO_MEAN))
            total = math.exp(sum(values) / len(values))
        else:
            total = sum(values) / len(values)
        lines.append(f"{n:<22}\tall\t{text(n, total)}")
    return lines


# Each -m as a trec_eval user writes it, and what pytrec_eval (trec_eval 9.0.8 inside) is asked.
FORMS = [
    (["official"], {"official"}),
    (["num_ret", "num_rel", "num_rel_ret"], {"num_ret", "num_rel", "num_rel_ret"}),
    (["map", "gm_map"], {"map", "gm_map"}),
    (["P"], {"P"}),
    (["P.5,10"], {"P.5,10"}),
    (["P.10,5"], {"P.5,10"}),  # trec_eval sorts a measure's cutoffs
    (["ndcg_cut.10", "P.3"], {"ndcg_cut.10", "P.3"}),
    (["recall.100", "success.1,5"], {"recall.100", "success.1,5"}),
    (["Rprec", "bpref", "recip_rank"], {"Rprec", "bpref", "recip_rank"}),
    (["iprec_at_recall"], {"iprec_at_recall"}),
    (["ndcg"], {"ndcg"}),
    (["set_F", "set_P", "set_recall"], {"set_F", "set_P", "set_recall"}),
    (["num_nonrel_judged_ret", "map_cut.10"], {"num_nonrel_judged_ret", "map_cut.10"}),
]


@pytest.mark.parametrize(("asked", "pytrec_names"), FORMS, ids=[" ".join(a) for a, _ in FORMS])
def test_q_prints_trec_evals_lines_for_each_form_of_m(tmp_path, asked, pytrec_names):
    qrels, run, _, paths = files(tmp_path)
    argv = [arg for name in asked for arg in ("-m", name)]
    code, out, _ = call(paths["qrels"], paths["base"], "-q", *argv)
    assert code == 0
    expected = pytrec_eval.RelevanceEvaluator(qrels, pytrec_names).evaluate(run)
    got, want = out.splitlines(), trec_eval_lines(expected, "base")
    assert [line.split("\t")[:2] for line in got] == [line.split("\t")[:2] for line in want]  # names and order
    if not any(family_of(line.split("\t")[0].strip()) in DIFFER_IN_10 for line in want):
        assert got == want  # the values too (the others are held to 10.0's recorded lines below)


@pytest.mark.parametrize(
    ("flags", "recorded"),
    [([], "c"), (["-l", "2"], "cl2"), (["-J"], "cJ"), (["-M", "5"], "cM5")],
    ids=["-c", "-c -l 2", "-c -J", "-c -M 5"],
)
@pytest.mark.parametrize("collection", ["c21", "c22"])
def test_q_c_all_trec_prints_trec_eval_10s_own_lines(collection, flags, recorded):
    """Line for line what trec_eval 10.0 printed (-J's -nan values aside), every family of all_trec."""
    qrels, run = RECORDED / f"{collection}.qrels", RECORDED / f"{collection}.run"
    code, out, err = call(qrels, run, "-q", "-c", *flags, "-m", "all_trec")
    assert code == 0
    got = out.splitlines()
    printed = {family_of(line.split("\t")[0].strip()) for line in got}
    lines = (RECORDED / f"{collection}.{recorded}.txt").read_text().splitlines()
    want = [line for line in lines if family_of(line.split("\t")[0].strip()) in printed]
    # trec_eval 10.0 prints nan for iprec_at_recall and 11pt_avg of a list -J left empty (0/0);
    # the evaluation gives 0 there (test_evaluation_trec_eval_10.py): those lines' values aside.
    nan = [i for i, line in enumerate(want) if line.endswith("nan")]
    assert [line.rsplit("\t", 1)[0] for line in got] == [line.rsplit("\t", 1)[0] for line in want]
    assert [line for i, line in enumerate(got) if i not in nan] == [line for i, line in enumerate(want) if i not in nan]
    all_trec = {family_of(line.split("\t")[0].strip()) for line in lines}
    assert printed == all_trec  # every family all_trec holds is computed and printed, and runid
    assert "not computed" not in err


def test_no_m_prints_trec_evals_official_measures(tmp_path):
    qrels, run, _, paths = files(tmp_path)
    code, out, _ = call(paths["qrels"], paths["base"])
    assert code == 0
    expected = pytrec_eval.RelevanceEvaluator(qrels, {"official"}).evaluate(run)
    got, want = out.splitlines(), trec_eval_lines(expected, "base", queries=False)
    assert [line.split("\t")[0] for line in got] == [line.split("\t")[0] for line in want]
    same = [i for i, line in enumerate(want) if family_of(line.split("\t")[0].strip()) not in DIFFER_IN_10]
    assert [got[i] for i in same] == [want[i] for i in same]
    assert out.splitlines()[0] == f"{'runid':<22}\tall\tbase"


def test_m_given_twice_for_a_family_prints_both_cutoffs(tmp_path):
    """trec_eval keeps the first -m's parameters of a family (-m P.5 -m P.10 prints P_5 alone);
    this command prints what each -m asks for."""
    qrels, run, _, paths = files(tmp_path)
    code, out, _ = call(paths["qrels"], paths["base"], "-m", "P.10", "-m", "P.5")
    expected = pytrec_eval.RelevanceEvaluator(qrels, {"P.5,10"}).evaluate(run)
    assert code == 0 and out.splitlines() == trec_eval_lines(expected, "base", queries=False)


def test_ir_measures_names_print_in_trec_evals_layout_under_the_name_as_written(tmp_path):
    qrels, run, _, paths = files(tmp_path)
    code, out, _ = call(paths["qrels"], paths["base"], "-q", "-m", "nDCG@10", "-m", "AP")
    assert code == 0
    expected = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "map"}).evaluate(run)
    lines = out.splitlines()
    names = {line.split("\t")[0].rstrip() for line in lines}
    assert names == {"nDCG@10", "AP"}
    for line in lines:
        name, qid, value = line.split("\t")
        source = {"nDCG@10": "ndcg_cut_10", "AP": "map"}[name.rstrip()]
        if qid == "all":
            mean = sum(v[source] for v in expected.values()) / len(expected)
            assert value == f"{mean:6.4f}"
        else:
            assert value == f"{expected[qid][source]:6.4f}"


def test_runid_and_num_q_print_their_all_lines_alone(tmp_path):
    qrels, run, _, paths = files(tmp_path)
    code, out, _ = call(paths["qrels"], paths["base"], "-q", "-m", "runid", "-m", "num_q")
    expected = pytrec_eval.RelevanceEvaluator(qrels, {"runid", "num_q"}).evaluate(run)
    assert code == 0 and out.splitlines() == [f"{'runid':<22}\tall\tbase", f"{'num_q':<22}\tall\t{len(expected)}"]


@pytest.mark.parametrize("n_runs", [1, 2])
def test_all_trec_as_json_is_what_the_readme_s_schema_says_with_relstring_as_text(n_runs):
    import json

    import jsonschema
    from test_evaluation_outputs import closed, readme_schema

    runs = [RECORDED / "c21.run", RECORDED / "c22.run"][:n_runs]
    code, out, _ = call(RECORDED / "c21.qrels", *runs, "-q", "-c", "-m", "all_trec", "--format", "json")
    doc = json.loads(out)
    jsonschema.validate(doc, closed(readme_schema()), cls=jsonschema.Draft202012Validator)
    assert doc["left_out"] == [] and code == doc["exit_code"]
    first = doc["runs"][0]["queries"][0]
    assert first["qid"] == "q0" and first["values"]["relstring"] == "-----1---"  # c21.c.txt's q0
