"""The array helpers of kubesched.framework._helpers give what their per-node counterparts give."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from kubesched.framework._helpers import default_normalize_score, default_normalize_scores
from kubesched.framework._types import NodeScore

SCORES = st.lists(st.one_of(st.integers(-5, 300), st.integers(-(2**60), 2**60)), max_size=8)


def per_node(raw: list[int], reverse: bool, max_priority: int) -> list[int]:
    """default_normalize_score's result on NodeScores holding ``raw``."""
    scores = [NodeScore(f"n{i}", s) for i, s in enumerate(raw)]
    default_normalize_score(scores, reverse=reverse, max_priority=max_priority)
    return [ns.score for ns in scores]


@given(raw=SCORES, reverse=st.booleans(), max_priority=st.sampled_from([100, 10, 1, 0, 5000]))
def test_default_normalize_scores_equals_the_per_node_normalisation(raw: list[int], reverse: bool,
                                                                    max_priority: int) -> None:
    """Same integers as default_normalize_score (floor division, negatives and huge raw scores included), clipped
    to int64's range."""
    out = default_normalize_scores(np.array(raw, dtype=np.int64), reverse=reverse, max_priority=max_priority)
    assert out.tolist() == [min(max(s, -(2**63)), 2**63 - 1) for s in per_node(raw, reverse, max_priority)]


@pytest.mark.parametrize(("raw", "reverse", "expected"), [
    pytest.param([0, 0], False, [0, 0], id="all-zero-stay-zero"),
    pytest.param([0, 0], True, [100, 100], id="all-zero-reversed-become-100"),
    pytest.param([0, 1, 3], True, [100, 67, 0], id="reversed-proportionally"),
    pytest.param([1, 3], False, [33, 100], id="best-becomes-100"),
    pytest.param([], True, [], id="no-nodes"),
    pytest.param([1, -(2**62)], False, [100, -(2**63)], id="beyond-int64-clipped"),
])
def test_default_normalize_scores_table(raw: list[int], reverse: bool, expected: list[int]) -> None:
    """DefaultNormalizeScore(100, reverse) over an array."""
    assert default_normalize_scores(np.array(raw, dtype=np.int64), reverse=reverse).tolist() == expected
