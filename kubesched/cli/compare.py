"""``kubesched compare PROFILE PROFILE... -- INPUT...``: the same input and seed under each profile, the run
metrics side by side and the pods placed differently."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any

import click
import yaml

from kubesched.cli.common import fail, load_profile, scenario_of
from kubesched.cli.containment import plugin_timeout_option
from kubesched.cli.reference import reference_pod_option
from kubesched.errors import KubeschedError
from kubesched.io.load import load
from kubesched.runtime import PluginRegistry
from kubesched.sim.compare import HEADLINE, HEADLINE_PER_RESOURCE, Comparison, compare
from kubesched.validation import terminal

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text


class _SplitAtDashes(click.Command):
    """A command whose arguments are PROFILEs, then ``--``, then INPUTs: click drops the ``--`` it reads, so the
    split is made before click parses (options may come anywhere before the ``--``)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if "--" not in args and not set(self.get_help_option_names(ctx)).intersection(args):
            raise click.UsageError("separate the profiles from the inputs with --, as in: kubesched compare default "
                                   "most-allocated.toml -- cluster.yaml", ctx)
        split = args.index("--") if "--" in args else len(args)
        ctx.meta["compare_inputs"] = tuple(args[split + 1:])
        return super().parse_args(ctx, args[:split])


@click.command("compare", cls=_SplitAtDashes)
@click.argument("profiles", nargs=-1, metavar="PROFILE PROFILE... -- INPUT...")
@click.option("--seed", default=0, show_default=True, type=int, help="Seed for every random choice (every run's).")
@click.option("-o", "--output", "output", type=click.Choice(["table", "json", "yaml"]), default="table",
              show_default=True)
@click.option("--report", "report", default=None, metavar="FILE.html",
              help="Also write the HTML report of the comparison (as kubesched report makes it; docs/report.md).")
@reference_pod_option
@plugin_timeout_option
@click.pass_context
def compare_command(ctx: click.Context, profiles: tuple[str, ...], seed: int, output: str,
                    report: str | None, reference_pod: dict[str, int] | None,
                    plugin_timeout_ms: float | None) -> None:
    """Run INPUT (files, directories, or one Scenario file) under each PROFILE (a shipped name or a profile file)
    with the same seed; show the run metrics side by side (with each one's difference against the first profile)
    and every pod placed differently. See docs/analysis.md."""
    from kubesched.cli.containment import contained, plugins_running
    inputs = list(ctx.meta.get("compare_inputs", ()))
    if len(profiles) < 2:
        raise click.UsageError("give at least two profiles before --", ctx)
    if not inputs:
        raise click.UsageError("give at least one input after --", ctx)
    try:
        registry = PluginRegistry.discover()
        configs = [(_label(spec, profiles[:index]), contained(load_profile(spec, registry), plugin_timeout_ms,
                                                              strict=False))
                   for index, spec in enumerate(profiles)]
        scenario = scenario_of(inputs)
        loaded = scenario if scenario is not None else load(inputs)
        with plugins_running(registry):  # what plugins print goes to stderr
            comparison = compare(loaded, configs, registry, seed=seed, reference_pod=reference_pod)
    except KubeschedError as exc:
        fail(exc)
        return
    document = comparison.to_json()
    if report is not None:
        from kubesched.cli.report import comparison_report

        try:
            comparison_report(json.loads(json.dumps(document)), report)
        except KubeschedError as exc:
            fail(exc)
    if output == "json":
        click.echo(json.dumps(document, indent=2))
    elif output == "yaml":
        click.echo(yaml.safe_dump(json.loads(json.dumps(document)), sort_keys=False, allow_unicode=True), nl=False)
    else:
        from kubesched.cli.render import console

        print_comparison(comparison, document, console(sys.stdout))


def _label(spec: str, before: tuple[str, ...]) -> str:
    """A profile's name in the output: as given, with ``#2``... when the same one is given again."""
    repeats = before.count(spec)
    return spec if not repeats else f"{spec}#{repeats + 1}"


def _number(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float) and not value.is_integer():
        return f"{value:.4g}"
    return f"{value:g}" if isinstance(value, float) else str(value)


def _signed(value: Any) -> str:
    if value is None:
        return "-"
    text = _number(value)
    return text if text.startswith("-") or value == 0 else f"+{text}"


def _text(value: str) -> Text:
    """A header or cell from the input (a profile's name, a pod's) as plain text, escaped and cut."""
    from rich.text import Text
    return Text(terminal(value))


def print_comparison(comparison: Comparison, document: dict[str, Any], out: Console) -> None:
    """The metrics table (headline figures, each profile, then the difference of each later profile against the
    first) and the table of pods placed differently."""
    from rich.table import Table
    metrics: dict[str, list[Any]] = document["metrics"]
    differences: dict[str, list[Any]] = document["differences"]
    names = comparison.names
    resources = [name.split(".")[1] for name in metrics if name.startswith("resources.") and name.endswith(".ratio")
                 and name.count(".") == 2]
    rows = [*HEADLINE[:7], *(f"resources.{r}.{f}" for r in resources for f in HEADLINE_PER_RESOURCE),
            *HEADLINE[7:]]
    table = Table(title=f"Run metrics (seed {comparison.seed})", title_justify="left")
    table.add_column("METRIC")
    for name in names:
        table.add_column(_text(name), justify="right")
    for name in names[1:]:
        table.add_column(_text(f"Δ {name}"), justify="right")
    for row in rows:
        if row not in metrics:
            continue
        table.add_row(row, *(_number(v) for v in metrics[row]), *(_signed(v) for v in differences[row][1:]))
    out.print(table)
    placements = comparison.placements()
    if not placements:
        out.print("Every pod has the same outcome and node under every profile.")
        return
    moved = Table(title=f"Pods placed differently ({len(placements)})", title_justify="left")
    moved.add_column("POD")
    moved.add_column("CHANGE")
    for name in names:
        moved.add_column(_text(name))
    for placement in placements:
        cells = [node if node is not None else phase for node, phase in zip(placement.nodes, placement.phases,
                                                                             strict=True)]
        moved.add_row(_text(placement.pod), _text(placement.change), *(_text(cell) for cell in cells))
    out.print(moved)
