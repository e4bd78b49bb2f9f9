"""Effect size and power of one measure's comparison, for a reader: the difference in the measure's units first.

``effect(comparison)`` takes ``compare``'s row for one measure (``MeasureComparison``) and
gives, in this order: the mean difference candidate - baseline and its bootstrap interval,
in the measure's own units; the standardized paired effect d_z and the wins, ties and
losses; then power, from the paired t-test at alpha: the minimum detectable effect of this
set of queries (its size, the standard deviation of its differences, power 0.8) and, for a
difference the reader sets, the number of queries that finds it as often. The
assumptions under the power are stated in one sentence (``significance.ASSUMPTIONS``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from explainer.evaluation import significance as sig
from explainer.evaluation.plain import number as plain
from explainer.evaluation.significance import POWER


@dataclass(frozen=True)
class Effect:
    """One measure's effect of the candidate over the baseline, and what this set of queries can detect.

    ``low`` and ``high``: the ``confidence`` bootstrap interval of the mean difference
    (``interval_method``). ``sd``: the standard deviation of the per-query differences
    (n - 1). ``mde``: the smallest true gain the one-sided paired t-test of H0: difference
    <= 0 at ``alpha`` finds with probability ``power``, on ``n`` queries with that ``sd``.
    """

    measure: str
    label: str
    n: int
    mean: float
    low: float
    high: float
    confidence: float
    interval_method: str
    d_z: float
    sd: float
    wins: int
    ties: int
    losses: int
    alpha: float
    power: float
    mde: float
    shift: float = 0.0
    alternative: str = "greater"
    alpha_note: str = ""
    """Why the power's ``alpha`` is not the gate's, when it is not (several candidates, corrected)."""

    @property
    def null(self) -> str:
        """The power's test's null hypothesis: difference <= ``shift`` (one-sided), or = 0 (two-sided)."""
        if self.alternative == "two-sided":
            return "H0: difference = 0"
        return f"H0: difference <= {self.shift:+.4f}" if self.shift else "H0: difference <= 0"

    def queries_needed(self, difference: float) -> int:
        """The fewest queries with which the same test finds a true difference ``difference`` with probability ``power``.

        The differences' standard deviation is taken to be this set's; ``ValueError`` when it
        is 0 (every query differs by the same amount) or ``difference`` is not above H0's
        ``shift`` (one-sided; two-sided, when it is 0).
        """
        if self.alternative == "two-sided":
            if not difference or difference != difference:
                raise ValueError(f"the difference to detect must not be 0, in the measure's units, got {difference!r}")
            return sig.queries_needed(abs(difference), self.sd, self.alpha, self.power, "two-sided")
        if not difference > self.shift:
            raise ValueError(
                f"the difference to detect must be above {self.shift:g}, in the measure's units, got {difference!r}"
            )
        return sig.queries_needed(difference - self.shift, self.sd, self.alpha, self.power, "greater")

    def lines(self, difference: float | None = None) -> list[str]:
        """The effect in sentences, the measure's units first; with ``difference``, the queries it needs."""
        n = self.n
        out = [
            f"{self.label}: mean difference {self.mean:+.4f} (candidate - baseline, in {self.label}'s units), "
            f"{self.confidence:.0%} bootstrap interval ({self.interval_method}) [{self.low:+.4f}, {self.high:+.4f}]"
        ]
        if self.d_z == self.d_z:
            standardized = (
                f"d_z = {self.d_z:+.2f} (the mean difference over the standard deviation of the "
                f"{n} per-query differences, {self.sd:.4f})"
            )
        else:
            standardized = "d_z: none (every query differs by the same amount)"
        out.append(
            f"{standardized}; the candidate won {self.wins}, tied {self.ties} and lost {self.losses} of {n} queries"
        )
        if self.mde != self.mde:
            out.append("Power: none to give (it needs at least two queries whose differences are not all the same)")
            return out
        on = f"Power: on {n} queries whose differences have a standard deviation of {self.sd:.4f}, the"
        if self.alternative == "two-sided":
            found = (
                f"two-sided paired t-test at alpha {self.alpha:g} ({self.null}{self.alpha_note}) finds a true difference of "
                f"{self.mde:.4f} either way, the minimum detectable effect, {self.power:.0%} of the time, and a "
                "larger one more often"
            )
        elif self.shift:
            found = (
                f"one-sided paired t-test at alpha {self.alpha:g} ({self.null}{self.alpha_note}) finds a true difference of "
                f"{self.shift + self.mde:+.4f}, H0's {self.shift:+.4f} plus the minimum detectable effect "
                f"{self.mde:.4f}, {self.power:.0%} of the time, and a larger one more often"
            )
        else:
            found = (
                f"one-sided paired t-test at alpha {self.alpha:g} ({self.null}{self.alpha_note}) finds a true gain of "
                f"{self.mde:.4f}, the minimum detectable effect, {self.power:.0%} of the time, and a larger gain "
                "more often"
            )
        out.append(f"{on} {found}")
        if difference is not None:
            needed = self.queries_needed(difference)
            what = (
                f"gain of {difference:.4f}"
                if self.shift == 0 and self.alternative != "two-sided"
                else (f"difference of {difference:+.4f}")
            )
            out.append(
                f"To find a true {what} {self.power:.0%} of the time, the same test needs "
                f"{needed:,} queries whose differences have the same standard deviation (this set has {n})"
            )
        out.append(sig.ASSUMPTIONS)
        return out

    def as_dict(self, difference: float | None = None) -> dict:
        """The numbers, JSON-ready (nan as None); with ``difference``, the queries it needs."""

        out = {
            "measure": self.measure,
            "mean_difference": plain(self.mean),
            "interval": {
                "low": plain(self.low),
                "high": plain(self.high),
                "confidence": self.confidence,
                "method": self.interval_method,
            },
            "d_z": plain(self.d_z),
            "sd_of_differences": plain(self.sd),
            "wins": self.wins,
            "ties": self.ties,
            "losses": self.losses,
            "queries": self.n,
            "power": {
                "test": f"paired t-test, {'two' if self.alternative == 'two-sided' else 'one'}-sided, {self.null}"
                + self.alpha_note,
                "shift": self.shift,
                "alpha": self.alpha,
                "power": self.power,
                "minimum_detectable_effect": plain(self.mde),
                "assumptions": sig.ASSUMPTIONS,
            },
        }
        if difference is not None and self.mde == self.mde:  # none without power (see lines)
            out["power"]["difference"] = difference
            out["power"]["queries_needed"] = self.queries_needed(difference)
        return out


def effect(
    comparison,
    alpha: float = 0.05,
    power: float = POWER,
    shift: float = 0.0,
    alternative: str = "greater",
    alpha_note: str = "",
) -> Effect:
    """The effect of ``comparison``'s candidate over its baseline, and the power of its queries at ``alpha``.

    ``comparison`` is ``compare``'s row of one measure (a ``compare.MeasureComparison``; not
    imported here, since ``compare`` says its effects with this module).

    The power is that of the paired t-test of H0: difference <= ``shift`` (``"greater"``, the
    gate's: ``shift`` its margin, or minus it for non-inferiority), or of no difference
    (``"two-sided"``, ``shift`` 0). ``alpha_note`` says, after alpha, why it is not the gate's.
    """
    if alternative not in ("greater", "two-sided"):
        raise ValueError(f"alternative must be 'greater' or 'two-sided', got {alternative!r}")
    delta = comparison.delta
    n = len(delta)
    if n < 2:
        sd = float("nan")
    else:  # differences equal up to rounding (a + 0.1 - a) have no spread, as d_z has none
        sd = 0.0 if np.ptp(delta) <= sig.TIE else float(np.std(delta, ddof=1))
    return Effect(
        measure=comparison.measure,
        label=comparison.label,
        n=n,
        mean=comparison.mean_delta,
        low=comparison.ci_low,
        high=comparison.ci_high,
        confidence=comparison.confidence,
        interval_method=comparison.bootstrap_method,
        d_z=comparison.d_z,
        sd=sd,
        wins=comparison.wins,
        ties=comparison.ties,
        losses=comparison.losses,
        alpha=float(alpha),
        power=float(power),
        mde=sig.minimum_detectable_effect(n, sd, alpha, power, alternative),
        shift=float(shift) if alternative == "greater" else 0.0,
        alternative=alternative,
        alpha_note=alpha_note,
    )
