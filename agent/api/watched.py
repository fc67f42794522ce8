"""Replies that say when they are changed in place, so a long run can be checked whole in linear time.

The API checks every request whole, so a loop that edits a message it already
sent is judged on the edited request. Comparing every earlier message deeply on
every turn would make a 4000-turn run quadratic. Instead the checker proves the
earlier messages unchanged cheaply (`agent.api.requests`): the same message, content
and block objects, of the same lengths, compared at C speed; and the blocks the
model handed out are these watched containers, which count every change made to
them. Any change the proof cannot rule out sends the request through a full check.

A run's own messages array is a `Conversation`: every message in it is watched
too, and it only grows at its end, which changes nothing sent before. So for
the sandbox's own loop the checker needs no pass over the earlier messages at
all: the same conversation, no change counted, and the earlier messages stand.

A watched container is a plain `dict` or `list` to everything else: it compares,
copies and serialises as one.
"""

from __future__ import annotations

from typing import Any

_changes = [0]


def changes() -> int:
    """How many in-place changes any watched container has had: a new number means something moved."""
    return _changes[0]


def _counted(name: str, base: type) -> Any:
    method = getattr(base, name)

    def changed(self: Any, *args: Any, **kwargs: Any) -> Any:
        _changes[0] += 1
        return method(self, *args, **kwargs)

    changed.__name__ = name
    return changed


class WatchedDict(dict[str, Any]):
    """A dict that counts its in-place changes."""

    __slots__ = ()

    def __reduce__(self) -> tuple[Any, ...]:  # unpickled whole, as it was: filling it item by item is no change
        return WatchedDict, (dict(self),)


class WatchedList(list[Any]):
    """A list that counts its in-place changes."""

    __slots__ = ()

    def __reduce__(self) -> tuple[Any, ...]:
        return WatchedList, (list(self),)


for _name in ("__setitem__", "__delitem__", "pop", "popitem", "clear", "update", "setdefault", "__ior__"):
    setattr(WatchedDict, _name, _counted(_name, dict))
for _name in ("__setitem__", "__delitem__", "append", "extend", "insert", "pop", "remove", "clear", "sort",
              "reverse", "__iadd__", "__imul__"):
    setattr(WatchedList, _name, _counted(_name, list))


class Conversation(list[Any]):
    """A run's messages: each message is kept as a watched copy, and growing at the end is not a change.

    Appending cannot alter what was sent before; replacing, removing, inserting or reordering can, so those
    are counted like any change to a watched container.
    """

    __slots__ = ()

    def __init__(self, messages: Any = ()) -> None:
        super().__init__(watched(message) for message in messages)

    def append(self, message: Any) -> None:
        super().append(watched(message))

    def extend(self, messages: Any) -> None:
        super().extend(watched(message) for message in messages)

    def __iadd__(self, messages: Any) -> Conversation:  # type: ignore[misc]  # list's own __add__ is not changed
        self.extend(messages)
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        # Its messages come back as they were pickled (watched containers stay watched): not watched again.
        return _conversation_of, (list(self),)


def _conversation_of(messages: list[Any]) -> Conversation:
    conversation = Conversation()
    list.extend(conversation, messages)
    return conversation


for _name in ("__setitem__", "__delitem__", "insert", "pop", "remove", "clear", "sort", "reverse", "__imul__"):
    setattr(Conversation, _name, _counted(_name, list))


def fully_watched(value: Any) -> bool:
    """Whether every dict and list in `value` is a watched container, so no change to it can go uncounted."""
    if isinstance(value, dict):
        return isinstance(value, WatchedDict) and all(map(fully_watched, value.values()))
    if isinstance(value, list):
        return isinstance(value, WatchedList) and all(map(fully_watched, value))
    return True


def watched(value: Any) -> Any:
    """Plain JSON data whose dicts and lists count their changes: a copy, but for parts watched already,
    which are taken as they are (a reply's content the FakeModel served stays the one object)."""
    if isinstance(value, WatchedDict | WatchedList) and fully_watched(value):
        return value
    if isinstance(value, dict):
        return WatchedDict((key, watched(item)) for key, item in value.items())
    if isinstance(value, list):
        return WatchedList(watched(item) for item in value)
    return value
