"""Specification of hostile plugins contained by ``kubesched simulate``: what a plugin prints goes to stderr (the
JSON result stays valid), threads it leaves running do not keep the process alive, ``--plugin-timeout-ms``
interrupts a stuck call, and ``--strict`` names a plugin that changes the pod it is handed."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.conftest import RunCli, write

MODULE = '''
import threading
import time

from kubesched import Plugin, hookimpl
from kubesched.api.meta import EMPTY_MAP


class PrintingFilter(Plugin):
    name = "PrintingFilter"

    @hookimpl
    def filter(self, state, pod, node_info):
        print("hello from a plugin")
        return None


class ThreadLeaver(Plugin):
    name = "ThreadLeaver"
    started = False

    @hookimpl
    def pre_filter(self, state, pod, nodes):
        if not ThreadLeaver.started:
            ThreadLeaver.started = True
            threading.Thread(target=time.sleep, args=(3600,), name="acme-poller").start()
        return None


class BusyFilter(Plugin):
    name = "BusyFilter"

    @hookimpl
    def filter(self, state, pod, node_info):
        while pod.name == "web-1":
            pass
        return None


class ZeroRequests(Plugin):
    name = "ZeroRequests"

    @hookimpl
    def pre_filter(self, state, pod, nodes):
        for container in pod.spec.containers:
            object.__setattr__(container, "requests", EMPTY_MAP)
        return None

class ExitingFilter(Plugin):
    name = "ExitingFilter"

    @hookimpl
    def filter(self, state, pod, node_info):
        if pod.name == "web-1":
            import os
            os._exit(3)
        return None


class KillingFilter(Plugin):
    name = "KillingFilter"

    @hookimpl
    def filter(self, state, pod, node_info):
        if pod.name == "web-1":
            import os
            import signal
            os.kill(os.getpid(), signal.SIGKILL)
        return None


class SignallingFilter(Plugin):
    name = "SignallingFilter"

    @hookimpl
    def filter(self, state, pod, node_info):
        if pod.name == "web-1":
            import signal
            signal.raise_signal(signal.SIGTERM)
        return None
'''

PLUGINS = ("PrintingFilter", "ThreadLeaver", "BusyFilter", "ZeroRequests", "ExitingFilter", "KillingFilter",
           "SignallingFilter")

PODS = """
apiVersion: v1
kind: Node
metadata: {name: n0}
status: {allocatable: {cpu: "2", memory: 4Gi, pods: "110"}}
""" + "".join(f"""---
apiVersion: v1
kind: Pod
metadata: {{name: web-{i}, namespace: default}}
spec: {{containers: [{{name: c, image: nginx, resources: {{requests: {{cpu: 500m}}}}}}]}}
""" for i in range(3))


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A site directory holding the hostile plugins' module and a distribution's metadata naming them."""
    site = tmp_path_factory.mktemp("hostile")
    write(site / "acme_hostile.py", MODULE)
    write(site / "acme_hostile-1.0.dist-info" / "METADATA", "Metadata-Version: 2.1\nName: acme-hostile\nVersion: 1.0\n")
    write(site / "acme_hostile-1.0.dist-info" / "entry_points.txt",
          "[kubesched.plugins]\n" + "".join(f"{p} = acme_hostile:{p}\n" for p in PLUGINS))
    return site


def simulate(run_cli: RunCli, site: Path, tmp_path: Path, plugin: str, point: str, *flags: str) -> tuple[
        int, str, str]:
    """``kubesched simulate -o json`` of three 500m pods on a 2-CPU node, ``plugin`` added at ``point``."""
    profile = write(tmp_path / "p.toml",
                    f'[[profiles]]\n[profiles.plugins.{point}]\nenabled = [{{ name = "{plugin}" }}]\n')
    pods = write(tmp_path / "pods.yaml", PODS)
    path = os.pathsep.join(p for p in (str(site), os.environ.get("PYTHONPATH")) if p)
    done = run_cli("simulate", str(pods), "--profile", str(profile), "-o", "json", *flags, env={"PYTHONPATH": path})
    return done.returncode, done.stdout, done.stderr


@pytest.mark.slow
def test_what_a_plugin_prints_goes_to_stderr(run_cli: RunCli, hostile_site: Path, tmp_path: Path) -> None:
    """print() in a Filter leaves -o json parseable; the text is on stderr."""
    code, out, err = simulate(run_cli, hostile_site, tmp_path, "PrintingFilter", "filter")
    assert code == 0, err
    assert [p["phase"] for p in json.loads(out)["pods"]] == ["Bound"] * 3
    assert "hello from a plugin" in err


@pytest.mark.slow
def test_threads_a_plugin_leaves_running_do_not_keep_the_process(
        run_cli: RunCli, hostile_site: Path, tmp_path: Path) -> None:
    """The process exits once the result is written, warning which plugin left which thread."""
    code, out, err = simulate(run_cli, hostile_site, tmp_path, "ThreadLeaver", "pre-filter")
    assert code == 0, err
    assert len(json.loads(out)["pods"]) == 3
    assert ('warning: plugin "ThreadLeaver" left thread(s) running (acme-poller): exiting without waiting for them'
            in err.splitlines())


@pytest.mark.slow
def test_plugin_timeout_flag_interrupts_a_busy_loop(run_cli: RunCli, hostile_site: Path, tmp_path: Path) -> None:
    """--plugin-timeout-ms: the busy Filter fails only web-1, as that plugin's error; the run finishes."""
    code, out, err = simulate(run_cli, hostile_site, tmp_path, "BusyFilter", "filter", "--plugin-timeout-ms", "50")
    assert code == 0, err
    pods = {p["name"]: (p["phase"], p.get("message", "")) for p in json.loads(out)["pods"]}
    assert pods["web-1"] == ("Pending", 'running "BusyFilter" filter plugin: exceeded the plugin timeout of 50 ms')
    assert {pods["web-0"][0], pods["web-2"][0]} == {"Bound"}


@pytest.mark.slow
@pytest.mark.parametrize("value", ["0", "-5", "nan"])
def test_plugin_timeout_flag_takes_a_positive_number(run_cli: RunCli, hostile_site: Path, tmp_path: Path,
                                                     value: str) -> None:
    """A timeout that is not a positive number is a usage error naming the flag."""
    code, _out, err = simulate(run_cli, hostile_site, tmp_path, "BusyFilter", "filter", f"--plugin-timeout-ms={value}")
    assert code == 2
    assert "--plugin-timeout-ms" in err
    assert "is not a positive number of milliseconds" in err


@pytest.mark.slow
def test_strict_names_a_plugin_that_changes_the_pod(run_cli: RunCli, hostile_site: Path, tmp_path: Path) -> None:
    """--strict: the PreFilter that zeroes the requests is named for each pod, no pod is placed on the changed
    requests, and the exit status is 1."""
    code, out, err = simulate(run_cli, hostile_site, tmp_path, "ZeroRequests", "pre-filter", "--strict")
    assert code == 1
    pods = json.loads(out)["pods"]
    assert {p["phase"] for p in pods} == {"Pending"}
    assert pods[0]["message"] == ('running PreFilter plugin "ZeroRequests": changed the pod it was given '
                                  "(Container.requests); the change was undone")
    assert "(--strict)" in err


@pytest.mark.slow
@pytest.mark.parametrize(("command", "shown"), [
    pytest.param(["compare", "default", "{profile}", "-o", "json", "--plugin-timeout-ms", "50", "--", "{pods}"],
                 '"pod": "default/web-1",\n      "change": "newlyPending"', id="compare"),
    pytest.param(["capacity", "--profile", "{profile}", "-o", "json", "--plugin-timeout-ms", "50", "{pod}", "{pods}"],
                 '"BusyFilter" on pod default/web-1, node n0: exceeded the plugin timeout of 50 ms', id="capacity"),
])
def test_plugin_timeout_flag_contains_compare_and_capacity(run_cli: RunCli, hostile_site: Path, tmp_path: Path,
                                                           command: list[str], shown: str) -> None:
    """compare and capacity take --plugin-timeout-ms too: the busy Filter's loop on web-1 is interrupted (web-1
    stays pending, the plugin's error said) and the command finishes; without the flag it would never end."""
    files = {"profile": str(write(tmp_path / "p.toml",
                                  '[[profiles]]\n[profiles.plugins.filter]\nenabled = [{ name = "BusyFilter" }]\n')),
             "pods": str(write(tmp_path / "pods.yaml", PODS)),
             "pod": str(write(tmp_path / "pod.yaml", "kind: Pod\nmetadata: {name: probe}\nspec: {containers: "
                                                     "[{name: c, resources: {requests: {cpu: 500m}}}]}\n"))}
    path = os.pathsep.join(p for p in (str(hostile_site), os.environ.get("PYTHONPATH")) if p)
    done = run_cli(*[files.get(a.strip("{}"), a) if a.startswith("{") else a for a in command],
                   env={"PYTHONPATH": path})
    assert done.returncode == 0, done.stderr
    assert shown in done.stdout + done.stderr


@pytest.mark.slow
@pytest.mark.parametrize(("plugin", "call"), [
    pytest.param("ExitingFilter", "os._exit(3)", id="os-exit"),
    pytest.param("KillingFilter", "os.kill(", id="sigkill-to-itself"),
    pytest.param("SignallingFilter", "signal.raise_signal(", id="sigterm-to-itself"),
])
def test_plugin_that_ends_its_own_process_fails_only_its_pod(run_cli: RunCli, hostile_site: Path, tmp_path: Path,
                                                             plugin: str, call: str) -> None:
    """os._exit or a signal a plugin sends its own process is that plugin's error for that pod; the run goes on."""
    code, out, _ = simulate(run_cli, hostile_site, tmp_path, plugin, "filter")
    assert code == 0
    pods = {p["name"]: p for p in json.loads(out)["pods"]}
    assert pods["web-0"]["node"] == "n0"
    assert pods["web-2"]["node"] == "n0"
    assert pods["web-1"]["node"] is None
    assert call in pods["web-1"]["message"]
    assert "may not end or signal the process" in pods["web-1"]["message"]
