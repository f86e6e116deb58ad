"""The plots' data: series drawn as the step functions they are (held to the end of the run), each node's
allocation ratio from its quantities, and preemptions joining each preemptor to its victims."""

from __future__ import annotations

from kubesched.analysis import Series
from kubesched.report import figures
from kubesched.report.documents import NodeAllocation, PreemptionEvent, Run


def run(label: str = "r", *, end: float = 20.0, preemptions: tuple[PreemptionEvent, ...] = (),
        nodes: tuple[NodeAllocation, ...] | None = None) -> Run:
    series = Series((0.0, 5.0), {"pods.pending": (3.0, 1.0), "resources.cpu.ratio": (0.25, 0.5),
                                 "resources.memory.ratio": (0.1, 0.2)})
    metrics = {"resources.cpu.ratio": 0.5, "resources.memory.ratio": 0.2}
    return Run(label, metrics, series, end, preemptions, nodes)


def test_a_series_is_drawn_as_steps_held_to_the_end_of_the_run() -> None:
    """Each sample holds until the next (plotly's hv shape), the last one until the run's end."""
    figure = figures.pending([run(end=20.0)])
    (trace,) = figure.data
    assert list(trace.x) == [0.0, 5.0, 20.0]
    assert list(trace.y) == [3.0, 1.0, 1.0]
    assert trace.line.shape == "hv"


def test_a_run_ending_at_its_last_sample_adds_no_point() -> None:
    """No extra point when the last change is the end."""
    (trace,) = figures.pending([run(end=5.0)]).data
    assert list(trace.x) == [0.0, 5.0]


def test_one_run_has_a_trace_per_resource_named_by_resource() -> None:
    figure = figures.allocation([run()], ["cpu", "memory"])
    assert [t.name for t in figure.data] == ["cpu", "memory"]
    assert [list(t.y) for t in figure.data] == [[0.25, 0.5, 0.5], [0.1, 0.2, 0.2]]


def test_overlaid_runs_have_a_trace_each_named_by_run_with_its_own_dash() -> None:
    """Runs that coincide stay visible: each has its own line style."""
    figure = figures.allocation([run("default"), run("bin-packing")], ["cpu"])
    assert [t.name for t in figure.data] == ["default", "bin-packing"]
    assert [t.line.dash for t in figure.data] == ["solid", "dash"]


def test_node_bars_are_each_nodes_requested_over_allocatable_per_resource() -> None:
    """The ratio from the scheduler's units; the hover text as the result wrote the quantities."""
    nodes = (NodeAllocation("n1", {"cpu": 4000}, {"cpu": 1500}, {"cpu": "1500m / 4"}),
             NodeAllocation("n2", {"cpu": 2000}, {}, {"cpu": "0 / 2"}))
    (bars,) = figures.node_bars([run(nodes=nodes)], ["cpu"]).data
    assert list(bars.x) == ["n1", "n2"]
    assert list(bars.y) == [0.375, 0.0]
    assert list(bars.hovertext) == ["n1 cpu: 1500m / 4", "n2 cpu: 0 / 2"]


def test_the_preemption_timeline_joins_each_preemptor_to_its_victims() -> None:
    """A line per victim at the preemption's time, the preemptor's marker and a marker per victim."""
    events = (PreemptionEvent(3.0, "default/hi", "n1", ("default/lo-1", "default/lo-2")),)
    lines, preemptors, victims = figures.preemption_timeline([run(preemptions=events)]).data
    assert list(lines.x) == [3.0, 3.0, None, 3.0, 3.0, None]
    assert list(lines.y) == ["default/hi", "default/lo-1", None, "default/hi", "default/lo-2", None]
    assert (list(preemptors.x), list(preemptors.y)) == ([3.0], ["default/hi"])
    assert (list(victims.x), list(victims.y)) == ([3.0, 3.0], ["default/lo-1", "default/lo-2"])
    assert list(preemptors.hovertext) == ["default/hi preempted default/lo-1, default/lo-2 on n1 at 3 s"]
