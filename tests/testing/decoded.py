"""The objects kubesched.io makes of a YAML manifest, to compare the builders' objects with."""

from __future__ import annotations

from typing import Any

import yaml

from kubesched.api.node import Node
from kubesched.api.pod import Pod
from kubesched.api.policy import PodDisruptionBudget, PriorityClass
from kubesched.api.workload import Namespace
from kubesched.io import decode, decode_pod


def _manifest(text: str) -> Any:
    loaded = yaml.safe_load(text)
    assert isinstance(loaded, dict), text
    return loaded


def pod(text: str) -> Pod:
    """The Pod a manifest decodes to (a problem in it raises)."""
    return decode_pod.pod(_manifest(text))


def node(text: str) -> Node:
    """The Node a manifest decodes to."""
    return decode.node(_manifest(text))


def pdb(text: str) -> PodDisruptionBudget:
    """The PodDisruptionBudget a manifest decodes to."""
    return decode.pod_disruption_budget(_manifest(text))


def priority_class(text: str) -> PriorityClass:
    """The PriorityClass a manifest decodes to."""
    return decode.priority_class(_manifest(text))


def namespace(text: str) -> Namespace:
    """The Namespace a manifest decodes to."""
    return decode.namespace(_manifest(text))
