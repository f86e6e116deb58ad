"""Specification of a sweep's summary: groups by the parameters asked for, in matrix order, each metric's mean and
spread over the group's cells."""

from __future__ import annotations

import math
from typing import Any

import pytest

from kubesched.sweep.summary import Figures, figures, summarise


def row(profile: str, seed: int, **metrics: Any) -> dict[str, Any]:
    return {"profile": profile, "seed": seed, "error": None, **metrics}


ROWS = [row("b", 0, **{"pods.bound": 4.0}), row("a", 0, **{"pods.bound": 2.0}),
        row("b", 1, **{"pods.bound": 6.0, "x": 1.0}), row("a", 1, **{"pods.bound": 2.0})]


@pytest.mark.parametrize(("values", "expected"), [
    pytest.param([], None, id="none"),
    pytest.param([3.0], Figures(1, 3.0, 0.0, 3.0, 3.0), id="one-cell-no-spread"),
    pytest.param([4.0, 6.0], Figures(2, 5.0, math.sqrt(2), 4.0, 6.0), id="sample-standard-deviation"),
])
def test_figures_are_count_mean_sample_std_min_and_max(values: list[float], expected: Figures | None) -> None:
    assert figures(values) == expected


def test_groups_come_in_the_order_of_their_first_cell() -> None:
    summary = summarise(ROWS, ["profile"], ["pods.bound"])
    assert [(g.values, g.cells, g.metrics["pods.bound"]) for g in summary.groups] == [
        (("b",), 2, Figures(2, 5.0, math.sqrt(2), 4.0, 6.0)), (("a",), 2, Figures(2, 2.0, 0.0, 2.0, 2.0))]


def test_a_metric_only_some_cells_have_is_summed_up_over_those() -> None:
    summary = summarise(ROWS, ["profile"], ["x"])
    assert [g.metrics["x"] for g in summary.groups] == [Figures(1, 1.0, 0.0, 1.0, 1.0), None]


def test_grouping_by_two_parameters() -> None:
    summary = summarise(ROWS, ["profile", "seed"], ["pods.bound"])
    assert [g.values for g in summary.groups] == [("b", 0), ("a", 0), ("b", 1), ("a", 1)]


def test_failed_cells_are_counted_per_group_and_overall() -> None:
    rows = [*ROWS, {**row("a", 2), "error": "did not settle"}]
    summary = summarise(rows, ["profile"], ["pods.bound"])
    assert (summary.cells, summary.failed, [g.failed for g in summary.groups]) == (5, 1, [0, 1])
    assert summary.lines()[2].split()[:4] == ["a", "3", "(1", "failed)"]


def test_the_table_shows_mean_and_std_and_a_dash_for_nothing() -> None:
    assert summarise(ROWS, ["profile"], ["pods.bound", "x"]).lines() == [
        "profile  cells  pods.bound  x",
        "b        2      5 ± 1.414   1",
        "a        2      2           -"]


def test_the_document_names_each_group_by_its_values() -> None:
    document = summarise(ROWS[:2], ["profile"], ["pods.bound"]).to_json()
    assert document == {"kind": "SweepSummary", "by": ["profile"], "metrics": ["pods.bound"], "cells": 2,
                        "failed": 0, "groups": [
                            {"values": {"profile": "b"}, "cells": 1, "failed": 0,
                             "metrics": {"pods.bound": {"count": 1, "mean": 4.0, "std": 0.0, "min": 4.0, "max": 4.0}}},
                            {"values": {"profile": "a"}, "cells": 1, "failed": 0,
                             "metrics": {"pods.bound": {"count": 1, "mean": 2.0, "std": 0.0, "min": 2.0,
                                                        "max": 2.0}}}]}


@pytest.mark.parametrize(("value", "shown"), [
    pytest.param(11000.0, "11000", id="whole-number-in-full"),
    pytest.param(1454.26, "1454.3", id="large-with-one-decimal"),
    pytest.param(0.57735, "0.5774", id="four-significant-digits"),
    pytest.param(0.0, "0", id="zero"),
])
def test_numbers_keep_four_significant_digits_but_never_an_exponent_for_large_ones(value: float, shown: str) -> None:
    assert summarise([row("a", 0, m=value)], ["profile"], ["m"]).lines()[1].split()[-1] == shown
