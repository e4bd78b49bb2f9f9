"""The story's sentences say only what is true of the figures they describe.

Its numbers are computed from each figure's default state (explainer.pages.story_numbers); a
number typed into story.md is only a formula's constant or a fact cited from a source.
"""

from __future__ import annotations

import re

from explainer import metrics
from explainer.catalog.measures import BY_KEY, UNJUDGED_CAVEAT
from explainer.figures import unjudged, which_measure
from explainer.figures.ndcg import SHORT_K, NdcgState
from explainer.figures.queries import QueriesState
from explainer.pages import STORY, story_numbers

# The numbers story.md may spell out, and why each is not a figure's to compute.
TYPED = {
    "0": "a grade on the 0 to 3 scale, or the gain of grade 0",
    "1": "rank 1, the gain of grade 1, or a 1 in a formula (1 divided by a rank, 1 as a hit rate)",
    "2": "the exponential gain's base, log base 2, rank 2, or grade 2",
    "3": "the top grade of the 0 to 3 scale, or its gain's 7 = 2^3 - 1 written beside it",
    "7": "the gain of grade 3 under the exponential gain",
    "1.00": "a perfect list's NDCG",
    "14.4%": "BEIR's share of ANCE's unjudged top 10 on TREC-COVID",
    "31.8%": "BEIR's share of TAS-B's unjudged top 10 on TREC-COVID",
    "980": "the query and document pairs BEIR had judged on TREC-COVID",
    "0.654": "ANCE's nDCG@10 on TREC-COVID before those judgments (BEIR)",
    "0.735": "ANCE's nDCG@10 on TREC-COVID after them (BEIR)",
    "10": "nDCG@10, BEIR's chosen measure",
}


def test_every_number_typed_into_the_story_is_a_constant_or_a_cited_fact():
    template = re.sub(r"\{[a-z0-9_]+\}", " ", STORY)
    typed = set(re.findall(r"(?<![\w.])\d+(?:\.\d+)?%?", template))
    assert typed <= set(TYPED), f"numbers typed into story.md that a figure should compute: {typed - set(TYPED)}"


def test_the_story_fills_in_every_number_it_names():
    numbers = story_numbers()
    assert set(re.findall(r"\{([a-z0-9_]+)\}", STORY)) <= set(numbers)
    assert STORY.format_map(numbers)


def test_the_short_cut_of_figure_2s_list_is_as_the_story_says():
    """'Cut at k = 3 ...: a 0 sits at rank 3 while both 2s and one of the 3s wait below the cut.'"""
    ranked = NdcgState().ranked_grades
    assert ranked[SHORT_K - 1] == 0
    below = ranked[SHORT_K:]
    assert below.count(2) == ranked.count(2) == 2 and below.count(3) == 1 and ranked.count(3) == 2


def test_the_consistent_system_finds_its_first_relevant_result_at_the_same_rank_every_time():
    state = QueriesState()
    state.apply_preset("consistency")
    assert len({min(ranks) for ranks in state.b}) == 1
    assert "every time" in STORY


def test_the_story_does_not_claim_what_only_some_tools_do():
    # Unjudged documents count as not relevant by default, not in every tool: trec_eval's -J
    # (trec_eval.c) and ir_measures' judged_only (measures/ndcg.py) leave them out, as does
    # Elasticsearch's precision with ignore_unlabeled (PrecisionAtK.java); its unknown_doc_rating
    # (DiscountedCumulativeGain.java) gives them a chosen grade instead.
    assert "every tool" not in STORY
    assert "by default" in unjudged.PAGE.title.lower()
    assert (
        "trec_eval's -J and ir_measures' judged_only leave them out, as Elasticsearch's precision does with"
        " ignore_unlabeled, while Elasticsearch's unknown_doc_rating gives them a grade you choose" in STORY
    )


def test_r_is_the_number_of_documents_judged_relevant_wherever_it_is_said():
    # trec_eval counts num_rel from the qrels (form_res_rels.c): R is what the judges marked relevant.
    texts = {"story": STORY, "R@k card": BY_KEY["recall"].blind_to, "metrics.py": metrics.__doc__}
    for name, text in texts.items():
        assert "whole collection," not in text and "every relevant document" not in text, name
    assert "R, the number of documents judged relevant for the query" in BY_KEY["recall"].blind_to


def test_unjudged_documents_are_every_measures_caveat_and_ndcg_has_a_blind_spot_of_its_own():
    assert all("nobody judged" not in m.blind_to for m in BY_KEY.values())
    assert UNJUDGED_CAVEAT in which_measure.PAGE.caption
    # NDCG's own: normalised per query, two lists in their best order both score 1, whatever their grades.
    state = which_measure.WhichMeasureState()
    state.choose("ndcg")
    for name in ("a", "b"):
        grades = getattr(state, name)
        assert grades == sorted(grades, reverse=True) and state.values(name)["ndcg"] == 1.0
    assert max(state.a) == 1 and max(state.b) == 3
    assert state.values("a")["dcg"] < state.values("b")["dcg"]


def test_most_of_figure_2s_gap_between_the_gains_is_the_3_under_the_1_at_the_top():
    """'most of the gap is the 3 at rank 2 under a 1: swap those two and the exponential and linear gains give ...'"""
    state = NdcgState()
    ranked, k = state.ranked_grades, state.k
    assert state.gain == "exponential" and ranked[:2] == [1, 3]
    swapped = [ranked[1], ranked[0], *ranked[2:]]

    def gap(grades):
        return metrics.ndcg_at_k(grades, k, "linear") - metrics.ndcg_at_k(grades, k, "exponential")

    assert 0 < gap(swapped) < gap(ranked) / 2
    numbers = story_numbers()
    assert numbers["ndcg_top_swapped"] == metrics.format_number(metrics.ndcg_at_k(swapped, k, "exponential"))
    assert numbers["ndcg_top_swapped_linear"] == metrics.format_number(metrics.ndcg_at_k(swapped, k, "linear"))
