"""What each measure is, declared once: its names, what it answers and misses, and what computes it.

One row (a ``Family``, as trec_eval calls ``P`` with its cutoffs) per measure. The figures'
cards, the story's table and figure 5 read the texts of the rows they teach (``TAUGHT``); the
evaluation reads the names it parses and prints, and calls the functions a row names. The
numbers themselves come from ``explainer.metrics`` (one list) and ``explainer.evaluation.kernels``
(many lists). One blind spot is every measure's, so it is said once (``UNJUDGED_CAVEAT``), not in
a row: a document nobody judged counts as not relevant.
"""

from __future__ import annotations

from dataclasses import dataclass

LONG_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
"""The cutoffs trec_eval prints for P, recall and ndcg_cut when ``-m`` names none (m_P.c, m_recall.c)."""


@dataclass(frozen=True)
class Call:
    """A function called with named inputs, in its argument order: ``Call("precision_at_k", ("relevant", "k"))``.

    The inputs are what the evaluation has for each query (``explainer.evaluation.measures``):
    ``relevant`` (each result: 1 relevant at the level, 0 judged not relevant, unjudged as None,
    or -1 in the flat arrays of the kernels), ``judged`` (each result: 1 judged, 0 not), ``grades``
    (each result's grade, unjudged as None or -1), ``offsets`` (where each list starts in the flat
    arrays), ``k``, ``n_relevant`` (R), ``judged_grades`` (every judged grade of the query, for one
    list), ``ideal`` and ``ideal_offsets`` (the grades each list's ideal is made of, flat), and the
    NDCG convention's ``convention`` (its key), ``gain`` and ``cut``.
    """

    function: str
    inputs: tuple[str, ...]


@dataclass(frozen=True)
class Family:
    """One measure, whatever its cutoff: how people and tools name it, and what computes it.

    ``symbol`` is written with ``@k`` where it takes a cutoff (a label puts the cutoff there:
    ``P@10``). ``trec_eval`` is trec_eval's name (for NDCG, under the default convention; None
    where trec_eval has none), and a table names a measure by it (``P_10``, ``map``), or by the
    key where trec_eval has none (``judged_10``); ``trec_eval_cutoffs`` are the cutoffs trec_eval
    prints by default. ``ir_measures`` is ir_measures' name where it computes the same numbers
    (``P`` for ``P@10``). ``aliases`` are more written forms the evaluation accepts, besides the key
    and trec_eval's name. ``cut``: it takes a cutoff k; ``relevance_level``: trec_eval's ``-l``
    (the lowest relevant grade) changes it. ``per_list`` computes it for one list with
    ``explainer.metrics`` (the arithmetic a view shows), ``kernel`` for many lists at once with
    ``explainer.evaluation.kernels``. ``taught``: the figures, the story's table and figure 5
    explain it with ``question``, ``blind_to`` and ``use_when``; ``used_by`` names the tools that
    compute it, each as it spells it, where a figure lists them. trec_eval's table prints a value
    with four decimals, an ``integer`` one (a count) as an integer; it prints a measure on each
    query's lines when ``per_query``, and on the ``all`` lines unless its ``average`` is ``"none"``.
    """

    key: str
    name: str
    symbol: str
    formula: str
    cut: bool
    relevance_level: bool
    per_list: Call
    kernel: Call
    trec_eval: str | None = None
    trec_eval_cutoffs: tuple[int, ...] = ()
    ir_measures: str | None = None
    aliases: tuple[str, ...] = ()
    taught: bool = False
    question: str = ""
    blind_to: str = ""
    use_when: str = ""
    used_by: tuple[str, ...] = ()
    average: str = "mean"
    per_query: bool = True
    integer: bool = False

    @property
    def written_forms(self) -> tuple[str, ...]:
        """Every name the evaluation reads as this measure, lower case: the key, trec_eval's, the aliases."""
        names = (self.key, self.trec_eval or self.key, *self.aliases)
        return tuple(dict.fromkeys(name.lower() for name in names))

    def label(self, k: int | None) -> str:
        """The symbol with its cutoff: ``P@10``, ``RR``."""
        return self.symbol.replace("@k", f"@{k}") if self.cut else self.symbol


FAMILIES = (
    Family(
        key="precision",
        name="Precision@k",
        symbol="P@k",
        formula="P@k = (relevant results in the top k) / k",
        cut=True,
        relevance_level=True,
        per_list=Call("precision_at_k", ("relevant", "k")),
        kernel=Call("precision_at_k_batch", ("relevant", "offsets", "k")),
        trec_eval="P",
        trec_eval_cutoffs=LONG_CUTOFFS,
        ir_measures="P",
        taught=True,
        question="How much of what I show in the top k is relevant?",
        blind_to="Order inside the top k, and relevant documents it never showed.",
        use_when="Readers scan one short page of results.",
    ),
    Family(
        key="recall",
        name="Recall@k",
        symbol="R@k",
        formula="R@k = (relevant results in the top k) / R",
        cut=True,
        relevance_level=True,
        per_list=Call("recall_at_k", ("relevant", "k", "n_relevant")),
        kernel=Call("recall_at_k_batch", ("relevant", "offsets", "k", "n_relevant")),
        trec_eval="recall",
        trec_eval_cutoffs=LONG_CUTOFFS,
        ir_measures="R",
        aliases=("r",),
        taught=True,
        question="How much of what was judged relevant made it into the top k?",
        blind_to="Order inside the top k. It also needs R, the number of documents judged relevant for the query.",
        use_when="Missing a relevant document is costly, or a later stage reranks the top k.",
    ),
    Family(
        key="rr",
        name="Reciprocal rank",
        symbol="RR",
        formula="RR = 1 / (rank of the first relevant result), 0 if there is none",
        cut=False,
        relevance_level=True,
        per_list=Call("reciprocal_rank", ("relevant",)),
        kernel=Call("reciprocal_rank_batch", ("relevant", "offsets")),
        trec_eval="recip_rank",
        ir_measures="RR",
        aliases=("mrr",),
        taught=True,
        question="How far down is the first relevant result?",
        blind_to="Everything after the first relevant result.",
        use_when="There is one right answer, as in a lookup; averaged over queries it is MRR.",
    ),
    Family(
        key="ap",
        name="Average precision",
        symbol="AP",
        formula="AP = (sum of P@i over the ranks i of the relevant results) / R",
        cut=False,
        relevance_level=True,
        per_list=Call("average_precision", ("relevant", "n_relevant")),
        kernel=Call("average_precision_batch", ("relevant", "offsets", "n_relevant")),
        trec_eval="map",
        ir_measures="AP",
        taught=True,
        question="Are all the relevant documents near the top?",
        blind_to="Grades: a document is relevant or it is not.",
        use_when="Judgments are binary and queries have several relevant documents; averaged it is MAP.",
    ),
    Family(
        key="ndcg",
        name="NDCG@k",
        symbol="NDCG@k",
        formula="NDCG@k = DCG@k / ideal DCG@k, where DCG@k = sum over ranks i <= k of gain(g_i) / log2(i + 1)",
        cut=True,
        # trec_eval's ndcg_cut takes every grade as gain, whatever -l says (m_ndcg_cut.c).
        relevance_level=False,
        per_list=Call("ndcg_by_convention", ("grades", "k", "judged_grades", "convention")),
        kernel=Call("ndcg_at_k_batch", ("grades", "offsets", "k", "ideal", "ideal_offsets", "gain", "cut")),
        trec_eval="ndcg_cut",
        trec_eval_cutoffs=LONG_CUTOFFS,
        ir_measures="nDCG",
        taught=True,
        question="Is the best material near the top?",
        blind_to="How good the best results are: it is normalised per query, so 1s in their best order score 1.00 "
        "when nothing better was judged.",
        use_when="Judgments are graded and position matters: the usual default.",
    ),
    Family(
        key="judged",
        name="Judged@k",
        symbol="Judged@k",
        formula="Judged@k = (judged results in the top k) / k",
        cut=True,
        relevance_level=False,
        per_list=Call("precision_at_k", ("judged", "k")),
        kernel=Call("judged_at_k_batch", ("grades", "offsets", "k")),
        # Ours alone: ir_measures' Judged@k divides by the results returned when fewer than k
        # came back; which tool's judged@k the evaluation follows is the measures issue's (#29).
    ),
    Family(
        key="hit_rate",
        name="Hit rate@k",
        symbol="Hit rate@k",
        formula="Hit rate@k = 1 if a relevant result is in the top k, else 0",
        cut=True,
        relevance_level=True,
        per_list=Call("hit_rate_at_k", ("relevant", "k")),
        kernel=Call("hit_rate_at_k_batch", ("relevant", "offsets", "k")),
        trec_eval="success",
        trec_eval_cutoffs=(1, 5, 10),  # m_success.c
        ir_measures="Success",
        used_by=(
            # usnistgov/trec_eval m_success.c, run through pytrec_eval-terrier 0.5.11: one relevant document
            # at rank 4 gives success_3 = 0 and success_4 = 1, whatever else is relevant.
            "trec_eval success.k",
            # terrierteam/ir_measures ir_measures/measures/success.py: "1 if a document with at least rel
            # relevance is found in the first cutoff documents ... Some refer to this measure as Recall@k."
            "ir_measures Success@k",
            # AmenRa/ranx ranx/metrics/hit_rate.py: "it is equivalent to `success` from trec_eval".
            "ranx hit_rate@k",
        ),
    ),
)

BY_KEY = {family.key: family for family in FAMILIES}

TAUGHT = tuple(family for family in FAMILIES if family.taught)
"""The measures the figures teach, in the order of figure 5's table and the story's."""

UNJUDGED_CAVEAT = "Every one of them counts a document nobody judged as not relevant, by default."
