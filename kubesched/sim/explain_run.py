"""A run of ``kubesched simulate`` that explains pods: the attempts of the pods named or selected are recorded as
they happen; the pods pending at the end are known only then, so when some of them were not recorded the run is
made again, recording them (the same input and seed give the same run, and explaining changes no placement)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

import attrs

from kubesched.api.pod import Pod
from kubesched.runtime import Explainer
from kubesched.sim.explain import ExplainRequest, RequestExplainer, resolve
from kubesched.sim.result import PHASE_PENDING, SimulationResult
from kubesched.sim.simulate import SimulationError


class Run(Protocol):
    """A simulation or a scenario run, made once."""

    @property
    def pods(self) -> Sequence[Pod]:
        """Every pod of the run so far, as created, in order."""

    def run(self) -> SimulationResult:
        """Run to the end; a run that cannot settle raises :class:`SimulationError` with the result so far."""


@attrs.frozen
class ExplainedRun:
    """The result to show (its ``explain`` resolved), the error of a run that did not settle, and explain's
    warnings."""

    result: SimulationResult
    unsettled: SimulationError | None = None
    warnings: tuple[str, ...] = ()


def _finish(run: Run) -> tuple[SimulationResult, SimulationError | None]:
    try:
        return run.run(), None
    except SimulationError as error:
        if error.result is None:
            raise
        return error.result, error


def run_explaining(start: Callable[[Explainer | None], Run], request: ExplainRequest | None,
                   input_pods: Sequence[Pod] = ()) -> ExplainedRun:
    """Make the run ``start`` builds with the explainer ``request`` needs, and resolve the request when it ends
    (:func:`~kubesched.sim.explain.resolve`; ``input_pods`` are the input's, finished ones included). A name
    that never existed is an :class:`~kubesched.sim.explain.ExplainError`, raised before anything is shown."""
    if request is None:
        return ExplainedRun(*_finish(start(None)))
    explainer = RequestExplainer(request)
    run = start(explainer)
    result, unsettled = _finish(run)
    resolution = resolve(request, run.pods, result.pods, explainer.attempts, input_pods)
    missed = [p for p, r in zip(run.pods, result.pods, strict=True)
              if r.phase == PHASE_PENDING and request.pending and not explainer.wants(p)]
    if missed:  # pending pods the run did not record: record exactly the pods resolved, in their order
        result, unsettled = _finish(start(Explainer(resolution.keys)))
    else:
        result = attrs.evolve(result, explain={key: tuple(explainer.attempts.get(key, ()))
                                               for key in resolution.keys})
    return ExplainedRun(result, unsettled, resolution.warnings)
