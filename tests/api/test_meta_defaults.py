"""Default map fields (labels, annotations, selectors) are one shared empty map that cannot be written."""

from __future__ import annotations

import copy
import pickle

import pytest

from kubesched.api.meta import EMPTY_MAP
from kubesched.testing import make_node, make_pod


def test_a_pod_without_labels_cannot_change_every_other_pod() -> None:
    """Writing into the shared default raises instead of labelling every pod created afterwards."""
    pod = make_pod("p").obj()
    with pytest.raises(TypeError):
        pod.metadata.labels["leak"] = "yes"  # type: ignore[index]
    assert make_pod("q").obj().spec.node_selector == {}


def test_the_empty_map_behaves_like_an_empty_dict() -> None:
    """Equal to {} both ways, falsy, and the same object after copy, deepcopy and pickling."""
    assert EMPTY_MAP == {}
    assert {} == EMPTY_MAP  # noqa: SIM300 - dict.__eq__ first, then ours
    assert not EMPTY_MAP
    assert dict(EMPTY_MAP) == {}
    assert copy.deepcopy(EMPTY_MAP) is EMPTY_MAP
    assert pickle.loads(pickle.dumps(EMPTY_MAP)) is EMPTY_MAP
    assert make_node("n").obj().metadata.annotations is EMPTY_MAP
