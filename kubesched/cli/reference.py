"""``--reference-pod cpu=2,memory=4Gi``: the requests of the pod the run metrics' fragmentation figures count
copies of (docs/analysis.md)."""

from __future__ import annotations

from typing import Any

import click

from kubesched.analysis.recorder import requested_amounts
from kubesched.api.quantity import Quantity, QuantityError
from kubesched.api.resources import FIRST_RESOURCES, PODS, is_scalar_resource_name
from kubesched.framework._resource import Resource

REFERENCE_HELP = ("The requests of the fragmentation figures' reference pod, as NAME=QUANTITY pairs "
                  "(cpu=2,memory=4Gi,nvidia.com/gpu=1); default: the requests most pods of the run share.")


class ReferencePod(click.ParamType):  # type: ignore[type-arg]
    """A reference pod's requests, per resource in the scheduler's units (cpu in millicores)."""

    name = "NAME=QUANTITY,..."

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> dict[str, int]:
        if isinstance(value, dict):
            return value
        amounts: dict[str, Quantity] = {}
        for part in str(value).split(","):
            name, sep, text = part.strip().partition("=")
            if not sep or not name:
                self.fail(f'"{part}" is not NAME=QUANTITY', param, ctx)
            if name == PODS or not (name in FIRST_RESOURCES or is_scalar_resource_name(name)):
                self.fail(f'"{name}" is not a resource a pod requests', param, ctx)
            if name in amounts:
                self.fail(f'"{name}" is given twice', param, ctx)
            try:
                amounts[name] = Quantity.parse(text)
            except QuantityError as exc:
                self.fail(f"{name}: {exc}", param, ctx)
        requests = requested_amounts(Resource.from_amounts(amounts))
        del requests[PODS]
        return requests


reference_pod_option = click.option("--reference-pod", "reference_pod", type=ReferencePod(), default=None,
                                    help=REFERENCE_HELP)
