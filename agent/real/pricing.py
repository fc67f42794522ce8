"""What a run's tokens cost: usage per turn and in total, and a dollar estimate.

The prices are a small table copied by hand from Anthropic's published price
list; they change, so the table says where and when they were read, and a model
that is not in it gets tokens without a price (None), never a guess.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from agent.loop import RunState

PRICES_SOURCE = "https://platform.claude.com/docs/en/about-claude/pricing"
PRICES_READ_ON = "2026-11-29"
"""The day the table was copied from the source (and from each model's overview page there)."""

USAGE_FIELDS = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")


@dataclass(frozen=True)
class Price:
    """Dollars per million tokens of each kind."""

    input: float
    output: float
    cache_write: float
    """Writing the prompt cache with the default five-minute lifetime."""
    cache_write_1h: float
    """Writing the prompt cache with a one-hour lifetime."""
    cache_read: float
    """A cache hit."""


_OPUS_4_5_AND_LATER = Price(5.00, 25.00, 6.25, 10.00, 0.50)
_OPUS_4 = Price(15.00, 75.00, 18.75, 30.00, 1.50)
_SONNET_4 = Price(3.00, 15.00, 3.75, 6.00, 0.30)

PRICES: dict[str, Price] = {
    "claude-fable-5-1": Price(10.00, 50.00, 12.50, 20.00, 0.25),
    "claude-mythos-5-1": Price(10.00, 50.00, 12.50, 20.00, 0.25),
    "claude-fable-5": Price(10.00, 50.00, 12.50, 20.00, 1.00),
    "claude-mythos-5": Price(10.00, 50.00, 12.50, 20.00, 1.00),
    "claude-opus-5": _OPUS_4_5_AND_LATER,
    "claude-opus-4-8": _OPUS_4_5_AND_LATER,
    "claude-opus-4-7": _OPUS_4_5_AND_LATER,
    "claude-opus-4-6": _OPUS_4_5_AND_LATER,
    "claude-opus-4-5": _OPUS_4_5_AND_LATER,
    "claude-opus-4-1": _OPUS_4,
    "claude-opus-4": _OPUS_4,
    "claude-sonnet-5": Price(2.00, 10.00, 2.50, 4.00, 0.20),
    "claude-sonnet-4-6": _SONNET_4,
    "claude-sonnet-4-5": _SONNET_4,
    "claude-sonnet-4": _SONNET_4,
    "claude-haiku-4-5": Price(1.00, 5.00, 1.25, 2.00, 0.10),
}
# Where a page gave only input and output prices, the cache prices follow the
# page's own multipliers of the input price: 1.25x (5 min), 2x (1 h), 0.1x (hit).
# Left out on purpose: models whose price has more than one tier (by prompt
# length) or changed recently enough that the copy here could not be checked.


def price_for(model_name: str) -> Price | None:
    """The price of a model by its id, with or without a date suffix (`claude-haiku-4-5-20251001`)."""
    name = model_name.strip().lower()
    return PRICES.get(name) or PRICES.get(re.sub(r"-\d{8}$", "", name))


def _count(usage: dict[str, Any], name: str) -> int:
    value = usage.get(name)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def cost_estimate(model_name: str, usage: dict[str, Any]) -> float | None:
    """Dollars for one reply's usage at the table's prices; None for a model the table does not hold."""
    price = price_for(model_name)
    if price is None:
        return None
    written = _count(usage, "cache_creation_input_tokens")
    said = usage.get("cache_creation")
    split: dict[str, Any] = said if isinstance(said, dict) else {}
    written_1h = min(_count(split, "ephemeral_1h_input_tokens"), written)
    dollars = (_count(usage, "input_tokens") * price.input + _count(usage, "output_tokens") * price.output
               + (written - written_1h) * price.cache_write + written_1h * price.cache_write_1h
               + _count(usage, "cache_read_input_tokens") * price.cache_read)
    return dollars / 1_000_000


def total_input(usage: dict[str, Any]) -> int:
    """All the input a request was charged for: fresh, cache written and cache read."""
    return sum(_count(usage, name) for name in ("input_tokens", "cache_creation_input_tokens",
                                                "cache_read_input_tokens"))


@dataclass
class RunUsage:
    """A run's usage: per turn that got a reply, and in total."""

    per_turn: list[tuple[int, dict[str, int]]]
    """(turn, the reply's token counts) for every reply that carried usage."""
    total: dict[str, int]
    """Each of USAGE_FIELDS summed over the run."""
    cost: float | None
    """Dollars at the table's prices, or None when the model is not in the table."""


def run_usage(state: RunState, model_name: str) -> RunUsage:
    """Sum the usage of every reply a run received, and price it."""
    per_turn = []
    total = dict.fromkeys(USAGE_FIELDS, 0)
    dollars = 0.0 if price_for(model_name) is not None else None
    for record in state.records:
        usage = record.usage
        if not usage:
            continue
        counts = {name: _count(usage, name) for name in USAGE_FIELDS if name in usage}
        per_turn.append((record.turn, counts))
        for name, value in counts.items():
            total[name] += value
        if dollars is not None:
            dollars += cost_estimate(model_name, usage) or 0.0
    return RunUsage(per_turn=per_turn, total=total, cost=dollars)
