"""What the last accepted request of a conversation held, and a cheap proof that the next one starts with it.

`RequestChecker` checks every request whole, as the API does, yet over a long run checks only the last turn again
and the new messages: this proves that the messages it accepted last time are unchanged. The sandbox's own run keeps
its messages in a `watched.Conversation`, whose every change is counted, so the proof costs nothing per earlier
message and a run stays linear. Any other list is proved at C speed: the same objects, contents and lengths, or,
for a request that came as JSON, equal values.
"""

from __future__ import annotations

from enum import StrEnum
from operator import itemgetter
from typing import Any

from agent.api import watched

_content = itemgetter("content")


class Proof(StrEnum):
    """How the earlier messages were proved unchanged."""

    WATCHED = "watched"  # the run's own conversation: no change was counted, nothing gone over
    COMPARED = "compared"  # compared in C: the same message objects, holding the same contents, of the same lengths


class AcceptedPrefix:
    """The messages of the last accepted request, as `proof` compares the next request's with."""

    def __init__(self) -> None:
        self.length = 0
        self.messages: list[Any] = []
        self.contents: list[Any] = []
        self.content_sizes: list[int] = []
        self.changes = watched.changes()
        self.conversation: list[Any] | None = None  # the last accepted messages list itself
        self.all_watched = False  # ... a `watched.Conversation` whose every message is fully watched

    def proof(self, messages: list[Any]) -> Proof | None:
        """How the accepted messages are, as far as a cheap proof can tell, as they were; None: not proved.

        What this cannot see: an in-place change to a dict the loop built itself (a message's role or an added
        key, a block of its own tool results), or a block swapped inside the loop's own list for another.
        """
        n = self.length
        if not 0 < n <= len(messages) or self.changes != watched.changes():
            return None
        if messages is self.conversation and self.all_watched:
            return Proof.WATCHED
        prefix = messages[:n]
        if prefix != self.messages:
            return None
        try:
            contents = [message["content"] for message in prefix]  # faster than map(itemgetter) on 3.11+
            same = contents == self.contents and list(map(len, contents)) == self.content_sizes
        except (KeyError, TypeError):  # a message that lost its content since
            return None
        return Proof.COMPARED if same else None

    def forget_from(self, start: int) -> None:
        """The messages from `start` on are checked again: they are remembered again when accepted."""
        for remembered in (self.messages, self.contents, self.content_sizes):
            del remembered[start:]

    def remember(self, messages: list[Any]) -> None:
        added = messages[len(self.messages):]
        if messages is not self.conversation:
            self.conversation, added_watched = messages, messages
            self.all_watched = isinstance(messages, watched.Conversation)
        else:
            added_watched = added
        self.all_watched = self.all_watched and all(map(watched.fully_watched, added_watched))
        self.messages.extend(added)
        contents = list(map(_content, added))
        self.contents.extend(contents)
        self.content_sizes.extend(map(len, contents))
        self.length = len(messages)
        self.changes = watched.changes()
