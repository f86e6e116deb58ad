"""What the loader reads past or leaves out, said per object or kind rather than dropped silently: the kinds it
skips (with a hint for the ones passed by mistake) and the fields of an object it does not model."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubesched.io.fields import is_mapping

_SKIP_REASON = "kubesched does not read this kind"
#: Kinds users pass by mistake, with what to do instead.
_SKIP_REASONS = {
    "KubeSchedulerConfiguration": "a scheduler configuration is not a cluster object: pass its file with --profile",
}
#: Where each kind keeps its pods' spec.
_POD_SPEC_PATHS = {
    "Pod": ("spec",),
    "CronJob": ("spec", "jobTemplate", "spec", "template", "spec"),
}
_TEMPLATE_SPEC_PATH = ("spec", "template", "spec")


def skip_reason(kind: str) -> str:
    """Why objects of ``kind`` are skipped, and what to do instead where there is something to do."""
    return _SKIP_REASONS.get(kind, _SKIP_REASON)


def resource_claims_path(kind: str, obj: Mapping[str, Any]) -> str | None:
    """Where a pod (or a workload's pod template) asks for resource claims (dynamic resource allocation, which
    kubesched does not model), or None."""
    steps = _POD_SPEC_PATHS.get(kind, _TEMPLATE_SPEC_PATH)
    value: object = obj
    for step in steps:
        if not is_mapping(value):
            return None
        value = value.get(step)
    if is_mapping(value) and value.get("resourceClaims"):
        return ".".join(steps) + ".resourceClaims"
    return None
