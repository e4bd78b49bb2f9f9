"""The story's sentences say only what is true of the figures they describe.

Its numbers are computed from each figure's default state (explainer.pages.story_numbers); a
number typed into story.md is only a formula's constant or a fact cited from a source.
"""

from __future__ import annotations

import re

from explainer.figures import unjudged
from explainer.figures.ndcg import SHORT_K, NdcgState
from explainer.figures.queries import QueriesState
from explainer.measures import BY_KEY
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
    # Unjudged documents count as not relevant by default, not in every tool (trec_eval's -J,
    # ir_measures' judged_only, Elasticsearch's unknown_doc_rating).
    assert "every tool" not in STORY
    assert "by default" in unjudged.PAGE.title.lower()
    assert "Documents nobody judged: by default" in BY_KEY["ndcg"].blind_to
    assert "relevant documents in the whole collection" not in STORY
