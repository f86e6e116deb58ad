"""The ``kubesched`` command line."""

from __future__ import annotations

import contextlib
import errno
import json
import math
import os
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import attrs
import click
import yaml

from kubesched.cli import progress as progress_bar
from kubesched.cli.capacity import capacity
from kubesched.cli.common import error_lines as _error_lines
from kubesched.cli.common import fail as _fail
from kubesched.cli.common import load_profile as _load_profile
from kubesched.cli.common import scenario_of as _scenario
from kubesched.cli.compare import compare_command
from kubesched.cli.containment import contained, leave_plugin_threads, plugin_timeout_option, plugins_running
from kubesched.cli.reference import reference_pod_option
from kubesched.cli.report import report_command
from kubesched.cli.sweep import sweep
from kubesched.errors import KubeschedError
from kubesched.io.load import ClusterInput, load_kept
from kubesched.metrics import SchedulerMetrics
from kubesched.profiles import DEFAULT_PROFILE, FORMATS, render
from kubesched.runtime import Explainer, PluginRegistry
from kubesched.sim.controllers import StorageSettings
from kubesched.sim.explain import ExplainError, explain_request
from kubesched.sim.explain_run import Run, run_explaining
from kubesched.sim.scenario_run import ScenarioRunner
from kubesched.sim.simulate import Simulation
from kubesched.validation import LINE_MAX, terminal

F = TypeVar("F", bound=Callable[..., Any])

PROFILE_HELP = ("A shipped profile name (default, ...), or the path of a TOML profile or of a "
                "KubeSchedulerConfiguration YAML file.")


def _storage_settings(base: StorageSettings, provisioners: tuple[str, ...],
                      delay: float | None) -> StorageSettings:
    """``base`` (a scenario's, or the defaults) with the flags given: ``--provisioner`` and
    ``--provisioning-delay``."""
    return StorageSettings(base.provisioning_delay if delay is None else delay,
                           tuple(provisioners) if provisioners else base.provisioners)


def _guarded(command: F) -> F:
    """Turn user errors into one clean line each on stderr and exit status 1."""

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            try:
                result = command(*args, **kwargs)
            except KubeschedError as exc:
                _fail(exc)
                result = None
        except SystemExit as exit_:
            leave_plugin_threads(exit_.code)
            raise
        leave_plugin_threads(0)  # the result is written: threads a plugin left running are not waited for
        return result

    wrapper.__name__ = command.__name__
    wrapper.__doc__ = command.__doc__
    return wrapper  # type: ignore[return-value]


class _Commands(click.Group):
    """The command group, whose output that cannot be written (a full disk, a closed pipe) is one clean error
    line (a closed pipe: none), not a traceback."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().main(*args, **kwargs)
        except OSError as exc:
            if exc.errno not in _WRITE_ERRORS:
                raise
            # Nothing more may reach the broken stream: the interpreter's own flush at exit would fail again.
            with contextlib.suppress(OSError):
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            if exc.errno != errno.EPIPE:
                click.echo(f"error: cannot write the output: {exc.strerror or exc}", err=True)
            sys.exit(1)


#: The errors of a write to standard output that are the destination's, not kubesched's.
_WRITE_ERRORS = frozenset({errno.ENOSPC, errno.EPIPE, errno.EIO, errno.EDQUOT, errno.EFBIG, errno.EBADF})


@click.group(cls=_Commands)
@click.version_option(package_name="kubesched")
def main() -> None:
    """kubesched: a Kubernetes-style pod scheduler you can extend with Python plugins."""


main.add_command(sweep)
main.add_command(capacity)
main.add_command(compare_command)
main.add_command(report_command)


@main.command()
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("-f", "--filename", "filenames", multiple=True, type=click.Path(), metavar="PATH",
              help="A manifest file or directory, as kubectl takes it (repeatable; adds to PATHS; - is stdin).")
@click.option("--profile", "profile", default=DEFAULT_PROFILE, show_default=True, help=PROFILE_HELP)
@click.option("--seed", default=0, show_default=True, type=int, help="Seed for every random choice.")
@click.option("-o", "--output", "output", type=click.Choice(["table", "json", "yaml"]), default="table",
              show_default=True)
@click.option("--strict", is_flag=True, help="Exit 1 if any plugin failed (raised, or returned an Error or a wrong "
                                             "type); the result is still printed.")
@click.option("--events", "show_events", is_flag=True,
              help="Table output: add the events (simulated time, type, reason, object, message).")
@click.option("--metrics-file", "metrics_file", type=click.Path(dir_okay=False), default=None, metavar="PATH",
              help="Write the scheduler's metrics to PATH in the Prometheus text format (see docs/metrics.md).")
@click.option("-q", "--quiet", is_flag=True, help="No progress bar on stderr (it is drawn only on a terminal anyway).")
@click.option("--explain", "explain", multiple=True, metavar="NAMESPACE/NAME",
              help="Record every scheduling attempt of this pod, per node and plugin: a pod of the input or one "
                   "created during the run (repeatable; see docs/explain.md).")
@click.option("-l", "--explain-selector", "explain_selector", default=None, metavar="LABELSELECTOR",
              help="Explain every pod of the run whose labels match (app=web,tier!=db, env in (a,b), !x, x).")
@click.option("--explain-pending", "explain_pending", is_flag=True,
              help="Explain every pod pending at the end of the run.")
@click.option("--explain-all", "explain_all", is_flag=True, help="Record every scheduling attempt of every pod.")
@click.option("--provisioner", "provisioners", multiple=True, metavar="NAME",
              help="A volume provisioner that runs in the simulated cluster (repeatable; * for every one). Default: "
                   "those the input shows running (see docs/simulate.md).")
@click.option("--provisioning-delay", "provisioning_delay", type=click.FloatRange(min=0, max=1e9), default=None,
              metavar="SECONDS", help="How long a simulated provisioner takes to create a volume, in seconds of "
                                      "virtual time (default 5).")
@reference_pod_option
@plugin_timeout_option
@_guarded
def simulate(paths: tuple[str, ...], filenames: tuple[str, ...], profile: str, seed: int, output: str,
             strict: bool, show_events: bool, metrics_file: str | None, quiet: bool, explain: tuple[str, ...],
             explain_selector: str | None, explain_pending: bool, explain_all: bool, provisioners: tuple[str, ...],
             provisioning_delay: float | None, reference_pod: dict[str, int] | None,
             plugin_timeout_ms: float | None) -> None:
    """Schedule the pods in PATHS (YAML/JSON files or directories; - reads standard input) on an in-memory
    cluster, or run a Scenario file (kind: Scenario, see docs/scenarios.md) given as the only PATH."""
    if not paths and not filenames:
        raise click.UsageError("give at least one PATH (or -f PATH; - reads standard input)")
    registry = PluginRegistry.discover()
    config = contained(_load_profile(profile, registry), plugin_timeout_ms, strict)
    inputs = [*filenames, *paths]
    try:
        scenario = _scenario(inputs)
        storage = _storage_settings(scenario.storage if scenario is not None else StorageSettings(), provisioners,
                                    provisioning_delay)
        if scenario is not None:
            scenario = attrs.evolve(scenario, storage=storage)
        cluster_input = None if scenario is not None else load_kept(inputs)
    except KubeschedError as exc:
        try:  # every problem in one run: the explain flags' too
            explain_request(explain, explain_selector, explain_pending, explain_all)
        except ExplainError as also:
            _fail(exc, also)
        raise
    request = explain_request(explain, explain_selector, explain_pending, explain_all, cluster_input)
    with contextlib.ExitStack() as stack:
        bar = (stack.enter_context(progress_bar.SimulationBar())
               if progress_bar.wants_progress(progress_bar.stderr_is_terminal(), quiet) else None)
        stack.enter_context(plugins_running(registry))

        def start(explainer: Explainer | None) -> Run:
            if scenario is not None:
                return ScenarioRunner(scenario, config, registry, seed=seed, progress=bar, explainer=explainer,
                                      reference_pod=reference_pod)
            assert cluster_input is not None
            return Simulation(cluster_input, config, registry, seed=seed, progress=bar, explainer=explainer,
                              storage=storage, reference_pod=reference_pod)

        explained = run_explaining(start, request, cluster_input.pods if cluster_input else ())
    # A run that did not settle (unsettled) still has a result: it is printed before the error.
    result, unsettled = explained.result, explained.unsettled
    if metrics_file is not None and result.metrics is not None:
        _write_metrics(metrics_file, result.metrics)
    for warning in [*result.warnings, *explained.warnings]:
        click.echo(terminal(f"warning: {warning}", LINE_MAX), err=True)
    nothing = _nothing_to_schedule(cluster_input) if cluster_input is not None else ""
    if nothing:
        click.echo(terminal(f"warning: nothing to schedule: {nothing}", LINE_MAX), err=True)
    if output == "json":
        click.echo(json.dumps(result.to_json(), indent=2))
    elif output == "yaml":
        # Through JSON first: the document then holds only the plain types YAML's safe dumper writes.
        document = json.loads(json.dumps(result.to_json()))
        click.echo(yaml.safe_dump(document, sort_keys=False, allow_unicode=True), nl=False)
    else:
        from kubesched.cli.render import console, print_simulation

        print_simulation(result, console(sys.stdout), events=show_events)
        if result.explain is not None:
            from kubesched.cli.explain_table import print_explain

            print_explain(result.explain, console(sys.stdout), result.pods)
    # Plugin errors once, at the end of the run: one line per failing plugin (the events hold every failure).
    for line in result.plugin_error_summary():
        click.echo(terminal(f"warning: plugin error: {line}", LINE_MAX), err=True)
    if unsettled is not None:
        _fail(unsettled)
    if strict and result.plugin_errors:
        click.echo(f"error: {len(result.plugin_errors)} plugin error(s) (--strict)", err=True)
        sys.exit(1)


def _write_metrics(path: str, metrics: SchedulerMetrics) -> None:
    """Write ``metrics`` to ``path`` in the Prometheus text format; a path that cannot be written is a user error."""
    from kubesched.metrics.prometheus import prometheus_text

    try:
        with open(path, "w", encoding="utf-8") as out:
            out.write(prometheus_text(metrics))
    except OSError as exc:
        raise KubeschedError(f'--metrics-file: cannot write "{path}": {exc.strerror or exc}') from None


def _nothing_to_schedule(cluster_input: ClusterInput) -> str:
    """Why the input gives the scheduler no work, or "" when some pod awaits a node."""
    if cluster_input.workloads:
        return ""  # their controllers create pods
    if not cluster_input.pods:
        return ("the input has no pods and no workloads (Deployments, ReplicaSets or StatefulSets with a template, "
                "DaemonSets, Jobs, CronJobs) whose controllers would create some")
    if all(p.spec.node_name or p.status.phase in ("Succeeded", "Failed") for p in cluster_input.pods):
        return "every pod in the input is already on a node or has finished"
    return ""


@main.command()
@click.argument("workload_name", metavar="WORKLOAD")
@click.option("--nodes", type=int, default=None, help="Nodes (default: the workload's).")
@click.option("--init-pods", "init_pods", type=int, default=None,
              help="Pods scheduled before measuring, not measured (default: the workload's; 0 for none).")
@click.option("--measure-pods", "measure_pods", type=int, default=None,
              help="Pods measured (default: the workload's).")
@click.option("--profile", "profile", default=DEFAULT_PROFILE, show_default=True, help=PROFILE_HELP)
@click.option("--seed", default=0, show_default=True, type=int, help="Seed for every random choice.")
@click.option("--reference", is_flag=True, help="Run the plain per-node plugin path instead of the fast path.")
@click.option("-o", "--output", "output", type=click.Choice(["table", "json"]), default="table", show_default=True)
@_guarded
def bench(workload_name: str, nodes: int | None, init_pods: int | None, measure_pods: int | None, profile: str,
          seed: int, reference: bool, output: str) -> None:
    """Run one of scheduler_perf's workloads in memory and report throughput, latency, peak memory and a digest
    of every scheduling decision (see docs/performance.md).

    WORKLOAD is SchedulingBasic, TopologySpreading, SchedulingPodAntiAffinity, SchedulingPodAffinity,
    SchedulingNodeAffinity, PreemptionBasic, Unschedulable or SchedulingWithMixedChurn."""
    from kubesched.bench.cli import bench_command

    bench_command(workload_name, nodes=nodes, init_pods=init_pods, measure_pods=measure_pods,
                  load_profile=lambda registry: _load_profile(profile, registry), seed=seed, reference=reference,
                  output=output)


@main.command()
@click.option("--kubeconfig", type=click.Path(dir_okay=False), default=None,
              help="The kubeconfig to use (default: in-cluster config, the pod's service account).")
@click.option("--profile", "profile", default=DEFAULT_PROFILE, show_default=True, help=PROFILE_HELP)
@click.option("--leader-elect", is_flag=True, help="Schedule only while holding the Lease (run several replicas).")
@click.option("--lease-namespace", default="kube-system", show_default=True, help="The Lease's namespace.")
@click.option("--lease-name", default="kubesched", show_default=True, help="The Lease's name.")
@click.option("--metrics-bind-address", default="127.0.0.1:10259", show_default=True, metavar="HOST:PORT",
              help="Where /healthz, /readyz and /metrics are served (plain HTTP, no authentication: a non-loopback "
                   "address is warned about).")
@click.option("--leader-elect-lease-duration", "lease_duration", default="15s", show_default=True,
              metavar="DURATION", help="How long a standby waits after the last renewal before taking the Lease.")
@click.option("--leader-elect-renew-deadline", "renew_deadline", default="10s", show_default=True,
              metavar="DURATION", help="How long the leader tries to renew before it stops scheduling and steps down.")
@click.option("--leader-elect-retry-period", "retry_period", default="2s", show_default=True, metavar="DURATION",
              help="How often candidates try to take, and the leader to renew, the Lease.")
@click.option("--api-timeout", "api_timeout", default="30s", show_default=True, metavar="DURATION",
              help="Give up with an error when the API server cannot be reached or refuses the credentials for "
                   "this long at start-up.")
@click.option("--keep-trying", is_flag=True, help="At start-up, try to reach the API server for ever.")
@click.option("--stall-timeout", "stall_timeout", default="60s", show_default=True, metavar="DURATION",
              help="/healthz and /readyz fail once the scheduling loop has not come round for this long.")
@plugin_timeout_option
@_guarded
def run(kubeconfig: str | None, profile: str, leader_elect: bool, lease_namespace: str, lease_name: str,
        metrics_bind_address: str, lease_duration: str, renew_deadline: str, retry_period: str, api_timeout: str,
        keep_trying: bool, stall_timeout: str, plugin_timeout_ms: float | None) -> None:
    """Schedule a real cluster's pending pods whose schedulerName matches a profile (needs 'kubesched[kube]')."""
    import logging

    from kubesched.cli.containment import plugins_cannot_exit
    from kubesched.cli.run_flags import durations
    from kubesched.kube.leader import LeaderElectionSettings
    from kubesched.kube.rest import KubeApi
    from kubesched.kube.run import Runner, RunOptions
    from kubesched.kube.server import exposure_warning, parse_address

    registry = PluginRegistry.discover()
    problems: list[KubeschedError] = []  # every problem with the flags in one run, then exit 1
    config = api = None
    try:
        config = contained(_load_profile(profile, registry), plugin_timeout_ms, strict=False)
    except KubeschedError as exc:
        problems.append(exc)
    except click.BadParameter as exc:
        problems.append(KubeschedError(f"{exc.param_hint}: {exc.message}"))
    try:
        api = KubeApi.connect(kubeconfig)
    except KubeschedError as exc:
        problems.append(exc)
    warning = None
    try:
        parse_address(metrics_bind_address)
        warning = exposure_warning(metrics_bind_address)
    except KubeschedError as exc:
        problems.append(exc)
    seconds = durations({"--leader-elect-lease-duration": lease_duration,
                         "--leader-elect-renew-deadline": renew_deadline,
                         "--leader-elect-retry-period": retry_period, "--api-timeout": api_timeout,
                         "--stall-timeout": stall_timeout}, problems)
    if problems or config is None or api is None or seconds is None:
        for problem in problems:
            for line in _error_lines(problem):
                click.echo(terminal(f"error: {line}", LINE_MAX), err=True)
        sys.exit(1)
    if warning is not None:
        click.echo(terminal(f"warning: {warning}", LINE_MAX), err=True)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    lease = LeaderElectionSettings(namespace=lease_namespace, name=lease_name,
                                   lease_duration=seconds["--leader-elect-lease-duration"],
                                   renew_deadline=seconds["--leader-elect-renew-deadline"],
                                   retry_period=seconds["--leader-elect-retry-period"])
    options = RunOptions(kubeconfig=kubeconfig, leader_elect=leader_elect, lease=lease,
                         metrics_bind_address=metrics_bind_address, api_timeout=seconds["--api-timeout"],
                         keep_trying=keep_trying, stall_timeout=seconds["--stall-timeout"])
    with plugins_cannot_exit(registry):  # a plugin's os._exit is its error for its pod, not a crash loop
        code = Runner(api, config, registry, options).run()
    sys.exit(code)


@main.command()
@click.option("-o", "--output", "output", type=click.Choice(["table", "json"]), default="table", show_default=True)
@_guarded
def plugins(output: str) -> None:
    """List the installed plugins: name, extension points, where each comes from, and what keeps it off the fast
    path (as the default profile's DefaultPreemption sees it)."""
    from kubesched.plugins.default_preemption import RESOURCE_SHORTCUT
    from kubesched.runtime import fast_path

    registry = PluginRegistry.discover()
    specs = [registry[name] for name in registry]
    speeds = [fast_path(s.cls, resource_shortcut=RESOURCE_SHORTCUT) for s in specs]
    if output == "json":
        document = {"kind": "PluginList", "plugins": [
            {"name": s.name, "extensionPoints": [p.name for p in s.points], "source": s.source,
             "distribution": s.distribution, "version": s.version, "fastPath": speed.to_json()}
            for s, speed in zip(specs, speeds, strict=True)]}
        click.echo(json.dumps(document, indent=2))
    else:
        from kubesched.cli.render import console, print_plugins

        print_plugins(specs, speeds, console(sys.stdout))


@main.group()
def profile() -> None:
    """Validate and inspect scheduling profiles."""


@profile.command("check")
@click.argument("spec", metavar="NAME|PATH")
@_guarded
def profile_check(spec: str) -> None:
    """Validate a profile (TOML or KubeSchedulerConfiguration); exit 1 with the problem if it is invalid."""
    config = _load_profile(spec)
    names = ", ".join(p.scheduler_name for p in config.profiles)
    click.echo(terminal(f"ok: {config.source}: {len(config.profiles)} profile(s): {names}", LINE_MAX))


@profile.command("show")
@click.argument("spec", metavar="NAME|PATH")
@click.option("--format", "form", type=click.Choice(FORMATS), default="toml", show_default=True,
              help="Print a kubesched TOML profile or a KubeSchedulerConfiguration (YAML).")
@_guarded
def profile_show(spec: str, form: str) -> None:
    """Print the effective profile (merged onto the defaults) as TOML or as a KubeSchedulerConfiguration."""
    config = _load_profile(spec)
    click.echo(render(config, form), nl=False)


@main.command()
@click.argument("plugin")
@click.option("--args", "args_file", type=click.Path(), default=None,
              help="A TOML file holding the plugin's args (its plugin-config keys at the top level).")
@click.option("--cluster", "cluster", multiple=True, type=click.Path(), metavar="PATH",
              help="Manifests to use as the example cluster instead of the built-in one (repeatable): nodes, bound "
                   "pods as running pods, the other pods as the pods to schedule.")
@click.option("--check", "checks", multiple=True, metavar="ID", help="Run only this check (repeatable).")
@click.option("--time-budget-ms", type=float, default=None,
              help="Per-call Filter/Score budget: over it the time-budget check warns, over ten times it fails "
                   "(default 0.5).")
@click.option("--output", "output", type=click.Choice(["table", "json"]), default="table", show_default=True)
@_guarded
def conformance(plugin: str, args_file: str | None, cluster: tuple[str, ...], checks: tuple[str, ...],
                time_budget_ms: float | None, output: str) -> None:
    """Run the conformance suite on the installed plugin PLUGIN (its entry-point name); exit 1 if a check fails
    (also when the examples never reach a hook a check is about: then pass --cluster)."""
    from kubesched.testing.conformance.checks import CHECKS
    from kubesched.testing.conformance.installed import installed_subject
    from kubesched.testing.conformance.report import run_conformance, select_checks
    from kubesched.testing.conformance.subject import DEFAULT_TIME_BUDGET

    try:
        selected = select_checks(checks) if checks else list(CHECKS)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--check") from None
    if time_budget_ms is not None and not (math.isfinite(time_budget_ms) and time_budget_ms > 0):
        raise click.BadParameter(f"{time_budget_ms} is not a positive number of milliseconds",
                                 param_hint="--time-budget-ms")
    budget = time_budget_ms / 1000 if time_budget_ms is not None else DEFAULT_TIME_BUDGET
    report = run_conformance(installed_subject(plugin, args_file, cluster=cluster, time_budget=budget), selected)
    if output == "json":
        click.echo(json.dumps(report.to_json(), indent=2))
    else:
        click.echo("\n".join(report.lines()))
    if not report.ok:
        sys.exit(1)

