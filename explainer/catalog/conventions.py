"""The five ways tools compute NDCG@k, declared once: gain, ideal, cut, and the tools that use each.

The conventions figure draws its table from these rows, the evaluation computes an NDCG of any
of them (``ndcg@10:exponential-list``), the workbench sends them to its page. All of them
discount rank i by log2(i + 1) and count an unjudged document as grade 0.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Convention:
    """One way to compute NDCG@k, and the tools that compute it that way.

    ``gain`` is one of ``explainer.metrics.GAINS``. ``ideal`` is ``"judged"`` (sort every
    judged document's grade, the list's and the missed ones) or ``"list"`` (sort the list's own
    grades); ``cut`` says whether the ideal DCG stops at k (else it sums every document of that
    ideal order). ``used_by`` names the tools, each as it spells the measure; ``trec_eval`` and
    ``ir_measures`` are those two tools' names for it where they compute it (else None). The
    key is its name: the evaluation labels it ``NDCG@10 (exponential-list)``.
    """

    key: str
    gain: str
    ideal: str
    cut: bool
    used_by: tuple[str, ...]
    trec_eval: str | None = None
    ir_measures: str | None = None

    @property
    def gain_text(self) -> str:
        return "2^g − 1" if self.gain == "exponential" else "g"

    @property
    def ideal_text(self) -> str:
        source = "every judged document" if self.ideal == "judged" else "this list only"
        return f"{source}, {'top k' if self.cut else 'no cut at k'}"


# Every tool named below was checked against its source; the source is beside each claim.
CONVENTIONS = (
    Convention(
        key="linear-judged",
        gain="linear",
        ideal="judged",
        cut=True,
        used_by=(
            # usnistgov/trec_eval m_ndcg_cut.c: "Gain values are the relevance values in the qrels
            # file"; the ideal walks rel_levels, every judged document in the qrels, up to each cutoff.
            "trec_eval ndcg_cut.k",
            # pytrec_eval-terrier 0.5.11 (trec_eval 9.0.x inside), run on this figure's default:
            # ndcg_cut_5 = 0.4676 = metrics.ndcg_at_k(list, 5, "linear", judged=list + missed).
            "pytrec_eval ndcg_cut_k",
            # AmenRa/ranx ranx/metrics/ndcg.py: ndcg() is the Järvelin form, gain = rel; _idcg is
            # _dcg(qrels, qrels, k), the qrels sorted high to low (data_structures/common.py
            # sort_dict_by_value), cut at k.
            "ranx ndcg@k",
        ),
        trec_eval="ndcg_cut",
        # terrierteam/ir_measures measures/ndcg.py: dcg='log2' (the grade as gain) is the default,
        # and its pytrec_eval provider computes nDCG@k as trec_eval's ndcg_cut.k.
        ir_measures="nDCG",
    ),
    Convention(
        key="exponential-judged",
        gain="exponential",
        ideal="judged",
        cut=True,
        used_by=(
            # AmenRa/ranx ranx/metrics/ndcg.py: ndcg_burges() uses (2**rel - 1), same ideal as ndcg().
            "ranx ndcg_burges@k",
            # o19s/quepid db/scorers/ndcg_cut@10.js: gain Math.pow(2, r) - 1; ideal = topRatings(k),
            # the first k of bestDocs (every rated document of the query, best first: ScorerFactory.js
            # getBestRatings, and the ratingsStore spec "returns the best docs"); DCG(ideal, k). Its
            # k is a setting ("var k = 10 // @Rank"), so the row's k stands in for its 10.
            "Quepid ndcg_cut@10 scorer, its 10 set to k",
            # elastic/elasticsearch modules/rank-eval/.../DiscountedCumulativeGain.java: gain
            # 2^rating - 1; with normalize: true the ideal sorts every rated document of the request
            # and is cut at the number of hits returned (a search of size k): this row while k
            # results come back; for a k past the list's end, its ideal stops at the last hit.
            "Elasticsearch rank_eval dcg, normalize: true, when k hits come back",
        ),
        # ir_measures' nDCG(dcg='exp-log2')@k has this gain, but it runs gdeval.pl, whose order of
        # tied results is not checked here: the measures issue (#29) tests it before naming it.
    ),
    Convention(
        key="exponential-judged-uncut",
        gain="exponential",
        ideal="judged",
        cut=False,
        used_by=(
            # o19s/quepid db/scorers/ndcg@10.js, seeded as "nDCG@10" in db/seeds.rb, since PR #1242
            # ("Use *all* rated documents for ideal DCG computation", closing issue #836): gain
            # Math.pow(2, r) - 1; the ideal pushes every rated document (eachDocWithRating) and is
            # summed by DCG(ideal, ideal.length), not cut at k. Its test expects 0.64 for ratings
            # 0, 3, 1 (test/services/javascript_scorer_test.rb), which the exponential gain gives.
            # Its k is a setting too ("let k = 10 // @Rank").
            "Quepid nDCG@10 scorer, its 10 set to k",
        ),
    ),
    Convention(
        key="linear-list",
        gain="linear",
        ideal="list",
        cut=True,
        used_by=(
            # scikit-learn sklearn/metrics/_ranking.py: _dcg_sample_scores uses y_true itself as the
            # gain; _ndcg_sample_scores normalises by _dcg_sample_scores(y_true, y_true, k): the ideal
            # is the y_true it was given (here, the list's grades), cut at k.
            "scikit-learn ndcg_score, given the list's grades",
        ),
    ),
    Convention(
        key="exponential-list",
        gain="exponential",
        ideal="list",
        cut=True,
        used_by=(
            # explainer/figures/ndcg.py NdcgState.values: metrics.ndcg_at_k(ranked, k, gain), no judged=.
            "figure 2 of this explainer",
            # The few lines many code examples write: ideal = dcg(sorted(grades, reverse=True), k); the
            # definitions (Järvelin and Kekäläinen; trec_eval m_ndcg_cut.c; ranx ndcg.py) take the judged.
            "a common shortcut in code examples (the ideal sorted from the list's own grades)",
        ),
    ),
)

BY_KEY = {c.key: c for c in CONVENTIONS}

DEFAULT_CONVENTION = "linear-judged"
"""trec_eval's ``ndcg_cut``: the grade as gain, the ideal from every judged document, cut at k."""
