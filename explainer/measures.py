"""What each measure is, declared once: its name, the question it answers, what it is blind to.

The figures' hints, the story page's table and the README read these; the
numbers themselves come from ``explainer.metrics``. One blind spot is every measure's, so it is
said once (``UNJUDGED_CAVEAT``), not in a row: a document nobody judged counts as not relevant.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Measure:
    """One relevance measure as the explainer describes it."""

    key: str
    name: str
    symbol: str
    question: str
    blind_to: str
    use_when: str


MEASURES = (
    Measure(
        key="precision",
        name="Precision@k",
        symbol="P@k",
        question="How much of what I show in the top k is relevant?",
        blind_to="Order inside the top k, and relevant documents it never showed.",
        use_when="Readers scan one short page of results.",
    ),
    Measure(
        key="recall",
        name="Recall@k",
        symbol="R@k",
        question="How much of what was judged relevant made it into the top k?",
        blind_to="Order inside the top k. It also needs R, the number of documents judged relevant for the query.",
        use_when="Missing a relevant document is costly, or a later stage reranks the top k.",
    ),
    Measure(
        key="rr",
        name="Reciprocal rank",
        symbol="RR",
        question="How far down is the first relevant result?",
        blind_to="Everything after the first relevant result.",
        use_when="There is one right answer, as in a lookup; averaged over queries it is MRR.",
    ),
    Measure(
        key="ap",
        name="Average precision",
        symbol="AP",
        question="Are all the relevant documents near the top?",
        blind_to="Grades: a document is relevant or it is not.",
        use_when="Judgments are binary and queries have several relevant documents; averaged it is MAP.",
    ),
    Measure(
        key="ndcg",
        name="NDCG@k",
        symbol="NDCG@k",
        question="Is the best material near the top?",
        blind_to="How good the best results are: it is normalised per query, so 1s in their best order score 1.00 "
        "when nothing better was judged.",
        use_when="Judgments are graded and position matters: the usual default.",
    ),
)

BY_KEY = {measure.key: measure for measure in MEASURES}

UNJUDGED_CAVEAT = "Every one of them counts a document nobody judged as not relevant, by default."
