"""``kubesched capacity``: the command, and its table."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING

import attrs
import click
import yaml

from kubesched.cli.containment import plugin_timeout_option
from kubesched.errors import KubeschedError
from kubesched.io.load import InputErrorList
from kubesched.profiles import DEFAULT_PROFILE
from kubesched.validation import LINE_MAX, terminal

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

    from kubesched.capacity import CapacityOptions, CapacityResult
    from kubesched.sim.controllers import StorageSettings

PROFILE_HELP = ("A shipped profile name (default, ...), or the path of a TOML profile or of a "
                "KubeSchedulerConfiguration YAML file.")


@click.command()
@click.argument("pod_file", metavar="POD.yaml", type=click.Path())
@click.argument("paths", metavar="INPUT...", nargs=-1, required=True, type=click.Path())
@click.option("--profile", "profile", default=DEFAULT_PROFILE, show_default=True, help=PROFILE_HELP)
@click.option("--seed", default=0, show_default=True, type=int, help="Seed for every random choice.")
@click.option("--max", "max_copies", type=click.IntRange(min=1), default=None, metavar="N",
              help="Stop once N copies fit.")
@click.option("--preempt", is_flag=True, help="Copies may preempt lower-priority pods (listed as victims).")
@click.option("--add-nodes", "node_file", type=click.Path(), default=None, metavar="NODE.yaml",
              help="Add nodes of this shape, one at a time, until --target copies fit (without --target: until "
                   "every pending pod of INPUT is bound).")
@click.option("--target", type=click.IntRange(min=1), default=None, metavar="N",
              help="With --add-nodes: the copies that must fit.")
@click.option("--max-nodes", "max_nodes", type=click.IntRange(min=1), default=None, metavar="N",
              help="With --add-nodes: add at most N nodes (default 100).")
@click.option("--provisioner", "provisioners", multiple=True, metavar="NAME",
              help="A volume provisioner that runs in the simulated cluster (repeatable; * for every one), as for "
                   "simulate.")
@click.option("--provisioning-delay", "provisioning_delay", type=click.FloatRange(min=0, max=1e9), default=None,
              metavar="SECONDS", help="How long a simulated provisioner takes to create a volume (default 5).")
@click.option("-o", "--output", "output", type=click.Choice(["table", "json", "yaml"]), default="table",
              show_default=True)
@plugin_timeout_option
def capacity(pod_file: str, paths: tuple[str, ...], profile: str, seed: int, max_copies: int | None,
             preempt: bool, node_file: str | None, target: int | None, max_nodes: int | None,
             provisioners: tuple[str, ...], provisioning_delay: float | None, output: str,
             plugin_timeout_ms: float | None) -> None:
    """How many more copies of the pod in POD.yaml (a Pod, or the pod template of a Deployment, ReplicaSet,
    StatefulSet or Job) fit the cluster in INPUT (files or directories, - for standard input) once it settles, on
    which nodes, and why the next one does not (see docs/capacity.md)."""
    if node_file is None and (target is not None or max_nodes is not None):
        raise click.UsageError("--target and --max-nodes go with --add-nodes NODE.yaml")
    if target is not None and max_copies is not None:
        raise click.UsageError("--target N already stops at N copies: give --target or --max, not both")
    from kubesched.capacity import DEFAULT_MAX_NODES, CapacityOptions
    from kubesched.sim.controllers import StorageSettings

    options = CapacityOptions(preempt=preempt, max_copies=max_copies, target=target,
                              max_nodes=max_nodes if max_nodes is not None else DEFAULT_MAX_NODES)
    storage = StorageSettings(provisioning_delay if provisioning_delay is not None else 5.0,
                              provisioners or None)
    try:
        result = _run(pod_file, paths, node_file, profile, seed, options, storage, plugin_timeout_ms)
    except KubeschedError as exc:
        lines = [str(e) for e in exc.errors] if isinstance(exc, InputErrorList) else str(exc).splitlines()
        for line in lines or [""]:
            click.echo(terminal(f"error: {line}", LINE_MAX), err=True)
        sys.exit(1)
    for warning in result.warnings:
        click.echo(terminal(f"warning: {warning}", LINE_MAX), err=True)
    if output == "json":
        click.echo(json.dumps(result.to_json(), indent=2))
    elif output == "yaml":
        click.echo(yaml.safe_dump(json.loads(json.dumps(result.to_json())), sort_keys=False, allow_unicode=True),
                   nl=False)
    else:
        from kubesched.cli.render import console

        print_capacity(result, console(sys.stdout))
    for line in result.plugin_errors:
        click.echo(terminal(f"warning: plugin error: {line}", LINE_MAX), err=True)


def _run(pod_file: str, paths: tuple[str, ...], node_file: str | None, profile: str, seed: int,
         options: CapacityOptions, storage: StorageSettings, plugin_timeout_ms: float | None) -> CapacityResult:
    """Load the profile (with the flags' plugin timeout) and the input, and count."""
    from kubesched.capacity import capacity, load_capacity_input
    from kubesched.cli.containment import contained, plugins_running
    from kubesched.profiles import load_config
    from kubesched.runtime import PluginRegistry

    registry = PluginRegistry.discover()
    config = contained(load_config(profile, registry), plugin_timeout_ms, strict=False)
    for warning in config.warnings:
        click.echo(terminal(f"warning: {warning}", LINE_MAX), err=True)
    given = load_capacity_input(pod_file, paths, node_file, [p.scheduler_name for p in config.profiles])
    with plugins_running(registry):  # what plugins print goes to stderr
        return capacity(given, config, registry, seed=seed, storage=storage,
                        options=attrs.evolve(options, node=given.node))


def _plain(text: str) -> Text:
    """``text`` as plain text (never rich markup), escaped and cut for the terminal."""
    from rich.text import Text
    return Text(terminal(text, LINE_MAX))


def print_capacity(result: CapacityResult, out: Console) -> None:
    """The count, the copies per node, the victims (with --preempt), the nodes added (with --add-nodes), and why
    the copies stopped."""
    from rich.table import Table
    noun = "copy" if result.copies == 1 else "copies"
    out.print(_plain(f"{result.template}: {result.copies} {noun} fit"
                   + (", preempting lower-priority pods" if result.preempt else "") + f"; seed {result.seed}"))
    if result.per_node:
        table = Table()
        table.add_column("NODE")
        table.add_column("COPIES", justify="right")
        for node, count in result.per_node:
            table.add_row(_plain(node), str(count))
        out.print("Copies", style="bold")
        out.print(table)
    if result.victims:
        table = Table()
        for column in ("POD", "NODE", "PRIORITY", "PREEMPTED BY"):
            table.add_column(column, justify="right" if column == "PRIORITY" else "left")
        for victim in result.victims:
            table.add_row(_plain(f"{victim.namespace}/{victim.name}"), _plain(victim.node), str(victim.priority),
                          _plain(victim.preemptor))
        out.print("Victims", style="bold")
        out.print(table)
    added = result.added
    if added is not None:
        goal = f"{added.target} copies" if added.target is not None else "every pending pod of the input"
        outcome = f"{goal}: reached" if added.reached else f"{goal}: not reached, {added.message}"
        names = f" ({', '.join(added.names)})" if added.names else ""
        out.print(_plain(f"added {len(added.names)} node(s) like {added.template}{names}; {outcome}"))
        if added.pending:
            out.print(_plain(f"still pending: {', '.join(added.pending)}"))
    from kubesched.capacity.result import UNSCHEDULABLE  # the capacity package loads when the command runs

    stop = result.stop
    if stop.reason == UNSCHEDULABLE:
        out.print(_plain(f"stopped: copy {stop.copy} does not fit: {stop.message}"))
    elif stop.copy:
        out.print(_plain(f"stopped: copy {stop.copy} was refused: {stop.message}"))
    else:
        out.print(_plain(f"stopped: {stop.message}"))
