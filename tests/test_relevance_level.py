"""trec_eval's relevance level (-l) reaches every count of relevant documents in the workbench.

At level 2 a grade of 1 is judged but not relevant: recall, hit rate and "judged relevant,
retrieved by neither run" must count only grades of 2 or more, while NDCG keeps every grade.
The expected values are pytrec_eval's, given the same level.
"""

from __future__ import annotations

import pytest
import pytrec_eval

from explainer import metrics
from explainer.evaluation import golden
from explainer.figures.conventions import ConventionsFigure, ConventionsState
from explainer.metrics import format_number as f
from explainer.workbench import data as wb
from explainer.workbench import drill_down
from explainer.workbench.view import Workbench

from support.expect import expect

LEVEL = 2
APPROX = dict(abs=1e-12)


@pytest.fixture(scope="module")
def golden_files():
    return golden.load()


@pytest.fixture(scope="module")
def evaluated(golden_files):
    topics, documents, qrels, baseline, candidate = golden_files
    return wb.evaluate_loaded(wb.Loaded(qrels, (baseline, candidate), topics, documents, relevance_level=LEVEL))


@pytest.fixture(scope="module")
def trec(golden_files):
    _, _, qrels, baseline, candidate = golden_files
    evaluator = pytrec_eval.RelevanceEvaluator(
        qrels.to_dict(), {"recall.10", "success.10", "ndcg_cut.10"}, relevance_level=LEVEL
    )
    return [evaluator.evaluate(run.to_dict()) for run in (baseline, candidate)]


def conventions_state(spec: dict) -> ConventionsState:
    """The conventions figure's state as the page gets it: the class made for the list, its default."""
    values, limits = spec["conventions"]["default"], spec["conventions"]["limits"]
    made = ConventionsState.for_list(
        [values["grades"][i] for i in values["order"]],
        values["missed_grades"],
        values["k"],
        limits["grades"]["max_grade"],
        relevance_level=limits["relevance_level"]["value"],
    )
    return made(**values)


@pytest.mark.parametrize("run", [0, 1])
def test_the_conventions_figures_recall_and_hit_rate_follow_the_level_as_trec_evals_do(evaluated, trec, run):
    differs = 0
    for qid in evaluated.qids:
        spec = drill_down.query_of(evaluated, qid)["figures"][run]
        state = conventions_state(spec)
        assert state.k == 10
        expected = trec[run][qid]
        assert state.values["recall"] == pytest.approx(expected["recall_10"], **APPROX), qid
        assert state.values["hit_rate"] == pytest.approx(expected["success_10"], **APPROX), qid
        # NDCG takes every grade at any level, as trec_eval's ndcg_cut does.
        assert state.values["linear-judged"] == pytest.approx(expected["ndcg_cut_10"], **APPROX), qid
        graded = state.ranked_grades
        # (None: a result nobody judged; missed_grades holds every judged document outside, 0s too.)
        at_level_one = metrics.recall_at_k(
            graded, 10, sum(g is not None and g >= 1 for g in graded) + sum(g >= 1 for g in state.missed_grades)
        )
        differs += state.values["recall"] != pytest.approx(at_level_one, **APPROX)
    # The level matters on this set: recall at level 1 would differ on many queries.
    assert differs > 10


def test_judged_relevant_retrieved_by_neither_run_counts_grades_at_the_level(evaluated):
    qrels = evaluated.loaded.qrels.to_dict()
    seen_grade_one = False
    for qid in evaluated.qids:
        detail = drill_down.query_of(evaluated, qid)
        retrieved = {detail["docs"][i] for run in detail["runs"] for i in run["docs"]}
        outside = {d: g for d, g in qrels[qid].items() if d not in retrieved}
        assert detail["n_missed"] == sum(1 for g in outside.values() if g >= LEVEL), qid
        assert detail["judged_not_relevant_outside"] == sum(1 for g in outside.values() if 0 <= g < LEVEL), qid
        # Grade 1 documents stay numbered: NDCG's ideal takes them.
        ones = {d for d, g in outside.items() if g == 1}
        assert ones <= set(detail["docs"]), qid
        seen_grade_one |= bool(ones)
    assert seen_grade_one


@pytest.mark.browser
def test_the_conventions_figure_in_the_browser_counts_relevant_from_the_level(page, serve_object):
    # Grades 2, 1, 0, 3 with one missed document of grade 1 and one of 2, at level 2: the top 3
    # hold one relevant result (the 2) of R = 3 (the 2, the 3 and the missed 2).
    made = ConventionsState.for_list([2, 1, 0, 3], [1, 2], k=3, relevance_level=LEVEL)
    state = made()
    assert state.values["recall"] == pytest.approx(1 / 3) and state.values["hit_rate"] == 1
    page.goto(serve_object(ConventionsFigure(state=state)))
    card = page.locator(".metric[data-metric=recall]")
    expect(card.locator(".metric-formula")).to_have_text(f"Recall@3 = 1 / 3 = {f(1 / 3)}")
    expect(card.locator(".metric-note")).to_have_text("R = 2 graded 2 or more in the list + 1 not retrieved = 3")
    hit_rate = page.locator(".metric[data-metric=hit-rate]")
    expect(hit_rate.locator(".metric-note")).to_have_text(
        "1 as soon as one result graded 2 or more is in the top 3: here rank 1"
    )


@pytest.mark.browser
def test_the_workbench_counts_judged_relevant_outside_both_runs_at_the_level(page, serve_object, golden_files):
    topics, _, qrels, baseline, candidate = golden_files
    workbench = Workbench(qrels.to_dict(), baseline.to_dict(), candidate.to_dict(), relevance_level=LEVEL)
    qid = "g003"
    judged = qrels.to_dict()[qid]
    retrieved = set(baseline.to_dict()[qid]) | set(candidate.to_dict()[qid])
    outside = sorted((g for d, g in judged.items() if d not in retrieved), reverse=True)
    relevant = [g for g in outside if g >= LEVEL]
    # g003 has grade 1 documents outside both runs: judged, but not relevant at level 2.
    assert 1 in outside and relevant
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(serve_object(workbench))
    page.locator(".wb-search").fill(qid)
    page.locator(f'.wb-row[data-qid="{qid}"] .wb-link').click()
    expect(page.locator(".wb-missed")).to_have_text(
        f"Judged relevant, retrieved by neither run: {len(relevant)} (grades {', '.join(map(str, relevant))})."
        f" {len(outside) - len(relevant)} more judged not relevant."
    )
