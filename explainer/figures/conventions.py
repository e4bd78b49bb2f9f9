"""Why tools disagree on NDCG: one graded list, five conventions, five numbers; and recall@k vs hit rate@k.

The list is figure 2's eight graded results. Beside them sit judged documents the
list never retrieved ("missed"). Each convention is a choice of gain (the grade
itself, or 2^grade - 1), of where the ideal order comes from (every judged
document, or only the list's own results), and of whether the ideal DCG is cut at
k. Each row of the figure's table names the tools that make those choices.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, ClassVar

import param

from explainer import metrics
from explainer.catalog import measures as catalog_measures
from explainer.catalog.conventions import CONVENTIONS, Convention
from explainer.catalog.grades import MAX_GRADE
from explainer.figures.base import HERE, Figure, FigurePage, FigureView, UrlKey, module_source
from explainer.figures.binary import QUERY
from explainer.figures.ndcg import TITLES, GradedListState
from explainer.figures.params import Count, Grades, Permutation

# The same list as figure 2, with two relevant documents it never retrieved (grades 3 and 2),
# cut at k = 5, where every convention gives a different number.
ARTICLE_MISSED_GRADES = (3, 2)
DEFAULT_K = 5
# k runs past the list's eight results to 10, one of the depths trec_eval's ndcg_cut reports by
# default (5, 10, 15, 20, 30, 100, ...): past the list its DCG stops growing, but the ideal of every
# judged document (the missed ones too) grows while judged relevant documents remain.
MAX_K = 10
# The same eight results with four missed 2s, or with two missed 3s: by trec_eval's ndcg_cut the
# first scores higher at k = 3 and k = 8 and lower at k = 10, where only its ideal still grows
# (ten relevant documents against eight). With the exponential gain the first stays ahead.
DISAGREEING_MISSED = ((2, 2, 2, 2), (3, 3))
MAX_MISSED = 6


# The names tools give hit rate@k, from its row in the catalog.
HIT_RATE_NAMES = catalog_measures.BY_KEY["hit_rate"].used_by


def ndcg_by_convention(ranked: list[int | None], k: int, missed_grades: list[int], convention: Convention) -> float:
    """NDCG@k of ``ranked`` (None where unjudged) under ``convention``, with ``missed_grades`` the
    judged grades outside the list."""
    judged = [g for g in ranked if g is not None] + list(missed_grades)
    if convention.cut:
        pool = judged if convention.ideal == "judged" else None
        return metrics.ndcg_at_k(ranked, k, convention.gain, judged=pool)
    # ideal_grades leaves the list's unjudged documents out.
    ideal = metrics.ideal_grades(judged if convention.ideal == "judged" else ranked)
    best = metrics.dcg_at_k(ideal, max(len(ideal), 1), convention.gain)
    return metrics.dcg_at_k(ranked, k, convention.gain) / best if best else 0.0


class ConventionsState(GradedListState):
    """What the reader of the conventions figure changes: the list (grades, order), k, and the missed documents' grades."""

    fields = (*GradedListState.fields, "missed_grades")

    relevance_level: ClassVar[int] = 1
    """The lowest grade that recall@k and hit rate@k count as relevant (trec_eval's -l): data of
    the list, not a setting. NDCG takes every grade, whatever the level, as trec_eval's does."""

    k = Count(
        default=DEFAULT_K, bounds=(1, MAX_K), doc="The cutoff: the top k results count (past the list's last, none)."
    )
    missed_grades = Grades(
        default=list(ARTICLE_MISSED_GRADES),
        lowest=1,
        highest=MAX_GRADE,
        bounds=(0, MAX_MISSED),
        doc="Grades (1 to 3) of the judged relevant documents the list did not retrieve, best first.",
    )

    @classmethod
    def for_list(
        cls,
        grades: Sequence[int | None],
        missed_grades: Sequence[int],
        k: int = DEFAULT_K,
        highest: int = MAX_GRADE,
        relevance_level: int = 1,
    ) -> type[ConventionsState]:
        """A state class for a real query's list: its ``grades`` (rank order, None where nobody judged
        the document) and k are its defaults, grades run up to ``highest``, and ``missed_grades``
        (every judged document outside the list, grade 0 included, so that the figure counts the
        query's judged documents) and ``relevance_level`` are data, fixed, not a setting. Classes
        are made once per list.
        """
        missed = tuple(sorted((int(g) for g in missed_grades), reverse=True))
        level = int(relevance_level)
        ranked = tuple(None if g is None else int(g) for g in grades)
        return _conventions_for_list(cls, ranked, missed, int(k), int(highest), level)

    @classmethod
    def limits(cls) -> dict[str, dict[str, Any]]:
        """Each field's limits, and the relevance level the browser's recall and hit rate use."""
        return {**super().limits(), "relevance_level": {"value": cls.relevance_level}}

    @property
    def judged(self) -> list[int]:
        """Every judged document's grade: the list's (its unjudged left out), then the missed ones."""
        return [g for g in self.ranked_grades if g is not None] + list(self.missed_grades)

    @property
    def relevant(self) -> list[int]:
        """Each rank's relevance for recall and hit rate: 1 where its grade reaches the level (not unjudged)."""
        return [int(g is not None and g >= self.relevance_level) for g in self.ranked_grades]

    @property
    def n_relevant(self) -> int:
        """R: the judged documents whose grade reaches the level, in the list and missed."""
        return sum(self.relevant) + sum(1 for g in self.missed_grades if g >= self.relevance_level)

    def add_missed_grade(self, grade: int) -> None:
        """One more judged document of ``grade`` that the list did not retrieve."""
        self.missed_grades = sorted([*self.missed_grades, grade], reverse=True)

    def remove_missed_grade(self, grade: int) -> None:
        """One fewer missed document of ``grade``; ValueError if there is none."""
        if grade not in self.missed_grades:
            raise ValueError(f"no missed document has grade {grade!r}; missed_grades is {self.missed_grades!r}")
        missed = list(self.missed_grades)
        missed.remove(grade)
        self.missed_grades = missed

    @property
    def values(self) -> dict[str, float]:
        """NDCG@k under each convention (by key), and recall@k and hit rate@k, from the metrics core."""
        ranked = self.ranked_grades
        out = {c.key: ndcg_by_convention(ranked, self.k, self.missed_grades, c) for c in CONVENTIONS}
        out["recall"] = metrics.recall_at_k(self.relevant, self.k, self.n_relevant)
        out["hit_rate"] = metrics.hit_rate_at_k(self.relevant, self.k)
        return out


@functools.lru_cache(maxsize=512)
def _conventions_for_list(
    cls, grades: tuple[int | None, ...], missed: tuple[int, ...], k: int, highest: int, level: int
):
    length = len(grades)
    if not length:
        raise ValueError("a list for the conventions figure needs at least one result")
    if not 1 <= level:
        raise ValueError(f"relevance_level must be an integer >= 1, got {level!r}")
    return cls._made_for(
        f"a list of {length} results, {len(missed)} judged documents outside it",
        relevance_level=level,
        grades=Grades(
            default=list(grades),
            highest=highest,
            unjudged=True,
            bounds=(length, length),
            doc="Each document's grade, None where nobody judged it.",
        ),
        order=Permutation(default=list(range(length)), length=length, doc=cls.param.order.doc),
        k=Count(default=min(max(k, 1), length), bounds=(1, length), doc=cls.param.k.doc),
        missed_grades=Grades(
            default=list(missed),
            lowest=0,
            highest=highest,
            bounds=(len(missed), len(missed)),
            doc="Grades of the judged documents outside the list, 0 included: data.",
        ),
    )


def story_numbers() -> dict[str, str]:
    """The numbers the story's text quotes about this figure, from its default state."""
    f = metrics.format_number
    state = ConventionsState()
    values = state.values
    ndcgs = [values[c.key] for c in CONVENTIONS]
    k = state.k
    return {
        "conventions_k": str(k),
        "conventions_missed": " and ".join(map(str, state.missed_grades)),
        "conventions_missed_count": str(len(state.missed_grades)),
        "conventions_low": f(min(ndcgs)),
        "conventions_high": f(max(ndcgs)),
        "conventions_trec": f(values["linear-judged"]),
        "conventions_burges": f(values["exponential-judged"]),
        "conventions_quepid": f(values["exponential-judged-uncut"]),
        "conventions_sklearn": f(values["linear-list"]),
        "conventions_list_exp": f(values["exponential-list"]),
        "conventions_hits": str(sum(state.relevant[:k])),
        "conventions_r": str(state.n_relevant),
        "conventions_recall": f(values["recall"]),
        "conventions_hit_rate": f(values["hit_rate"]),
    }


class ConventionsView(FigureView):
    """The conventions figure in the browser."""

    titles = param.List(default=list(TITLES), item_type=str, doc="The document titles, by document.")
    query = param.String(default=QUERY, doc="The query the list answers.")
    conventions = param.List(
        default=[
            {
                "key": c.key,
                "gain": c.gain,
                "ideal": c.ideal,
                "cut": c.cut,
                "gain_text": c.gain_text,
                "ideal_text": c.ideal_text,
                "used_by": list(c.used_by),
            }
            for c in CONVENTIONS
        ],
        doc="The conventions, in table order, from the catalog (explainer.catalog.conventions).",
    )
    hit_rate_names = param.List(default=list(HIT_RATE_NAMES), item_type=str, doc="Tools' names for hit rate@k.")

    _esm = module_source(HERE / "conventions.js")
    _stylesheets = [*FigureView._stylesheets, (HERE / "conventions.css").read_text(encoding="utf-8")]


class ConventionsFigure(Figure):
    """Why tools disagree on NDCG: move results, change grades, k and the missed documents; compare conventions."""

    state_class = ConventionsState
    view_class = ConventionsView


PAGE = FigurePage(
    name="conventions",
    title="Why tools disagree on NDCG",
    caption="One graded list and the relevant documents it missed: NDCG@k by five conventions. Focus a row for its arithmetic.",
    figure=ConventionsFigure,
    shows="one list, five NDCG conventions and the tools that use each; recall@k against hit rate@k",
    url_keys=(
        UrlKey("grades", "as for `/ndcg`"),
        UrlKey("order", "as for `/ndcg`"),
        UrlKey("k", "{k[min]} to {k[max]}"),
        UrlKey(
            "missed_grades",
            "grades ({missed_grades[min_grade]} to {missed_grades[max_grade]}) of up to {missed_grades[max_length]}"
            " relevant documents the list missed, empty for none",
        ),
    ),
    example="grades=1,3,0,2,0,3,1,2&k=5&missed_grades=3,2",
    story_numbers=story_numbers,
)
