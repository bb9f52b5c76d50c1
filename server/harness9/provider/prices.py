"""What models cost: US dollars per million tokens, by model-name prefix (the longest matching
prefix wins, also behind a router prefix such as `openrouter/…/`).

The figures are the services' published list prices for their own APIs; a proxy, a discount or a
price change makes them wrong, so the `prices` setting overrides or adds entries. A model
without an entry has no cost shown, rather than a made-up one.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from harness9.schema import Price

PRICES: dict[str, Price] = {
    # Anthropic: cache reads at a tenth of the input price, 5-minute cache writes at 1.25×.
    "claude-opus-4-5": Price(5.0, 25.0, 0.5, 6.25),
    "claude-opus-4": Price(15.0, 75.0, 1.5, 18.75),
    "claude-sonnet-4": Price(3.0, 15.0, 0.3, 3.75),
    "claude-3-7-sonnet": Price(3.0, 15.0, 0.3, 3.75),
    "claude-3-5-sonnet": Price(3.0, 15.0, 0.3, 3.75),
    "claude-haiku-4-5": Price(1.0, 5.0, 0.1, 1.25),
    "claude-3-5-haiku": Price(0.8, 4.0, 0.08, 1.0),
    "claude-3-haiku": Price(0.25, 1.25, 0.03, 0.3),
    # OpenAI: cached input as published per model; no charge for writing the cache.
    "gpt-5": Price(1.25, 10.0, 0.125, 0.0),
    "gpt-5-mini": Price(0.25, 2.0, 0.025, 0.0),
    "gpt-5-nano": Price(0.05, 0.4, 0.005, 0.0),
    "gpt-4.1": Price(2.0, 8.0, 0.5, 0.0),
    "gpt-4.1-mini": Price(0.4, 1.6, 0.1, 0.0),
    "gpt-4.1-nano": Price(0.1, 0.4, 0.025, 0.0),
    "gpt-4o": Price(2.5, 10.0, 1.25, 0.0),
    "gpt-4o-mini": Price(0.15, 0.6, 0.075, 0.0),
    "o3": Price(2.0, 8.0, 0.5, 0.0),
    "o4-mini": Price(1.1, 4.4, 0.275, 0.0),
    "o1": Price(15.0, 60.0, 7.5, 0.0),
    "deepseek-chat": Price(0.27, 1.1, 0.07, 0.0),
    "deepseek-reasoner": Price(0.55, 2.19, 0.14, 0.0),
}


def price_of(model: str, overrides: Mapping[str, Price] | None = None) -> Price | None:
    """The price of `model`: from `overrides` (the `prices` setting) first, then the table; the
    longest matching prefix of either wins. None when neither knows it."""
    name = model.lower().rsplit("/", 1)[-1]
    for table in (overrides or {}, PRICES):
        matches = [prefix for prefix in table if name.startswith(prefix.lower())]
        if matches:
            return table[max(matches, key=len)]
    return None


_PRICE_KEYS = {"input": "input", "output": "output", "cachedInput": "cached_input",
               "cacheWrite": "cache_write"}


def prices_setting(value: Any) -> Mapping[str, Price]:
    """The `prices` setting: {model-name prefix: {input, output, cachedInput?, cacheWrite?}},
    US dollars per million tokens; a TypeError saying what is wrong when it is not that."""
    if not isinstance(value, Mapping):
        raise TypeError(f"must be an object of model-name prefixes, got {value!r}")
    prices: dict[str, Price] = {}
    for prefix, entry in value.items():
        if not isinstance(prefix, str) or not prefix or not isinstance(entry, Mapping):
            raise TypeError(f"{prefix!r} must name a model prefix and hold an object")
        unknown = set(entry) - set(_PRICE_KEYS)
        if unknown or "input" not in entry or "output" not in entry:
            raise TypeError(f"{prefix}: give input and output (and cachedInput, cacheWrite) "
                            f"as dollars per million tokens ≥ 0, got {dict(entry)!r}")
        prices[prefix] = Price(**{_PRICE_KEYS[k]: _dollars(f"{prefix}.{k}", v)
                                  for k, v in entry.items()})
    return prices


def _dollars(name: str, value: Any) -> float:
    """A price in dollars per million tokens: a finite number ≥ 0 (an infinite or NaN price
    would make every cost infinite, which JSON cannot carry)."""
    amount = None
    shown = "a number too large" if isinstance(value, int) and value > 1e300 else repr(value)
    if isinstance(value, int | float) and not isinstance(value, bool):
        try:
            amount = float(value)
        except OverflowError:  # an integer too large for a float
            amount = None
    if amount is None or not math.isfinite(amount) or amount < 0:
        raise TypeError(f"{name} must be a finite number of dollars per million tokens ≥ 0, "
                        f"got {shown}")
    return amount
