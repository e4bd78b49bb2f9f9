"""The metrics core against arithmetic written out by hand.

Every expected value here is a formula typed in the test, never a number the
code under test produced: the published figures of the articles, then the
trec_eval conventions, then the errors bad arguments raise.
"""

from __future__ import annotations

import re
from math import log2

import numpy as np
import pytest

from explainer.metrics import (
    GAINS,
    average_precision,
    average_precision_terms,
    dcg_at_k,
    dcg_terms,
    discount,
    format_number,
    gain_value,
    hit_rate_at_k,
    ideal_grades,
    mean_average_precision,
    mean_reciprocal_rank,
    ndcg_at_k,
    precision_at_k,
    recall_at_k,
    reciprocal_rank,
    relevant_ranks,
)

# The articles' twelve results: ranks 2, 3, 5, 8 and 11 relevant, 6 relevant in all.
TWELVE = [0, 1, 1, 0, 1, 0, 0, 1, 0, 0, 1, 0]
TWELVE_N_RELEVANT = 6

# The articles' graded list for DCG and NDCG.
GRADED = [1, 3, 0, 2, 0, 3, 1, 2]

# The articles' short graded list.
SHORT = [3, 2, 0, 1, 2]


def L(rank):
    """log2(rank + 1), the denominator of the discount, to keep the formulas below readable."""
    return log2(rank + 1)


# -- the published figures ------------------------------------------------------


def test_twelve_results_relevant_ranks_are_2_3_5_8_11():
    assert relevant_ranks(TWELVE) == [2, 3, 5, 8, 11]
    assert relevant_ranks(TWELVE, 5) == [2, 3, 5]


def test_twelve_results_precision_at_5_is_060():
    value = precision_at_k(TWELVE, 5)
    assert value == pytest.approx(3 / 5)
    assert format_number(value) == "0.60"


def test_twelve_results_recall_at_5_is_050():
    value = recall_at_k(TWELVE, 5, TWELVE_N_RELEVANT)
    assert value == pytest.approx(3 / 6)
    assert format_number(value) == "0.50"


def test_twelve_results_reciprocal_rank_is_050():
    value = reciprocal_rank(TWELVE)
    assert value == pytest.approx(1 / 2)
    assert format_number(value) == "0.50"


def test_twelve_results_average_precision_is_045():
    value = average_precision(TWELVE, TWELVE_N_RELEVANT)
    assert value == pytest.approx((1 / 2 + 2 / 3 + 3 / 5 + 4 / 8 + 5 / 11) / 6)
    assert format_number(value) == "0.45"


def test_twelve_results_average_precision_terms_are_hits_over_rank():
    assert average_precision_terms(TWELVE) == [(1, 2), (2, 3), (3, 5), (4, 8), (5, 11)]
    assert average_precision_terms(TWELVE, 5) == [(1, 2), (2, 3), (3, 5)]


def test_graded_list_exponential_dcg_at_8_is_1048():
    value = dcg_at_k(GRADED, 8)
    # gains 2^g - 1: 1, 7, 0, 3, 0, 7, 1, 3
    assert value == pytest.approx(1 / L(1) + 7 / L(2) + 0 / L(3) + 3 / L(4) + 0 / L(5) + 7 / L(6) + 1 / L(7) + 3 / L(8))
    assert format_number(value) == "10.48"


def test_graded_list_exponential_ideal_dcg_at_8_is_1495():
    assert ideal_grades(GRADED) == [3, 3, 2, 2, 1, 1, 0, 0]
    value = dcg_at_k(ideal_grades(GRADED), 8)
    assert value == pytest.approx(7 / L(1) + 7 / L(2) + 3 / L(3) + 3 / L(4) + 1 / L(5) + 1 / L(6))
    assert format_number(value) == "14.95"


def test_graded_list_exponential_ndcg_at_8_is_070():
    value = ndcg_at_k(GRADED, 8)
    dcg = 1 / L(1) + 7 / L(2) + 3 / L(4) + 7 / L(6) + 1 / L(7) + 3 / L(8)
    ideal = 7 / L(1) + 7 / L(2) + 3 / L(3) + 3 / L(4) + 1 / L(5) + 1 / L(6)
    assert value == pytest.approx(dcg / ideal)
    assert format_number(value) == "0.70"


def test_graded_list_exponential_ndcg_at_3_is_042():
    value = ndcg_at_k(GRADED, 3)
    assert value == pytest.approx((1 / L(1) + 7 / L(2) + 0 / L(3)) / (7 / L(1) + 7 / L(2) + 3 / L(3)))
    assert format_number(value) == "0.42"


def test_graded_list_linear_dcg_at_8_is_579():
    value = dcg_at_k(GRADED, 8, gain="linear")
    assert value == pytest.approx(1 / L(1) + 3 / L(2) + 2 / L(4) + 3 / L(6) + 1 / L(7) + 2 / L(8))
    assert format_number(value) == "5.79"


def test_graded_list_linear_ideal_dcg_at_8_is_750():
    value = dcg_at_k(ideal_grades(GRADED), 8, gain="linear")
    assert value == pytest.approx(3 / L(1) + 3 / L(2) + 2 / L(3) + 2 / L(4) + 1 / L(5) + 1 / L(6))
    assert format_number(value) == "7.50"


def test_graded_list_linear_ndcg_at_8_is_077():
    value = ndcg_at_k(GRADED, 8, gain="linear")
    dcg = 1 / L(1) + 3 / L(2) + 2 / L(4) + 3 / L(6) + 1 / L(7) + 2 / L(8)
    ideal = 3 / L(1) + 3 / L(2) + 2 / L(3) + 2 / L(4) + 1 / L(5) + 1 / L(6)
    assert value == pytest.approx(dcg / ideal)
    assert format_number(value) == "0.77"


def test_graded_list_linear_ndcg_at_3_is_049():
    value = ndcg_at_k(GRADED, 3, gain="linear")
    assert value == pytest.approx((1 / L(1) + 3 / L(2)) / (3 / L(1) + 3 / L(2) + 2 / L(3)))
    assert format_number(value) == "0.49"


def test_short_list_ndcg_at_5_is_097():
    value = ndcg_at_k(SHORT, 5)
    dcg = 7 / L(1) + 3 / L(2) + 0 / L(3) + 1 / L(4) + 3 / L(5)
    ideal = 7 / L(1) + 3 / L(2) + 3 / L(3) + 1 / L(4) + 0 / L(5)
    assert value == pytest.approx(dcg / ideal)
    assert format_number(value) == "0.97"


def test_short_list_exact_dcg_at_5_is_10484_not_the_articles_rounded_1049():
    value = dcg_at_k(SHORT, 5)
    assert value == pytest.approx(7 / L(1) + 3 / L(2) + 1 / L(4) + 3 / L(5))
    assert format_number(value, 3) == "10.484"
    # The article's 10.49 adds terms computed with logarithms rounded to two decimals.
    rounded_logs = 7 / 1 + 3 / 1.58 + 1 / 2.32 + 3 / 2.58
    assert format_number(rounded_logs) == "10.49"
    assert format_number(value) == "10.48"


def test_mrr_is_048_for_first_hits_at_ranks_1_3_and_10():
    rankings = [[1], [0, 0, 1], [0] * 9 + [1]]
    value = mean_reciprocal_rank(rankings)
    assert value == pytest.approx((1 / 1 + 1 / 3 + 1 / 10) / 3)
    assert format_number(value) == "0.48"


def test_mrr_is_037_for_rank_1_on_two_queries_and_rank_20_on_four():
    rankings = [[1]] * 2 + [[0] * 19 + [1]] * 4
    value = mean_reciprocal_rank(rankings)
    assert value == pytest.approx((2 * (1 / 1) + 4 * (1 / 20)) / 6)
    assert format_number(value) == "0.37"


def test_mrr_is_050_for_rank_2_on_every_query():
    rankings = [[0, 1, 0], [0, 1], [None, 3, 1, 1]]
    value = mean_reciprocal_rank(rankings)
    assert value == pytest.approx(1 / 2)
    assert format_number(value) == "0.50"


# -- building blocks -------------------------------------------------------------


def test_gain_value_is_two_to_the_grade_minus_one_or_the_grade():
    assert [gain_value(g) for g in (0, 1, 2, 3)] == [0.0, 1.0, 3.0, 7.0]
    assert [gain_value(g, "linear") for g in (0, 1, 2, 3)] == [0.0, 1.0, 2.0, 3.0]
    assert GAINS == ("exponential", "linear")


def test_gain_value_of_unjudged_is_zero():
    assert gain_value(None) == 0.0
    assert gain_value(None, "linear") == 0.0


def test_discount_is_one_over_log2_of_rank_plus_one():
    assert discount(1) == 1.0
    assert discount(3) == pytest.approx(1 / 2)
    assert discount(7) == pytest.approx(1 / 3)
    assert discount(2) == pytest.approx(1 / log2(3))


def test_dcg_terms_stop_at_the_end_of_the_list():
    assert dcg_terms([3, 0, 1], 10) == pytest.approx([7 / L(1), 0.0, 1 / L(3)])
    assert dcg_terms([3, 0, 1], 2, "linear") == pytest.approx([3 / L(1), 0.0])


def test_ideal_grades_sort_high_to_low_and_leave_unjudged_out():
    assert ideal_grades([1, None, 3, 0, None, 2]) == [3, 2, 1, 0]


# -- conventions ----------------------------------------------------------------


def test_unjudged_counts_as_not_relevant_in_every_measure():
    grades = [None, 1, None, 0, 2]
    assert relevant_ranks(grades) == [2, 5]
    assert precision_at_k(grades, 4) == pytest.approx(1 / 4)
    assert recall_at_k(grades, 4, 3) == pytest.approx(1 / 3)
    assert reciprocal_rank(grades) == pytest.approx(1 / 2)
    assert hit_rate_at_k(grades, 1) == 0.0
    assert average_precision(grades, 3) == pytest.approx((1 / 2 + 2 / 5) / 3)


def test_unjudged_has_gain_zero_in_dcg():
    assert dcg_at_k([None, 2, None, 1], 4) == pytest.approx(3 / L(2) + 1 / L(4))
    assert dcg_at_k([None, 2, None, 1], 4, "linear") == pytest.approx(2 / L(2) + 1 / L(4))
    assert dcg_at_k([None, None], 2) == 0.0


def test_precision_divides_by_k_beyond_the_list():
    assert precision_at_k([1, 0, 1], 10) == pytest.approx(2 / 10)
    assert precision_at_k([1], 4) == pytest.approx(1 / 4)
    assert precision_at_k([], 3) == 0.0


def test_precision_counts_only_the_top_k():
    assert precision_at_k([1, 1, 0, 1], 2) == pytest.approx(2 / 2)
    assert precision_at_k([0, 0, 1, 1], 2) == 0.0


def test_grades_above_one_count_once_as_relevant():
    assert precision_at_k([3, 2, 1, 0], 4) == pytest.approx(3 / 4)
    assert average_precision([3, 0, 2], 2) == pytest.approx((1 / 1 + 2 / 3) / 2)


def test_recall_divides_by_every_relevant_document_including_missed_ones():
    assert recall_at_k([1, 0, 1, 1], 3, 5) == pytest.approx(2 / 5)
    assert recall_at_k([1, 0, 1, 1], 10, 5) == pytest.approx(3 / 5)


def test_recall_is_zero_when_n_relevant_is_zero():
    assert recall_at_k([0, None, 0], 3, 0) == 0.0
    assert recall_at_k([], 1, 0) == 0.0


def test_average_precision_divides_by_n_relevant_not_by_min_of_k_and_n_relevant():
    # Two hits in the top 2, 10 relevant in all: (1/1 + 2/2) / 10, not / min(2, 10).
    assert average_precision([1, 1, 0, 1], 10, k=2) == pytest.approx((1 / 1 + 2 / 2) / 10)
    assert average_precision([1, 1, 0, 1], 10) == pytest.approx((1 / 1 + 2 / 2 + 3 / 4) / 10)


def test_average_precision_with_k_keeps_only_relevant_ranks_within_k():
    value = average_precision(TWELVE, TWELVE_N_RELEVANT, k=5)
    assert value == pytest.approx((1 / 2 + 2 / 3 + 3 / 5) / 6)
    assert average_precision(TWELVE, TWELVE_N_RELEVANT, k=100) == pytest.approx(
        (1 / 2 + 2 / 3 + 3 / 5 + 4 / 8 + 5 / 11) / 6
    )


def test_average_precision_is_zero_when_n_relevant_is_zero():
    assert average_precision([0, None, 0], 0) == 0.0
    assert average_precision([], 0) == 0.0


def test_average_precision_of_missed_relevant_documents_adds_nothing():
    assert average_precision([0, 0, 0], 4) == 0.0


def test_reciprocal_rank_looks_only_within_k():
    grades = [0, 0, 0, 1]
    assert reciprocal_rank(grades) == pytest.approx(1 / 4)
    assert reciprocal_rank(grades, k=4) == pytest.approx(1 / 4)
    assert reciprocal_rank(grades, k=3) == 0.0
    assert reciprocal_rank(grades, k=50) == pytest.approx(1 / 4)


def test_reciprocal_rank_is_zero_without_a_relevant_result():
    assert reciprocal_rank([0, None, 0]) == 0.0
    assert reciprocal_rank([]) == 0.0


def test_hit_rate_is_one_when_a_relevant_result_is_in_the_top_k():
    assert hit_rate_at_k([0, 0, 2], 3) == 1.0
    assert hit_rate_at_k([0, 0, 2], 2) == 0.0
    assert hit_rate_at_k([0, 0, 2], 30) == 1.0
    assert hit_rate_at_k([None, 0], 2) == 0.0
    assert hit_rate_at_k([], 1) == 0.0


def test_ndcg_ideal_without_judged_comes_from_the_list_itself():
    grades = [0, 2, 1]
    assert ndcg_at_k(grades, 3, "linear") == pytest.approx((2 / L(2) + 1 / L(3)) / (2 / L(1) + 1 / L(2)))


def test_ndcg_ideal_with_judged_uses_every_judged_grade_including_missed_ones():
    grades = [0, 2, 1]
    judged = [0, 2, 1, 3, 3]  # two grade-3 documents the list missed
    assert ndcg_at_k(grades, 3, "linear", judged=judged) == pytest.approx(
        (2 / L(2) + 1 / L(3)) / (3 / L(1) + 3 / L(2) + 2 / L(3))
    )
    assert ndcg_at_k(grades, 3, judged=judged) == pytest.approx(
        (3 / L(2) + 1 / L(3)) / (7 / L(1) + 7 / L(2) + 3 / L(3))
    )


def test_ndcg_with_judged_ignores_unjudged_documents_in_the_list():
    grades = [None, 2, None]
    assert ndcg_at_k(grades, 2, "linear", judged=[2, 1]) == pytest.approx((2 / L(2)) / (2 / L(1) + 1 / L(2)))


def test_ndcg_ideal_is_cut_at_k_like_the_list():
    grades = [1, 0, 0, 0, 3]
    assert ndcg_at_k(grades, 2, "linear") == pytest.approx((1 / L(1)) / (3 / L(1) + 1 / L(2)))
    # k beyond the list: both the list and the ideal stop where they end.
    assert ndcg_at_k([1, 0, 2], 10, "linear", judged=[1, 0, 2, 2]) == pytest.approx(
        (1 / L(1) + 2 / L(3)) / (2 / L(1) + 2 / L(2) + 1 / L(3))
    )


def test_ndcg_is_zero_when_the_ideal_is_zero():
    assert ndcg_at_k([0, None, 0], 3) == 0.0
    assert ndcg_at_k([0, 0], 2, judged=[0, 0, 0]) == 0.0
    assert ndcg_at_k([None], 1, judged=[]) == 0.0
    assert ndcg_at_k([], 5) == 0.0


def test_ndcg_of_the_ideal_order_is_one():
    assert ndcg_at_k([3, 2, 2, 1, 0], 5) == pytest.approx(1.0)
    assert ndcg_at_k([3, 2], 2, judged=[3, 2, 1]) == pytest.approx(1.0)


def test_mean_reciprocal_rank_of_no_queries_is_zero():
    assert mean_reciprocal_rank([]) == 0.0


def test_mean_average_precision_averages_each_querys_average_precision():
    rankings = [TWELVE, [1, 0, 1], [0, 0]]
    value = mean_average_precision(rankings, [6, 3, 2])
    twelve = (1 / 2 + 2 / 3 + 3 / 5 + 4 / 8 + 5 / 11) / 6
    short = (1 / 1 + 2 / 3) / 3
    assert value == pytest.approx((twelve + short + 0.0) / 3)


def test_mean_average_precision_of_no_queries_is_zero():
    assert mean_average_precision([], []) == 0.0


def test_measures_accept_tuples_and_numpy_arrays():
    assert precision_at_k((0, 1, 1), 3) == pytest.approx(2 / 3)
    assert precision_at_k(np.array([0, 1, 1]), np.int64(3)) == pytest.approx(2 / 3)
    assert recall_at_k(np.array([0, 1, 1]), 3, np.int64(4)) == pytest.approx(2 / 4)


@pytest.mark.parametrize(
    ("value", "digits", "text"),
    [
        (0.125, 2, "0.13"),  # exactly a half in binary: rounds up
        (0.675, 2, "0.68"),  # 0.67500000000000004440... in binary
        (1.005, 2, "1.00"),  # 1.00499999999999989341... in binary: rounds down, as toFixed does
        (1, 2, "1.00"),
        (0, 2, "0.00"),
        (2 / 3, 2, "0.67"),
        (0.5, 0, "1"),  # halves up, not to even
        (2.5, 0, "3"),
        (0.0625, 3, "0.063"),
        (10.4844, 3, "10.484"),
        (0.45, 1, "0.5"),  # 0.450000000000000011102... in binary
        (0.35, 1, "0.3"),  # 0.34999999999999997779... in binary
    ],
)
def test_format_number_rounds_the_exact_binary_value_half_up_like_tofixed(value, digits, text):
    assert format_number(value, digits) == text


def test_format_number_writes_two_decimals_by_default():
    assert format_number(1 / 3) == "0.33"
    assert format_number(np.float64(0.995)) == "0.99"  # 0.99499999999999999555... in binary


# -- errors ---------------------------------------------------------------------


def raises(pattern):
    """pytest.raises(ValueError) whose message must match ``pattern`` (a regex)."""
    return pytest.raises(ValueError, match=pattern)


@pytest.mark.parametrize("k", [0, -3])
def test_k_below_one_is_rejected_naming_k_and_its_value(k):
    with raises(rf"^k must be an integer >= 1, got {k}$"):
        precision_at_k(TWELVE, k)
    with raises(rf"^k must be an integer >= 1, got {k}$"):
        hit_rate_at_k(TWELVE, k)
    with raises(rf"^k must be an integer >= 1, got {k}$"):
        recall_at_k(TWELVE, k, 6)
    with raises(rf"^k must be an integer >= 1, got {k}$"):
        ndcg_at_k(GRADED, k)
    with raises(rf"^k must be an integer >= 1, got {k}$"):
        dcg_at_k(GRADED, k)
    with raises(rf"^k must be an integer >= 1, got {k}$"):
        reciprocal_rank(TWELVE, k)
    with raises(rf"^k must be an integer >= 1, got {k}$"):
        relevant_ranks(TWELVE, k)


@pytest.mark.parametrize(("k", "shown"), [(2.5, r"2\.5"), (True, "True"), ("3", "'3'"), (None, "None"), (3.0, r"3\.0")])
def test_k_not_an_integer_is_rejected_naming_k_and_its_value(k, shown):
    with raises(rf"^k must be an integer >= 1, got {shown}$"):
        precision_at_k(TWELVE, k)
    with raises(rf"^k must be an integer >= 1, got {shown}$"):
        hit_rate_at_k(TWELVE, k)
    with raises(rf"^k must be an integer >= 1, got {shown}$"):
        ndcg_at_k(GRADED, k)


@pytest.mark.parametrize("k", [2.5, True, "3"])
def test_average_precision_rejects_a_bad_k(k):
    with raises(r"^k must be an integer >= 1, got "):
        average_precision(TWELVE, 6, k=k)
    with raises(r"^k must be an integer >= 1, got "):
        recall_at_k(TWELVE, k, 6)


@pytest.mark.parametrize("k", [0, 2.5, "3"])
def test_average_precision_rejects_a_bad_k_even_when_n_relevant_is_zero(k):
    with raises(r"^k must be an integer >= 1, got "):
        average_precision([0, 0], 0, k=k)


def test_rank_below_one_is_rejected_by_discount():
    with raises(r"^rank must be an integer >= 1, got 0$"):
        discount(0)


def test_negative_grade_is_rejected_naming_its_index_rank_and_value():
    with raises(re.escape("grades[1] (rank 2) must be an integer >= 0 or None, got -1")):
        precision_at_k([1, -1, 0], 3)
    with raises(re.escape("grades[0] (rank 1) must be an integer >= 0 or None, got -2")):
        ndcg_at_k([-2], 1)
    with raises(re.escape("grade must be an integer >= 0 or None, got -1")):
        gain_value(-1)


@pytest.mark.parametrize(("grade", "shown"), [(1.5, "1.5"), (True, "True"), ("2", "'2'"), (2.0, "2.0")])
def test_non_integer_grade_is_rejected_naming_its_value(grade, shown):
    with raises(re.escape(f"grades[2] (rank 3) must be an integer >= 0 or None, got {shown}")):
        average_precision([0, 1, grade], 3)
    with raises(re.escape(f"grades[2] (rank 3) must be an integer >= 0 or None, got {shown}")):
        dcg_at_k([0, 1, grade], 3)
    with raises(re.escape(f"grade must be an integer >= 0 or None, got {shown}")):
        gain_value(grade, "linear")


@pytest.mark.parametrize("grades", ["101", b"101", 7, None, {1: 1}])
def test_grades_that_are_not_a_sequence_are_rejected(grades):
    with raises(r"^grades must be a sequence of grades, got "):
        precision_at_k(grades, 3)


def test_n_relevant_below_the_relevant_count_in_the_list_is_rejected():
    with raises(re.escape("n_relevant must be an integer >= the 2 relevant results in the list, got 1")):
        recall_at_k([1, 0, 3], 1, 1)
    with raises(re.escape("n_relevant must be an integer >= the 5 relevant results in the list, got 4")):
        average_precision(TWELVE, 4)
    with raises(re.escape("n_relevant must be an integer >= the 5 relevant results in the list, got 4")):
        mean_average_precision([TWELVE], [4])


@pytest.mark.parametrize(("n_relevant", "shown"), [(2.5, "2.5"), (None, "None"), (True, "True"), (-1, "-1")])
def test_n_relevant_not_a_count_is_rejected(n_relevant, shown):
    with raises(re.escape(f"n_relevant must be an integer >= the 0 relevant results in the list, got {shown}")):
        recall_at_k([0, 0], 2, n_relevant)


@pytest.mark.parametrize("gain", ["cubic", "Linear", None, 2])
def test_unknown_gain_is_rejected_naming_the_gains_and_the_value(gain):
    pattern = re.escape(f"gain must be one of 'exponential', 'linear', got {gain!r}")
    with raises(pattern):
        ndcg_at_k(GRADED, 3, gain=gain)
    with raises(pattern):
        dcg_at_k(GRADED, 3, gain)
    with raises(pattern):
        gain_value(1, gain)


def test_judged_lacking_grades_of_the_list_is_rejected_naming_what_it_lacks():
    with raises(re.escape("judged must include the grades of the judged results in the list; it lacks [1], got [3]")):
        ndcg_at_k([3, 1], 2, judged=[3])
    # Multiplicity counts: two grade-2 results need two grade-2 judgements; grade 0 counts too.
    with raises(re.escape("it lacks [2, 0], got [2, 3]")):
        ndcg_at_k([2, 2, 0, None], 4, judged=[2, 3])


def test_judged_with_an_unjudged_or_bad_grade_is_rejected():
    with raises(re.escape("judged[1] (rank 2) must be an integer >= 0, got None")):
        ndcg_at_k([1], 1, judged=[1, None])
    with raises(re.escape("judged[0] (rank 1) must be an integer >= 0, got -1")):
        ndcg_at_k([1], 1, judged=[-1, 1])
    with raises(r"^judged must be a sequence of grades, got 5$"):
        ndcg_at_k([1], 1, judged=5)


def test_n_relevants_of_the_wrong_length_is_rejected_naming_both_lengths():
    with raises(re.escape("n_relevants must have one count per ranking (2), got 1")):
        mean_average_precision([[1], [0, 1]], [1])
    with raises(re.escape("n_relevants must have one count per ranking (0), got 2")):
        mean_average_precision([], [1, 1])


def test_n_relevants_not_a_sequence_is_rejected():
    with raises(r"^n_relevants must be a sequence of integers, got 3$"):
        mean_average_precision([[1]], 3)
    with raises(r"^n_relevants must be a sequence of integers, got '1'$"):
        mean_average_precision([[1]], "1")


@pytest.mark.parametrize(("rankings", "shown"), [(5, "5"), ("101", "'101'"), (None, "None")])
def test_rankings_not_a_sequence_are_rejected(rankings, shown):
    with raises(rf"^rankings must be a sequence of grade lists, got {shown}$"):
        mean_reciprocal_rank(rankings)
    with raises(rf"^rankings must be a sequence of grade lists, got {shown}$"):
        mean_average_precision(rankings, [1])


def test_a_bad_ranking_inside_rankings_is_rejected():
    with raises(re.escape("grades[0] (rank 1) must be an integer >= 0 or None, got 0.5")):
        mean_reciprocal_rank([[1], [0.5]])
