"""What the figures' Python state classes say, as JSON for the figure tests in tests/js/.

Prints one JSON object: each figure's model as a page receives it (its limits, default state,
titles, measures...: runtime.view_model, as explainer.js carries it), and the Python twins of
the modules' rules on random states: BinaryState.flip, GradedListState.promote and
RecallKindsState.toggle after each step of a random sequence, and each state class's values.
"""

from __future__ import annotations

import json
import random
import sys

from explainer.figures import BY_NAME
from explainer.figures.binary import BinaryState
from explainer.figures.ndcg import NdcgState
from explainer.figures.queries import QueriesState
from explainer.figures.recall_kinds import RecallKindsState
from explainer.figures.unjudged import UnjudgedState
from explainer.runtime import view_model


def binary_flips(rng: random.Random) -> list[dict]:
    """Random flip sequences from random starts (missed at its bounds often), each state after each flip."""
    out = []
    for _ in range(30):
        start = {
            "relevant": [rng.random() < 0.5 for _ in range(12)],
            "k": rng.randint(1, 12),
            "missed": rng.choice([0, 1, 11, 12, rng.randint(0, 12)]),
        }
        ranks = [rng.randint(1, 12) for _ in range(40)]
        state = BinaryState(**start)
        steps = []
        for rank in ranks:
            state.flip(rank)
            steps.append({"state": state.to_dict(), "n_relevant": state.n_relevant, "values": state.values})
        out.append({"start": BinaryState(**start).to_dict(), "ranks": ranks, "steps": steps})
    return out


def ndcg_promotes(rng: random.Random) -> list[dict]:
    """Random promotions (rank 1 among them) of random graded lists, with Python's values after each."""
    out = []
    for _ in range(20):
        order = list(range(8))
        rng.shuffle(order)
        start = {
            "grades": [rng.randint(0, 3) for _ in range(8)],
            "order": order,
            "k": rng.randint(1, 8),
            "gain": rng.choice(["exponential", "linear"]),
        }
        state = NdcgState(**start)
        ranks = [rng.randint(1, 8) for _ in range(20)]
        steps = []
        for rank in ranks:
            state.promote(rank)
            steps.append({"state": state.to_dict(), "values": state.values})
        out.append({"start": start, "ranks": ranks, "steps": steps})
    return out


def recall_toggles(rng: random.Random) -> list[dict]:
    out = []
    for model in RecallKindsState.param.model.objects:
        state = RecallKindsState(model=model)
        ranks = [rng.randint(1, 10) for _ in range(25)]
        steps = []
        for rank in ranks:
            state.toggle(rank)
            steps.append({"state": state.to_dict(), "results": state.index_results, "values": state.values})
        out.append({"start": {"model": model, "missed_neighbours": []}, "ranks": ranks, "steps": steps})
    return out


def unjudged_states(rng: random.Random) -> list[dict]:
    out = []
    for _ in range(60):
        state = UnjudgedState(
            grades=[rng.randint(0, 3) for _ in range(10)],
            judged=[rng.random() < 0.7 for _ in range(10)],
            k=rng.randint(1, 10),
            unjudged_as=rng.choice(["nonrelevant", "condensed"]),
            reveal=rng.random() < 0.3,
        )
        out.append({"state": state.to_dict(), "scored": state.scored_grades, "values": state.values})
    return out


def queries_states(rng: random.Random) -> list[dict]:
    out = []
    for _ in range(40):
        runs = lambda n: [sorted(rng.sample(range(1, 21), rng.randint(1, 4))) for _ in range(n)]  # noqa: E731
        state = QueriesState(a=runs(rng.randint(1, 6)), b=runs(rng.randint(0, 6)), measure=rng.choice(["rr", "ap"]))
        systems = {s: {"per_query": state.per_query(s), "summary": state.summary(s)} for s in ("a", "b")}
        out.append({"state": state.to_dict(), "systems": systems})
    return out


def main() -> None:
    rng = random.Random(1)
    oracle = {
        "models": {name: view_model(page.figure().view) for name, page in BY_NAME.items()},
        "binary": binary_flips(rng),
        "ndcg": ndcg_promotes(rng),
        "recall_kinds": recall_toggles(rng),
        "unjudged": unjudged_states(rng),
        "queries": queries_states(rng),
    }
    json.dump(oracle, sys.stdout, allow_nan=False)


if __name__ == "__main__":
    main()
