"""The queries a paired t-test needs to find a difference, from statsmodels, for workbench_power.test.mjs.

For each case (a difference past H0's shift, the differences' standard deviation, alpha and the
test's sides): the fewest queries whose power, by statsmodels' ``TTestPower`` (the one-sample
t-test on the differences), reaches 80%, found from its ``solve_power`` and checked count by
count around it. The tables the page reads come from ``data._effects``'s source,
``significance.detectable_effects``.
"""

from __future__ import annotations

import json
import math

import numpy as np
from statsmodels.stats.power import TTestPower

from explainer.evaluation import significance as sig

SIDES = {"greater": "larger", "two-sided": "two-sided"}


def fewest(effect_size: float, alpha: float, alternative: str) -> int:
    """The fewest queries (at least 2) whose statsmodels power reaches 0.8."""
    solver = TTestPower()
    near = solver.solve_power(effect_size=effect_size, alpha=alpha, power=0.8, alternative=SIDES[alternative])
    n = max(2, math.ceil(float(np.atleast_1d(near)[0])))
    while n > 2 and solver.power(effect_size, n - 1, alpha, alternative=SIDES[alternative]) >= 0.8:
        n -= 1
    while solver.power(effect_size, n, alpha, alternative=SIDES[alternative]) < 0.8:
        n += 1
    return n


def main() -> None:
    rng = np.random.default_rng(25)
    tables, cases = {}, []
    for alpha in (0.05, 0.01):
        for alternative in SIDES:
            name = f"{alpha!r} {alternative}"
            n, effect = sig.detectable_effects(alpha, 0.8, alternative)
            tables[name] = {"n": n.tolist(), "effect": [float(f"{x:.12g}") for x in effect]}
            # Effect sizes from large (a handful of queries) to small (tens of thousands).
            for effect_size in np.concatenate([rng.uniform(0.07, 2.5, 14), rng.uniform(0.012, 0.07, 4)]):
                sd = float(rng.uniform(0.05, 0.4))
                shift = 0.0 if alternative == "two-sided" else float(rng.choice([0.0, 0.05, -0.01]))
                difference = shift + effect_size * sd
                if alternative == "two-sided" and rng.random() < 0.5:
                    difference = -difference  # either way
                cases.append(
                    {
                        "effect": {
                            "detectable": name,
                            "alternative": alternative,
                            "power": {"shift": shift},
                            "sd_of_differences": sd,
                        },
                        "difference": difference,
                        "queries": fewest(abs(difference - shift) / sd, alpha, alternative),
                    }
                )
    print(json.dumps({"tables": tables, "cases": cases}))


if __name__ == "__main__":
    main()
