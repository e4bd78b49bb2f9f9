"""What uploads may hold at once in one server process: one per session, a few per client, a budget of bytes."""

from __future__ import annotations

import pytest

from explainer.workbench.upload_budget import BYTES_IN_FLIGHT, PER_CLIENT, STALL_S, BudgetRefused, Pace, UploadBudget

MB = 1 << 20


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_session_sends_one_file_at_a_time():
    budget = UploadBudget()
    session = object()
    ticket = budget.reserve(session, "10.0.0.1", MB)
    with pytest.raises(BudgetRefused, match="one file at a time"):
        budget.reserve(session, "10.0.0.1", MB)
    ticket.release()
    budget.reserve(session, "10.0.0.1", MB)


def test_a_client_has_at_most_a_few_uploads_in_progress_and_another_client_is_not_held_by_them():
    budget = UploadBudget()
    for _ in range(PER_CLIENT):
        budget.reserve(object(), "10.0.0.1", MB)
    with pytest.raises(BudgetRefused, match=f"{PER_CLIENT} uploads from your network address"):
        budget.reserve(object(), "10.0.0.1", MB)
    budget.reserve(object(), "10.0.0.2", MB)
    assert budget.held == PER_CLIENT + 1


def test_the_bytes_in_flight_are_bounded_across_sessions_and_clients():
    budget = UploadBudget()
    assert BYTES_IN_FLIGHT == 4 * 64 * MB
    tickets = [budget.reserve(object(), f"10.0.0.{i}", 64 * MB) for i in range(4)]
    with pytest.raises(BudgetRefused, match="busy reading other uploads"):
        budget.reserve(object(), "10.0.0.9", 1)
    tickets[0].release()
    budget.reserve(object(), "10.0.0.9", 64 * MB)
    assert budget.held_bytes == BYTES_IN_FLIGHT


def test_six_unfinished_uploads_pin_no_more_than_the_budget_and_are_given_up_once_stalled():
    clock = Clock()
    budget = UploadBudget(clock=clock)
    held = []
    for i in range(6):  # six sessions of six clients, each sending the first piece of 64 MB and no more
        try:
            held.append(budget.reserve(object(), f"10.0.1.{i}", 64 * MB))
        except BudgetRefused:
            pass
    assert len(held) == 4 and budget.held_bytes <= BYTES_IN_FLIGHT
    clock.now += STALL_S - 1
    held[0].touch()  # one is still sending
    clock.now += 2
    budget.reserve(object(), "10.0.2.1", 64 * MB)  # the stalled three are given up
    assert budget.held == 2 and all(t.released for t in held[1:]) and not held[0].released


def test_a_file_being_read_is_not_given_up_as_stalled():
    clock = Clock()
    budget = UploadBudget(clock=clock)
    ticket = budget.reserve(object(), "10.0.0.1", MB)
    ticket.reading = True
    clock.now += 10 * STALL_S
    budget.reserve(object(), "10.0.0.2", MB)
    assert not ticket.released


def test_a_clients_pieces_wait_only_once_past_their_burst_and_then_keep_to_the_rate():
    clock = Clock()
    pace = Pace(bytes_per_s=16 * MB, burst_bytes=8 * MB, clock=clock)
    assert [pace.wait("10.0.0.1", MB) for _ in range(8)] == [0.0] * 8  # the burst: 8 MiB at once
    assert pace.wait("10.0.0.1", MB) == pytest.approx(1 / 16)  # one MiB past it: 1/16 s at 16 MiB/s
    assert pace.wait("10.0.0.1", MB) == pytest.approx(2 / 16)  # the debt adds up while nothing is paid
    clock.now += 2 / 16
    assert pace.wait("10.0.0.1", MB) == pytest.approx(1 / 16)  # paid off in time, one more MiB waits its own 1/16 s


def test_one_clients_pace_does_not_hold_another_and_a_rested_client_has_its_burst_again():
    clock = Clock()
    pace = Pace(bytes_per_s=16 * MB, burst_bytes=8 * MB, clock=clock)
    for _ in range(12):
        pace.wait("10.0.0.1", MB)
    assert pace.wait("10.0.0.2", MB) == 0.0
    clock.now += 60
    assert pace.wait("10.0.0.1", 8 * MB) == 0.0
