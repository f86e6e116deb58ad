"""Specification of the metric series: one sample per instant a value changed, read back as a step function."""

from __future__ import annotations

import pytest

from kubesched.analysis import Series
from kubesched.analysis.series import SeriesBuilder


def test_builder_drops_rows_that_change_nothing() -> None:
    """A row equal to the previous one adds no sample."""
    builder = SeriesBuilder(["x"])
    for when, value in ((0.0, 1), (5.0, 1), (7.0, 2)):
        builder.sample(when, [value])
    assert builder.build() == Series((0.0, 7.0), {"x": (1, 2)})


def test_builder_keeps_the_last_row_of_an_instant() -> None:
    """Several rows at one instant: the state after all of them is the sample."""
    builder = SeriesBuilder(["x"])
    builder.sample(0.0, [1])
    builder.sample(3.0, [5])
    builder.sample(3.0, [2])
    assert builder.build() == Series((0.0, 3.0), {"x": (1, 2)})


def test_builder_forgets_an_instant_that_ends_where_it_began() -> None:
    """Changes at one instant that cancel out leave no sample there."""
    builder = SeriesBuilder(["x"])
    builder.sample(0.0, [1])
    builder.sample(3.0, [2])
    builder.sample(3.0, [1])
    assert builder.build() == Series((0.0,), {"x": (1,)})


def test_value_at_a_time_is_the_last_sample_before_it() -> None:
    """A step function: the value holds until the next sample; 0 before the first."""
    series = Series((1.0, 4.0), {"x": (3, 7)})
    assert [series.at("x", t) for t in (0.5, 1.0, 3.9, 4.0, 100.0)] == [0.0, 3, 3, 7, 7]


def test_resample_reads_the_step_function_on_a_grid() -> None:
    """Every grid point takes the value in force there, up to the last sample (or the end given)."""
    series = Series((0.0, 2.5, 4.0), {"x": (1, 2, 3)})
    assert series.resample(1.0) == Series((0.0, 1.0, 2.0, 3.0, 4.0), {"x": (1, 1, 1, 2, 3)})
    assert series.resample(2.0, end=8.0).values["x"] == (1, 1, 3, 3, 3)


def test_resample_refuses_a_step_that_is_not_positive() -> None:
    """A zero step would never end."""
    with pytest.raises(ValueError, match="positive"):
        Series((0.0,), {"x": (1,)}).resample(0.0)


def test_json_round_trip() -> None:
    """What to_json writes, from_json reads back."""
    series = Series((0.0, 2.0), {"x": (1.0, 2.0)})
    assert Series.from_json(series.to_json()) == series
