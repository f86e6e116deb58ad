"""``kubesched profile show --format`` and ``profile check`` on KubeSchedulerConfiguration files."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner, Result

from kubesched.cli.main import main
from tests.conftest import RunCli, write

KUBE = """apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection: {kubeconfig: /etc/kubernetes/scheduler.conf}
profiles:
- schedulerName: packer
  pluginConfig:
  - name: NodeResourcesFit
    args: {scoringStrategy: {type: MostAllocated}}
"""


def invoke(*args: str) -> Result:
    """Run the CLI in-process, as click's test runner does."""
    return CliRunner().invoke(main, list(args))


def test_show_defaults_to_toml() -> None:
    """Without --format, show prints the TOML profile as before."""
    result = invoke("profile", "show", "default")
    assert result.exit_code == 0
    assert tomllib.loads(result.stdout)["profiles"][0]["scheduler-name"] == "default-scheduler"


def test_show_prints_a_kube_scheduler_config() -> None:
    """--format kube-scheduler-config prints a KubeSchedulerConfiguration YAML."""
    result = invoke("profile", "show", "bin-packing", "--format", "kube-scheduler-config")
    assert result.exit_code == 0
    document = yaml.safe_load(result.stdout)
    assert (document["apiVersion"], document["kind"]) == ("kubescheduler.config.k8s.io/v1",
                                                          "KubeSchedulerConfiguration")
    assert document["profiles"][0]["schedulerName"] == "default-scheduler"


def test_show_converts_a_kube_config_to_toml(tmp_path: Path) -> None:
    """A KubeSchedulerConfiguration shown as TOML keeps its profile name and args."""
    path = write(tmp_path / "sched.yaml", KUBE)
    result = invoke("profile", "show", str(path), "--format", "toml")
    assert result.exit_code == 0
    profile = tomllib.loads(result.stdout)["profiles"][0]
    assert profile["scheduler-name"] == "packer"
    assert profile["plugin-config"]["NodeResourcesFit"]["scoring-strategy"]["type"] == "MostAllocated"


def test_show_refuses_an_unknown_format() -> None:
    """--format accepts only toml and kube-scheduler-config."""
    result = invoke("profile", "show", "default", "--format", "json")
    assert result.exit_code == 2
    assert "'toml', 'kube-scheduler-config'" in result.stderr


def test_check_accepts_a_kube_config(tmp_path: Path) -> None:
    """check validates a KubeSchedulerConfiguration and names its profiles."""
    path = write(tmp_path / "sched.yaml", KUBE)
    result = invoke("profile", "check", str(path))
    assert (result.exit_code, result.stdout, result.stderr) == (0, f"ok: {path}: 1 profile(s): packer\n", "")


def test_check_prints_warnings_on_stderr(tmp_path: Path) -> None:
    """A plugin kubesched does not model in a kube config is a warning line on stderr; the check still passes."""
    volume = "  plugins:\n    multiPoint:\n      enabled: [{name: DynamicResources}]\n"
    path = write(tmp_path / "sched.yaml", KUBE + volume)
    result = invoke("profile", "check", str(path))
    assert result.exit_code == 0
    assert result.stderr.startswith(f"warning: {path}: profiles[0]: ignoring DynamicResources: ")


def test_check_reports_a_kube_config_error_on_one_line(tmp_path: Path) -> None:
    """A bad kube config is one error line with the YAML path, and exit status 1."""
    path = write(tmp_path / "sched.yaml", KUBE.replace("MostAllocated", "Most"))
    result = invoke("profile", "check", str(path))
    assert result.exit_code == 1
    assert result.stderr.startswith(f"error: {path}: profiles[0].pluginConfig[0].args.scoringStrategy.type: "
                                    'Unsupported value: "Most": ')
    assert result.stderr.count("\n") == 1


@pytest.mark.slow
def test_installed_command_round_trips_a_kube_config(run_cli: RunCli, tmp_path: Path) -> None:
    """The console script shows a kube config as TOML and back as the same kube config."""
    path = write(tmp_path / "sched.yaml", KUBE)
    kube = run_cli("profile", "show", str(path), "--format", "kube-scheduler-config")
    assert kube.returncode == 0, kube.stderr
    shown = write(tmp_path / "shown.yaml", kube.stdout)
    toml = run_cli("profile", "show", str(shown))
    assert toml.returncode == 0, toml.stderr
    again = run_cli("profile", "show", str(write(tmp_path / "shown.toml", toml.stdout)), "--format",
                    "kube-scheduler-config")
    assert yaml.safe_load(again.stdout) == yaml.safe_load(kube.stdout)


def test_simulate_prints_the_profile_warnings(tmp_path: Path) -> None:
    """simulate --profile with a kube config naming a plugin kubesched does not model warns on stderr and still
    schedules."""
    volume = "  plugins:\n    multiPoint:\n      enabled: [{name: DynamicResources}]\n"
    profile = write(tmp_path / "sched.yaml", KUBE.replace("schedulerName: packer", "schedulerName: default-scheduler")
                    + volume)
    node = write(tmp_path / "node.yaml", "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n"
                 'status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}\n')
    result = invoke("simulate", str(node), "--profile", str(profile), "-o", "json")
    assert result.exit_code == 0, result.stderr
    assert f"warning: {profile}: profiles[0]: ignoring DynamicResources: " in result.stderr


def test_check_prints_every_problem_on_its_own_line(tmp_path: Path) -> None:
    """Several mistakes are several ``error:`` lines on stderr, and exit status 1."""
    path = write(tmp_path / "bad.toml", "percentage-of-nodes-to-score = 101\npod-initial-backoff-seconds = 0\n")
    result = invoke("profile", "check", str(path))
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        f"error: {path}: percentage-of-nodes-to-score: Invalid value: 101: not in valid range [0-100]",
        f"error: {path}: pod-initial-backoff-seconds: Invalid value: 0: must be greater than 0",
    ]
