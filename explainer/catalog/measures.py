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


PARAMETER_KINDS = ("", "cutoffs", "levels", "values", "pairs")
"""How a family takes trec_eval's parameters (``-m name.params``), as trec_eval 10.0 reads them:

- ``cutoffs``: integers k >= 1, comma-separated; one value each, printed ``P_10``.
- ``levels``: fractions, comma-separated; one value each, printed with two decimals
  (``iprec_at_recall_0.50``).
- ``values``: numbers, comma-separated, that together make one value (utility's four weights,
  set_F's beta); printed ``utility`` with the defaults, else with the parameters as written
  (``utility_2,-1,0,0``).
- ``pairs``: ``name=number`` pairs that make one value (a grade's gain, ``G.1=3,2=9``; rbp's
  persistence, ``rbp.p=0.8``); printed as ``values`` are.
- ``""``: none.
"""

AVERAGES = ("mean", "geometric", "sum", "count", "none")
"""How trec_eval's ``all`` line combines a family's per-query values (meas_avg.c and the rows):
the arithmetic mean over the queries (with ``-c``, over every judged query); the geometric mean,
each value first raised to at least ``GEOMETRIC_FLOOR``; the sum (the counts); the number of
queries (num_q); no ``all`` line (relstring)."""

GEOMETRIC_FLOOR = 0.00001
"""trec_eval's MIN_GEO_MEAN: gm_map and gm_bpref take log(max(value, this)), so a 0 does not make
the mean 0; with ``-c`` each judged query the run missed adds log(this)."""


@dataclass(frozen=True)
class Family:
    """One measure, whatever its parameters: how people and tools name it, and what computes it.

    ``symbol`` is written with ``@k`` where it takes a cutoff (a label puts the cutoff there:
    ``P@10``). ``trec_eval`` is trec_eval's name (for NDCG@k, under the default convention; None
    where trec_eval has none), and a table names a measure by it (``P_10``, ``map``), or by the
    key where trec_eval has none (``judged_10``). ``params`` is how it takes trec_eval's
    parameters (``PARAMETER_KINDS``) and ``trec_eval_params`` their defaults, what trec_eval
    computes when ``-m`` gives none. ``ir_measures`` is ir_measures' name where it computes the
    same numbers: written with ``@`` for a family with cutoffs or levels (``P@10``,
    ``IPrec@0.5``), without it otherwise (``AP``; ``AP@100`` is ``map_cut``'s). ``aliases`` are
    more written forms the evaluation accepts, besides the key and the tools' names.
    ``cut``: it takes a cutoff k; ``relevance_level``: trec_eval's ``-l`` (the lowest relevant
    grade) changes it. ``average`` says how trec_eval's ``all`` line combines the queries
    (``AVERAGES``); ``per_query``: trec_eval prints it for each query with ``-q``; ``integer``:
    printed as a whole number (the counts). ``per_list`` computes it for one list with
    ``explainer.metrics`` (the arithmetic a view shows), ``kernel`` for many lists at once with
    ``explainer.evaluation.kernels``; None where nothing computes it yet. ``taught``: the
    figures, the story's table and figure 5 explain it with ``question``, ``blind_to`` and
    ``use_when``; ``used_by`` names the tools that compute it, each as it spells it, where a
    figure lists them.
    """

    key: str
    name: str
    symbol: str
    formula: str
    cut: bool = False
    relevance_level: bool = True
    per_list: Call | None = None
    kernel: Call | None = None
    trec_eval: str | None = None
    params: str = ""
    trec_eval_params: tuple[float, ...] = ()
    ir_measures: str | None = None
    aliases: tuple[str, ...] = ()
    average: str = "mean"
    per_query: bool = True
    integer: bool = False
    taught: bool = False
    question: str = ""
    blind_to: str = ""
    use_when: str = ""
    used_by: tuple[str, ...] = ()

    def __post_init__(self):
        if self.params not in PARAMETER_KINDS or self.average not in AVERAGES:
            raise ValueError(f"{self.key}: params {self.params!r} or average {self.average!r} is not one we know")
        if self.cut != (self.params == "cutoffs"):
            raise ValueError(f"{self.key}: a family takes a cutoff exactly when its parameters are cutoffs")

    @property
    def trec_eval_cutoffs(self) -> tuple[int, ...]:
        """The cutoffs trec_eval prints by default, for a family that takes cutoffs."""
        return tuple(int(k) for k in self.trec_eval_params) if self.cut else ()

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
        key="num_q",
        name="Queries",
        symbol="num_q",
        formula="num_q = the queries evaluated (with -c, every judged query)",
        relevance_level=False,
        trec_eval="num_q",
        ir_measures="NumQ",
        average="count",
        per_query=False,
        integer=True,
        kernel=Call("count_queries_batch", ("offsets",)),
    ),
    Family(
        key="num_ret",
        name="Results returned",
        symbol="num_ret",
        formula="num_ret = the results returned for the query (at most -M of them)",
        relevance_level=False,
        trec_eval="num_ret",
        ir_measures="NumRet",
        average="sum",
        integer=True,
        kernel=Call("returned_batch", ("offsets",)),
    ),
    Family(
        key="num_rel",
        name="Relevant documents",
        symbol="num_rel",
        formula="num_rel = R, the documents judged relevant (grade at least the level), returned or not",
        trec_eval="num_rel",
        ir_measures="NumRel",
        average="sum",
        integer=True,
        kernel=Call("n_relevant_batch", ("n_relevant",)),
    ),
    Family(
        key="num_rel_ret",
        name="Relevant results returned",
        symbol="num_rel_ret",
        formula="num_rel_ret = the relevant results returned",
        trec_eval="num_rel_ret",
        ir_measures="NumRelRet",
        average="sum",
        integer=True,
        kernel=Call("relevant_returned_batch", ("relevant", "offsets")),
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
        key="gm_map",
        name="Geometric mean AP",
        symbol="GM AP",
        formula="gm_map = exp(mean over queries of log(max(AP, 0.00001)))",
        trec_eval="gm_map",
        average="geometric",
        per_query=False,
        kernel=Call("average_precision_batch", ("relevant", "offsets", "n_relevant")),
    ),
    Family(
        key="rprec",
        name="R-precision",
        symbol="R-prec",
        formula="Rprec = (relevant results in the top R) / R, R the relevant documents; 0 when R is 0",
        trec_eval="Rprec",
        ir_measures="Rprec",
        kernel=Call("r_precision_batch", ("relevant", "offsets", "n_relevant")),
    ),
    Family(
        key="bpref",
        name="Binary preference",
        symbol="bpref",
        formula="bpref = (1/R) × sum over the relevant results r of 1 − min(n_r, R) / min(N, R): n_r judged non-relevant results above r, N judged non-relevant documents",
        trec_eval="bpref",
        ir_measures="Bpref",
        kernel=Call("bpref_batch", ("relevant", "offsets", "n_relevant", "n_nonrelevant")),
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
        key="iprec_at_recall",
        name="Interpolated precision at recall",
        symbol="IPrec@r",
        formula="iprec_at_recall_x = the highest precision at any rank whose recall is at least x (0 past the last relevant result)",
        trec_eval="iprec_at_recall",
        params="levels",
        trec_eval_params=(0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0),
        ir_measures="IPrec",
        kernel=Call("interpolated_precision_batch", ("relevant", "offsets", "n_relevant", "level")),
    ),
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
        params="cutoffs",
        trec_eval_params=LONG_CUTOFFS,
        ir_measures="P",
        taught=True,
        question="How much of what I show in the top k is relevant?",
        blind_to="Order inside the top k, and relevant documents it never showed.",
        use_when="Readers scan one short page of results.",
    ),
    Family(
        key="relstring",
        name="Relevance string",
        symbol="relstring",
        formula="relstring = the top n results' grades as characters (0-9, > above 9, - unjudged, . in the pool but unjudged); n = 10 by default",
        relevance_level=False,
        trec_eval="relstring",
        params="values",
        trec_eval_params=(10,),
        average="none",
        kernel=Call("relstring_batch", ("grades", "offsets", "values")),
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
        params="cutoffs",
        trec_eval_params=LONG_CUTOFFS,
        ir_measures="R",
        aliases=("r",),
        taught=True,
        question="How much of what was judged relevant made it into the top k?",
        blind_to="Order inside the top k. It also needs R, the number of documents judged relevant for the query.",
        use_when="Missing a relevant document is costly, or a later stage reranks the top k.",
    ),
    Family(
        key="infap",
        name="Inferred AP",
        symbol="infAP",
        formula="infAP = AP estimated from sampled judgments (Yilmaz and Aslam, 2006): documents in the pool but unjudged (a negative grade) are left out, those outside the pool count as not relevant",
        trec_eval="infAP",
        ir_measures="infAP",
        kernel=Call("inferred_ap_batch", ("pooled", "offsets", "n_relevant")),
    ),
    Family(
        key="gm_bpref",
        name="Geometric mean bpref",
        symbol="GM bpref",
        formula="gm_bpref = exp(mean over queries of log(max(bpref, 0.00001)))",
        trec_eval="gm_bpref",
        average="geometric",
        per_query=False,
        kernel=Call("bpref_batch", ("relevant", "offsets", "n_relevant", "n_nonrelevant")),
    ),
    Family(
        key="rprec_mult",
        name="Precision at multiples of R",
        symbol="Rprec_mult@x",
        formula="Rprec_mult_x = precision at rank floor(x × R + 0.9), for each multiple x of R",
        trec_eval="Rprec_mult",
        params="levels",
        trec_eval_params=(0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0),
        kernel=Call("precision_at_r_multiple_batch", ("relevant", "offsets", "n_relevant", "level")),
    ),
    Family(
        key="utility",
        name="Utility",
        symbol="utility",
        formula="utility = a × (relevant returned) + b × (non-relevant returned) + c × (relevant not returned) + d × (non-relevant not returned), with a, b, c, d = 1, −1, 0, 0 by default",
        trec_eval="utility",
        params="values",
        trec_eval_params=(1.0, -1.0, 0.0, 0.0),
        kernel=Call("utility_batch", ("relevant", "offsets", "n_relevant", "values", "n_documents")),
    ),
    Family(
        key="11pt_avg",
        name="11-point average precision",
        symbol="11pt avg",
        formula="11pt_avg = the mean of iprec_at_recall over the levels given (0.0, 0.1, …, 1.0 by default)",
        trec_eval="11pt_avg",
        params="values",
        trec_eval_params=(0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0),
        kernel=Call("eleven_point_batch", ("relevant", "offsets", "n_relevant", "values")),
    ),
    Family(
        key="bing",
        name="Binary G",
        symbol="binG",
        formula="binG = (1/R) × sum over the relevant results r of 1 / log2(2 + the non-relevant results above r)",
        trec_eval="binG",
        kernel=Call("binary_g_batch", ("relevant", "offsets", "n_relevant")),
    ),
    Family(
        key="g",
        name="Normalised gain G",
        symbol="G",
        formula="G = (sum over ranks i of gain_i / log2(2 + ideal gain to i − gain to i)) / the ideal's total gain, gains the grades unless -m G.grade=gain says otherwise",
        relevance_level=False,
        trec_eval="G",
        params="pairs",
        kernel=Call("g_batch", ("grades", "offsets", "qrels_grades", "ideal_offsets", "pairs")),
    ),
    Family(
        key="ndcg_uncut",
        name="NDCG",
        symbol="NDCG",
        formula="NDCG = DCG of the whole list / DCG of every judged document in its best order, gains the grades unless -m ndcg.grade=gain says otherwise",
        relevance_level=False,
        trec_eval="ndcg",
        params="pairs",
        ir_measures="nDCG",
        kernel=Call("ndcg_gains_batch", ("grades", "offsets", "qrels_grades", "ideal_offsets", "pairs")),
    ),
    Family(
        key="ndcg_rel",
        name="NDCG at the relevant documents",
        symbol="ndcg_rel",
        formula="ndcg_rel = the mean, over the judged documents with a positive gain, of NDCG at the rank each was returned at (at the list's end for those not returned)",
        relevance_level=False,
        trec_eval="ndcg_rel",
        params="pairs",
        kernel=Call("ndcg_rel_batch", ("grades", "offsets", "qrels_grades", "ideal_offsets", "pairs")),
    ),
    Family(
        key="rndcg",
        name="NDCG at the R levels",
        symbol="Rndcg",
        formula="Rndcg = the mean of NDCG at the ranks where the ideal order's gain drops (its end included), and at the list's end when the list is two or more longer than the ideal; 0 when R is 0",
        relevance_level=True,  # only through "0 when R is 0" (m_Rndcg.c)
        trec_eval="Rndcg",
        params="pairs",
        kernel=Call("rndcg_batch", ("grades", "offsets", "qrels_grades", "ideal_offsets", "n_relevant", "pairs")),
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
        params="cutoffs",
        trec_eval_params=LONG_CUTOFFS,
        ir_measures="nDCG",
        taught=True,
        question="Is the best material near the top?",
        blind_to="How good the best results are: it is normalised per query, so 1s in their best order score 1.00 "
        "when nothing better was judged.",
        use_when="Judgments are graded and position matters: the usual default.",
    ),
    Family(
        key="map_cut",
        name="AP@k",
        symbol="AP@k",
        formula="AP@k = (sum of P@i over the ranks i <= k of the relevant results) / R",
        cut=True,
        trec_eval="map_cut",
        params="cutoffs",
        trec_eval_params=LONG_CUTOFFS,
        ir_measures="AP",
        per_list=Call("average_precision", ("relevant", "n_relevant", "k")),
        kernel=Call("average_precision_batch", ("relevant", "offsets", "n_relevant", "k")),
    ),
    Family(
        key="relative_p",
        name="Relative precision@k",
        symbol="relative P@k",
        formula="relative_P@k = (relevant results in the top k) / min(R, k); 0 when R is 0",
        cut=True,
        trec_eval="relative_P",
        params="cutoffs",
        trec_eval_params=LONG_CUTOFFS,
        kernel=Call("relative_precision_batch", ("relevant", "offsets", "k", "n_relevant")),
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
        params="cutoffs",
        trec_eval_params=(1, 5, 10),  # m_success.c
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
    Family(
        key="set_p",
        name="Set precision",
        symbol="set P",
        formula="set_P = (relevant results returned) / (results returned)",
        trec_eval="set_P",
        ir_measures="SetP",
        kernel=Call("set_precision_batch", ("relevant", "offsets")),
    ),
    Family(
        key="set_relative_p",
        name="Relative set precision",
        symbol="set relative P",
        formula="set_relative_P = (relevant results returned) / min(R, results returned)",
        trec_eval="set_relative_P",
        # ir_measures writes it SetP(relative=True).
        kernel=Call("set_relative_precision_batch", ("relevant", "offsets", "n_relevant")),
    ),
    Family(
        key="set_recall",
        name="Set recall",
        symbol="set recall",
        formula="set_recall = (relevant results returned) / R",
        trec_eval="set_recall",
        ir_measures="SetR",
        kernel=Call("set_recall_batch", ("relevant", "offsets", "n_relevant")),
    ),
    Family(
        key="set_map",
        name="Set AP",
        symbol="set AP",
        formula="set_map = (relevant returned)² / (results returned × R): set precision times set recall",
        trec_eval="set_map",
        ir_measures="SetAP",
        kernel=Call("set_ap_batch", ("relevant", "offsets", "n_relevant")),
    ),
    Family(
        key="set_f",
        name="Set F",
        symbol="set F",
        formula="set_F = (β + 1) × P × R / (β × P + R), P and R set precision and set recall, β = 1 by default (trec_eval's own weighting: β, not β²)",
        trec_eval="set_F",
        params="values",
        trec_eval_params=(1.0,),
        ir_measures="SetF",
        kernel=Call("set_f_batch", ("relevant", "offsets", "n_relevant", "values")),
    ),
    Family(
        key="num_nonrel_judged_ret",
        name="Judged non-relevant results returned",
        symbol="num_nonrel_judged_ret",
        formula="num_nonrel_judged_ret = the results returned that were judged not relevant",
        trec_eval="num_nonrel_judged_ret",
        average="sum",
        integer=True,
        kernel=Call("judged_nonrelevant_returned_batch", ("relevant", "offsets")),
    ),
    Family(
        key="rbp",
        name="Rank-biased precision",
        symbol="RBP",
        formula="rbp = (1 − p) × sum over ranks i of gain_i × p^(i − 1), p = 0.9 unless -m rbp.p=… says otherwise; gains the grades, scaled into 0..1 when one lies outside",
        relevance_level=False,
        trec_eval="rbp",
        params="pairs",
        kernel=Call("rbp_batch", ("grades", "offsets", "qrels_grades", "ideal_offsets", "pairs")),
    ),
    Family(
        key="rbp_resid",
        name="RBP residual",
        symbol="RBP residual",
        formula="rbp_resid = p^n + (1 − p) × sum over the unjudged ranks i of p^(i − 1): how far RBP could rise were every unjudged result fully relevant (0 when none is unjudged)",
        relevance_level=False,
        trec_eval="rbp_resid",
        params="pairs",
        kernel=Call("rbp_residual_batch", ("grades", "offsets", "pairs")),
    ),
    Family(
        key="unj",
        name="Unjudged@k",
        symbol="unj@k",
        formula="unj@k = (unjudged results in the top k) / k",
        cut=True,
        relevance_level=False,
        trec_eval="unj",
        params="cutoffs",
        trec_eval_params=(5, 10, 20),
        kernel=Call("unjudged_at_k_batch", ("grades", "offsets", "k")),
    ),
    Family(
        key="judged",
        name="Judged@k",
        symbol="Judged@k",
        formula="Judged@k = (judged results in the top k) / min(k, results returned); 0 for an empty list",
        cut=True,
        relevance_level=False,
        per_list=Call("judged_at_k", ("judged", "k")),
        kernel=Call("judged_at_k_batch", ("grades", "offsets", "k")),
        params="cutoffs",
        # ir_measures' Judged@k (judged.py and its JudgedProvider): the share of what was shown that has a
        # judgment, dividing by the results returned when fewer than k came back. trec_eval's unj.k is
        # (unjudged in the top k) / k, the shortfall of a short list counting as judged: see "unj".
        ir_measures="Judged",
    ),
    Family(
        key="rr_cut",
        name="RR@k",
        symbol="RR@k",
        formula="RR@k = 1 / (rank of the first relevant result), 0 if none is in the top k",
        cut=True,
        params="cutoffs",
        ir_measures="RR",
        per_list=Call("reciprocal_rank", ("relevant", "k")),
        kernel=Call("reciprocal_rank_batch", ("relevant", "offsets", "k")),
    ),
    Family(
        key="err",
        name="Expected reciprocal rank@k",
        symbol="ERR@k",
        formula="ERR@k = sum over ranks i <= k of (1/i) × R_i × product over j < i of (1 − R_j), R_i = (2^grade − 1) / 16, grades 0 to 4 (gdeval's, which ir_measures runs)",
        cut=True,
        relevance_level=False,
        params="cutoffs",
        ir_measures="ERR",
        kernel=Call("err_at_k_batch", ("grades", "offsets", "k")),
    ),
)
"""Every measure, in the order trec_eval 10.0 computes and prints its families (measures.c), then ours."""

BY_KEY = {family.key: family for family in FAMILIES}

BY_TREC_EVAL = {family.trec_eval: family for family in FAMILIES if family.trec_eval}
"""The families by trec_eval's name (``P``, ``map``, ``ndcg_cut``), which is case-sensitive, as trec_eval's is."""

NICKNAMES = {
    # trec_eval 10.0's measures.c: the names -m takes for a set of families, each family with its
    # default parameters. "runid" is not a measure: it is the line that names the run.
    "official": (
        "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
        "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P",
    ),
    "set": (
        "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P",
        "set_recall", "set_relative_P", "set_map", "set_F",
    ),
    "all_trec": (
        "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
        "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P", "relstring",
        "recall", "unj", "rbp", "rbp_resid", "infAP", "gm_bpref",
        "utility", "11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success",
        "map_cut", "ndcg_cut", "ndcg_rel", "Rndcg", "binG", "G",
        "set_P", "set_recall", "set_relative_P", "set_map", "set_F",
        "num_nonrel_judged_ret",
    ),
}  # fmt: skip
"""trec_eval's nicknames and the trec_eval names of their members (trec_eval prints them in
``FAMILIES``' order, whatever order a nickname lists them in)."""

NOT_TAKEN = ("all_prefs", "prefs", "qrels_jg")
"""trec_eval's other nicknames: preference and qrels_jg judgments, which this evaluation does not read."""

TAUGHT = tuple(BY_KEY[key] for key in ("precision", "recall", "rr", "ap", "ndcg"))
"""The measures the figures teach, in the order of figure 5's table and the story's."""

UNJUDGED_CAVEAT = "Every one of them counts a document nobody judged as not relevant, by default."


def readme_measures_table() -> str:
    """The README's table of every measure: trec_eval's and ir_measures' names, the definition and the
    ``all`` line (a test holds the README to it)."""
    averages = {"mean": "mean", "geometric": "geometric mean", "sum": "sum", "count": "count", "none": "none"}
    rows = ["| trec_eval | ir_measures | definition | `all` line |", "|---|---|---|---|"]
    for f in FAMILIES:
        trec = f"`{f.trec_eval}`" if f.trec_eval else "—"
        ir = f.ir_measures and (f"`{f.ir_measures}@k`" if f.params == "cutoffs" else f"`{f.ir_measures}`")
        if f.params == "levels" and f.ir_measures:
            ir = f"`{f.ir_measures}@x`"
        if f.key == "set_relative_p":
            ir = "`SetP(relative=True)`"
        rows.append(f"| {trec} | {ir or '—'} | {f.formula} | {averages[f.average]} |")
    return "\n".join(rows)
