"""The class: the pages in it, what the projector shows, the plan's step and the questions asked.

A ``Room`` is told of each page that joins (a ``Member``: something that can ``send`` a text,
with its role and, for a student, the id its phone keeps) and of each checked message a page
sends (``receive``); it answers by sending messages to pages, built here. It lives in one
server process for the class's life: nothing is written anywhere, and nothing names a student.

What goes where:

- a student's page is told, on joining, where the teacher is (``welcome``) and then when to
  move (``go``: send to class, a step of the plan), when to predict (``question``) and the true
  values (``revealed``); its own guess is acknowledged (``guessed``);
- the teacher's pages are told how many students are in the class (``students``), the guesses
  of the open question (``guesses``: each number's values, sorted, once three have answered),
  and the plan's step (``step``), so that the projector moves with the clicker;
- a message a page may not send, or about a question not asked, is answered ``refused`` with a
  short code, and the class goes on.

Updates to the teacher's pages are gathered: at most one ``guesses`` every ``GUESSES_EVERY_S``
and one ``students`` every ``STUDENTS_EVERY_S``, however fast guesses and phones arrive. The
first change after a quiet spell goes at once; what comes within the interval after it waits
for the interval's end and goes together.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from typing import Protocol

from explainer.classroom import messages as m
from explainer.classroom.plan import Step
from explainer.classroom.question import Question

GUESSES_EVERY_S = 0.05
STUDENTS_EVERY_S = 0.2


class Member(Protocol):
    """A page in the class, as the server's connection handler stands for it."""

    teacher: bool
    student: str  # the phone's id ("" for a teacher's page)

    def send(self, text: str) -> None: ...


class Room:
    """One class. ``routes`` are the figure routes a message may name; ``plan`` the lecture's steps;
    ``later(seconds, callback)`` runs a callback after a delay (the server's event loop), and
    ``now()`` tells the time in seconds."""

    def __init__(
        self,
        routes: frozenset[str],
        plan: tuple[Step, ...],
        later: Callable[[float, Callable], object],
        now: Callable[[], float] = time.monotonic,
    ):
        self.id = secrets.token_hex(8)  # a page that reconnects to another class (a restart) can tell
        self.routes = routes
        self.plan = plan
        self.later, self.now = later, now
        self.members: set[Member] = set()
        self.questions: list[Question] = []
        self.step: int | None = None
        self.showing: dict[str, str] | None = None  # the projector's figure: route and query
        self.sent: dict | None = None  # the last figure sent to the class (or stepped to), with its serial
        self._serial = 0
        self._pending: set[str] = set()  # the teacher updates waiting for their time
        self._last_sent: dict[str, float] = {}  # each update's last send

    # -- who is in the class --

    @property
    def students(self) -> int:
        """How many phones are in the class (a phone with two pages open counts once)."""
        return len({member.student for member in self.members if not member.teacher})

    @property
    def question(self) -> Question | None:
        return self.questions[-1] if self.questions else None

    def join(self, member: Member) -> None:
        self.members.add(member)
        member.send(m.encode(self.welcome(member)))
        if not member.teacher:
            self._soon("students")

    def leave(self, member: Member) -> None:
        if member in self.members:
            self.members.discard(member)
            if not member.teacher:
                self._soon("students")

    def welcome(self, member: Member) -> dict:
        """What a page is told as it joins: the class, where the teacher is, the open question and,
        for a student who was in it before (the same id), the guess they made."""
        question = self.question
        said = {
            "type": "welcome",
            "class": self.id,
            "role": "teacher" if member.teacher else "student",
            "showing": self.showing,
            "sent": self.sent,
            "step": self.step,
            "question": question.public(member.teacher) if question else None,
        }
        if member.teacher:
            said["students"] = self.students
            said["plan"] = [step.public() for step in self.plan]
            said["guesses"] = self._guesses(question) if question else None
        else:
            said["guess"] = question.guesses.get(member.student) if question else None
        return said

    # -- what a page says --

    def receive(self, member: Member, message) -> None:
        """Act on a checked message (``messages.read_message``) from ``member``; ``Refused`` for one
        it may not send or that names what is not there."""
        if isinstance(message, m.TEACHERS_ONLY) and not member.teacher:
            raise m.Refused("teachers-only")
        if isinstance(message, m.Ping):
            return member.send(m.encode({"type": "pong", "n": message.n}))
        if isinstance(message, m.Guess):
            return self._guess(member, message)
        if isinstance(message, (m.Showing, m.Send, m.Ask)) and message.route not in self.routes:
            raise m.Refused("bad-route")
        if isinstance(message, m.Showing):
            self.showing = {"route": message.route, "query": message.query}
        elif isinstance(message, m.Send):
            self._go(message.route, message.query, "sent")
        elif isinstance(message, m.Ask):
            self._ask(message)
        elif isinstance(message, m.Reveal):
            self._reveal(message.question)
        elif isinstance(message, m.Step):
            self._step(message.to)
        else:  # a hello after the first, or a type this room does not take
            raise m.Refused("unexpected")

    def _guess(self, member: Member, message: m.Guess) -> None:
        question = self.question
        if member.teacher:
            raise m.Refused("students-only")
        if question is None or message.question != question.number:
            raise m.Refused("no-such-question")
        question.guess(member.student, message.values)
        member.send(m.encode({"type": "guessed", "question": question.number}))
        self._soon("guesses")

    def _go(self, route: str, query: str, why: str) -> None:
        self._serial += 1
        self.showing = {"route": route, "query": query}
        self.sent = {"route": route, "query": query, "serial": self._serial, "why": why}
        self._tell(lambda member: not member.teacher, {"type": "go", **self.sent})

    def _ask(self, message: m.Ask) -> None:
        question = Question(len(self.questions) + 1, message.route, message.query, message.targets)
        self.questions.append(question)
        self.showing = {"route": message.route, "query": message.query}
        for member in list(self.members):
            member.send(m.encode({"type": "question", **question.public(member.teacher)}))

    def _reveal(self, number: int) -> None:
        question = self.question
        if question is None or question.number != number:
            raise m.Refused("no-such-question")
        if question.revealed:
            return  # a second press (or a second teacher's page): already done
        question.revealed = True
        truth = {target.key: target.value for target in question.targets}
        self._tell(lambda member: True, {"type": "revealed", "question": number, "truth": truth})
        self._tell(lambda member: member.teacher, self._guesses(question))

    def _step(self, to: int) -> None:
        if not 0 <= to < len(self.plan):
            raise m.Refused("bad-step")
        self.step = to
        step = self.plan[to]
        self._go(step.route, step.query, "step")
        self._tell(
            lambda member: member.teacher, {"type": "step", "step": to, "route": step.route, "query": step.query}
        )

    # -- sending --

    def _tell(self, who: Callable[[Member], bool], message: dict) -> None:
        text = m.encode(message)
        for member in list(self.members):
            if who(member):
                member.send(text)

    def _guesses(self, question: Question) -> dict:
        return {
            "type": "guesses",
            "question": question.number,
            "answered": question.answered,
            "values": question.spread(),
            "summary": {key: question.summary(key) for key in question.keys} if question.spread() else None,
        }

    def _soon(self, update: str) -> None:
        """Send the teachers this update now if none went in its last interval, else once the
        interval is over, with whatever has changed by then."""
        if update in self._pending:
            return
        every = GUESSES_EVERY_S if update == "guesses" else STUDENTS_EVERY_S
        wait = self._last_sent.get(update, -every) + every - self.now()
        if wait <= 0:
            return self._update(update)
        self._pending.add(update)
        self.later(wait, lambda: self._update(update))
        return None

    def _update(self, update: str) -> None:
        self._pending.discard(update)
        self._last_sent[update] = self.now()
        if update == "students":
            self._tell(lambda member: member.teacher, {"type": "students", "count": self.students})
        elif self.question is not None:
            self._tell(lambda member: member.teacher, self._guesses(self.question))
