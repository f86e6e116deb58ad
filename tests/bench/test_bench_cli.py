"""``kubesched bench`` on the command line: sizes, output forms, and one-line errors for bad input."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from kubesched.bench import WORKLOADS
from kubesched.cli.main import main
from tests.conftest import RunCli

SMALL = ["--nodes", "6", "--init-pods", "4", "--measure-pods", "8"]


def bench(*args: str) -> tuple[int, str, str]:
    """Run ``kubesched bench ARGS`` in process; exit code, stdout, stderr."""
    result = CliRunner().invoke(main, ["bench", *args])
    return result.exit_code, result.stdout, result.stderr


def test_counts_flags_override_the_workload_defaults() -> None:
    """--nodes, --init-pods and --measure-pods set the sizes the JSON reports."""
    code, out, _ = bench("SchedulingBasic", *SMALL, "--output", "json")
    document = json.loads(out)
    assert code == 0
    assert (document["nodes"], document["initPods"], document["measurePods"]) == (6, 4, 8)


def test_reference_flag_is_reported() -> None:
    """--reference runs the per-node path and says so in the JSON."""
    _, out, _ = bench("SchedulingBasic", *SMALL, "--reference", "--output", "json")
    assert json.loads(out)["reference"] is True


def test_table_output_shows_the_same_figures() -> None:
    """The table names the workload, the sizes, the throughput and the digest of the JSON run."""
    _, out, _ = bench("SchedulingBasic", *SMALL)
    _, as_json, _ = bench("SchedulingBasic", *SMALL, "--output", "json")
    digest = json.loads(as_json)["decisionDigest"]
    assert "SchedulingBasic" in out
    assert "6 / 4 / 8" in out
    assert "pods/s" in out
    assert digest in out


def test_no_progress_bar_when_stderr_is_not_a_terminal() -> None:
    """Without a terminal on stderr the run writes nothing there."""
    _, _, err = bench("SchedulingBasic", *SMALL)
    assert err == ""


@pytest.mark.parametrize(("args", "message"), [
    (["Nope"], 'error: unknown workload "Nope": valid workloads are SchedulingBasic, TopologySpreading, '
               "SchedulingPodAntiAffinity, SchedulingPodAffinity, SchedulingNodeAffinity, PreemptionBasic, "
               "Unschedulable"),
    (["SchedulingBasic", "--nodes", "0"], 'error: --nodes: must be a positive integer, got "0"'),
    (["SchedulingBasic", "--measure-pods", "-3"], 'error: --measure-pods: must be a positive integer, got "-3"'),
    (["SchedulingBasic", "--init-pods", "-1"], 'error: --init-pods: must be a non-negative integer, got "-1"'),
    (["SchedulingBasic", "--profile", "nope"], "error: no shipped profile named 'nope'"),
])
def test_bad_input_is_one_line_and_exit_1(args: list[str], message: str) -> None:
    """Each problem is one error line on stderr, without a traceback, and the exit status is 1."""
    code, out, err = bench(*args)
    assert (code, out) == (1, "")
    assert len(err.splitlines()) == 1
    assert err.startswith(message)


def test_every_problem_is_reported_in_one_run() -> None:
    """An unknown workload, a bad count and an unknown profile are all reported together."""
    _, _, err = bench("Nope", "--nodes", "0", "--profile", "nope")
    assert [line.split(":")[1].strip() for line in err.splitlines()] == [
        'unknown workload "Nope"', "--nodes", "no shipped profile named 'nope'; shipped profiles"]


def test_pods_left_unscheduled_exit_1() -> None:
    """A measured pod that was never scheduled makes the command fail with a clear line."""
    code, _, err = bench("SchedulingBasic", "--nodes", "1", "--init-pods", "0", "--measure-pods", "45")
    assert code == 1
    assert err.startswith("error: SchedulingBasic: 5 of 45 measured pod(s) were not scheduled: ")


def test_installed_command_prints_json(run_cli: RunCli) -> None:
    """The installed ``kubesched bench`` prints the JSON document on stdout and nothing on stderr."""
    done = run_cli("bench", "PreemptionBasic", "--nodes", "4", "--init-pods", "16", "--measure-pods", "4",
                   "--output", "json")
    assert (done.returncode, done.stderr) == (0, "")
    assert json.loads(done.stdout)["workload"] == "PreemptionBasic"


def test_progress_bar_on_a_terminal_leaves_stdout_to_the_result(monkeypatch: pytest.MonkeyPatch) -> None:
    """With stderr a terminal the progress bar is drawn there, and stdout still holds only the JSON document."""
    monkeypatch.setattr("kubesched.bench.cli.stderr_is_terminal", lambda: True)
    code, out, _ = bench("SchedulingBasic", *SMALL, "--output", "json")
    assert code == 0
    assert json.loads(out)["measurePods"] == 8


def test_help_names_every_workload() -> None:
    """``kubesched bench --help`` lists every workload a user may give."""
    code, out, _ = bench("--help")
    assert code == 0
    assert all(name in " ".join(out.split()) for name in WORKLOADS)
