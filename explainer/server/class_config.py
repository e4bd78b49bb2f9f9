"""A server that holds a class: what it is started with (the teacher, the channel's tokens, the plan).

``ServerConfig.classroom`` is a ``ClassConfig`` on a server started for a class (README "Serving
for a class"), None on any other; the class itself is its room (``class_room.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from explainer.classroom.plan import Step
from explainer.server.channel_tokens import ChannelTokens
from explainer.server.teacher import Teacher


@dataclass(frozen=True)
class ClassConfig:
    """What a class is started with: the teacher's key, the channel tokens' secret and the lecture plan."""

    plan: tuple[Step, ...]
    teacher: Teacher = field(default_factory=Teacher)
    tokens: ChannelTokens = field(default_factory=ChannelTokens)
