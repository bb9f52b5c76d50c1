"""Model prices: the table by longest prefix, the `prices` setting over it, and what usage costs."""

from __future__ import annotations

import math

import pytest

from harness9.provider.prices import price_of
from harness9.schema import Price, Usage
from harness9.service.config.settings import SettingsError, parse_overrides
from harness9.service.sessions.session import run_cost

pytestmark = pytest.mark.timeout(10)


def test_the_longest_prefix_wins_also_behind_a_router_prefix() -> None:
    assert price_of("claude-sonnet-4-5-20250929") == Price(3.0, 15.0, 0.3, 3.75)
    assert price_of("gpt-4o-mini-2024-07-18") == Price(0.15, 0.6, 0.075, 0.0)  # not gpt-4o's
    assert price_of("openrouter/anthropic/claude-opus-4-5") == Price(5.0, 25.0, 0.5, 6.25)
    assert price_of("my-local-model") is None


def test_the_setting_overrides_and_adds() -> None:
    prices = parse_overrides({"prices": {
        "gpt-4o": {"input": 1, "output": 2},
        "my-local": {"input": 0, "output": 0, "cachedInput": 0, "cacheWrite": 0},
    }})["prices"]
    assert price_of("gpt-4o-2024-08-06", prices) == Price(1.0, 2.0)
    assert price_of("my-local-model", prices) == Price(0.0, 0.0, 0.0, 0.0)
    assert price_of("gpt-4o-mini", prices) == Price(1.0, 2.0)  # the setting's prefix comes first


@pytest.mark.parametrize("bad", [
    {"gpt-4o": {"input": 1}},
    {"gpt-4o": {"input": -1, "output": 2}},
    {"gpt-4o": {"input": "1", "output": 2}},
    {"gpt-4o": {"input": 1, "output": 2, "cached": 1}},
    {"": {"input": 1, "output": 2}},
    ["gpt-4o"],
])
def test_a_bad_price_names_the_setting(bad: object) -> None:
    with pytest.raises(SettingsError) as error:
        parse_overrides({"prices": bad})
    assert error.value.field == "prices"


@pytest.mark.parametrize(("amounts", "named"), [
    ({"input": float("inf"), "output": 2}, "gpt-4o.input"),
    ({"input": 1, "output": float("nan")}, "gpt-4o.output"),
    ({"input": 1, "output": 2, "cachedInput": float("-inf")}, "gpt-4o.cachedInput"),
    ({"input": 1, "output": 2, "cacheWrite": -0.5}, "gpt-4o.cacheWrite"),
    ({"input": 10**400, "output": 2}, "gpt-4o.input"),
], ids=["infinite", "nan", "minus-infinite", "negative", "too-large-for-a-float"])
def test_a_price_that_is_not_a_finite_amount_is_refused_naming_it(
    amounts: dict[str, float], named: str
) -> None:
    with pytest.raises(SettingsError) as error:
        parse_overrides({"prices": {"gpt-4o": amounts}})
    assert error.value.field == "prices"
    assert f"{named} must be a finite number" in str(error.value)


def test_prices_so_high_that_a_cost_overflows_give_no_cost_rather_than_infinity() -> None:
    """A stored run whose cost went out as infinity counts nothing and shows none."""
    assert math.isinf(Price(1e308, 1e308).cost(Usage(input_tokens=10**7, output_tokens=10**7)))
    assert run_cost({"costUsd": float("inf")}) is None
    assert run_cost({"costUsd": float("nan")}) is None
    assert run_cost({"costUsd": 0.25}) == 0.25


def test_cache_reads_and_writes_are_priced_apart_from_plain_input() -> None:
    price = Price(input=3.0, output=15.0, cached_input=0.3, cache_write=3.75)
    usage = Usage(input_tokens=10_000, output_tokens=1_000, cached_input_tokens=6_000,
                  cache_write_tokens=2_000)
    # 2,000 plain input, 6,000 read, 2,000 written, 1,000 out.
    assert price.cost(usage) == pytest.approx((2_000 * 3 + 6_000 * 0.3 + 2_000 * 3.75
                                               + 1_000 * 15) / 1e6)
    assert Price(1.0, 2.0).cost(usage) == pytest.approx((10_000 * 1 + 1_000 * 2) / 1e6)
