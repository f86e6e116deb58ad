"""Specification of the statistics behind the run metrics: nearest-rank percentiles, spread over nodes."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kubesched.analysis import nearest_rank, percentiles, spread


@pytest.mark.parametrize(("values", "fraction", "expected"), [
    pytest.param([], 0.95, 0.0, id="empty"),
    pytest.param([7.0], 0.5, 7.0, id="one-value"),
    pytest.param([1.0, 2.0], 0.5, 1.0, id="median-of-two-is-the-lower"),
    pytest.param([1.0, 2.0], 0.95, 2.0, id="p95-of-two"),
    pytest.param([float(v) for v in range(1, 21)], 0.95, 19.0, id="p95-of-twenty-is-the-19th"),
    pytest.param([float(v) for v in range(1, 101)], 0.5, 50.0, id="median-of-hundred"),
])
def test_nearest_rank_takes_the_value_at_rank_ceil_fraction_n(values: list[float], fraction: float,
                                                               expected: float) -> None:
    """The percentile is one of the values: the one at rank ceil(fraction * n)."""
    assert nearest_rank(values, fraction) == expected


def test_spread_of_two_nodes_by_hand() -> None:
    """Ratios 0.5 and 0.75: mean 0.625, max and p95 0.75, CV 0.125/0.625 = 0.2, Jain 1.5625/1.625."""
    figures = spread([0.5, 0.75])
    assert (figures.count, figures.mean, figures.max, figures.p95) == (2, 0.625, 0.75, 0.75)
    assert figures.cv == pytest.approx(0.2)
    assert figures.jain == pytest.approx(1.5625 / 1.625)


def test_spread_of_even_nodes_is_perfectly_fair() -> None:
    """Equal ratios: CV 0 and Jain's index 1."""
    figures = spread([0.3] * 5)
    assert figures.cv == pytest.approx(0.0, abs=1e-12)
    assert figures.jain == 1.0


def test_spread_of_one_loaded_node_among_n_has_jain_one_over_n() -> None:
    """All the load on one of four nodes: Jain's index is its lower bound 1/4."""
    assert spread([1.0, 0.0, 0.0, 0.0]).jain == pytest.approx(0.25)


def test_spread_of_empty_nodes_is_zero_and_fair() -> None:
    """No load anywhere: mean 0, CV 0, Jain 1 (nothing is uneven)."""
    figures = spread([0.0, 0.0])
    assert (figures.mean, figures.cv, figures.jain) == (0.0, 0.0, 1.0)


def test_percentiles_of_pending_times() -> None:
    """Median, p95 and max by nearest rank."""
    figures = percentiles([3.0, 1.0, 2.0, 10.0])
    assert (figures.count, figures.p50, figures.p95, figures.max) == (4, 2.0, 10.0, 10.0)


@given(st.lists(st.floats(min_value=0, max_value=10, allow_nan=False), min_size=1, max_size=50))
def test_jain_index_lies_between_one_over_n_and_one(values: list[float]) -> None:
    """Jain's fairness index is within [1/n, 1] for any non-negative values; the CV is never negative."""
    figures = spread(values)
    assert 1 / len(values) - 1e-9 <= figures.jain <= 1.0
    assert figures.cv >= 0.0
    assert figures.max == max(values)
    assert math.isclose(figures.mean, sum(values) / len(values), rel_tol=1e-9, abs_tol=1e-12)
