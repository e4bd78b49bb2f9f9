"""How often a page may change the workbench: about ten changes a second, twenty at once after a pause."""

from __future__ import annotations

from explainer.workbench.rate_limit import BURST, PER_SECOND, RateLimit


def test_a_burst_is_allowed_at_once_then_ten_a_second():
    now = [0.0]
    limit = RateLimit(clock=lambda: now[0])
    assert sum(limit.allow() for _ in range(100)) == BURST == 20
    now[0] += 0.5
    assert sum(limit.allow() for _ in range(100)) == PER_SECOND / 2 == 5
    now[0] += 60  # a long pause fills the bucket, no more than the burst
    assert sum(limit.allow() for _ in range(100)) == BURST


def test_an_assessor_grading_a_key_every_tenth_of_a_second_is_never_refused():
    now = [0.0]
    limit = RateLimit(clock=lambda: now[0])
    allowed = 0
    for _ in range(600):  # a minute of grading, a key every 100 ms
        now[0] += 0.1
        allowed += limit.allow()
    assert allowed == 600


def test_a_flood_gets_no_more_than_the_rate_over_a_long_run():
    now = [0.0]
    limit = RateLimit(clock=lambda: now[0])
    allowed = 0
    for _ in range(10_000):  # a thousand messages a second for ten seconds
        now[0] += 0.001
        allowed += limit.allow()
    assert allowed <= BURST + 10 * PER_SECOND + 1
