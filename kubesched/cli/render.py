"""Human-readable output: the simulation table, node utilisation, and the plugin list."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Sequence
from typing import IO, TYPE_CHECKING

from kubesched.api.resources import CPU, resource_order
from kubesched.runtime import FastPath, PluginSpec
from kubesched.sim.node_usage import NodeUsage, is_bytes
from kubesched.sim.simulate import SimulationResult
from kubesched.validation import LINE_MAX, TERMINAL_MAX, terminal

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

# Without a terminal rich would assume 80 columns; a fixed width keeps piped output stable and readable.
DEFAULT_WIDTH = 140


def console(file: IO[str]) -> Console:
    """A console writing to ``file``; honours $COLUMNS, else a fixed width when not a terminal."""
    from rich.console import Console
    width = None if file.isatty() else int(os.environ.get("COLUMNS", DEFAULT_WIDTH))
    return Console(file=file, width=width, highlight=False, soft_wrap=False)


def _text(value: str, limit: int = TERMINAL_MAX) -> Text:
    """A cell holding ``value`` as plain text: never read as rich markup (gate names such as
    ``[example.com/wait]`` look like tags), with control characters escaped so none reach the terminal, and cut
    after ``limit`` characters (a message may be longer than a name)."""
    from rich.text import Text
    return Text(terminal(value, limit))


def _cores(milli: int) -> str:
    return f"{milli / 1000:g}"


def _memory(value: int) -> str:
    for unit, size in (("Ti", 2**40), ("Gi", 2**30), ("Mi", 2**20), ("Ki", 2**10)):
        if value >= size:
            return f"{value / size:.1f}".rstrip("0").rstrip(".") + unit
    return str(value)


def _percent(used: int, total: int) -> str:
    return f"{100 * used // total}%" if total else "-"


def _amount(resource: str, value: int) -> str:
    """An amount for reading: cpu in cores, bytes in binary units (``5.2Gi``), counts as they are."""
    if resource == CPU:
        return _cores(value)
    return _memory(value) if is_bytes(resource) else str(value)


def _usage_cell(usage: NodeUsage, resource: str) -> str:
    """``requested/allocatable (percent)`` of one resource on one node; ``-`` when the node neither carries it nor
    has pods asking for it."""
    if resource not in usage.allocatable and resource not in usage.requested:
        return "-"
    used, total = usage.requested.get(resource, 0), usage.allocatable.get(resource, 0)
    return f"{_amount(resource, used)}/{_amount(resource, total)} ({_percent(used, total)})"


def print_nodes(result: SimulationResult, out: Console) -> None:
    """The Nodes table: one row per node, one column per resource any node carries (cpu, memory,
    ephemeral-storage, pods, then the others by name, such as nvidia.com/gpu), each requested/allocatable."""
    from rich.table import Table
    resources = resource_order(name for usage in result.nodes for name in (*usage.allocatable, *usage.requested))
    table = Table()
    for column in ("NODE", *(name.upper() for name in resources)):
        table.add_column(_text(column))
    for usage in result.nodes:
        table.add_row(_text(usage.name), *(_usage_cell(usage, name) for name in resources))
    out.print("Nodes", style="bold")
    out.print(table)


def print_events(result: SimulationResult, out: Console) -> None:
    """One row per event, in order: simulated time, type, reason, object (kind namespace/name), message."""
    from rich.table import Table
    table = Table()
    for column in ("TIME", "TYPE", "REASON", "OBJECT", "MESSAGE"):
        table.add_column(column, overflow="fold")
    for event in result.events:
        table.add_row(f"{event.time:g}s", _text(event.type), _text(event.reason),
                      _text(f"{event.kind} {event.object}"), _text(event.message, LINE_MAX))
    out.print("Events", style="bold")
    out.print(table)


def print_simulation(result: SimulationResult, out: Console, *, events: bool = False) -> None:
    """One row per pod, then the per-node utilisation summary; with ``events``, the events between them. A
    scenario run always ends with its events, at their virtual clock times, so ``events`` adds nothing there."""
    from rich.table import Table
    from rich.text import Text
    pods = Table()
    for column in ("POD", "NODE", "PHASE", "MESSAGE"):
        pods.add_column(column, overflow="fold")
    for pod in result.pods:
        node = pod.node or (f"(nominated {pod.nominated_node})" if pod.nominated_node else "")
        pods.add_row(_text(f"{pod.namespace}/{pod.name}"), _text(node), _text(pod.phase), _text(pod.message, LINE_MAX))
    out.print("Pods", style="bold")
    out.print(pods)
    if events and result.scenario is None:
        print_events(result, out)
    print_nodes(result, out)
    out.print(Text(f"{summary_counts(result)}; seed {result.seed}"))
    if result.scenario is not None:
        print_scenario(result, out)


#: The summary line's phases: always the first three, then each other phase that some pod ended in.
_ALWAYS_COUNTED = ("Bound", "Pending", "Evicted")
_COUNTED_IF_ANY = ("Succeeded", "Failed", "Lost", "Deleted")


def summary_counts(result: SimulationResult) -> str:
    """``N bound, N pending, N evicted`` and, when any pod ended so, ``N succeeded``, ``N failed``, ``N lost``,
    ``N deleted`` (and any other phase): every input pod is counted once."""
    counts = Counter(p.phase for p in result.pods)
    others = sorted(set(counts) - set(_ALWAYS_COUNTED) - set(_COUNTED_IF_ANY))
    shown = [*_ALWAYS_COUNTED, *(phase for phase in (*_COUNTED_IF_ANY, *others) if counts[phase])]
    return ", ".join(f"{counts[phase]} {phase.lower()}" for phase in shown)


def print_scenario(result: SimulationResult, out: Console) -> None:
    """A scenario run's events, each at its virtual time, and where the run ended."""
    from rich.table import Table
    from rich.text import Text
    events = Table()
    for column in ("TIME", "TYPE", "REASON", "OBJECT", "MESSAGE"):
        events.add_column(column, overflow="fold")
    for event in result.events:
        shown = event.object if event.kind == "Pod" else f"{_resource(event.kind)}/{event.object}"
        events.add_row(_clock(event.time), _text(event.type), _text(event.reason), _text(shown),
                       _text(event.message, LINE_MAX))
    out.print("Events", style="bold")
    out.print(events)
    scenario = result.scenario or {}
    end = float(str(scenario.get("endTime", 0.0)))
    steps = scenario.get("steps")
    count = len(steps) if isinstance(steps, list) else 0
    name = terminal(str(scenario.get("name", "")))
    out.print(Text(f"scenario {name}: {count} step(s), ended at {_clock(end)} ({end:g}s)"))


def _resource(kind: str) -> str:
    """A kind's resource name, as kubectl names objects: ``Node`` -> ``nodes``, ``ReplicaSet`` -> ``replicasets``."""
    return kind.lower() + "s"


def _clock(seconds: float) -> str:
    """Virtual seconds as [Nd]HH:MM:SS, with milliseconds when not whole."""
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    shown = f"{int(secs):02d}" if secs == int(secs) else f"{secs:06.3f}"
    return (f"{int(days)}d" if days else "") + f"{int(hours):02d}:{int(minutes):02d}:{shown}"


def print_plugins(specs: Sequence[PluginSpec], speeds: Sequence[FastPath], out: Console) -> None:
    """The plugin list: name, extension points, source, and FAST PATH: ``yes``, or one line per cause that keeps
    the plugin off part of it (the sentences are in ``-o json`` and the conformance report)."""
    from rich.table import Table
    from rich.text import Text
    table = Table()
    for column in ("NAME", "EXTENSION POINTS", "SOURCE", "FAST PATH"):
        table.add_column(column)
    for spec, speed in zip(specs, speeds, strict=True):
        table.add_row(_text(spec.name), _text(", ".join(p.name for p in spec.points)), _text(spec.source),
                      Text("\n").join(_text(note.cause) for note in speed.notes) if speed.notes else "yes")
    out.print(table)
