"""A class, live, in real browsers: one teacher's projector and three students' phones.

The teacher opens /teach with the key the server printed and lands on the plan's first step in
presenter view; the phones open the join address. Then, as in a lesson: the class predicts
together (the projector shows the spread of the guesses, never whose), the teacher reveals
(each phone says how far its own guess was), sends the projector's figure to the class (a phone
that wanders off has a way back), and steps through the plan with a clicker's Page Down (Reset
on the projector returns to the step, after a reload too). A server restarted under the class
ends it, and the phones say so.
"""

from __future__ import annotations

import csv
import io
import re
import urllib.parse

import pytest

from support.expect import expect
from support.page import watch_page
from support.server import Server

pytestmark = pytest.mark.browser

PLAN = "/binary?relevant=2,3,5&missed=1&k=4\tThree relevant in the top five\n/ndcg?k=3\tGraded, at k = 3\n"
PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}
PROJECTOR = {"viewport": {"width": 1280, "height": 720}}


def teacher_key(server: Server) -> str:
    """The teacher key the server printed at start (never in a page or an address)."""
    return re.search(r"type the teacher key ([a-z0-9-]+)$", server.log(), re.M).group(1)


@pytest.fixture(scope="module")
def lesson(tmp_path_factory):
    plan = tmp_path_factory.mktemp("plan") / "plan.txt"
    plan.write_text(PLAN, encoding="utf-8")
    running = Server("--class", "--plan", str(plan))
    yield running
    running.stop()


def at(url: str) -> tuple[str, dict[str, str]]:
    """A page's path and its query's keys (a figure writes them in its own order)."""
    parts = urllib.parse.urlsplit(url)
    return parts.path, dict(urllib.parse.parse_qsl(parts.query))


def open_projector(browser, server: Server, **options):
    """The teacher's page: /teach, the key typed, then the projector's figure in presenter view."""
    context = browser.new_context(**{**PROJECTOR, **options})
    page = context.new_page()
    page.goto(server.url + "/teach")
    page.get_by_label("Teacher key").fill(teacher_key(server))
    page.get_by_role("button", name="Open").click()
    expect(page.locator(".class-count")).to_be_visible()
    return context, page


def open_phones(browser, server: Server, count: int = 3):
    contexts = [browser.new_context(**PHONE) for _ in range(count)]
    pages = [context.new_page() for context in contexts]
    for page in pages:
        page.goto(server.url + "/class")
    return contexts, pages


def guess(page, key: str, value: str) -> None:
    page.locator(f"[data-predict={key}] input").fill(value)


def test_a_lesson_predict_together_reveal_send_to_class_and_the_plan(browser, lesson):
    projector_context, projector = open_projector(browser, lesson)
    seen = watch_page(projector)
    contexts, phones = open_phones(browser, lesson)
    try:
        # The teacher lands on the plan's first step, in presenter view; the phones on the same figure.
        assert at(projector.url) == ("/binary", {"relevant": "2,3,5", "missed": "1", "k": "4", "present": "1"})
        expect(projector.locator(".class-count")).to_have_text("3 in class")
        for phone in phones:
            expect(phone.locator(".metric-formula").first).to_have_text("P@4 = 2 / 4 = 0.50")

        # Predict together: every phone hides the numbers and asks for a guess.
        projector.locator(".class-bar").get_by_role("button", name="Ask the class").click()
        for phone in phones:
            expect(phone.get_by_role("button", name="Send my guess")).to_be_visible()
            expect(phone.locator(".metric-formula").first).to_be_hidden()
        # The projector hides them too, and asks no guess of its own.
        expect(projector.locator(".metric-formula").first).to_be_hidden()
        expect(projector.locator("[data-predict=precision] input")).to_be_hidden()
        for phone, value in zip(phones, ["0.40", "0.50", "0.55"], strict=True):
            guess(phone, "precision", value)
            phone.get_by_role("button", name="Send my guess").click()
            expect(phone.locator(".class-news")).to_contain_text(f"Sent: P@4 {value}")
        panel = projector.locator(".class-panel")
        expect(panel.locator(".class-answered")).to_have_text("3 answers")
        # Three dots on P@4's strip (one per phone), none on the numbers nobody guessed.
        expect(panel.locator(".class-row").first.locator(".class-dot")).to_have_count(3)
        expect(panel.locator(".class-row").first.locator(".class-facts")).to_have_text("median 0.50")
        expect(panel.locator(".class-row").nth(1).locator(".class-dot")).to_have_count(0)

        # Reveal: the truth on the projector over the spread, and on each phone its own distance.
        projector.locator(".class-bar").get_by_role("button", name="Reveal").click()
        expect(projector.locator(".metric-formula").first).to_have_text("P@4 = 2 / 4 = 0.50")
        # Within 0.05 of 0.50: 0.50 and 0.55, two of the three guesses.
        expect(panel.locator(".class-row").first.locator(".class-facts")).to_have_text(
            "true 0.50 · median 0.50 · 67% within 0.05"
        )
        expect(panel.locator(".class-row").first.locator(".class-truth")).to_have_count(1)
        expect(phones[0].locator(".class-news")).to_contain_text("P@4 = 0.50: your guess 0.40, off by 0.10.")
        expect(phones[1].locator(".class-news")).to_contain_text("P@4 = 0.50: your guess 0.50, right.")
        expect(phones[2].locator(".class-news")).to_contain_text("P@4 = 0.50: your guess 0.55, off by 0.05.")
        expect(phones[0].locator(".class-news")).to_contain_text("R@4 = 0.50: no guess.")

        # Send to class: the teacher moves k, then sends; every phone moves there with a notice.
        projector.locator(".class-panel").get_by_role("button", name="Close").click()
        projector.locator('.rl-row[data-rank="1"] button').click()
        expect(projector.locator(".metric-formula").first).to_have_text("P@4 = 3 / 4 = 0.75")
        projector.locator(".class-bar").get_by_role("button", name="Send to class").click()
        for phone in phones:
            expect(phone.locator(".metric-formula").first).to_have_text("P@4 = 3 / 4 = 0.75")
            expect(phone.locator(".class-news")).to_have_text("The teacher sent the class this figure.")
        # A student explores, and comes back to the teacher's figure.
        phones[0].locator('.rl-row[data-rank="4"] button').click()
        expect(phones[0].locator(".metric-formula").first).to_have_text("P@4 = 4 / 4 = 1.00")
        back = phones[0].get_by_role("button", name="Back to the teacher's")
        expect(back).to_be_visible()
        back.click()
        expect(phones[0].locator(".metric-formula").first).to_have_text("P@4 = 3 / 4 = 0.75")
        expect(back).to_be_hidden()

        # The plan, from a clicker: Page Down twice, to the plan's second step, class and all.
        projector.keyboard.press("PageDown")
        expect(projector.locator(".metric-formula").first).to_have_text("P@4 = 2 / 4 = 0.50")  # the step's page
        expect(projector.locator("body.class-joined")).to_have_count(1)  # in the class again
        expect(projector.locator(".class-step")).to_have_text("Plan: 1 of 2: Three relevant in the top five")
        projector.keyboard.press("PageDown")
        # The figure then writes the rest of its state into the address: k and presenter view stay.
        projector.wait_for_url(
            lambda url: at(url)[0] == "/ndcg" and at(url)[1].items() >= {"k": "3", "present": "1"}.items()
        )
        expect(projector.locator(".class-step")).to_have_text("Plan: 2 of 2: Graded, at k = 3")
        for phone in phones:
            phone.wait_for_url(lambda url: at(url)[0] == "/ndcg")
            expect(phone.locator(".metric-formula").first).to_contain_text("NDCG@3")
            expect(phone.locator(".class-news")).to_have_text("The class moved on: the teacher's next figure.")
        # Reset returns to the step, after a change and a reload.
        projector.keyboard.press("Home")  # nothing: not a plan key
        projector.locator(".fig-reset").click()
        before = projector.url
        projector.locator('.fig-ndcg .rl-row[data-rank="2"] button').click()
        projector.reload()
        expect(projector.locator("body.class-joined")).to_have_count(1)
        projector.locator(".fig-reset").click()
        expect(projector).to_have_url(before)

        # The class's results: one row per guess of each number, nobody named.
        with projector.expect_download() as downloaded:
            projector.locator(".class-bar").get_by_role("link", name="Results").click()
        rows = list(csv.DictReader(io.StringIO(open(downloaded.value.path(), encoding="utf-8").read())))
        # The class (this module's server) may have answered other tests' questions before: this
        # test's question is the last one asked.
        last = max(int(row["question"]) for row in rows)
        rows = [row for row in rows if int(row["question"]) == last]
        precision = sorted(row["guess"] for row in rows if row["measure"] == "P@4")
        assert precision == ["0.4000", "0.5000", "0.5500"]
        assert {row["true_value"] for row in rows if row["measure"] == "P@4"} == {"0.5000"}
        assert seen["errors"] == []
    finally:
        for context in [projector_context, *contexts]:
            context.close()


def test_a_teacher_who_reloads_finds_the_question_and_the_guesses(browser, lesson):
    projector_context, projector = open_projector(browser, lesson)
    contexts, phones = open_phones(browser, lesson, 3)
    try:
        projector.locator(".class-bar").get_by_role("button", name="Ask the class").click()
        for phone, value in zip(phones, ["0.1", "0.2", "0.3"], strict=True):
            expect(phone.get_by_role("button", name="Send my guess")).to_be_visible()
            first = phone.locator("[data-predict] input").first
            first.fill(value)
            phone.get_by_role("button", name="Send my guess").click()
            expect(phone.locator(".class-news")).to_contain_text("Sent:")
        expect(projector.locator(".class-answered")).to_have_text("3 answers")
        projector.reload()
        expect(projector.locator(".class-answered")).to_have_text("3 answers")
        expect(projector.locator(".class-row").first.locator(".class-dot")).to_have_count(3)
        expect(projector.locator(".class-bar").get_by_role("button", name="Reveal")).to_be_visible()
        # A phone that reloads is still in the question, with the guess it sent.
        phones[0].reload()
        expect(phones[0].locator(".class-news")).to_contain_text("Your guess:")
        projector.locator(".class-bar").get_by_role("button", name="Reveal").click()
        expect(phones[0].locator(".class-news")).to_contain_text("your guess 0.10")
    finally:
        for context in [projector_context, *contexts]:
            context.close()


@pytest.mark.slow  # a fault, as test_faults.py's are, on a class server of its own (its class starts afresh): some 7 s
def test_a_phone_that_was_away_when_the_class_moved_follows_it_when_it_is_back(browser, tmp_path):
    """A phone that was reloading, or whose wifi blinked, when the teacher stepped (its message lost on
    the way) moves to where the class went once its page is back in the class; one new to the class
    stays on the figure the join address opened."""
    plan = tmp_path / "plan.txt"
    plan.write_text(PLAN, encoding="utf-8")
    server = Server("--class", "--plan", str(plan))
    projector_context, projector = open_projector(browser, server)
    contexts, (phone,) = open_phones(browser, server, 1)
    try:
        expect(phone.locator("body.class-joined")).to_have_count(1)
        address = phone.url
        phone.goto("about:blank")  # away: the tab keeps its sessionStorage
        projector.keyboard.press("PageDown")
        expect(projector.locator(".class-step")).to_contain_text("1 of 2")
        projector.keyboard.press("PageDown")
        projector.wait_for_url(lambda url: at(url)[0] == "/ndcg")
        phone.goto(address)  # back, on the figure it left
        phone.wait_for_url(lambda url: at(url)[0] == "/ndcg")
        expect(phone.locator(".class-news")).to_have_text("The class moved on: the teacher's next figure.")
        # A phone new to the class stays where the join address sent it, even on an older figure.
        newcomer = contexts[0].browser.new_context(**PHONE)
        contexts.append(newcomer)
        other = newcomer.new_page()
        other.goto(server.url + "/binary")
        expect(other.locator("body.class-joined")).to_have_count(1)
        other.wait_for_timeout(500)
        assert at(other.url)[0] == "/binary"
        expect(other.get_by_role("button", name="Back to the teacher's")).to_be_visible()
    finally:
        for context in [projector_context, *contexts]:
            context.close()
        server.stop()


@pytest.mark.slow  # a server stopped and started again: some 10 s
def test_a_server_restarted_under_the_class_ends_it_and_the_phones_say_so(browser, tmp_path):
    plan = tmp_path / "plan.txt"
    plan.write_text(PLAN, encoding="utf-8")
    server = Server("--class", "--plan", str(plan))
    contexts, phones = open_phones(browser, server, 1)
    try:
        expect(phones[0].locator(".metric-formula").first).to_be_visible()
        server.stop()
        expect(phones[0].locator(".class-news")).to_have_text("Lost the class's connection: trying again…")
        server.start()
        expect(phones[0].locator(".class-news")).to_have_text(
            "The class has ended. This page still works on its own.", timeout=30_000
        )
        phones[0].locator('.rl-row[data-rank="1"] button').click()  # the figure works on
        expect(phones[0].locator(".metric-formula").first).to_have_text("P@4 = 3 / 4 = 0.75")
    finally:
        for context in contexts:
            context.close()
        server.stop()


# -- every screen: the projector and the phones, light and dark ---------------------------------------

SCREENS = [
    pytest.param(1280, 720, "light", id="projector-720p-light"),
    pytest.param(1920, 1080, "dark", id="projector-1080p-dark", marks=pytest.mark.slow),
    pytest.param(1280, 720, "dark", id="projector-720p-dark", marks=pytest.mark.slow),
    pytest.param(1920, 1080, "light", id="projector-1080p-light", marks=pytest.mark.slow),
]


def students_guess(loop, server: Server, count: int, values: list[float]):
    """``count`` phones without a browser, each guessing the next of ``values`` for the first hidden number."""
    from support.class_client import ClassClient

    async def guessing():
        phones = [ClassClient(server.url) for _ in range(count)]
        for phone in phones:
            await phone.join()
        return phones

    phones = loop.run(guessing())

    async def answer():
        asked = await phones[0].receive("question")
        key = asked["targets"][0]["key"]
        for phone, value in zip(phones, values, strict=False):
            await phone.send({"type": "guess", "question": asked["question"], "values": {key: value}})

    return phones, answer


@pytest.mark.parametrize("width, height, scheme", SCREENS)
def test_the_projector_shows_the_spread_readably_and_cleanly(browser, lesson, width, height, scheme):
    from support.coroutines import BackgroundLoop
    from support.page import serious_violations

    loop = BackgroundLoop()
    context, projector = open_projector(
        browser, lesson, viewport={"width": width, "height": height}, color_scheme=scheme
    )
    phones: list = []
    try:
        values = [0.25, 0.4, 0.45, 0.5, 0.5, 0.5, 0.55, 0.6, 0.75, 0.9]
        phones, answer = students_guess(loop, lesson, len(values), values)
        projector.locator(".class-bar").get_by_role("button", name="Ask the class").click()
        loop.run(answer())
        panel = projector.locator(".class-panel")
        expect(panel.locator(".class-answered")).to_have_text(f"{len(values)} answers")
        projector.locator(".class-bar").get_by_role("button", name="Reveal").click()
        expect(panel.locator(".class-truth")).not_to_have_count(0)
        # All on the screen, nothing sideways; the bar and the panel inside the window.
        assert projector.evaluate("document.scrollingElement.scrollWidth") <= width
        for part in (panel, projector.locator(".class-bar")):
            box = part.bounding_box()
            assert box["x"] >= 0 and box["x"] + box["width"] <= width and box["y"] + box["height"] <= height + 1
        # From the back of the room: the panel's words at least 20 px on a 1080p screen, 16 px at 720p.
        smallest = projector.evaluate(
            "() => Math.min(...[...document.querySelectorAll('.class-panel p:not(.sr-only), .class-panel button')]"
            ".map((el) => parseFloat(getComputedStyle(el).fontSize)))"
        )
        assert smallest >= (20 if height >= 1080 else 16), smallest
        # A dot is a guess one can see from the back: at least 14 px across at 720p, 20 px at 1080p.
        dot = panel.locator(".class-dot").first.bounding_box()
        assert dot["width"] >= (20 if height >= 1080 else 14), dot
        serious = serious_violations(projector)
        assert serious == [], "\n".join(serious)
        projector.screenshot(path=str(lesson.log_path.with_name(f"class-projector-{width}-{scheme}.png")))
        # The bar folds into one button in the corner, so that the whole figure shows, and unfolds.
        panel.get_by_role("button", name="Close").click()
        projector.get_by_role("button", name="Fold the class's controls into the corner").click()
        folded = projector.locator(".class-bar").bounding_box()
        assert folded["width"] <= 60 and folded["height"] <= 60, folded
        assert folded["x"] + folded["width"] <= width and folded["y"] + folded["height"] <= height
        expect(projector.locator(".class-count")).to_be_hidden()
        projector.get_by_role("button", name="Show the class's controls").click()
        expect(projector.locator(".class-count")).to_be_visible()
    finally:
        context.close()

        async def leave():  # on the phones' own loop: tornado's streams are not to be touched from another thread
            for phone in phones:
                phone.close()

        loop.run(leave())
        loop.close()


PHONES = [
    pytest.param(390, 844, "light", id="phone-390-light"),
    pytest.param(320, 640, "dark", id="phone-320-dark", marks=pytest.mark.slow),
    pytest.param(390, 844, "dark", id="phone-390-dark", marks=pytest.mark.slow),
    pytest.param(320, 640, "light", id="phone-320-light", marks=pytest.mark.slow),
]


@pytest.mark.parametrize("width, height, scheme", PHONES)
def test_a_phone_in_the_class_fits_its_screen_and_reads_cleanly(browser, lesson, width, height, scheme):
    from support.page import serious_violations

    projector_context, projector = open_projector(browser, lesson)
    context = browser.new_context(
        viewport={"width": width, "height": height}, has_touch=True, is_mobile=True, color_scheme=scheme
    )
    try:
        phone = context.new_page()
        phone.goto(lesson.url + "/class")
        expect(phone.locator("body.class-joined")).to_have_count(1)
        projector.locator(".class-bar").get_by_role("button", name="Ask the class").click()
        send = phone.get_by_role("button", name="Send my guess")
        expect(send).to_be_visible()
        phone.locator("[data-predict] input").first.fill("0.5")
        send.tap()
        expect(phone.locator(".class-news")).to_contain_text("Sent:")
        projector.locator(".class-bar").get_by_role("button", name="Reveal").click()
        expect(phone.locator(".class-news")).to_contain_text("your guess 0.50")
        assert phone.evaluate("[document.documentElement.scrollWidth, window.innerWidth]") == [width, width]
        bar = phone.locator(".class-bar").bounding_box()
        assert bar["y"] + bar["height"] <= height + 1 and bar["height"] <= 0.4 * height, bar
        serious = serious_violations(phone)
        assert serious == [], "\n".join(serious)
        phone.screenshot(path=str(lesson.log_path.with_name(f"class-phone-{width}-{scheme}.png")))
    finally:
        context.close()
        projector_context.close()
