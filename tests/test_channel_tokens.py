"""The class channel's tokens: signed by this server, expiring, and one open channel each."""

from __future__ import annotations

from explainer.server.channel_tokens import LIFETIME_S, MAX_TOKEN_CHARS, ChannelTokens


class Clock:
    def __init__(self, now: float = 1_000_000.0):
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_a_token_opens_once_at_a_time_until_it_expires():
    clock = Clock()
    tokens = ChannelTokens(clock=clock)
    token = tokens.new()
    assert len(token) < MAX_TOKEN_CHARS and tokens.refusal(token) is None
    tokens.in_use.add(token)
    assert tokens.refusal(token) == "token-in-use"
    tokens.in_use.discard(token)
    clock.now += LIFETIME_S - 1
    assert tokens.refusal(token) is None
    clock.now += 2
    assert tokens.refusal(token) == "token-expired"


def test_a_token_made_by_hand_or_by_another_server_opens_nothing():
    tokens, other = ChannelTokens(), ChannelTokens()
    token = tokens.new()
    expiry, random_part, signature = token.split(".")
    assert other.refusal(token) == "bad-token"
    assert tokens.refusal(f"{int(expiry, 16) + 10**6:x}.{random_part}.{signature}") == "bad-token"  # a longer life
    assert tokens.refusal(f"{expiry}.{random_part}.{'A' * len(signature)}") == "bad-token"
    for made in ["", "abc", "..", "a.b.c", "\u00e9.\u00e9.\u00e9", "zz.aa." + signature]:
        assert tokens.refusal(made) == "bad-token", made
    assert tokens.refusal("a" * (MAX_TOKEN_CHARS + 1)) == "token-too-long"


def test_every_page_gets_a_token_of_its_own():
    tokens = ChannelTokens()
    assert len({tokens.new() for _ in range(1000)}) == 1000
