"""Reading a measure's name (explainer.catalog.names): trec_eval's -m spelling, ir_measures', ours.

The expected families, parameters and printed names are written out from trec_eval 10.0's source
(measures.c's nicknames, each m_*.c's default parameters, meas_init.c's "%s_%ld" and "%s_%3.2f"
printed names) and ir_measures' (measures/*.py: P@10, AP@100 is map_cut, IPrec's @ is a recall).
"""

from __future__ import annotations

import pytest

from explainer.catalog import measures
from explainer.catalog.names import parse


def keys(text):
    return [(n.key, n.k, n.level) for n in parse(text)]


def printed(text):
    return [n.printed for n in parse(text)]


def test_trec_eval_names_take_comma_cutoffs_after_a_dot_and_print_one_name_per_cutoff():
    assert printed("P.5,10") == ["P_5", "P_10"]
    assert printed("P.10,5") == ["P_5", "P_10"]  # sorted, as trec_eval sorts them
    assert keys("ndcg_cut.5") == [("ndcg", 5, None)]
    assert keys("map_cut.100") == [("map_cut", 100, None)]
    assert keys("success.1") == [("hit_rate", 1, None)]
    assert printed("unj.3") == ["unj_3"]


def test_a_trec_eval_family_alone_has_its_default_parameters():
    assert printed("P") == [f"P_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)]
    assert printed("success") == ["success_1", "success_5", "success_10"]
    assert printed("unj") == ["unj_5", "unj_10", "unj_20"]
    assert printed("iprec_at_recall") == [f"iprec_at_recall_{x / 10:.2f}" for x in range(11)]
    assert printed("Rprec_mult")[0] == "Rprec_mult_0.20" and printed("Rprec_mult")[-1] == "Rprec_mult_2.00"
    assert printed("relative_P")[:2] == ["relative_P_5", "relative_P_10"]
    assert printed("utility") == ["utility"] and parse("utility")[0].values == ()
    assert measures.BY_KEY["utility"].trec_eval_params == (1.0, -1.0, 0.0, 0.0)
    assert measures.BY_KEY["set_f"].trec_eval_params == (1.0,)
    assert [printed(n) for n in ("map", "gm_map", "Rprec", "bpref", "recip_rank", "infAP", "binG")] == [
        ["map"],
        ["gm_map"],
        ["Rprec"],
        ["bpref"],
        ["recip_rank"],
        ["infAP"],
        ["binG"],
    ]


def test_levels_print_with_two_decimals_and_values_and_pairs_as_written():
    assert printed("iprec_at_recall.0.5,0.25") == ["iprec_at_recall_0.25", "iprec_at_recall_0.50"]
    assert keys("iprec_at_recall.0.5") == [("iprec_at_recall", None, 0.5)]
    (utility,) = parse("utility.2,-1,0,0")
    assert utility.values == (2.0, -1.0, 0.0, 0.0) and utility.printed == "utility_2,-1,0,0"
    (rbp,) = parse("rbp.p=0.8")
    assert rbp.pairs == (("p", 0.8),) and rbp.printed == "rbp_p=0.8"
    (gains,) = parse("ndcg.1=0,2=1")
    assert gains.key == "ndcg_uncut" and gains.pairs == (("1", 0.0), ("2", 1.0))
    assert parse("set_F.0.5")[0].values == (0.5,)


def test_trec_eval_s_ndcg_is_uncut_and_its_names_are_case_sensitive():
    assert keys("ndcg") == [("ndcg_uncut", None, None)]
    with pytest.raises(ValueError, match="case-sensitive; did you mean P"):
        parse("p.10")
    with pytest.raises(ValueError, match="did you mean map_cut"):
        parse("Map_cut.5")
    assert printed("Map") == ["map"]  # without parameters it is one of our names, which take any case


def test_trec_eval_s_printed_names_read_back():
    assert keys("P_10") == [("precision", 10, None)]
    assert keys("ndcg_cut_10") == [("ndcg", 10, None)]
    assert keys("iprec_at_recall_0.50") == [("iprec_at_recall", None, 0.5)]
    assert keys("success_3") == [("hit_rate", 3, None)]


def test_the_nicknames_hold_trec_eval_10_s_families_in_its_print_order():
    official = {n.key for n in parse("official")}
    assert official == {
        "num_q", "num_ret", "num_rel", "num_rel_ret", "ap", "gm_map", "rprec", "bpref", "rr",
        "iprec_at_recall", "precision",
    }  # fmt: skip
    assert {n.key for n in parse("set")} == {
        "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_p", "set_recall", "set_relative_p",
        "set_map", "set_f",
    }  # fmt: skip
    every = parse("all_trec")
    families = list(dict.fromkeys(n.key for n in every))
    assert len(families) == 36
    # measures.c's te_trec_measures order: num_q first, ... relstring after P, rbp, rbp_resid and unj last
    assert families[:6] == ["num_q", "num_ret", "num_rel", "num_rel_ret", "ap", "gm_map"]
    assert families[families.index("precision") + 1] == "relstring"
    assert families[-3:] == ["rbp", "rbp_resid", "unj"]
    # 27 families of one value; P, recall, ndcg_cut, map_cut and relative_P at 9 cutoffs; success and
    # unj at 3; iprec_at_recall at 11 levels, Rprec_mult at 10
    assert len(every) == 27 + 5 * 9 + 2 * 3 + 11 + 10
    for nickname in ("prefs", "all_prefs", "qrels_jg"):
        with pytest.raises(ValueError, match="preference or qrels_jg"):
            parse(nickname)


@pytest.mark.parametrize(
    ("name", "key", "k", "level"),
    [
        ("nDCG@10", "ndcg", 10, None),
        ("P@10", "precision", 10, None),
        ("R@100", "recall", 100, None),
        ("AP", "ap", None, None),
        ("AP@100", "map_cut", 100, None),
        ("RR", "rr", None, None),
        ("RR@10", "rr_cut", 10, None),
        ("Rprec", "rprec", None, None),
        ("Bpref", "bpref", None, None),
        ("infAP", "infap", None, None),
        ("Success@5", "hit_rate", 5, None),
        ("Judged@10", "judged", 10, None),
        ("ERR@10", "err", 10, None),
        ("IPrec@0.5", "iprec_at_recall", None, 0.5),
        ("NumRet", "num_ret", None, None),
        ("NumRel", "num_rel", None, None),
        ("NumRelRet", "num_rel_ret", None, None),
        ("NumQ", "num_q", None, None),
        ("nDCG", "ndcg_uncut", None, None),
        ("SetP", "set_p", None, None),
        ("SetP(relative=True)", "set_relative_p", None, None),
        ("SetR", "set_recall", None, None),
        ("SetAP", "set_map", None, None),
    ],
)
def test_ir_measures_names_are_printed_as_written(name, key, k, level):
    (one,) = parse(name)
    scheme = "trec_eval" if name in measures.BY_TREC_EVAL else "ir_measures"  # Rprec and infAP are both's
    assert (one.key, one.k, one.level, one.printed, one.scheme) == (key, k, level, name, scheme)


def test_ir_measures_parameters_are_read_as_literals_never_run():
    assert parse("P(rel=2)@10")[0].rel == 2
    assert parse("nDCG(dcg='exp-log2')@10")[0].convention == "exponential-judged"
    assert parse("nDCG(dcg='log2')@10")[0].convention == "linear-judged"
    assert parse("SetF(beta=2)")[0].values == (2.0,)
    assert parse("AP(judged_only=True)")[0].judged_only
    assert parse("nDCG(gains={0: 0, 1: 1, 2: 3})")[0].pairs == (("0", 0.0), ("1", 1.0), ("2", 3.0))
    for bad, why in [
        ("P(rel=__import__('os'))@10", "must be a literal"),
        ("P(2)@10", r"\(name=value, ...\)"),
        ("P(cutoff=3)@10", "not one we take"),
        ("nDCG(rel=2)@10", "rel must be a grade"),
        ("P(rel=0)@10", "rel must be a grade"),
        ("P", None),  # trec_eval's P: every default cutoff, not an error
        ("AP@x", "expected Name@k"),
        ("Bpref@5", "takes no @"),
        ("Success", "needs @"),
    ]:
        if why is None:
            assert len(parse(bad)) == 9
            continue
        with pytest.raises(ValueError, match=why):
            parse(bad)


def test_our_names_keep_working_in_any_case_and_print_trec_eval_s_name():
    assert printed("precision@10") == ["P_10"]
    assert printed("p@10") == ["P_10"]
    assert printed("ndcg@10") == ["ndcg_cut_10"]
    assert printed("hit_rate@5") == ["success_5"]
    assert printed("mrr") == ["recip_rank"] and printed("ap") == ["map"]
    assert keys("ap@10") == [("map_cut", 10, None)] and keys("rr@10") == [("rr_cut", 10, None)]
    assert parse("ndcg@10:exponential-list")[0].convention == "exponential-list"
    assert printed("judged@10") == ["judged@10"]  # trec_eval has no judged: the name as written
    with pytest.raises(ValueError, match="convention must be one of"):
        parse("ndcg@10:cubic")
    with pytest.raises(ValueError, match="only ndcg@k takes a convention"):
        parse("precision@10:exponential-list")
    with pytest.raises(ValueError, match="needs a cutoff"):
        parse("judged")


@pytest.mark.parametrize(
    ("bad", "why"),
    [
        ("", "1 to 200 printable"),
        ("P." + "1," * 150 + "2", "1 to 200 printable"),
        ("P.5\x1b", "printable"),
        ("P.", "comma-separated parameters"),
        ("P.5,,10", "comma-separated parameters"),
        ("P.0", "whole number from 1"),
        ("P.-5", "whole number from 1"),
        ("P.5,5", "given twice"),
        ("P.2.5", "whole number"),
        ("map.5", "takes no parameters"),
        ("utility.1,2", "takes 4 weights"),
        ("set_F.1,2", "takes one number"),
        ("G.1", "name=number pairs"),
        ("iprec_at_recall.x", "expected a number"),
        ("iprec_at_recall.nan", "expected a number"),
        ("nonsense", "unknown measure"),
        ("Nonsense@10", "unknown measure"),
    ],
)
def test_a_bad_name_gets_one_line_that_says_what_was_expected(bad, why):
    with pytest.raises(ValueError, match=why) as raised:
        parse(bad)
    assert "\n" not in str(raised.value)


def test_every_family_of_all_trec_has_trec_eval_s_name_and_ir_measures_names_are_unique():
    trec_names = [f.trec_eval for f in measures.FAMILIES if f.trec_eval]
    assert len(trec_names) == len(set(trec_names))
    members = [n for n in measures.NICKNAMES["all_trec"] if n != "runid"]
    assert set(members) <= set(trec_names) and len(members) == 36
    assert set(measures.NICKNAMES["official"]) <= set(measures.NICKNAMES["all_trec"])
    assert set(measures.NICKNAMES["set"]) <= set(measures.NICKNAMES["all_trec"])
