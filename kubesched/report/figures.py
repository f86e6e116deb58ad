"""The plots of one run or of several overlaid (a comparison's profiles, several simulations), made with plotly:
allocation per resource and pending pods over virtual time drawn as the step functions they are, allocation per
node per resource, and the preemptions in time."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from kubesched.report.documents import Run

if TYPE_CHECKING:
    from plotly.graph_objects import Figure

#: Every figure's look: a plain template, one height, the legend above the plot.
HEIGHT = 380
TIME_AXIS = "virtual time (s)"
#: Ratios as percentages, to two decimals where needed (1.25%, 100%).
PERCENT = ".2~%"
#: Each overlaid run's line style, so runs that coincide stay visible.
DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")


def _figure(title: str, *, height: int = HEIGHT, **layout: Any) -> Figure:
    import plotly.graph_objects as go

    figure = go.Figure()
    figure.update_layout(title={"text": title}, template="plotly_white", height=height,
                         margin={"l": 60, "r": 20, "t": 60, "b": 50},
                         legend={"orientation": "h", "yanchor": "bottom", "y": 1.0, "xanchor": "right", "x": 1.0},
                         **layout)
    return figure


def _steps(run: Run, name: str) -> tuple[list[float], list[float]]:
    """A series column as the points of its step function, held on to the run's end."""
    assert run.series is not None
    time, values = list(run.series.time), list(run.series.values.get(name, ()))
    if time and run.end_time > time[-1]:
        time.append(run.end_time)
        values.append(values[-1])
    return time, values


def _trace_name(run: Run, what: str, runs: Sequence[Run], kinds: int) -> str:
    """A trace's legend entry: the resource alone for one run, the run alone for one resource, else both."""
    if len(runs) == 1:
        return what
    return run.label if kinds == 1 else f"{run.label}: {what}"


def _step_trace(x: list[float], y: list[float], name: str, dash: int) -> Any:
    import plotly.graph_objects as go

    return go.Scatter(x=x, y=y, name=name, mode="lines" if len(x) > 1 else "markers", line_shape="hv",
                      line={"dash": DASHES[dash % len(DASHES)]})


def allocation(runs: Sequence[Run], resources: Sequence[str]) -> Figure:
    """The cluster's allocation ratio (allocated / allocatable) of each resource over virtual time, per run."""
    what = ", ".join(resources)
    figure = _figure(f"Allocation over time ({what})", xaxis_title=TIME_AXIS, yaxis_title="allocated / allocatable",
                     yaxis={"tickformat": PERCENT, "rangemode": "tozero"}, xaxis={"rangemode": "nonnegative"})
    for index, run in enumerate(runs):
        for resource in resources:
            if run.series is not None and f"resources.{resource}.ratio" in run.series.values:
                x, y = _steps(run, f"resources.{resource}.ratio")
                figure.add_trace(_step_trace(x, y, _trace_name(run, resource, runs, len(resources)), index))
    return figure


def pending(runs: Sequence[Run]) -> Figure:
    """Pods pending (created, never bound, still there) over virtual time, per run."""
    figure = _figure("Pending pods over time", xaxis_title=TIME_AXIS, yaxis_title="pods pending",
                     yaxis={"rangemode": "tozero"}, xaxis={"rangemode": "nonnegative"})
    for index, run in enumerate(runs):
        if run.series is not None and "pods.pending" in run.series.values:
            x, y = _steps(run, "pods.pending")
            figure.add_trace(_step_trace(x, y, _trace_name(run, "pods.pending", runs, 1), index))
    return figure


def node_bars(runs: Sequence[Run], resources: Sequence[str]) -> Figure:
    """Each node's allocation ratio (its pods' requests / its allocatable) at the end of the run, per resource,
    the runs' bars side by side; the hover text gives the amounts as the result wrote them."""
    import plotly.graph_objects as go

    figure = _figure(f"Allocation per node at the end ({', '.join(resources)})", barmode="group",
                     xaxis_title="node", yaxis_title="requested / allocatable",
                     yaxis={"tickformat": PERCENT, "rangemode": "tozero"}, xaxis={"type": "category"})
    for run in runs:
        for resource in resources:
            nodes = [n for n in run.nodes or () if resource in n.allocatable]
            figure.add_trace(go.Bar(x=[n.name for n in nodes], y=[n.ratio(resource) for n in nodes],
                                    name=_trace_name(run, resource, runs, len(resources)),
                                    hovertext=[f"{n.name} {resource}: {n.shown[resource]}" for n in nodes],
                                    hoverinfo="text+y"))
    return figure


def preemption_timeline(runs: Sequence[Run]) -> Figure:
    """Each preemption at its time: the preemptor and its victims on the pod axis, joined by a line; per run."""
    import plotly.graph_objects as go

    end = max([r.end_time for r in runs] + [1.0])
    pods = {pod for run in runs for e in run.preemptions for pod in (e.preemptor, *e.victims)}
    figure = _figure("Preemptions over time", height=max(HEIGHT, 120 + 20 * len(pods)), xaxis_title=TIME_AXIS,
                     yaxis_title="pod",
                     yaxis={"type": "category", "automargin": True}, xaxis={"range": [-end / 50, end * 1.02]})
    import plotly.colors

    palette = plotly.colors.qualitative.Plotly
    for index, run in enumerate(runs):
        prefix = f"{run.label}: " if len(runs) > 1 else ""
        color = palette[index % len(palette)]
        line_x: list[float | None] = []
        line_y: list[str | None] = []
        for event in run.preemptions:
            for victim in event.victims:
                line_x += [event.time, event.time, None]
                line_y += [event.preemptor, victim, None]
        figure.add_trace(go.Scatter(x=line_x, y=line_y, mode="lines", line={"width": 1, "color": "#999999"},
                                    hoverinfo="skip", showlegend=False))
        figure.add_trace(go.Scatter(
            x=[e.time for e in run.preemptions], y=[e.preemptor for e in run.preemptions], mode="markers",
            name=f"{prefix}preemptor", marker={"symbol": "triangle-up", "size": 11, "color": color},
            hovertext=[f"{e.preemptor} preempted {', '.join(e.victims)} on {e.node} at {e.time:g} s"
                       for e in run.preemptions], hoverinfo="text"))
        victims = [(e, v) for e in run.preemptions for v in e.victims]
        figure.add_trace(go.Scatter(
            x=[e.time for e, _ in victims], y=[v for _, v in victims], mode="markers", name=f"{prefix}victim",
            marker={"symbol": "x", "size": 10, "color": color},
            hovertext=[f"{v} preempted by {e.preemptor} on {e.node} at {e.time:g} s" for e, v in victims],
            hoverinfo="text"))
    return figure
