"""The server's doors, each rule called directly (no server, no socket): per-client limiters, session
tokens, the Host check, the access code's guesses, and who gets /evaluate's uploads.

tests/test_attacks_sessions.py attacks a served explainer with the same rules end to end (slow tests).
"""

from __future__ import annotations

import asyncio
import base64
import gc
import json
import math
import random
import time
import zlib
from types import SimpleNamespace

import pytest
from bokeh.util.token import generate_jwt_token, generate_session_id

from explainer.cli import build_parser, evaluate_pages
from explainer.server import hosts, tokens
from explainer.server.access_code import WRONG_GUESSES_IN_ALL, WRONG_GUESSES_PER_CLIENT, AccessCode
from explainer.server.config import Limits, ServerConfig
from explainer.server.limiters import CountLimit, RateLimit, Share

from support.coroutines import run


class Clock:
    """A clock the test moves by hand."""

    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


# -- per-client limiters -------------------------------------------------------------------------


def test_three_hundred_phones_behind_one_address_open_a_page_at_once_then_one_each_a_minute():
    limits = Limits()
    clock = Clock()
    sessions = RateLimit(limits.new_sessions_burst, limits.new_sessions_per_second, clock)
    nat = "203.0.113.1"
    assert all(sessions.allow(nat) for _ in range(300))  # the whole class, at the teacher's word
    assert not sessions.allow(nat)  # the 301st at that moment waits
    assert sessions.wait(nat) == pytest.approx(1 / 5)
    # Then each of the 300 phones opens a new page once a minute: 300 in 60 s, 5 a second.
    for second in range(60):
        clock.now += 1
        assert all(sessions.allow(nat) for _ in range(5)), f"second {second}"
    assert not sessions.allow(nat)
    # Another address keeps its own allowance whatever this one did.
    assert sessions.allow("198.51.100.7")


def test_a_bucket_refills_at_its_rate_and_never_past_its_burst():
    clock = Clock()
    bucket = RateLimit(3, 0.5, clock)
    assert [bucket.allow("a") for _ in range(4)] == [True, True, True, False]
    clock.now += 1.0  # half a token
    assert not bucket.allow("a") and bucket.wait("a") == pytest.approx(1.0)
    clock.now += 1.0
    assert bucket.allow("a") and not bucket.allow("a")
    clock.now += 3600
    assert bucket.available("a") == 3
    bucket.give_back("a")
    assert bucket.available("a") == 3


def test_three_hundred_phones_each_with_three_pages_open_fit_the_websockets_of_one_address():
    websockets = CountLimit(Limits().max_websockets_per_client)
    nat = "203.0.113.1"
    assert all(websockets.take(nat) for _ in range(300 * 3))
    assert sum(websockets.take(nat) for _ in range(200)) == 100  # 1,000 in all
    assert websockets.held(nat) == 1000 and not websockets.take(nat)
    websockets.give_back(nat)
    assert websockets.take(nat)
    assert websockets.take("198.51.100.7")
    for _ in range(1000):
        websockets.give_back(nat)
    assert websockets.held(nat) == 0


def test_a_connection_past_its_burst_of_work_waits_until_its_share_is_paid_back():
    clock = Clock()
    share = Share(fraction=0.25, burst_s=0.5, clock=clock)
    share.charge(0.3)
    assert share.wait() == 0  # within the burst
    share.charge(0.4)  # 0.7 s of work in all: 0.2 s past the burst, paid back at 0.25 s a second
    assert share.wait() == pytest.approx(0.2 / 0.25)
    clock.now += 0.4  # 0.1 s of it paid back
    assert share.wait() == pytest.approx(0.1 / 0.25)
    clock.now += 0.4
    assert share.wait() == pytest.approx(0, abs=1e-9)
    clock.now += 3600  # a pause pays everything back and no more: the burst is all it has in hand
    share.charge(0.5)
    assert share.wait() == 0
    share.charge(0.05)
    assert share.wait() == pytest.approx(0.05 / 0.25)


def test_a_sender_as_fast_as_it_is_answered_keeps_the_thread_at_most_its_share_of_the_time():
    clock = Clock()
    limits = Limits()
    share = Share(limits.message_share, limits.message_share_burst_s, clock)
    worked = 0.0
    for _ in range(2_000):  # messages of 20 ms each, the next sent the moment the last is answered
        clock.now += share.wait()
        share.charge(0.02)
        clock.now += 0.02
        worked += 0.02
    assert worked <= limits.message_share * clock.now + limits.message_share_burst_s
    # A reader's click, a few milliseconds ten times a second, never waits.
    reader = Share(limits.message_share, limits.message_share_burst_s, clock)
    for _ in range(6_000):
        assert reader.wait() == 0
        reader.charge(0.005)
        clock.now += 0.1


def test_after_a_long_turn_the_gap_keeps_a_flood_of_sessions_to_a_third_of_the_thread():
    from explainer.server.limiters import Turns

    limits = Limits()
    turns = Turns(limits.session_gap_s, limits.session_share)
    assert turns.gap(0.005) == limits.session_gap_s == 0.02  # a quick session: the fixed gap
    for took in (0.03, 0.06, 0.2):  # a quick machine's session, a slow one's, a busy one's
        assert took / (took + turns.gap(took)) == pytest.approx(1 / 3)
    assert Turns(0.02, share=0.25).gap(0.06) == pytest.approx(0.18)


def test_the_collector_waits_while_sessions_are_made_and_takes_the_young_every_ten_seconds(monkeypatch):
    from explainer.server import garbage

    clock = Clock()
    began = clock.now
    collected = []
    monkeypatch.setattr(garbage.gc, "collect", lambda generation=2: collected.append((clock.now - began, generation)))
    held = garbage.HeldCollections(clock)
    assert gc.isenabled()
    try:
        held.busy(True)
        assert not gc.isenabled()
        clock.now += 5
        held.busy(True)
        assert collected == []
        clock.now += 6  # held 11 s: one collection, and held again
        held.busy(True)
        assert collected == [(11, 1)] and not gc.isenabled()  # the young generations only
        held.busy(False)
        assert gc.isenabled()
        gc.disable()  # held off by someone else: not ours to turn back on
        held.busy(True)
        held.busy(False)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_limiter_forgets_the_clients_back_at_their_full_allowance(monkeypatch):
    from explainer.server import limiters

    monkeypatch.setattr(limiters, "FORGET_PAST", 100)
    clock = Clock()
    bucket = RateLimit(2, 1.0, clock)
    for n in range(100):
        bucket.allow(f"10.0.0.{n}")
    clock.now += 10  # all back to full
    bucket.allow("10.0.1.1")
    assert len(bucket._buckets) == 1


# -- session tokens ------------------------------------------------------------------------------

SECRET = tokens.new_secret()


def signed_token(secret: bytes = SECRET, **payload) -> str:
    return generate_jwt_token(
        generate_session_id(secret_key=secret, signed=True), secret_key=secret, signed=True, extra_payload=payload
    )


def test_a_token_signed_by_this_server_opens_and_its_size_is_far_under_the_cap():
    token = signed_token(headers={}, cookies={}, arguments={})
    assert tokens.token_refusal(token, SECRET) is None
    assert len(token) < tokens.MAX_TOKEN_CHARS / 5


def test_a_token_made_by_hand_or_signed_by_another_server_is_refused():
    forged = generate_jwt_token(generate_session_id(), signed=False)
    assert tokens.token_refusal(forged, SECRET) == "bad-token"
    assert tokens.token_refusal(signed_token(tokens.new_secret()), SECRET) == "bad-token"
    body, signature = signed_token().split(".", 1)
    assert tokens.token_refusal(f"{body}x.{signature}", SECRET) == "bad-token"
    for junk in ("x", "a.b", "....", "é.é", base64.b64encode(b"{}").decode() + ".sig"):
        assert tokens.token_refusal(junk, SECRET) == "bad-token"
    assert tokens.token_refusal(None, SECRET) == tokens.token_refusal("", SECRET) == "no-token"


def test_a_token_longer_than_the_cap_is_refused_before_it_is_decoded(monkeypatch):
    # The attack: a token whose compressed payload unpacks to 16 MB.
    # (random bytes before the zeros keep it some 30 KB, as the was)
    noise = random.Random(0).randbytes(15_000).hex()
    bomb = base64.urlsafe_b64encode(zlib.compress(json.dumps({"x": noise + "a" * 16_000_000}).encode(), 9)).decode()
    token = signed_token(__bokeh_zlib=bomb)
    assert len(token) > tokens.MAX_TOKEN_CHARS
    decoded = []
    monkeypatch.setattr("bokeh.util.token._base64_decode", lambda text: decoded.append(text))
    assert tokens.token_refusal(token, SECRET) == "token-too-long" and decoded == []
    assert tokens.token_refusal("a" * (tokens.MAX_TOKEN_CHARS + 1), None) == "token-too-long"
    assert tokens.token_refusal("a" * tokens.MAX_TOKEN_CHARS, None) is None  # an unsigned server's


def test_every_server_configuration_gets_a_secret_of_its_own():
    one, two = ServerConfig(5006, "127.0.0.1"), ServerConfig(5006, "127.0.0.1")
    assert len(one.session_secret) >= 32 and one.session_secret != two.session_secret
    assert "session_secret" not in repr(one)


# -- the Host check ------------------------------------------------------------------------------


def test_on_this_computer_only_the_loopback_names_with_the_port_are_answered():
    rule = hosts.HostRule("127.0.0.1", 5006)
    for host in ("localhost:5006", "127.0.0.1:5006", "[::1]:5006", "LOCALHOST:5006", "localhost.:5006"):
        assert rule.allows(host), host
    for host in ("localhost:5007", "localhost", "attacker.example:5006", "192.168.1.20:5006", "", None, "[::1]"):
        assert not rule.allows(host), host
    assert hosts.HostRule("127.0.0.2", 5006).allows("127.0.0.2:5006")


def test_on_the_network_this_computers_addresses_and_names_are_answered_and_no_other_name():
    rule = hosts.HostRule("0.0.0.0", 8080, names={"teachers-laptop", "teachers-laptop.local", "teachers-laptop.lan"})
    for host in (
        "192.168.1.20:8080",
        "[fe80::1]:8080",
        "teachers-laptop.local:8080",
        "teachers-laptop:8080",
        "teachers-laptop.lan:8080",
        "localhost:8080",
    ):
        assert rule.allows(host), host
    for host in ("rebind.attacker.example:8080", "192.168.1.20:5006", "teachers-laptop.local", "local:8080"):
        assert not rule.allows(host), host


def test_this_computers_names_include_its_host_name_and_name_dot_local(monkeypatch):
    monkeypatch.setattr(hosts.socket, "gethostname", lambda: "Teachers-Laptop")
    monkeypatch.setattr(hosts.socket, "getfqdn", lambda: "teachers-laptop.school.example.")
    hosts.this_computers_names.cache_clear()
    try:
        assert hosts.this_computers_names() == {
            "teachers-laptop",
            "teachers-laptop.local",
            "teachers-laptop.school.example",
        }
    finally:
        hosts.this_computers_names.cache_clear()


def test_public_hosts_are_answered_with_the_port_given_or_without_one_for_the_default_ports():
    rule = hosts.HostRule("127.0.0.1", 5006, ["explainer.example.com", "127.0.0.1:8080"])
    assert rule.allows("explainer.example.com") and rule.allows("127.0.0.1:8080")
    assert not rule.allows("explainer.example.com:8080") and not rule.allows("127.0.0.1:8081")


def test_a_server_on_port_80_answers_its_names_without_a_port():
    assert hosts.HostRule("127.0.0.1", 80).allows("localhost")


def test_the_host_rule_comes_from_the_configuration_and_the_tests_object_server_has_none():
    config = ServerConfig(5006, "127.0.0.1", public_hosts=("docs.example.org",), allow_origins=("wiki.example.org:81",))
    assert config.host_rule.allows("docs.example.org") and config.host_rule.allows("wiki.example.org:81")
    from explainer.server.config import OTHER_SERVERS

    assert OTHER_SERVERS.host_rule is None


@pytest.mark.parametrize("option", ["--allow-origin", "--public-host"])
@pytest.mark.parametrize("value", ["*", "*.example.com", "example.com:*", "http://example.com", "a b", ""])
def test_allow_origin_and_public_host_refuse_wildcards_and_what_is_not_a_host(option, value, capsys):
    with pytest.raises(SystemExit) as exited:
        build_parser().parse_args(["serve", option, value])
    assert exited.value.code == 2
    error = capsys.readouterr().err
    assert option in error and "Traceback" not in error
    if "*" in value:
        assert "wildcard" in error


def test_public_host_is_an_option_of_evaluate_serve_too():
    args = build_parser().parse_args(["evaluate", "q", "r", "--serve", "--public-host", "Wb.Example.org:8443"])
    assert args.public_host == ["wb.example.org:8443"]


def test_a_refused_host_is_answered_421_and_the_text_names_the_option():
    from explainer.server.http_server import host_refusal_text

    text = host_refusal_text("rebind.attacker.example:5006")
    assert "--public-host rebind.attacker.example:5006" in text


# -- the access code's guesses -------------------------------------------------------------------


class Visitor:
    """What the access code's form handler takes from Tornado's RequestHandler."""

    def __init__(self, code: str):
        self.request = SimpleNamespace(path="/evaluate")
        self.code = code
        self.status = self.page = self.redirected = None
        self.headers: dict[str, str] = {}
        self.cookies_set: list = []

    def get_body_argument(self, name, default=""):
        return self.code

    def set_status(self, status):
        self.status = status

    def set_header(self, name, value):
        self.headers[name] = value

    def finish(self, text):
        self.page = text

    def set_cookie(self, name, value, **options):
        self.cookies_set.append(name)

    def redirect(self, url, status):
        self.redirected = (url, status)


def guess(access: AccessCode, code: str, client: str, monkeypatch) -> Visitor:
    """One guess from ``client``, its wait not slept."""
    visitor = Visitor(code)

    async def no_wait(_):
        return None

    monkeypatch.setattr(asyncio, "sleep", no_wait)
    try:
        run(access.check(visitor, client))
    finally:
        monkeypatch.undo()
    return visitor


# The limits' clock stands still in these tests: a slow machine's guesses must not earn tokens back.
STILL = lambda: 0.0  # noqa: E731


def test_a_client_past_its_wrong_guesses_is_not_even_compared_and_told_how_long_to_wait(monkeypatch):
    access = AccessCode("open-sesame", clock=STILL)
    burst, rate = WRONG_GUESSES_PER_CLIENT
    assert [guess(access, f"wrong{n}", "10.0.0.1", monkeypatch).status for n in range(burst)] == [403] * burst
    refused = guess(access, "open-sesame", "10.0.0.1", monkeypatch)  # even the right code waits now
    assert refused.status == 429 and refused.cookies_set == []
    assert refused.headers["Retry-After"] == str(math.ceil(1 / rate))
    assert "Too many wrong codes" in refused.page
    # Another client still gets in, and a right code costs nothing.
    for _ in range(burst + 5):
        assert guess(access, "open-sesame", "10.0.0.2", monkeypatch).cookies_set == ["explainer-access"]


def test_wrong_guesses_from_many_clients_meet_the_servers_own_limit(monkeypatch):
    access = AccessCode("open-sesame", clock=STILL)
    burst, _ = WRONG_GUESSES_IN_ALL
    statuses = [guess(access, "wrong", f"10.1.{n // 250}.{n % 250}", monkeypatch).status for n in range(burst + 10)]
    assert statuses == [403] * burst + [429] * 10


# -- who gets /evaluate's uploads ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "golden_only"),
    [
        ([], False),  # this computer only
        (["--address", "127.0.0.1"], False),
        (["--address", "0.0.0.0"], True),
        (["--address", "0.0.0.0", "--uploads"], False),
        (["--address", "192.168.1.20", "--access-code", "x"], False),
    ],
)
def test_served_to_the_network_evaluate_takes_uploads_only_with_an_access_code_or_uploads(argv, golden_only):
    args = build_parser().parse_args(["serve", *argv])
    pages = evaluate_pages(args, args.access_code)
    assert (pages != {}) is golden_only
    if golden_only:
        page = pages["/evaluate"]()
        view = page.objects[-1]  # the workbench's view, as Panel lays a Viewer out
        assert view.uploads is False
        assert "--access-code" in page.objects[0].object and "--uploads" in page.objects[0].object


# -- the access code, kept out of the process list -------------------------------------------------


def test_access_code_alone_takes_the_code_from_the_environment_and_prints_nothing(monkeypatch, capsys):
    from explainer.serve_options import ACCESS_CODE_VARIABLE, access_code

    monkeypatch.setenv(ACCESS_CODE_VARIABLE, "  from-the-env \n")
    assert access_code("") == "from-the-env"
    assert capsys.readouterr().out == ""
    monkeypatch.delenv(ACCESS_CODE_VARIABLE)
    made = access_code("")
    assert len(made) == 11 and made in capsys.readouterr().out
    assert access_code(None) is None and access_code("given") == "given"


def test_access_code_file_reads_the_first_line_and_refuses_what_cannot_be_a_code(tmp_path, capsys):
    path = tmp_path / "code"
    path.write_text("open-sesame\nsecond line ignored\n")
    for command in (["serve"], ["evaluate", "q", "r", "--serve"]):
        assert build_parser().parse_args([*command, "--access-code-file", str(path)]).access_code == "open-sesame"
    for content in ("", "\n", "x" * 201):
        path.write_text(content)
        with pytest.raises(SystemExit) as exited:
            build_parser().parse_args(["serve", "--access-code-file", str(path)])
        assert exited.value.code == 2 and "expected the code alone" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exited:
        build_parser().parse_args(["serve", "--access-code-file", str(tmp_path / "missing")])
    error = capsys.readouterr().err
    assert exited.value.code == 2 and "cannot be read" in error and "Traceback" not in error


# -- headers ---------------------------------------------------------------------------------------


def test_every_response_says_nosniff_and_no_referrer_and_names_no_server():
    from tornado.httputil import HTTPHeaders

    from explainer.server.http_server import ResponseHeaders

    headers = HTTPHeaders({"Server": "TornadoServer/6.5", "Content-Type": "text/html"})
    _, sent, _ = ResponseHeaders(None).transform_first_chunk(200, headers, b"", True)
    assert sent["X-Content-Type-Options"] == "nosniff" and sent["Referrer-Policy"] == "no-referrer"
    assert "Server" not in sent


def policy_of(text: str) -> dict[str, str]:
    return {part.split(" ", 1)[0]: part.split(" ", 1)[1] for part in text.split("; ")}


def test_a_pages_policy_runs_only_its_nonced_scripts_and_connects_only_to_its_own_websocket():
    from explainer.server.headers import content_security_policy, new_nonce

    nonce = new_nonce()
    assert len(nonce) >= 22 and nonce != new_nonce()
    policy = policy_of(content_security_policy(nonce, "192.168.1.20:8080", ()))
    assert policy["default-src"] == "'none'"
    assert policy["script-src"] == f"'nonce-{nonce}'"
    assert policy["connect-src"] == "'self' ws://192.168.1.20:8080 wss://192.168.1.20:8080"
    assert "frame-ancestors" not in policy  # figure pages are for embedding, from any page, file:// too
    assert policy["base-uri"] == "'none'" and policy["form-action"] == "'self'"


def test_figure_pages_may_be_framed_by_the_named_hosts_only_and_the_form_by_none():
    from explainer.server.headers import content_security_policy

    framed = policy_of(content_security_policy("n", "h:1", ("docs.example.org", "wiki.example.org:8443")))
    assert framed["frame-ancestors"] == (
        "'self' https://docs.example.org http://docs.example.org https://wiki.example.org:8443 http://wiki.example.org:8443"
    )
    form = policy_of(content_security_policy(None, "", None))
    assert form["frame-ancestors"] == "'none'" and form["script-src"] == "'none'" and form["connect-src"] == "'none'"


def test_the_access_form_is_not_framable_and_runs_no_script():
    access = AccessCode("open-sesame")
    visitor = Visitor("")
    access.ask(visitor)
    policy = policy_of(visitor.headers["Content-Security-Policy"])
    assert policy["frame-ancestors"] == "'none'" and policy["script-src"] == "'none'"


def test_framed_by_is_a_host_option_without_wildcards():
    assert build_parser().parse_args(["serve", "--framed-by", "Docs.Example.org"]).framed_by == ["docs.example.org"]
    with pytest.raises(SystemExit):
        build_parser().parse_args(["serve", "--framed-by", "*.example.org"])


def test_a_request_for_another_host_is_answered_421_before_the_application_sees_it(caplog):
    from tornado import httputil

    from explainer.server.http_server import HeaderCount

    class Delegate(httputil.HTTPMessageDelegate):
        called: list[str] = []

        def headers_received(self, start_line, headers):
            self.called.append("headers")

        def finish(self):
            self.called.append("finish")

    class Connection:
        def write_headers(self, start_line, headers, chunk):
            self.written = (start_line, dict(headers.get_all()), chunk)

        def finish(self):
            self.finished = True

    rule = hosts.HostRule("127.0.0.1", 5006)
    start = httputil.RequestStartLine("GET", "/evaluate", "HTTP/1.1")
    delegate, connection = Delegate(), Connection()
    request = HeaderCount(delegate, connection, 100, rule)
    with caplog.at_level("WARNING", logger="explainer.server"):
        request.headers_received(start, httputil.HTTPHeaders({"Host": "rebind.attacker.example:5006"}))
        request.finish()
    status, sent, body = connection.written
    assert (status.code, delegate.called) == (421, [])
    assert b"--public-host rebind.attacker.example:5006" in body and sent["X-Content-Type-Options"] == "nosniff"
    assert "--public-host rebind.attacker.example:5006" in caplog.text
    request = HeaderCount(delegate, Connection(), 100, rule)
    request.headers_received(start, httputil.HTTPHeaders({"Host": "localhost:5006"}))
    request.finish()
    assert delegate.called == ["headers", "finish"]


def test_new_sessions_are_made_one_at_a_time_with_a_gap_for_the_clicks_between():
    from explainer.server.limiters import Turns

    turns = Turns(gap_s=0.05)
    events: list[tuple[str, int, float]] = []

    async def make(n: int) -> None:
        async with turns.turn():
            events.append(("start", n, time.monotonic()))
            events.append(("end", n, time.monotonic()))

    async def click() -> float:
        await asyncio.sleep(0.01)  # while the first session's turn is taken
        return time.monotonic()

    async def scenario():
        return await asyncio.gather(make(1), make(2), make(3), click())

    *_, clicked = run(scenario())
    assert [(kind, n) for kind, n, _ in events] == [
        ("start", 1),
        ("end", 1),
        ("start", 2),
        ("end", 2),
        ("start", 3),
        ("end", 3),
    ]
    starts = [when for kind, _, when in events if kind == "start"]
    assert starts[1] - starts[0] >= 0.05 and starts[2] - starts[1] >= 0.05
    assert starts[0] < clicked < starts[1]  # the click was answered between two sessions
