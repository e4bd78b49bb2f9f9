"""Expected texts and numbers for the figures' tests, computed with explainer.metrics, never read from a page.

Each is the arithmetic a figure shows, written out independently of the figure's own code; the
state tests and the browser tests of a figure share them.
"""

from __future__ import annotations

from explainer import metrics
from explainer.figures.conventions import ndcg_by_convention
from explainer.figures.recall_kinds import MODELS, RELEVANT
from explainer.figures.unjudged import OUTSIDE_JUDGED
from explainer.metrics import format_number as fmt

# -- graded lists: figure 2 and the conventions figure ------------------------------------------


def ranked(grades, order):
    """The grades in rank order, from grades by document and the order of the documents."""
    return [grades[doc] for doc in order]


def dcg_sum_text(grades, depth, gain):
    """'g/d + g/d + ... = total': the DCG of the top ``depth`` grades, each gain over log2(rank + 1)."""
    parts = [f"{metrics.gain_value(g, gain):g}/{fmt(1 / metrics.discount(i))}" for i, g in enumerate(grades[:depth], 1)]
    return f"{' + '.join(parts)} = {fmt(metrics.dcg_at_k(grades, depth, gain))}"


def convention_row(shown, k, missed_grades, convention):
    """The table value and the arithmetic the conventions figure shows for one convention."""
    judged = shown + list(missed_grades)
    ideal = metrics.ideal_grades(judged if convention.ideal == "judged" else shown)
    depth = k if convention.cut else max(len(ideal), 1)
    dcg = metrics.dcg_at_k(shown, k, convention.gain)
    idcg = metrics.dcg_at_k(ideal, depth, convention.gain)
    value = ndcg_by_convention(shown, k, list(missed_grades), convention)
    name = f"Ideal DCG@{k}" if convention.cut else f"Ideal DCG, all {depth}, no cut"
    return {
        "value": fmt(value),
        "ndcg": f"NDCG@{k} = {fmt(dcg)} / {fmt(idcg)} = {fmt(value)}"
        if idcg
        else f"NDCG@{k} = 0 (nothing relevant: the ideal is 0)",
        "dcg": f"DCG@{k} = {dcg_sum_text(shown, k, convention.gain)}",
        "idcg": f"{name} = {dcg_sum_text(ideal, depth, convention.gain)}",
    }


def recall_and_hit_rate_texts(shown, k, missed_grades):
    """The conventions figure's recall@k and hit rate@k lines."""
    hits = len(metrics.relevant_ranks(shown, k))
    n_relevant = len(metrics.relevant_ranks(shown)) + len(missed_grades)
    recall = fmt(metrics.recall_at_k(shown, k, n_relevant))
    return (
        f"Recall@{k} = {hits} / {n_relevant} = {recall}" if n_relevant else f"Recall@{k} = 0 (R = 0: nothing to find)",
        f"Hit rate@{k} = {fmt(metrics.hit_rate_at_k(shown, k))}",
    )


# -- the two-recalls figure --------------------------------------------------------------------


def index_list(model, missed):
    """The index's ten titles: exact neighbours, the missed ones replaced by neighbours 11, 12, ... in turn."""
    substitutes = iter(MODELS[model]["next"])
    return [next(substitutes) if rank in missed else t for rank, t in enumerate(MODELS[model]["neighbours"], 1)]


def recall_kinds_texts(model, missed):
    """The two-recalls figure's three formulas."""
    results = index_list(model, missed)
    exact = set(MODELS[model]["neighbours"])
    neighbour = [int(t in exact) for t in results]
    relevant = [int(t in RELEVANT) for t in results]
    found, hits, r = sum(neighbour), sum(relevant), len(RELEVANT)
    return {
        "ann": f"ANN recall@10 = {found} / 10 = {fmt(metrics.recall_at_k(neighbour, 10, 10))}",
        "recall": f"Recall@10 = {hits} / {r} = {fmt(metrics.recall_at_k(relevant, 10, r))}",
        "precision": f"P@10 = {hits} / 10 = {fmt(metrics.precision_at_k(relevant, 10))}",
    }


# -- the unjudged figure -------------------------------------------------------------------------


def unjudged_values(grades, judged, k=10, condensed=False, reveal=False):
    """Judged@k, P@k and NDCG@k of the unjudged figure, written out from the metrics core."""
    scored = [g if (j or reveal) else None for g, j in zip(grades, judged, strict=True)]
    known = [g for g in scored if g is not None]
    ranked_grades = known if condensed else scored
    pool = known + list(OUTSIDE_JUDGED)
    return {
        "judged": sum(g is not None for g in scored[:k]) / k,
        "precision": metrics.precision_at_k(ranked_grades, k),
        "ndcg": metrics.ndcg_at_k(ranked_grades, k, "exponential", judged=pool),
    }
