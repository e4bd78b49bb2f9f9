"""The class (``classroom.room.Room``): who is told what, as pages join, guess, and the teacher asks,
reveals, sends and steps. Pages are plain objects that keep what they are sent; no socket."""

from __future__ import annotations

import json
import statistics

import pytest

from explainer.classroom import messages as m
from explainer.classroom.plan import Step
from explainer.classroom.question import MIN_ANSWERS
from explainer.classroom.results import COLUMNS, results_csv
from explainer.classroom.room import Room

ROUTES = frozenset({"/binary", "/ndcg"})
PLAN = (Step("/binary", "k=3", "Cutoffs"), Step("/ndcg", "", "Graded"))
TARGETS = (m.Target("P@5", "P@5", 0.6), m.Target("AP", "AP", 0.45))


class Page:
    """A page in the class: its role, its phone's id, and every message it was sent (decoded)."""

    def __init__(self, teacher: bool = False, student: str = ""):
        self.teacher, self.student = teacher, student
        self.inbox: list[dict] = []

    def send(self, text: str) -> None:
        self.inbox.append(json.loads(text))

    def last(self, kind: str) -> dict | None:
        return next((message for message in reversed(self.inbox) if message["type"] == kind), None)

    def kinds(self) -> list[str]:
        return [message["type"] for message in self.inbox]


class Clock:
    """The room's ``later`` and ``now``: time stands still, and callbacks wait until the test runs
    them (``run``: the time moves on to each one's moment, as the server's loop would)."""

    def __init__(self):
        self.time = 100.0
        self.waiting: list[tuple[float, object]] = []

    def __call__(self, seconds, callback):
        self.waiting.append((self.time + seconds, callback))

    def now(self) -> float:
        return self.time

    def run(self) -> None:
        waiting, self.waiting = sorted(self.waiting, key=lambda item: item[0]), []
        for due, callback in waiting:
            self.time = max(self.time, due)
            callback()


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def room(clock):
    return Room(ROUTES, PLAN, clock, clock.now)


def student(room, name: str) -> Page:
    page = Page(student=name)
    room.join(page)
    return page


def teacher(room) -> Page:
    page = Page(teacher=True)
    room.join(page)
    return page


def ask(room, who, route="/binary", query="k=5", targets=TARGETS) -> dict:
    room.receive(who, m.Ask(route, query, targets))
    return who.last("question")


def test_a_page_that_joins_is_welcomed_with_where_the_teacher_is(room):
    projector = teacher(room)
    welcome = projector.last("welcome")
    assert welcome["role"] == "teacher" and welcome["class"] == room.id and welcome["students"] == 0
    assert welcome["plan"] == [step.public() for step in PLAN] and welcome["question"] is None
    room.receive(projector, m.Showing("/binary", "k=4"))
    phone = student(room, "phone-one")
    welcome = phone.last("welcome")
    assert welcome["role"] == "student" and welcome["showing"] == {"route": "/binary", "query": "k=4"}
    assert "plan" not in welcome and "students" not in welcome


def test_the_teacher_hears_how_many_phones_are_in_the_class_once_per_moment(room, clock):
    projector = teacher(room)
    phones = [student(room, f"phone-{i}") for i in range(5)]
    student(room, "phone-0")  # a second tab of one phone counts once
    # The first phone is told at once; the others, arriving within the interval, together at its end.
    assert [m["count"] for m in projector.inbox if m["type"] == "students"] == [1]
    assert len(clock.waiting) == 1
    clock.run()
    assert [m["count"] for m in projector.inbox if m["type"] == "students"] == [1, 5]
    clock.time += 1.0  # a quiet spell: the next change goes at once
    room.leave(phones[1])
    assert projector.last("students")["count"] == 4 and clock.waiting == []


def test_a_student_may_not_drive_the_class(room):
    teacher(room)
    phone = student(room, "phone-one")
    for message in [
        m.Showing("/binary", ""),
        m.Send("/binary", ""),
        m.Ask("/binary", "", TARGETS),
        m.Reveal(1),
        m.Step(0),
    ]:
        with pytest.raises(m.Refused, match="teachers-only"):
            room.receive(phone, message)
    assert room.sent is None and room.questions == [] and room.step is None and room.showing is None


def test_asking_tells_students_the_numbers_to_guess_and_only_teachers_their_values(room):
    projector = teacher(room)
    phone = student(room, "phone-one")
    asked = ask(room, projector)
    assert asked["targets"] == [
        {"key": "P@5", "label": "P@5", "value": 0.6},
        {"key": "AP", "label": "AP", "value": 0.45},
    ]
    told = phone.last("question")
    assert told["question"] == 1 and told["route"] == "/binary" and told["query"] == "k=5"
    assert told["targets"] == [{"key": "P@5", "label": "P@5"}, {"key": "AP", "label": "AP"}]
    assert "0.6" not in json.dumps(phone.inbox) and "0.45" not in json.dumps(phone.inbox)
    # The join address now opens the question's figure.
    assert room.showing == {"route": "/binary", "query": "k=5"}


def test_the_projector_sees_the_guesses_only_once_three_have_answered_and_never_whose(room, clock):
    projector = teacher(room)
    phones = [student(room, f"phone-{i}") for i in range(4)]
    number = ask(room, projector)["question"]
    guesses = [{"P@5": 0.4, "AP": 0.5}, {"P@5": 0.8, "AP": None}, {"P@5": 0.55, "AP": 0.45}, {"P@5": 0.6}]
    for phone, values in zip(phones[: MIN_ANSWERS - 1], guesses, strict=False):
        room.receive(phone, m.Guess(number, values))
        assert phone.last("guessed") == {"v": 1, "type": "guessed", "question": number}
    assert projector.last("guesses")["answered"] == 1  # the first, at once; the second waits its moment
    clock.run()
    seen = projector.last("guesses")
    assert seen["answered"] == 2 and seen["values"] is None and seen["summary"] is None
    room.receive(phones[2], m.Guess(number, guesses[2]))
    room.receive(phones[3], m.Guess(number, guesses[3]))
    clock.run()
    seen = projector.last("guesses")
    assert seen["answered"] == 4
    assert seen["values"] == {"P@5": [0.4, 0.55, 0.6, 0.8], "AP": [0.45, 0.5]}  # sorted: no order of arrival
    assert seen["summary"]["P@5"] == {"guesses": 4, "median": (0.55 + 0.6) / 2, "within": None}
    assert "phone-" not in json.dumps(projector.inbox)


def test_a_students_last_guess_counts_and_a_reconnecting_phone_gets_it_back(room, clock):
    projector = teacher(room)
    phones = [student(room, f"phone-{i}") for i in range(3)]
    number = ask(room, projector)["question"]
    for phone in phones:
        room.receive(phone, m.Guess(number, {"P@5": 0.2}))
    room.receive(phones[0], m.Guess(number, {"P@5": 0.7, "AP": 0.3}))
    clock.run()
    assert projector.last("guesses")["values"]["P@5"] == [0.2, 0.2, 0.7]
    room.leave(phones[0])
    again = student(room, "phone-0")
    assert again.last("welcome")["guess"] == {"P@5": 0.7, "AP": 0.3}
    assert again.last("welcome")["question"]["targets"] == [
        {"key": "P@5", "label": "P@5"},
        {"key": "AP", "label": "AP"},
    ]


@pytest.mark.parametrize(
    "message, code",
    [
        (m.Guess(2, {"P@5": 0.5}), "no-such-question"),
        (m.Guess(1, {"R@5": 0.5}), "not-a-target"),
    ],
)
def test_a_guess_for_a_question_not_asked_or_a_number_not_hidden_is_refused(room, message, code):
    projector = teacher(room)
    phone = student(room, "phone-one")
    ask(room, projector)
    with pytest.raises(m.Refused, match=code):
        room.receive(phone, message)
    assert room.question.guesses == {}


def test_before_any_question_a_guess_is_refused(room):
    with pytest.raises(m.Refused, match="no-such-question"):
        room.receive(student(room, "phone-one"), m.Guess(1, {"P@5": 0.5}))


def test_reveal_tells_everyone_the_truth_and_closes_the_question(room, clock):
    projector = teacher(room)
    phones = [student(room, f"phone-{i}") for i in range(3)]
    number = ask(room, projector)["question"]
    for phone, value in zip(phones, [0.58, 0.65, 0.9], strict=True):
        room.receive(phone, m.Guess(number, {"P@5": value}))
    room.receive(projector, m.Reveal(number))
    for page in [projector, *phones]:
        assert page.last("revealed") == {
            "v": 1,
            "type": "revealed",
            "question": number,
            "truth": {"P@5": 0.6, "AP": 0.45},
        }
    final = projector.last("guesses")
    # Within 0.05 of 0.6: 0.58 and 0.65 (|0.65 - 0.6| = 0.05 counts), not 0.9.
    assert final["summary"]["P@5"] == {"guesses": 3, "median": 0.65, "within": 2 / 3}
    assert final["summary"]["AP"] == {"guesses": 0, "median": None, "within": None}
    with pytest.raises(m.Refused, match="question-closed"):
        room.receive(phones[0], m.Guess(number, {"P@5": 0.6}))
    room.receive(projector, m.Reveal(number))  # a second press changes nothing
    assert [kind for kind in phones[0].kinds() if kind == "revealed"] == ["revealed"]
    with pytest.raises(m.Refused, match="no-such-question"):
        room.receive(projector, m.Reveal(number + 1))


def test_send_to_class_moves_every_phone_and_not_the_teacher(room):
    projector = teacher(room)
    laptop = teacher(room)
    phones = [student(room, f"phone-{i}") for i in range(3)]
    room.receive(projector, m.Send("/ndcg", "k=3"))
    for phone in phones:
        assert phone.last("go") == {"v": 1, "type": "go", "route": "/ndcg", "query": "k=3", "serial": 1, "why": "sent"}
    assert projector.last("go") is None and laptop.last("go") is None
    room.receive(projector, m.Send("/binary", ""))
    assert phones[0].last("go")["serial"] == 2
    # A phone that joins later is told where the teacher sent the class.
    assert student(room, "late").last("welcome")["sent"]["route"] == "/binary"


def test_a_route_that_is_not_a_figure_is_refused(room):
    projector = teacher(room)
    for message in [m.Showing("/evaluate", ""), m.Send("/teach", ""), m.Ask("/nope", "", TARGETS)]:
        with pytest.raises(m.Refused, match="bad-route"):
            room.receive(projector, message)


def test_a_step_of_the_plan_moves_the_class_and_every_teachers_page(room):
    projector = teacher(room)
    laptop = teacher(room)
    phone = student(room, "phone-one")
    room.receive(projector, m.Step(1))
    assert phone.last("go") == {"v": 1, "type": "go", "route": "/ndcg", "query": "", "serial": 1, "why": "step"}
    for page in (projector, laptop):
        assert page.last("step") == {"v": 1, "type": "step", "step": 1, "route": "/ndcg", "query": ""}
    # A teacher who reloads finds the step (Reset, after the reload, returns to it).
    assert teacher(room).last("welcome")["step"] == 1
    with pytest.raises(m.Refused, match="bad-step"):
        room.receive(projector, m.Step(len(PLAN)))


def test_a_ping_is_answered_with_its_number(room):
    phone = student(room, "phone-one")
    room.receive(phone, m.Ping(41))
    assert phone.last("pong") == {"v": 1, "type": "pong", "n": 41}


def test_the_results_csv_has_a_row_per_guess_of_each_number_and_names_no_student(room, clock):
    projector = teacher(room)
    phones = [student(room, f"phone-{i}") for i in range(3)]
    first = ask(room, projector)["question"]
    for phone, value in zip(phones, [0.4, 0.6, 0.9], strict=True):
        room.receive(phone, m.Guess(first, {"P@5": value, "AP": None}))
    room.receive(projector, m.Reveal(first))
    second = ask(room, projector, "/ndcg", "k=3", (m.Target("NDCG@3", "=NDCG@3", 0.8),))["question"]
    room.receive(phones[0], m.Guess(second, {"NDCG@3": 0.75}))
    lines = results_csv(room.questions).splitlines()
    assert lines[0] == ",".join(COLUMNS)
    rows = [line.split(",") for line in lines[1:]]
    assert len(rows) == 3 * 2 + 1  # each guess of each number of the first, one of the second
    first_rows = [row for row in rows if row[0] == "1"]
    assert sorted(row[6] for row in first_rows if row[3] == "P@5") == ["0.4000", "0.6000", "0.9000"]
    assert {row[4] for row in first_rows if row[3] == "P@5"} == {"0.6000"}
    assert {row[5] for row in first_rows} == {"1", "2", "3"}
    assert [row[6] for row in first_rows if row[3] == "AP"] == ["", "", ""]
    # The second was not revealed: no true value; a label a spreadsheet would run is quoted.
    assert rows[-1] == ["2", "ndcg", "k=3", "'=NDCG@3", "", "1", "0.7500"]
    assert "phone-" not in "\n".join(lines)


def test_the_medians_the_projector_shows_are_the_medians_of_the_guesses(room, clock):
    projector = teacher(room)
    values = [0.05, 0.1, 0.3, 0.35, 0.9]
    phones = [student(room, f"p{i:08d}") for i in range(len(values))]
    number = ask(room, projector)["question"]
    for phone, value in zip(phones, values, strict=True):
        room.receive(phone, m.Guess(number, {"AP": value}))
    clock.run()
    assert projector.last("guesses")["summary"]["AP"]["median"] == statistics.median(values) == 0.3
