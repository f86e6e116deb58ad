"""A report's sections from the documents read: per simulation its metrics, plots, preemptions and explained pods;
per comparison its profiles side by side and overlaid; per sweep its distributions; several simulations also
overlaid, as profiles are."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

import attrs

from kubesched.report import figures
from kubesched.report.documents import ComparisonDocument, Run, SimulationDocument
from kubesched.report.explain import explain_blocks
from kubesched.report.model import Block, Plot, Report, Section, Table, Text, number, signed, table
from kubesched.report.read import Document
from kubesched.report.sweep import sweep_section
from kubesched.sim.compare import HEADLINE, HEADLINE_PER_RESOURCE

if TYPE_CHECKING:
    from plotly.graph_objects import Figure

TITLE = "kubesched report"


def build_report(documents: Sequence[Document]) -> Report:
    """The report of ``documents`` in order; with several, each section names its file, and the
    simulations are also overlaid in one section (where the first of them stands)."""
    named = len(documents) > 1
    simulations = [d for d in documents if isinstance(d, SimulationDocument)]
    labels = _labels([d.source for d in simulations])
    sections: list[Section] = []
    for document in documents:
        suffix = f": {document.source}" if named else ""
        if isinstance(document, SimulationDocument):
            if len(simulations) > 1 and document is simulations[0]:
                runs = [attrs.evolve(d.run, label=label) for label, d in zip(labels, simulations, strict=True)]
                sections.append(_overlay_section(runs))
            sections.extend(_simulation_sections(document, f"Simulation{suffix}"))
        elif isinstance(document, ComparisonDocument):
            sections.extend(_comparison_sections(document, f"Comparison{suffix}"))
        else:
            sections.append(sweep_section(document, f"Sweep{suffix}"))
    return Report(TITLE, tuple(sections))


def _labels(sources: Sequence[str]) -> list[str]:
    """Runs' names in an overlay: the file names, ``#2``... after a name given again."""
    seen: dict[str, int] = {}
    labels = []
    for source in sources:
        seen[source] = seen.get(source, 0) + 1
        labels.append(source if seen[source] == 1 else f"{source}#{seen[source]}")
    return labels


def headline_rows(metrics: Mapping[str, object], resources: Sequence[str]) -> list[str]:
    """The headline figures present, in compare's order: pod outcomes and counts, each resource's, then the
    pending times and the fragmentation."""
    rows = [*HEADLINE[:7], *(f"resources.{r}.{f}" for r in resources for f in HEADLINE_PER_RESOURCE), *HEADLINE[7:]]
    return [row for row in rows if row in metrics]


def _simulation_sections(document: SimulationDocument, title: str) -> list[Section]:
    run = document.run
    pods = ", ".join(f"{count} {phase}" for phase, count in document.phases.items()) or "none"
    facts = [f"Seed {document.seed}", *([f"scenario {document.scenario}"] if document.scenario else []),
             f"pods by phase: {pods}", *([f"{len(run.nodes)} node(s)"] if run.nodes is not None else []),
             f"ended at {number(run.end_time)} s of virtual time"]
    blocks: list[Block] = [Text("; ".join(facts) + ".")]
    if run.series is None and not run.metrics:
        blocks.append(Text("This result has no analysis key (a kubesched without run metrics wrote it): no run "
                           "metrics and no series to show."))
    else:
        resources = run.resources()
        rows = headline_rows(run.metrics, resources)
        blocks.append(table("Run metrics", ["METRIC", "VALUE"], [[r, number(run.metrics[r])] for r in rows]))
        blocks.append(table("Every figure", ["METRIC", "VALUE"], [[k, number(v)] for k, v in run.metrics.items()],
                            folded=True))
    blocks.extend(_plots([run]))
    blocks.extend(_preemptions_table(run))
    sections = [Section(title, tuple(blocks))]
    for pod in document.explain:
        sections.append(Section(f"Explain {pod.pod}", tuple(explain_blocks(pod)), level=3))
    return sections


def _comparison_sections(document: ComparisonDocument, title: str) -> list[Section]:
    names = document.profiles
    blocks: list[Block] = [Text(f"Seed {document.seed}; profiles {', '.join(names)}; differences (Δ) against "
                                f"{names[0] if names else '-'}.")]
    blocks.extend(_side_by_side(document.metrics, document.differences, names,
                                _resources(document.runs, document.metrics)))
    if document.placements:
        rows = [[p.pod, p.change, *(node if node is not None else phase
                                    for node, phase in zip(p.nodes, p.phases, strict=False))]
                for p in document.placements]
        blocks.append(table(f"Pods placed differently ({len(rows)})", ["POD", "CHANGE", *names], rows,
                            numeric_from=len(names) + 2))
    else:
        blocks.append(Text("Every pod has the same outcome and node under every profile."))
    blocks.extend(_plots(document.runs))
    for run in document.runs:
        blocks.extend(_preemptions_table(run, f" under {run.label}"))
    return [Section(title, tuple(blocks))]


def _overlay_section(runs: Sequence[Run]) -> Section:
    """Several simulations side by side and overlaid, as a comparison shows profiles."""
    figures_by_run = [run.metrics for run in runs]
    names = list(dict.fromkeys(name for metrics in figures_by_run for name in metrics))
    metrics = {name: tuple(m.get(name) for m in figures_by_run) for name in names}
    differences = {name: tuple(None if v is None or values[0] is None else v - values[0] for v in values)
                   for name, values in metrics.items()}
    labels = tuple(run.label for run in runs)
    blocks: list[Block] = [Text(f"The {len(runs)} simulations overlaid; differences (Δ) against {labels[0]}.")]
    blocks.extend(_side_by_side(metrics, differences, labels, _resources(runs, metrics)))
    blocks.extend(_plots(runs))
    return Section("Simulations overlaid", tuple(blocks))


def _resources(runs: Sequence[Run], metrics: Mapping[str, object]) -> list[str]:
    found = [r for run in runs for r in run.resources()]
    found += [name.split(".")[1] for name in metrics if name.startswith("resources.") and name.endswith(".ratio")
              and name.count(".") == 2]
    return list(dict.fromkeys(found))


def _side_by_side(metrics: Mapping[str, Sequence[float | None]], differences: Mapping[str, Sequence[float | None]],
                  names: Sequence[str], resources: Sequence[str]) -> list[Table]:
    """The headline table (each run, then each later run's difference against the first) and every figure's."""
    header = ["METRIC", *names, *(f"Δ {name}" for name in names[1:])]

    def row(name: str) -> list[str]:
        changes = differences.get(name, ())
        return [name, *(number(v) for v in metrics[name]), *(signed(v) for v in list(changes)[1:])]

    return [table("Run metrics", header, [row(n) for n in headline_rows(metrics, resources)]),
            table("Every figure", header, [row(n) for n in metrics], folded=True)]


def _plots(runs: Sequence[Run]) -> list[Block]:
    """The plots of one run or of several overlaid: allocation per resource and pending pods over time, the
    allocation per node, the preemptions; a line saying what a document lacks for one of them."""
    blocks: list[Block] = []
    with_series = [run for run in runs if run.series is not None]
    resources = list(dict.fromkeys(r for run in runs for r in run.resources()))
    if with_series:
        if len(runs) == 1:
            blocks.append(_plot("Allocation over time", lambda: figures.allocation(with_series, resources)))
        else:
            for resource in resources:
                blocks.append(_plot(f"Allocation over time ({resource})",
                                    _bind(figures.allocation, with_series, [resource])))
        blocks.append(_plot("Pending pods over time", lambda: figures.pending(with_series)))
    with_nodes = [run for run in runs if run.nodes]
    node_resources = list(dict.fromkeys(r for run in with_nodes for n in run.nodes or () for r in n.allocatable))
    if with_nodes and len(runs) == 1:
        blocks.append(_plot("Allocation per node", lambda: figures.node_bars(with_nodes, node_resources)))
    elif with_nodes:
        for resource in node_resources:
            blocks.append(_plot(f"Allocation per node ({resource})", _bind(figures.node_bars, with_nodes,
                                                                           [resource])))
    if len(with_nodes) < len(runs):
        missing = ", ".join(run.label for run in runs if not run.nodes)
        blocks.append(Text(f"No per-node allocation for {missing}: the document has no nodes." if len(runs) > 1
                           else "No per-node allocation: the document has no nodes."))
    if any(run.preemptions for run in runs):
        blocks.append(_plot("Preemptions over time", lambda: figures.preemption_timeline(runs)))
    else:
        blocks.append(Text("No preemptions." if len(runs) == 1 else "No preemptions in any run."))
    return blocks


def _plot(title: str, build: Callable[[], Figure]) -> Plot:
    return Plot(title, build)


def _bind(make: Callable[[Sequence[Run], Sequence[str]], Figure], runs: Sequence[Run],
          resources: Sequence[str]) -> Callable[[], Figure]:
    return lambda: make(runs, resources)


def _preemptions_table(run: Run, suffix: str = "") -> list[Block]:
    if not run.preemptions:
        return []
    rows = [[number(p.time), p.preemptor, p.node, ", ".join(p.victims)] for p in run.preemptions]
    return [Table(f"Preemptions{suffix}", ("TIME (S)", "PREEMPTOR", "NODE", "VICTIMS"),
                  tuple(tuple(r) for r in rows), frozenset({0}))]
