"""The result documents a report reads (``kubesched simulate -o json|yaml`` and ``kubesched compare -o json|yaml``),
checked field by field into what the report shows: per run its flat metrics, series, preemptions and nodes."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

import attrs

from kubesched.analysis import Series
from kubesched.api.quantity import Quantity, QuantityError
from kubesched.api.resources import CPU
from kubesched.report.checks import Checker, entry
from kubesched.report.explain import ExplainedPod, read_explain
from kubesched.validation import is_number


@attrs.frozen
class NodeAllocation:
    """A node at the end of a run: per resource its allocatable and its pods' requests, in the scheduler's units
    (millicores, bytes, counts), and as the result wrote them (quantities)."""

    name: str
    allocatable: Mapping[str, int]
    requested: Mapping[str, int]
    shown: Mapping[str, str]

    def ratio(self, resource: str) -> float:
        """requested / allocatable of ``resource`` (0 when the node offers none)."""
        offered = self.allocatable.get(resource, 0)
        return self.requested.get(resource, 0) / offered if offered else 0.0


@attrs.frozen
class PreemptionEvent:
    """One preemption: when, the preemptor, the node and the victims (``namespace/name``)."""

    time: float
    preemptor: str
    node: str
    victims: tuple[str, ...]


@attrs.frozen
class Run:
    """One run as the report shows it: its label, every run metric under its dotted name, the series (None without
    an ``analysis`` key), its end time, preemptions and nodes (None when the document has no ``nodes``)."""

    label: str
    metrics: Mapping[str, float]
    series: Series | None
    end_time: float
    preemptions: tuple[PreemptionEvent, ...]
    nodes: tuple[NodeAllocation, ...] | None

    def resources(self) -> list[str]:
        """The resources the metrics cover, in their order (``cpu``, ``memory``... as the analysis lists them)."""
        names = [name.split(".")[1] for name in self.metrics if name.startswith("resources.")
                 and name.endswith(".ratio") and name.count(".") == 2]
        return list(dict.fromkeys(names))


@attrs.frozen
class SimulationDocument:
    """A ``SimulationResult``: the run, the seed, the pods by phase, the scenario's name and the explained pods."""

    source: str
    seed: int
    run: Run
    phases: Mapping[str, int]
    scenario: str | None
    explain: tuple[ExplainedPod, ...]


@attrs.frozen
class ComparisonDocument:
    """A ``Comparison``: its profiles, the metrics side by side with their differences against the first, the pods
    placed differently, and each profile's run."""

    source: str
    seed: int
    profiles: tuple[str, ...]
    metrics: Mapping[str, tuple[float | None, ...]]
    differences: Mapping[str, tuple[float | None, ...]]
    placements: tuple[Placement, ...]
    runs: tuple[Run, ...]


@attrs.frozen
class Placement:
    """A pod placed differently: its key, how the profiles differ, and per profile its phase and node."""

    pod: str
    change: str
    phases: tuple[str, ...]
    nodes: tuple[str | None, ...]


def read_simulation(document: Mapping[str, Any], source: str, check: Checker) -> SimulationDocument:
    """A SimulationResult document, every wrong field an error in ``check``."""
    phases: dict[str, int] = {}
    for index, pod in enumerate(check.items(document.get("pods"), "pods", optional=True)):
        fields = check.mapping(pod, f"pods[{index}]")
        if fields:
            phase = check.text(fields.get("phase"), f"pods[{index}].phase")
            phases[phase] = phases.get(phase, 0) + 1
    nodes = _nodes(document.get("nodes"), "nodes", check) if "nodes" in document else None
    run = _run(source, document.get("analysis"), "analysis", document.get("preemptions"), "preemptions", nodes, check)
    scenario = check.mapping(document.get("scenario"), "scenario", optional=True)
    name = check.optional_text(scenario.get("name"), "scenario.name") if scenario else None
    explain = read_explain(document.get("explain"), "explain", check)
    seed = check.integer(document.get("seed", 0), "seed")
    return SimulationDocument(source, seed, run, phases, name, explain)


def read_comparison(document: Mapping[str, Any], source: str, check: Checker) -> ComparisonDocument:
    """A Comparison document, every wrong field an error in ``check``."""
    profiles = check.texts(document.get("profiles"), "profiles")
    width = len(profiles)
    columns = {key: _columns(document.get(key), key, width, check) for key in ("metrics", "differences")}
    placements = []
    for index, item in enumerate(check.items(document.get("placements"), "placements", optional=True)):
        field = f"placements[{index}]"
        fields = check.mapping(item, field)
        phases = check.texts(fields.get("phases"), f"{field}.phases")
        where = tuple(check.optional_text(n, f"{field}.nodes[{i}]")
                      for i, n in enumerate(check.items(fields.get("nodes"), f"{field}.nodes")))
        placements.append(Placement(check.text(fields.get("pod"), f"{field}.pod"),
                                    check.text(fields.get("change"), f"{field}.change"), phases, where))
    runs = []
    for index, item in enumerate(check.items(document.get("runs"), "runs")):
        field = f"runs[{index}]"
        fields = check.mapping(item, field)
        label = profiles[index] if index < width else check.text(fields.get("profile"), f"{field}.profile")
        nodes = _nodes(fields.get("nodes"), f"{field}.nodes", check) if "nodes" in fields else None
        runs.append(_run(label, fields.get("analysis"), f"{field}.analysis", fields.get("preemptions"),
                         f"{field}.preemptions", nodes, check))
    if len(runs) != width:
        check.fail("runs", f"holds {len(runs)} run(s) for {width} profile(s)")
    seed = check.integer(document.get("seed", 0), "seed")
    return ComparisonDocument(source, seed, profiles, columns["metrics"], columns["differences"], tuple(placements),
                              tuple(runs))


def _columns(value: object, field: str, width: int, check: Checker) -> dict[str, tuple[float | None, ...]]:
    """``metrics`` or ``differences``: per figure one value (or null) per profile."""
    columns = {}
    for name, values in check.mapping(value, field).items():
        where = entry(field, name)
        row = tuple(check.optional_number(v, f"{where}[{i}]") for i, v in enumerate(check.items(values, where)))
        if len(row) != width:
            check.fail(where, f"holds {len(row)} value(s) for {width} profile(s)")
        columns[name] = row
    return columns


def _run(label: str, analysis: object, field: str, preemptions: object, preemptions_field: str,
         nodes: tuple[NodeAllocation, ...] | None, check: Checker) -> Run:
    """One run from its ``analysis`` key (optional: a result of an older kubesched has none) and preemptions."""
    figures = check.mapping(analysis, field, optional=True)
    metrics = dict(_flatten({k: v for k, v in figures.items() if k != "series"}, ""))
    series = _series(figures["series"], f"{field}.series", check) if "series" in figures else None
    end = check.number(figures.get("endTime", 0.0), f"{field}.endTime")
    events = []
    for index, item in enumerate(check.items(preemptions, preemptions_field, optional=True)):
        where = f"{preemptions_field}[{index}]"
        fields = check.mapping(item, where)
        events.append(PreemptionEvent(check.number(fields.get("time", 0.0), f"{where}.time"),
                                      check.text(fields.get("preemptor"), f"{where}.preemptor"),
                                      check.text(fields.get("node"), f"{where}.node"),
                                      check.texts(fields.get("victims"), f"{where}.victims")))
    return Run(label, metrics, series, end, tuple(events), nodes)


def _flatten(value: object, prefix: str) -> list[tuple[str, float]]:
    """Every number under its dotted name, as ``RunMetrics.flat`` names them."""
    if isinstance(value, Mapping):
        return [pair for key, inner in value.items()
                for pair in _flatten(inner, f"{prefix}.{key}" if prefix else str(key))]
    if is_number(value):
        return [(prefix, float(value))]
    return []


def _series(value: object, field: str, check: Checker) -> Series | None:
    """``analysis.series``: the sample times and one column as long per figure; None when it is wrong."""
    fields = check.mapping(value, field)
    before = len(check.errors)
    time = check.numbers(fields.get("time"), f"{field}.time")
    if any(later < earlier for earlier, later in itertools.pairwise(time)):
        check.fail(f"{field}.time", "the sample times must not decrease")
    columns = {}
    for name, column in check.mapping(fields.get("values"), f"{field}.values").items():
        where = entry(f"{field}.values", name)
        columns[name] = check.numbers(column, where)
        if len(columns[name]) != len(time):
            check.fail(where, f"holds {len(columns[name])} value(s) for {len(time)} sample time(s)")
    return Series(time, columns) if len(check.errors) == before else None


def _nodes(value: object, field: str, check: Checker) -> tuple[NodeAllocation, ...]:
    """The result's ``nodes``: amounts read from their quantities."""
    nodes = []
    for index, item in enumerate(check.items(value, field)):
        where = f"{field}[{index}]"
        fields = check.mapping(item, where)
        amounts: dict[str, dict[str, int]] = {}
        texts: dict[str, dict[str, str]] = {}
        for key in ("allocatable", "requested"):
            amounts[key], texts[key] = {}, {}
            for resource, raw in check.mapping(fields.get(key, {}), f"{where}.{key}").items():
                try:
                    quantity = Quantity.parse(raw)
                except QuantityError as exc:
                    check.fail(entry(f"{where}.{key}", resource), str(exc))
                    continue
                amounts[key][resource] = quantity.milli_value() if resource == CPU else quantity.value()
                texts[key][resource] = str(raw)
        shown = {r: f"{texts['requested'].get(r, '0')} / {texts['allocatable'][r]}" for r in texts["allocatable"]}
        nodes.append(NodeAllocation(check.text(fields.get("name"), f"{where}.name"), amounts["allocatable"],
                                    amounts["requested"], shown))
    return tuple(nodes)
