"""trec_eval's measures of gains (ndcg, ndcg_rel, Rndcg, G, rbp) and relstring, and ir_measures'
ERR@k, written out by hand, with trec_eval's gain pairs (``-m ndcg.1=0,3=5``) and rbp's persistence
(``-m rbp.p=0.8``).

pytrec_eval cannot be the oracle for pairs (it splits ``ndcg.1=0,2=1`` into malformed parameters and
aborts), and trec_eval 10.0's recorded output (tests/trec_eval_10/) has the default gains only; so
the arithmetic is written here from trec_eval's definitions (m_ndcg.c, m_ndcg_rel.c, m_Rndcg.c,
m_G.c, m_rbp.c, gain_init.c).
"""

from __future__ import annotations

from math import log2

import pytest

from explainer.evaluation.measures import Measure, evaluate

# a 1, b 2, c 3, d judged 0 (not returned), e a negative grade (in the pool, unjudged), x not judged
QRELS = {"q": {"a": 1, "b": 2, "c": 3, "d": 0, "e": -1}}
RUN = {"q": {"a": 5.0, "x": 4.0, "c": 3.0, "b": 2.0, "e": 1.0}}  # grades in rank order: 1, -, 3, 2, .
APPROX = {"rel": 1e-12}


def _one(name: str, run=RUN, qrels=QRELS, **flags) -> float:
    # trec_eval's spelling: a bare "ndcg" given to evaluate() is our NDCG@k, which needs a k
    result = evaluate(qrels, run, [Measure.parse(name)], **flags)
    (measure,) = result.measures
    return result.value(measure, "q")


def test_ndcg_divides_the_whole_list_s_dcg_by_the_ideal_s_made_of_every_positive_judgment():
    dcg = 1 / log2(2) + 3 / log2(4) + 2 / log2(5)
    ideal = 3 / log2(2) + 2 / log2(3) + 1 / log2(4)
    assert _one("ndcg") == pytest.approx(dcg / ideal, **APPROX)


def test_ndcg_gain_pairs_replace_the_grades_gains_and_a_zero_gain_leaves_the_ideal():
    # 1=0 and 3=5: gains 0, -, 5, 2, - ; the ideal is 5, 2 (grade 1's document now has no gain)
    dcg = 5 / log2(4) + 2 / log2(5)
    ideal = 5 / log2(2) + 2 / log2(3)
    assert _one("ndcg.1=0,3=5") == pytest.approx(dcg / ideal, **APPROX)


def test_a_gain_for_grade_zero_adds_the_judged_non_relevant_document_to_the_ideal_only():
    # d (grade 0) is not returned; e's negative grade is unjudged, so it gets no gain
    dcg = 1 / log2(2) + 3 / log2(4) + 2 / log2(5)
    ideal = 3 / log2(2) + 2 / log2(3) + 1 / log2(4) + 1 / log2(5)
    assert _one("ndcg.0=1") == pytest.approx(dcg / ideal, **APPROX)


def test_a_negative_gain_lowers_the_list_s_dcg_and_stays_out_of_the_ideal():
    dcg = -1 / log2(2) + 3 / log2(4) + 2 / log2(5)
    ideal = 3 / log2(2) + 2 / log2(3)
    assert _one("ndcg.1=-1") == pytest.approx(dcg / ideal, **APPROX)


def test_the_first_pair_for_a_grade_wins_as_in_trec_eval():
    assert _one("ndcg.3=5,3=1") == pytest.approx(_one("ndcg.3=5"), **APPROX)


def test_a_measure_with_pairs_is_printed_under_trec_eval_s_name_with_its_parameters():
    result = evaluate(QRELS, RUN, [Measure.parse(n) for n in ("ndcg.1=0,3=5", "rbp.p=0.8", "G")])
    assert [m.name for m in result.measures] == ["ndcg_1=0,3=5", "rbp_p=0.8", "G"]


def test_g_weighs_each_gain_by_how_far_the_list_trails_the_ideal_so_far():
    # gains 1, 0, 3, 2, 0; the ideal's 3, 2, 1 (each at least 1), then 1 a rank
    # rank 1: C = 3, S = 1; rank 3: C = 3 + 2 + 1 = 6, S = 4; rank 4: C = 6 + 1 = 7, S = 6
    expected = (1 / log2(2 + 3 - 1) + 3 / log2(2 + 6 - 4) + 2 / log2(2 + 7 - 6)) / (3 + 2 + 1)
    assert _one("G") == pytest.approx(expected, **APPROX)


def test_g_counts_an_ideal_gain_below_one_as_one_in_the_cost_but_as_itself_in_the_total():
    # 1=0.5: gains 0.5, 0, 3, 2, 0; ideal 3, 2, 0.5 (cost 3, 2, 1), total 5.5
    expected = (0.5 / log2(2 + 3 - 0.5) + 3 / log2(2 + 6 - 3.5) + 2 / log2(2 + 7 - 5.5)) / 5.5
    assert _one("G.1=0.5") == pytest.approx(expected, **APPROX)


def test_ndcg_rel_averages_ndcg_at_each_result_with_a_gain_over_the_positive_judgments():
    ideal = [3, 3 + 2 / log2(3), 3 + 2 / log2(3) + 1 / log2(4)]
    at_a = 1 / ideal[0]
    at_c = (1 + 3 / log2(4)) / ideal[2]
    at_b = (1 + 3 / log2(4) + 2 / log2(5)) / ideal[2]
    assert _one("ndcg_rel") == pytest.approx((at_a + at_c + at_b) / 3, **APPROX)


def test_ndcg_rel_counts_each_positive_judgment_the_list_missed_at_the_list_s_end():
    run = {"q": {"a": 2.0, "x": 1.0}}  # grade 1 at rank 1; c and b missed
    ideal = [3, 3 + 2 / log2(3), 3 + 2 / log2(3) + 1 / log2(4)]
    expected = (1 / ideal[0] + 2 * (1 / ideal[2])) / 3
    assert _one("ndcg_rel", run=run) == pytest.approx(expected, **APPROX)


def _ndcg_at(p: int) -> float:
    gains = [1, 0, 3, 2, 0]
    ideal = [3, 2, 1]
    dcg = sum(g / log2(i + 2) for i, g in enumerate(gains[:p]))
    return dcg / sum(g / log2(i + 2) for i, g in enumerate(ideal[:p]))


def test_rndcg_averages_ndcg_where_the_ideal_s_gain_changes_and_at_the_end_of_a_longer_list():
    # the ideal 3, 2, 1 changes gain after ranks 1, 2 and 3; the list (5 results) runs on past rank 4
    expected = (_ndcg_at(1) + _ndcg_at(2) + _ndcg_at(3) + _ndcg_at(5)) / 4
    assert _one("Rndcg") == pytest.approx(expected, **APPROX)


def test_rndcg_of_a_list_one_longer_than_the_ideal_has_no_point_at_the_list_s_end():
    # m_Rndcg.c steps the ideal one rank past its end within the list, so rank 4 is never a point
    run = {"q": {"a": 5.0, "x": 4.0, "c": 3.0, "b": 2.0}}
    expected = (_ndcg_at(1) + _ndcg_at(2) + _ndcg_at(3)) / 3
    assert _one("Rndcg", run=run) == pytest.approx(expected, **APPROX)


def test_rndcg_is_zero_when_nothing_is_relevant_at_the_relevance_level_whatever_the_gains():
    assert _one("Rndcg") > 0
    assert _one("Rndcg", relevance_level=4) == 0


def test_rbp_scales_the_grades_into_zero_to_one_when_the_highest_is_above_one():
    # highest grade 3: gains 1/3, 0, 1, 2/3, 0 at p^0 .. p^4
    expected = (1 - 0.9) * (1 / 3 + 0.9**2 * 1 + 0.9**3 * 2 / 3)
    assert _one("rbp") == pytest.approx(expected, **APPROX)
    expected = (1 - 0.8) * (1 / 3 + 0.8**2 * 1 + 0.8**3 * 2 / 3)
    assert _one("rbp.p=0.8") == pytest.approx(expected, **APPROX)


def test_rbp_leaves_binary_grades_as_they_are():
    qrels = {"q": {"a": 1, "b": 0}}
    run = {"q": {"b": 2.0, "a": 1.0}}
    assert _one("rbp", run=run, qrels=qrels) == pytest.approx(0.1 * 0.9, **APPROX)


def test_rbp_scales_over_the_pairs_gains_too_so_a_judged_zero_can_gain():
    # 1=-1: the grades' gains are 0, -1, 2, 3 (lowest -1, highest 3), scaled (g + 1) / 4; rank order
    # a (1: 0), x (unjudged: 0, unscaled), c (3: 1), b (2: 3/4), e (unjudged: 0), z (judged 0: 1/4)
    qrels = {"q": {**QRELS["q"], "z": 0}}
    run = {"q": {**RUN["q"], "z": 0.5}}
    expected = 0.1 * (0.9**2 * 1 + 0.9**3 * 3 / 4 + 0.9**5 * 1 / 4)
    assert _one("rbp.1=-1", run=run, qrels=qrels) == pytest.approx(expected, **APPROX)


def test_rbp_resid_takes_rbp_s_persistence():
    # unjudged at ranks 2 and 5 of 5: p^5 + (1 - p)(p + p^4)
    assert _one("rbp_resid.p=0.8") == pytest.approx(0.8**5 + 0.2 * (0.8 + 0.8**4), **APPROX)


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("ndcg.x=1", "ndcg.x=1: a gain pair is grade=gain"),
        ("ndcg.-1=1", "a gain pair is grade=gain"),
        ("rbp.p=1.5", "persistence p must be more than 0"),
        ("rbp_resid.1=2", "rbp_resid takes only p="),
    ],
)
def test_pairs_trec_eval_would_skip_in_silence_are_refused_in_one_line(name, message):
    with pytest.raises(ValueError, match=message):
        Measure.parse(name)


def test_relstring_writes_the_first_grades_as_characters_as_m_relstring_c_does():
    # a grade above 9 is '>', a negative grade (in the pool, unjudged) '.', a document not judged '-'
    qrels = {"q": {"a": 12, "b": -1, "c": 0, "d": 3}}
    run = {"q": {"a": 5.0, "b": 4.0, "x": 3.0, "c": 2.0, "d": 1.0}}
    assert _one("relstring", run=run, qrels=qrels) == ">.-03"
    assert _one("relstring.3", run=run, qrels=qrels) == ">.-"
    result = evaluate(qrels, run, [Measure.parse("relstring")], judged_only=True)
    assert result.value("relstring", "q") == ">03"  # -J: unjudged results leave the list


def test_a_comparison_of_runs_with_relstring_compares_the_numbers_and_leaves_the_text_out():
    from explainer.evaluation.compare import compare
    from explainer.evaluation.many_runs import shared_measures

    chosen = [Measure.parse("relstring"), Measure.parse("rbp")]
    one = evaluate(QRELS, RUN, chosen)
    two = evaluate(QRELS, {"q": {"c": 2.0, "b": 1.0}}, chosen)
    assert list(compare(one, two, measure="rbp", n_permutations=10, n_bootstrap=10).measures) == ["rbp"]
    assert [m.name for m in shared_measures([one, two])] == ["rbp"]


def test_err_at_k_is_the_chance_the_reader_stops_at_each_rank_over_that_rank():
    # grades 3, unjudged, 4, 1: R = 7/16, 0, 15/16, 1/16 (gdeval's (2^g - 1) / 2^4)
    qrels = {"q": {"a": 3, "b": 1, "c": 4}}
    run = {"q": {"a": 3.0, "x": 2.0, "c": 1.0, "b": 0.5}}
    r_a, r_c, r_b = 7 / 16, 15 / 16, 1 / 16
    assert _one("ERR@1", run=run, qrels=qrels) == pytest.approx(r_a, **APPROX)
    assert _one("ERR@3", run=run, qrels=qrels) == pytest.approx(r_a + (1 - r_a) * r_c / 3, **APPROX)
    expected = r_a + (1 - r_a) * r_c / 3 + (1 - r_a) * (1 - r_c) * r_b / 4
    assert _one("ERR@10", run=run, qrels=qrels) == pytest.approx(expected, **APPROX)


def test_err_refuses_a_grade_above_four_as_gdeval_does():
    with pytest.raises(ValueError, match="reads grades 0 to 4"):
        _one("ERR@10", run={"q": {"a": 1.0}}, qrels={"q": {"a": 5}})
