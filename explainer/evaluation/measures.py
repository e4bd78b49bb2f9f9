"""Per-query measures of a run against qrels, and their means, as trec_eval computes them.

``evaluate(qrels, run, measures)`` gives an ``Evaluation``: for every evaluated query
the value of each measure, the means, and a summary of what was skipped.
``Evaluation.query(qid)`` gives one query's ranked list with its grades, the
relevant documents the run missed, and each measure recomputed through the readable
functions of ``explainer.metrics``, so that a view can show that query's arithmetic.

trec_eval's conventions, followed here (and tested against pytrec_eval):

- Which queries count: those in both the run and the qrels. A query in the run with no
  judgments is skipped; so, by default, is a query in the qrels that the run has no
  result for. With ``complete=True`` (trec_eval ``-c``) those qrels-only queries count
  0 for every measure, and means divide by the number of queries in the qrels.
- A document is relevant when its grade is at least ``relevance_level`` (trec_eval
  ``-l``, default 1). Unjudged documents, and judgments with a negative grade, are not
  relevant and have no gain.
- ``precision@k`` divides by k even when fewer results came back; ``recall@k`` and ``ap``
  divide by R, the documents judged relevant for the query (at the level), retrieved or
  not; ``rr`` and ``ap`` look at the whole run (trec_eval's ``recip_rank`` and ``map``,
  which are not cut).
- ``ndcg@k``: trec_eval's ``ndcg_cut_k`` by default (the grade as gain; the ideal from
  every judged document of the query, cut at k; not affected by ``relevance_level``).
  Every convention of the conventions figure can be chosen instead
  (``explainer.catalog.conventions``, keyed in ``NDCG_CONVENTIONS`` here).
- ``judged@k``: ir_measures' ``Judged@k``, the share of the top k that has a judgment (it
  divides by the results returned when fewer than k came back); trec_eval's ``unj.k`` is the
  unjudged share, divided by k. ``hit_rate@k``: trec_eval's ``success_k``.

Which function computes a measure, for one list and for many, is its row's in
``explainer.catalog.measures``; the many-list kernels are ``explainer.evaluation.kernels``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from explainer import metrics
from explainer.catalog import measures as catalog
from explainer.catalog import names
from explainer.catalog.conventions import BY_KEY as NDCG_CONVENTIONS
from explainer.catalog.conventions import DEFAULT_CONVENTION
from explainer.evaluation import gain_kernels, kernels
from explainer.evaluation.formats import Qrels, Run, read_qrels, read_run
from explainer.evaluation.formats.memory import small_pages as _small_pages
from explainer.evaluation.formats.order import pair_keys as _mix

KEYS = tuple(f.key for f in catalog.FAMILIES if f.kernel is not None)
"""The measures an evaluation can compute: the catalog's keys whose row names a kernel."""

CUT_KEYS = tuple(f.key for f in catalog.FAMILIES if f.cut and f.kernel is not None)
"""The measures that take a cutoff k; ``rr`` and ``ap`` look at the whole run, as trec_eval's do."""

_WRITTEN = {name: f.key for f in catalog.FAMILIES if f.kernel is not None for name in f.written_forms}


@dataclass(frozen=True)
class Measure:
    """One measure to compute: ``key`` (one of ``KEYS``), its cutoff ``k``, and for NDCG its convention.

    ``level`` is the recall level or multiple of R of a family with levels; ``values`` and
    ``pairs`` trec_eval's parameters of a family that takes them (``explainer.catalog.names``);
    ``rel`` ir_measures' lowest relevant grade for this measure alone (None: the evaluation's
    ``relevance_level``) and ``judged_only`` its leaving unjudged results out. ``written`` is
    the name it was asked for by, which names it in tables where trec_eval's name cannot say
    all that (``P(rel=2)@10``, ``utility_2,-1,0,0``).
    """

    key: str
    k: int | None = None
    convention: str = DEFAULT_CONVENTION
    level: float | None = None
    values: tuple[float, ...] = ()
    pairs: tuple[tuple[str, float], ...] = ()
    rel: int | None = None
    judged_only: bool = False
    written: str = field(default="", compare=False)

    def __post_init__(self):
        if self.key not in catalog.BY_KEY:
            raise ValueError(f"measure key must be one of {', '.join(KEYS)}, got {self.key!r}")
        if self.family.cut:
            metrics._check_k(self.k)
        elif self.k is not None:
            raise ValueError(
                f"{self.key} looks at the whole run (as trec_eval's does) and takes no k, got k={self.k!r}"
            )
        if (self.level is not None) != (self.family.params == "levels"):
            raise ValueError(f"{self.key} takes a level exactly when its family has levels, got level={self.level!r}")
        if self.pairs and self.family.params != "pairs" or self.values and self.family.params != "values":
            raise ValueError(f"{self.key} takes no such parameters, got {self.values or self.pairs!r}")
        for name, value in self.pairs:
            self._check_pair(name, value)
        if self.rel is not None and (not metrics._is_int(self.rel) or self.rel < 1):
            raise ValueError(f"rel must be an integer >= 1, got {self.rel!r}")
        if self.convention not in NDCG_CONVENTIONS:
            raise ValueError(f"convention must be one of {', '.join(NDCG_CONVENTIONS)}, got {self.convention!r}")
        if self.key != "ndcg" and self.convention != DEFAULT_CONVENTION:
            raise ValueError(f"only ndcg has conventions, got convention={self.convention!r} for {self.key}")

    def _check_pair(self, name: str, value: float) -> None:
        where = self.written or self.family.trec_eval or self.key
        stem = self.family.trec_eval or self.key
        if where.startswith(stem + "_"):  # as -m took it: ndcg.x=1, printed ndcg_x=1
            where = f"{stem}.{where[len(stem) + 1 :]}"
        if name == "p" and self.key in ("rbp", "rbp_resid"):
            if not 0 < value <= 1:
                raise ValueError(f"{where}: rbp's persistence p must be more than 0 and at most 1, got {value:g}")
        elif self.key == "rbp_resid":
            raise ValueError(f"{where}: rbp_resid takes only p=, got {name}=")
        elif not name.lstrip("+").isdigit():
            # trec_eval skips such a pair without a word (gain_init.c); a typo should not pass unseen
            raise ValueError(f"{where}: a gain pair is grade=gain with a grade of 0 or more, got {name}=")

    @property
    def family(self) -> catalog.Family:
        """The catalog's row of this measure: its names, texts and the functions that compute it."""
        return catalog.BY_KEY[self.key]

    @property
    def name(self) -> str:
        """The name in tables: trec_eval's where trec_eval computes it (``P_10``, ``map``, ``ndcg_cut_10``)."""
        if self.rel is not None or self.judged_only:
            return self.written or f"{self.key}{'' if self.k is None else '@' + str(self.k)}(rel={self.rel})"
        if self.convention == DEFAULT_CONVENTION:
            stem = self.family.trec_eval or self.key
        else:
            stem = f"{self.key}_{self.convention}"
        if self.family.cut:
            return f"{stem}_{self.k}"
        if self.level is not None:
            return f"{stem}_{self.level:3.2f}"
        if self.values or self.pairs:
            if self.written.startswith(stem + "_"):
                return self.written
            if self.values:
                return f"{stem}_{','.join(f'{v:g}' for v in self.values)}"
            return f"{stem}_{','.join(f'{n}={v:g}' for n, v in self.pairs)}"
        return stem

    @property
    def label(self) -> str:
        """A short label for people: ``P@10``, ``RR``, ``NDCG@10``."""
        text = self.family.label(self.k)
        return text if self.convention == DEFAULT_CONVENTION else f"{text} ({self.convention})"

    @classmethod
    def named(cls, named: names.Named) -> Measure:
        """The measure a parsed name asks for (``explainer.catalog.names.parse``)."""
        return cls(
            named.key,
            named.k,
            named.convention,
            level=named.level,
            values=named.values,
            pairs=named.pairs,
            rel=named.rel,
            judged_only=named.judged_only,
            written=named.printed,
        )

    @classmethod
    def parse(cls, text: str, convention: str = DEFAULT_CONVENTION) -> Measure:
        """A measure from its written form, in trec_eval's spelling, ir_measures' or ours
        (``explainer.catalog.names``): ``P@10``, ``precision@10``, ``P_10``, ``P.10``, ``ndcg@10``,
        ``ndcg_cut_10``, ``ndcg@10:exponential-list``, ``nDCG@10``, ``recall@100``, ``rr``
        (``recip_rank``, ``RR``), ``ap`` (``map``, ``AP``), ``AP@100``, ``RR@10``, ``judged@10``,
        ``hit_rate@10`` (``success_10``). ``convention`` applies to an NDCG@k that names none."""
        found = names.parse(text)
        if len(found) != 1:
            raise ValueError(
                f"measure {text!r} names {len(found)} measures; name one, with its cutoff (as in P@10 or P.10)"
            )
        one = found[0]
        if one.key == "ndcg" and one.convention == DEFAULT_CONVENTION and one.scheme != "ir_measures":
            one = replace(one, convention=convention)
        return cls.named(one)


DEFAULT_MEASURES = (
    Measure("precision", 10),
    Measure("recall", 100),
    Measure("rr"),
    Measure("ap"),
    Measure("ndcg", 10),
)
"""P@10, R@100, RR, AP and NDCG@10 (trec_eval's P_10, recall_100, recip_rank, map, ndcg_cut_10)."""


def measures_for(keys: Sequence[str], ks: Sequence[int], convention: str = DEFAULT_CONVENTION) -> tuple[Measure, ...]:
    """Measures from keys (or written forms such as ``P@5``, ``P.5,10``) and cutoffs: every k for
    each key that takes one (``precision`` with ks 5 and 10 is P_5 and P_10)."""
    out: list[Measure] = []
    for text in keys:
        key = _WRITTEN.get(text.lower())
        if key in CUT_KEYS:
            found = [Measure(key, k, convention if key == "ndcg" else DEFAULT_CONVENTION) for k in ks]
        else:
            found = []
            for one in names.parse(text):
                if one.key == "ndcg" and one.convention == DEFAULT_CONVENTION and one.scheme != "ir_measures":
                    one = replace(one, convention=convention)
                found.append(Measure.named(one))
        out.extend(m for m in found if m not in out)
    return tuple(out)


# -- one query, through the readable metrics core ------------------------------------------


@dataclass(frozen=True)
class QueryDetail:
    """One query, all a view needs to show its arithmetic.

    ``docids``, ``scores`` and ``grades`` are the run's results in trec_eval's order
    (rank 1 first); a grade is ``None`` for a document without a judgment (a negative
    grade in the qrels counts as none, as in trec_eval). ``judged_grades`` holds every
    judged grade (>= 0) of the query, retrieved or not: NDCG's ideal is made of them.
    ``missed`` lists the judged documents with a grade >= 1 the run did not retrieve,
    ``(docid, grade)`` best first; ``n_missed_relevant`` counts those at or above the
    relevance level. ``values`` maps each measure's name to its value, computed by
    ``explainer.metrics`` from these lists.
    """

    qid: str
    docids: tuple[str, ...]
    scores: tuple[float, ...]
    grades: tuple[int | None, ...]
    n_relevant: int
    judged_grades: tuple[int, ...]
    missed: tuple[tuple[str, int], ...]
    n_missed_relevant: int
    relevance_level: int
    in_run: bool
    values: dict[str, float] = field(default_factory=dict)


def query_values(
    grades: Sequence[int | None],
    n_relevant: int,
    judged_grades: Sequence[int],
    measures: Sequence[Measure],
    relevance_level: int = 1,
) -> dict[str, float]:
    """Each measure of one ranked list, computed by ``explainer.metrics``' readable functions.

    ``grades`` in rank order (``None`` unjudged), ``n_relevant`` the query's relevant
    documents (grade >= ``relevance_level``), ``judged_grades`` every judged grade of the query.
    """
    inputs = {
        "relevant": [None if g is None else int(g >= relevance_level) for g in grades],
        "judged": [0 if g is None else 1 for g in grades],
        "grades": list(grades),
        "n_relevant": n_relevant,
        "judged_grades": list(judged_grades),
    }
    out = {}
    for m in measures:
        call = m.family.per_list
        if call is None or m.rel is not None or m.judged_only:
            continue  # no readable function for it yet: the kernels' value stands alone
        function = getattr(metrics, call.function, None) or globals()[call.function]
        given = {**inputs, "k": m.k, "convention": m.convention}
        out[m.name] = float(function(*(given[name] for name in call.inputs)))
    return out


def judged_at_k(judged: Sequence[int], k: int) -> float:
    """Judged@k = (judged results in the top k) / min(k, results returned); 0 for an empty list.

    ir_measures' ``Judged@k``, from ``judged``, 1 for each judged result in rank order, 0 for the
    others. trec_eval's ``unj.k`` is (unjudged in the top k) / k: the two differ only for a list
    shorter than k (8 results, all judged: Judged@10 = 1, unj_10 = 0, not 1 - 1).
    """
    k = metrics._check_k(k)
    shown = min(k, len(judged))
    return sum(judged[:k]) / shown if shown else 0.0


def ndcg_by_convention(grades: list, k: int, judged_grades: list[int], convention: str) -> float:
    """NDCG@k of one list under a convention (``explainer.catalog.conventions``), from ``explainer.metrics``.

    ``judged_grades`` is every judged grade of the query (the ideal of the ``judged``
    conventions); the ``list`` conventions make the ideal from the list's own grades.
    """
    c = NDCG_CONVENTIONS[convention]
    if c.cut:
        return metrics.ndcg_at_k(grades, k, c.gain, judged=judged_grades if c.ideal == "judged" else None)
    pool = judged_grades if c.ideal == "judged" else [g for g in grades if g is not None]
    ideal = metrics.ideal_grades(pool)
    best = metrics.dcg_at_k(ideal, max(len(ideal), 1), c.gain)
    return metrics.dcg_at_k(grades, k, c.gain) / best if best else 0.0


# -- many queries, through the kernels -----------------------------------------------------


@dataclass(frozen=True)
class Summary:
    """What was evaluated and what was left out, counted.

    ``n_evaluated`` queries have values (those in both files, plus, with ``complete``,
    the qrels-only ones); ``run_only`` are in the run but have no judgments (skipped, as
    trec_eval skips them); ``qrels_only`` have judgments but no result in the run;
    ``qrels_fractional`` counts the grades written with a fraction, read as trec_eval reads them.

    The rule for a judged query with no result, decided here once: without ``complete`` it is
    left out of every value and mean and counted in ``qrels_only`` (as trec_eval 9 does;
    trec_eval 10 stops with exit code 4 and "result qid ... not found in qrels"); with
    ``complete`` (trec_eval ``-c``) it is evaluated as an empty list, as both versions do, so
    each measure takes its value for no results (0 for most; num_rel its R; utility its third
    weight times R) and the means divide by every judged query.
    """

    n_evaluated: int
    run_only: tuple[str, ...]
    qrels_only: tuple[str, ...]
    complete: bool
    relevance_level: int
    run_lines: int
    run_duplicates: int
    qrels_lines: int
    qrels_duplicates: int
    run_source: str
    qrels_source: str
    qrels_fractional: int = 0

    def nothing_evaluated(self) -> str | None:
        """Why no query has a value, in one line, when none has (the command line stops there with
        exit code 2, as trec_eval 10 stops with 4); None otherwise."""
        if self.n_evaluated:
            return None
        n = len(self.run_only)
        return (
            f"{self.run_source}: none of its {_plural(n, 'query', 'queries')} is judged in {self.qrels_source}, "
            "so there is nothing to evaluate (trec_eval 10 stops too; with -c each judged query counts as "
            "an empty list)"
        )

    def lines(self) -> list[str]:
        """The summary in words, one sentence a line (counts only: no ids)."""
        q = _plural
        parts = [f"{q(self.n_evaluated, 'query', 'queries')} evaluated"]
        if self.run_only:
            parts.append(
                f"{len(self.run_only)} in the run {_have(len(self.run_only))} no judgments (skipped, as trec_eval does)"
            )
        if self.qrels_only:
            if self.complete:
                parts.append(
                    f"{len(self.qrels_only)} judged {_have(len(self.qrels_only), 'has', 'have')} no results in the run "
                    "(evaluated as empty lists, as trec_eval -c does)"
                )
            else:
                parts.append(
                    f"{len(self.qrels_only)} judged {_have(len(self.qrels_only), 'has', 'have')} no results in the run "
                    "(skipped, as trec_eval 9 does without -c; trec_eval 10 stops with exit code 4)"
                )
        out = ["; ".join(parts)]
        for what, n, lines in (
            ("run", self.run_duplicates, self.run_lines),
            ("qrels", self.qrels_duplicates, self.qrels_lines),
        ):
            if n:
                out.append(f"{q(n, 'duplicate docid line')} left out of the {what} ({lines:,} lines read)")
        if self.qrels_fractional:
            out.append(
                f"{q(self.qrels_fractional, 'grade')} with a fraction read by the whole part, as trec_eval "
                "reads them (1.5 as 1)"
            )
        if self.relevance_level != 1:
            out.append(
                f"relevant means a grade of {self.relevance_level} or more (trec_eval -l {self.relevance_level})"
            )
        return out


def _plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n:,} {one if n == 1 else (many or one + 's')}"


def _have(n: int, one: str = "has", many: str = "have") -> str:
    return one if n == 1 else many


@dataclass(frozen=True, eq=False)
class Evaluation:
    """A run evaluated against qrels: per-query values of each measure, aligned with ``qids``.

    ``values[name][i]`` is measure ``name``'s value for query ``qids[i]`` (queries in
    trec_eval's order; relstring's an array of text); ``means[name]`` their mean, trec_eval's
    ``all`` line (NaN for relstring, which has none).
    """

    qids: tuple[str, ...]
    measures: tuple[Measure, ...]
    values: dict[str, np.ndarray]
    means: dict[str, float]
    summary: Summary
    run: Run
    qrels: Qrels
    relevance_level: int
    complete: bool

    @property
    def name(self) -> str:
        """The run's name."""
        return self.run.name

    def value(self, measure: str | Measure, qid: str) -> float | str:
        """One query's value of one measure (given by name, e.g. ``"P_10"``, or as a ``Measure``);
        relstring's is text."""
        name = measure.name if isinstance(measure, Measure) else measure
        value = self.values[name][self._position(qid)]
        return value if isinstance(value, str) else float(value)

    def _position(self, qid: str) -> int:
        lookup = self.__dict__.get("_lookup")
        if lookup is None:
            lookup = {q: i for i, q in enumerate(self.qids)}
            object.__setattr__(self, "_lookup", lookup)
        return lookup[qid]

    def to_dict(self) -> dict[str, dict]:
        """``{qid: {measure name: value}}``, pytrec_eval's shape (``explainer.evaluation.plain``)."""
        from explainer.evaluation.plain import evaluation_dict

        return evaluation_dict(self)

    def to_frame(self):
        """A pandas DataFrame: a row per query (index ``qid``), a column per measure."""
        from explainer.evaluation.plain import evaluation_frame

        return evaluation_frame(self)

    def query(self, qid: str) -> QueryDetail:
        """One evaluated query in full, each measure recomputed by ``explainer.metrics``."""
        self._position(qid)  # KeyError for a query that was not evaluated
        detail = _detail(self.qrels, self.run, qid, self.relevance_level)
        values = query_values(
            detail.grades, detail.n_relevant, detail.judged_grades, self.measures, self.relevance_level
        )
        return QueryDetail(**{**detail.__dict__, "values": values})


def _detail(qrels: Qrels, run: Run, qid: str, relevance_level: int) -> QueryDetail:
    qq = qrels.index(qid)
    a, b = int(qrels.offsets[qq]), int(qrels.offsets[qq + 1])
    judged = dict(zip(qrels.docids(a, b), qrels.grade[a:b].tolist(), strict=True))
    try:
        rq = run.index(qid)
        ra, rb = int(run.offsets[rq]), int(run.offsets[rq + 1])
        in_run = True
    except KeyError:
        ra = rb = 0
        in_run = False
    docids = run.docids(ra, rb)
    scores = run.score[ra:rb].tolist()
    grades = []
    for d in docids:
        g = judged.get(d)
        grades.append(None if g is None or g < 0 else int(g))
    retrieved = set(docids)
    missed = sorted(((d, g) for d, g in judged.items() if g >= 1 and d not in retrieved), key=lambda x: (-x[1], x[0]))
    judged_grades = tuple(sorted((g for g in judged.values() if g >= 0), reverse=True))
    return QueryDetail(
        qid=qid,
        docids=tuple(docids),
        scores=tuple(scores),
        grades=tuple(grades),
        n_relevant=sum(1 for g in judged.values() if g >= relevance_level),
        judged_grades=judged_grades,
        missed=tuple(missed),
        n_missed_relevant=sum(1 for _, g in missed if g >= relevance_level),
        relevance_level=relevance_level,
        in_run=in_run,
    )


def _as_qrels(qrels) -> Qrels:
    return qrels if isinstance(qrels, Qrels) else read_qrels(qrels)


def _as_run(run) -> Run:
    return run if isinstance(run, Run) else read_run(run)


def _bytes_equal(blob_a, start_a, len_a, blob_b, start_b, len_b) -> np.ndarray:
    same = len_a == len_b
    width = int(len_a.max()) if len(len_a) else 0
    for j in range(width):
        check = np.flatnonzero(same & (len_a > j))
        if not len(check):
            break
        same[check] = blob_a[start_a[check] + j] == blob_b[start_b[check] + j]
    return same


def _lookup_grades(qrels: Qrels, qrels_index: np.ndarray, run: Run, lines: np.ndarray | None) -> np.ndarray:
    """The qrels grade of each run line in ``lines`` (None: every line), ``qrels_index`` its query
    in the qrels; -1 when not in the qrels, -2 when there with a negative grade (in the pool, unjudged)."""
    qrels_owner = np.repeat(np.arange(qrels.n_queries, dtype=np.int32), np.diff(qrels.offsets))
    table = _KeyTable(_mix(qrels_owner, qrels.doc_hash))
    n = len(run) if lines is None else len(lines)
    if table.unique:
        hits, rows = [np.zeros(0, dtype=np.int64)], [np.zeros(0, dtype=np.int64)]  # an empty run has no slice
        for start in range(0, n, _LOOKUP_SLICE):  # a slice at a time: no temporary is as long as the run
            stop = min(start + _LOOKUP_SLICE, n)
            hashes = run.doc_hash[start:stop] if lines is None else run.doc_hash[lines[start:stop]]
            found = table.find(_mix(qrels_index[start:stop], hashes))
            hit = np.flatnonzero(found >= 0)
            hits.append(hit + start)
            rows.append(found[hit])
        hit, j = np.concatenate(hits), np.concatenate(rows)
    else:  # two judged docids share a 64-bit hash: look each line up by its bytes instead
        every = np.arange(n, dtype=np.int64) if lines is None else lines
        found = _lookup_slowly(qrels, qrels_owner, qrels_index, run, every)
        hit = np.flatnonzero(found >= 0)
        j = found[hit]
    at = hit if lines is None else lines[hit]
    same = _bytes_equal(run.blob, run.doc_start[at], run.doc_len[at], qrels.blob, qrels.doc_start[j], qrels.doc_len[j])
    grade = np.full(n, -1, dtype=np.int64)
    found = qrels.grade[j[same]]
    grade[hit[same]] = np.where(found < 0, -2, found)  # a negative grade: in the pool, unjudged (infAP's)
    return grade


_LOOKUP_SLICE = 1 << 20


class _KeyTable:
    """Where each of many keys sits in a small table of unique keys: ``find(keys)``, -1 where absent.

    Most keys (ten million run lines) are not among the few judged ones: a bitmap of the keys'
    low bits, eight times larger than the table, turns most away with one lookup each; a second
    bitmap, of their high bits, turns away nine in ten of those that pass the first (a Bloom
    filter of two); only the rest are searched for in the sorted table, whose search cost more
    than both bitmaps. (This was a pandas index; importing pandas alone took longer than the
    whole lookup now does.) ``unique`` is False when the table repeats a key: then it cannot answer.
    """

    def __init__(self, table: np.ndarray):
        self.order = np.argsort(table)
        self.ordered = table[self.order]
        self.unique = not (self.ordered[1:] == self.ordered[:-1]).any()
        bits = max(int(8 * len(table)).bit_length(), 10)
        self.mask = np.uint64((1 << bits) - 1)
        self.present = np.zeros(1 << bits, dtype=bool)
        self.present[table & self.mask] = True
        self.present_high = np.zeros(1 << bits, dtype=bool)
        self.present_high[(table >> np.uint64(32)) & self.mask] = True

    def find(self, keys: np.ndarray) -> np.ndarray:
        found = np.full(len(keys), -1, dtype=np.int64)
        maybe = np.flatnonzero(self.present[keys & self.mask])
        maybe = maybe[self.present_high[(keys[maybe] >> np.uint64(32)) & self.mask]]
        if len(maybe) and len(self.ordered):
            candidates = keys[maybe]
            at = np.minimum(np.searchsorted(self.ordered, candidates), len(self.ordered) - 1)
            match = self.ordered[at] == candidates
            found[maybe[match]] = self.order[at[match]]
        return found


def _lookup_slowly(qrels: Qrels, qrels_owner, qrels_index, run: Run, lines) -> np.ndarray:
    table = {}
    for j, (q, s, n) in enumerate(
        zip(qrels_owner.tolist(), qrels.doc_start.tolist(), qrels.doc_len.tolist(), strict=True)
    ):
        table[(q, bytes(qrels.blob[s : s + n]))] = j
    out = np.full(len(lines), -1, dtype=np.int64)
    for i, (q, line) in enumerate(zip(qrels_index.tolist(), lines.tolist(), strict=True)):
        s, n = int(run.doc_start[line]), int(run.doc_len[line])
        out[i] = table.get((q, bytes(run.blob[s : s + n])), -1)
    return out


def evaluate(
    qrels,
    run,
    measures: Sequence[Measure | str] = DEFAULT_MEASURES,
    *,
    relevance_level: int = 1,
    complete: bool = False,
    judged_only: bool = False,
    max_results: int | None = None,
    n_documents: int = 0,
) -> Evaluation:
    """Evaluate ``run`` against ``qrels`` as trec_eval does, every query at once.

    ``qrels`` and ``run`` are ``Qrels``/``Run`` objects, or anything ``read_qrels`` and
    ``read_run`` accept (paths, bytes, dicts, ranx objects). ``measures`` are ``Measure``
    objects or their written forms (``"P@10"``, ``"ndcg@10"``, ``"ap"``, ``"P.5,10"``...).
    ``relevance_level`` is trec_eval's ``-l``; ``complete=True`` is trec_eval's ``-c``;
    ``judged_only`` its ``-J`` (unjudged results leave the ranking); ``max_results`` its ``-M``
    (each query's first results, in trec_eval's order); ``n_documents`` its ``-N`` (the
    collection's size, which only utility's fourth weight reads).
    """
    if not metrics._is_int(relevance_level) or relevance_level < 1:
        raise ValueError(f"relevance_level must be an integer >= 1, got {relevance_level!r}")
    if max_results is not None and (not metrics._is_int(max_results) or max_results < 1):
        raise ValueError(f"max_results must be an integer >= 1, got {max_results!r}")
    if not metrics._is_int(n_documents) or n_documents < 0:
        raise ValueError(f"n_documents must be an integer >= 0, got {n_documents!r}")
    qrels, run = _as_qrels(qrels), _as_run(run)
    chosen: list[Measure] = []
    for m in measures:
        chosen.extend([m] if isinstance(m, Measure) else measures_for([m], ()))
    if not chosen:
        raise ValueError("measures must name at least one measure")
    chosen = tuple(dict.fromkeys(chosen))

    judged_q = {q: i for i, q in enumerate(qrels.qids)}
    in_qrels = np.array([judged_q.get(q, -1) for q in run.qids], dtype=np.int64)
    run_queries = np.flatnonzero(in_qrels >= 0)
    run_only = tuple(q for q, i in zip(run.qids, in_qrels.tolist(), strict=True) if i < 0)
    retrieved = set(run.qids)
    qrels_only = tuple(q for q in qrels.qids if q not in retrieved)

    # The evaluated queries: those in both files, and with complete (trec_eval -c) every judged
    # query, one the run missed as an empty list (trec_eval's "bogus ranking"), in trec_eval's order.
    qids = tuple(run.qids[i] for i in run_queries.tolist())
    qq = in_qrels[run_queries]
    lengths = np.diff(run.offsets)[run_queries]
    starts = run.offsets[run_queries]
    if complete and qrels_only:
        qids = tuple(sorted(qids + qrels_only, key=lambda q: q.encode("utf-8", "surrogateescape")))
        at_run = {q: i for i, q in enumerate(run.qids)}
        rq = np.array([at_run.get(q, -1) for q in qids], dtype=np.int64)
        qq = np.array([judged_q[q] for q in qids], dtype=np.int64)
        lengths = np.where(rq >= 0, np.diff(run.offsets)[np.maximum(rq, 0)], 0)
        starts = np.where(rq >= 0, run.offsets[np.maximum(rq, 0)], 0)

    # Each evaluated query's lines of the run (its first max_results), their grades, and its qrels.
    if max_results is not None:
        lengths = np.minimum(lengths, max_results)
    offsets = np.zeros(len(qids) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    if len(qids) == run.n_queries and offsets[-1] == len(run):
        lines = None
    else:
        lines = np.arange(int(offsets[-1]), dtype=np.int64) + np.repeat(starts - offsets[:-1], lengths)
    with _small_pages():
        grades = _lookup_grades(qrels, np.repeat(qq.astype(np.int32), lengths), run, lines)
    lists = _Lists(grades, offsets, qrels, qq, relevance_level, judged_only, n_documents)

    values = {}
    with kernels.shared_scans():
        for m in chosen:
            values[m.name] = _batch(m, lists)

    means = {m.name: _average(m, values[m.name], qrels, complete) for m in chosen}
    summary = Summary(
        n_evaluated=len(qids),
        run_only=run_only,
        qrels_only=qrels_only,
        complete=complete,
        relevance_level=relevance_level,
        run_lines=run.n_lines_read,
        run_duplicates=run.n_duplicates,
        qrels_lines=qrels.n_lines_read,
        qrels_duplicates=qrels.n_duplicates,
        run_source=run.source,
        qrels_source=qrels.source,
        qrels_fractional=qrels.n_fractional,
    )
    return Evaluation(
        qids=qids,
        measures=chosen,
        values=values,
        means=means,
        summary=summary,
        run=run,
        qrels=qrels,
        relevance_level=relevance_level,
        complete=complete,
    )


def _average(m: Measure, v: np.ndarray, qrels: Qrels, complete: bool) -> float:
    """trec_eval's ``all`` line for one measure, as its family says (``catalog.AVERAGES``)."""
    how = m.family.average
    if how == "none":
        return math.nan  # relstring: trec_eval prints no all line for it
    if how == "count":
        return float(len(v))
    if how == "sum":
        if m.key == "num_rel" and complete:
            # m_num_rel.c: with -c, the sum counts every judgment above grade 0 of every judged
            # query, whatever the relevance level.
            return float(np.count_nonzero(qrels.grade > 0))
        return float(np.sum(v))
    if not len(v):
        return 0.0
    if how == "geometric":
        return float(np.exp(np.mean(np.log(np.maximum(v, catalog.GEOMETRIC_FLOOR)))))
    return float(np.mean(v))


class _Lists:
    """The evaluated queries' ranked lists, flat, and what the kernels read of their qrels, made
    once per relevance level and -J choice that a measure asks for."""

    def __init__(self, grades, offsets, qrels: Qrels, qq, relevance_level: int, judged_only: bool, n_documents: int):
        self.grades, self.offsets, self.qrels, self.qq = grades, offsets, qrels, qq
        self.relevance_level, self.judged_only, self.n_documents = relevance_level, judged_only, n_documents
        self._made: dict = {}

    def inputs(self, m: Measure) -> dict:
        level = self.relevance_level if m.rel is None else m.rel
        judged_only = self.judged_only or m.judged_only
        made = self._made.get((level, judged_only))
        if made is None:
            made = self._made[(level, judged_only)] = self._make(level, judged_only)
        return made

    def judgments(self) -> tuple[np.ndarray, np.ndarray]:
        """The grades of each evaluated query's judgments, negative ones too, flat, and their offsets
        (made once: the same arrays for every measure, whose kernels then sort them once)."""
        if "judgments" not in self._made:
            self._made["judgments"] = _judgments(self.qrels, self.qq)
        return self._made["judgments"]

    def judged_ideal(self) -> tuple[np.ndarray, np.ndarray]:
        """``judgments`` with a negative grade as 0: it adds nothing to NDCG's ideal."""
        if "judged ideal" not in self._made:
            grades, offsets = self.judgments()
            self._made["judged ideal"] = np.where(grades >= 0, grades, 0), offsets
        return self._made["judged ideal"]

    def _make(self, level: int, judged_only: bool) -> dict:
        grades, offsets = self.grades, self.offsets
        if judged_only:  # trec_eval -J: unjudged results leave the ranking, the rest move up
            keep = grades >= 0
            owner = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
            offsets = np.zeros(len(offsets), dtype=np.int64)
            np.cumsum(np.bincount(owner[keep], minlength=len(offsets) - 1), out=offsets[1:])
            grades = grades[keep]
        binary = grades if level == 1 else np.where(grades >= level, 1, np.where(grades >= 0, 0, -1))
        qrels_grade = self.qrels.grade
        qrels_owner = np.repeat(np.arange(self.qrels.n_queries), np.diff(self.qrels.offsets))
        n_relevant = np.bincount(qrels_owner[qrels_grade >= level], minlength=self.qrels.n_queries)[self.qq]
        judged_nonrelevant = (qrels_grade >= 0) & (qrels_grade < level)
        n_nonrelevant = np.bincount(qrels_owner[judged_nonrelevant], minlength=self.qrels.n_queries)[self.qq]
        return {
            "grades": grades,
            "relevant": binary,
            "offsets": offsets,
            "n_relevant": n_relevant,
            "n_nonrelevant": n_nonrelevant,
            "n_documents": self.n_documents,
            "pooled": (grades if level == 1 else np.where(grades == -2, -2, binary)),
        }


def _batch(m: Measure, lists: _Lists) -> np.ndarray:
    """One measure of every evaluated query, by the kernel its catalog row names."""
    call = m.family.kernel
    given = {**lists.inputs(m), "k": m.k, "values": m.values, "level": m.level, "pairs": m.pairs}
    if "qrels_grades" in call.inputs:
        given.update(zip(("qrels_grades", "ideal_offsets"), lists.judgments(), strict=True))
    if "ideal" in call.inputs:
        c = NDCG_CONVENTIONS[m.convention]
        given.update(gain=c.gain, cut=c.cut)
        if c.ideal == "judged":
            ideal, ideal_offsets = lists.judged_ideal()
        else:
            ideal, ideal_offsets = given["grades"], given["offsets"]
        given.update(ideal=ideal, ideal_offsets=ideal_offsets)
    function = getattr(kernels, call.function, None) or getattr(gain_kernels, call.function)
    return function(*(given[name] for name in call.inputs))


def _judgments(qrels: Qrels, qq: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The grades of each evaluated query's judgments, negative ones too, flat, and their offsets."""
    starts, stops = qrels.offsets[qq], qrels.offsets[qq + 1]
    sizes = stops - starts
    offsets = np.zeros(len(qq) + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    picks = np.arange(int(offsets[-1])) + np.repeat(starts - offsets[:-1], sizes)
    return qrels.grade[picks], offsets
