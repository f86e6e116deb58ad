"""The fuzz campaign at the issue's sizes (issue 24): a script, not a test. Seeded mutants of the repository's
manifests, profiles, KubeSchedulerConfiguration files and scenarios, each through the commands that read them,
in-process under a wall-clock bound, in worker processes (two at most) that a watchdog replaces when one stops
making progress. Every run is classified: exit code, traceback, hang; the offending mutants are kept.

    python tests/fuzz/campaign.py --out /tmp/campaign [--seed 2500] [--scale 1.0] [--kinds manifests,...]

The summary (one line per kind and command, then the totals) goes to standard output and to OUT/summary.json;
each run's record to OUT/records.jsonl; each mutant that failed to OUT/failures/. See docs/robustness.md.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import Any

REPO = Path(__file__).resolve().parents[2]
#: Each kind: how many mutants, and the commands each goes through ({} is the mutant's path, {cluster} a tiny
#: cluster's).
KINDS: dict[str, tuple[int, list[list[str]]]] = {
    "manifests": (6000, [["simulate", "{}"]]),
    "profiles": (1200, [["profile", "check", "{}"], ["simulate", "--profile", "{}", "{cluster}"],
                        ["compare", "default", "{}", "--", "{cluster}"]]),
    "kube-configs": (600, [["profile", "check", "{}"], ["simulate", "--profile", "{}", "{cluster}"],
                           ["capacity", "--profile", "{}", "{pod}", "{cluster}"]]),
    "scenarios": (1000, [["simulate", "{}"]]),
}
#: Mutants per worker run: a worker's seed is the campaign's plus its chunk number, so a chunk reruns alone.
CHUNK = 100
BOUND_SECONDS = 20
#: A worker's exit status once it has recorded a run past the bound.
HANG_EXIT = 3
POD = "kind: Pod\nmetadata: {name: probe}\nspec: {containers: [{name: c, resources: {requests: {cpu: 500m}}}]}\n"


def _mutants(kind: str, seed: int, count: int) -> list[str]:
    """``count`` mutants of ``kind``'s seed documents, from ``seed``."""
    from kubesched.profiles import load_config, render, shipped_profiles
    from kubesched.runtime import PluginRegistry
    from tests.fuzz.test_fuzz_corpora import MANIFESTS, PROFILES, TIMED_SCENARIO, corpus

    if kind == "manifests":
        return corpus(seed, [p.read_text(encoding="utf-8") for p in MANIFESTS], count)
    if kind == "profiles":
        return corpus(seed, [p.read_text(encoding="utf-8") for p in sorted(PROFILES.glob("*.toml"))], count,
                      toml=True)
    if kind == "kube-configs":
        registry = PluginRegistry.discover()
        configs = [render(load_config(name, registry), "kube-scheduler-config") for name in shipped_profiles()]
        return corpus(seed, configs, count)
    day = (REPO / "examples/scenarios/day.yaml").read_text(encoding="utf-8")
    return corpus(seed, [day, TIMED_SCENARIO], count)


def _worker(kind: str, seed: int, chunk: int, start: int, count: int, out: Path) -> None:
    """Run chunk ``chunk`` of ``kind`` from mutant ``start``, one JSON line per run appended to ``out`` (a
    ``start`` line before each, so the watchdog knows which run a stuck worker was in)."""
    from click.testing import CliRunner

    from kubesched.cli.main import main
    from kubesched.runtime import PluginRegistry
    from tests.fuzz.test_fuzz_corpora import TINY_CLUSTER

    registry = PluginRegistry.discover()
    PluginRegistry.discover = classmethod(lambda cls, *args, **kwargs: registry)  # type: ignore[method-assign, assignment]
    work = out.parent / f"work-{kind}-{chunk}"
    work.mkdir(exist_ok=True)
    (work / "day-cluster.yaml").write_text((REPO / "examples/scenarios/day-cluster.yaml").read_text())
    (work / "cluster.yaml").write_text(TINY_CLUSTER, encoding="utf-8")
    (work / "pod.yaml").write_text(POD, encoding="utf-8")
    path = work / ("profile.toml" if kind == "profiles" else "input.yaml")
    mutants = _mutants(kind, seed + chunk, CHUNK)[:count]

    log = out.open("a", encoding="utf-8")
    running: dict[str, Any] = {}

    def ring(signum: int, frame: FrameType | None) -> None:
        """Past the bound: record the hang and end the worker at once (an exception could be caught by the code it
        lands in, a plugin containment's except BaseException among them); the watchdog starts the next one."""
        log.write(json.dumps({**running, "seconds": BOUND_SECONDS, "exit": None, "hang": True, "traceback": False,
                              "tail": "past the bound"}) + "\n")
        log.flush()
        os._exit(HANG_EXIT)

    signal.signal(signal.SIGALRM, ring)
    with log:
        for index in range(start, len(mutants)):
            path.write_bytes(mutants[index].encode("utf-8", "surrogatepass"))
            for number, template in enumerate(KINDS[kind][1]):
                arguments = [a.replace("{}", str(path)).replace("{cluster}", str(work / "cluster.yaml"))
                             .replace("{pod}", str(work / "pod.yaml")) for a in template]
                log.write(json.dumps({"start": index, "command": number}) + "\n")
                log.flush()
                began = time.monotonic()
                running.update(index=index, command=number)
                signal.setitimer(signal.ITIMER_REAL, BOUND_SECONDS)
                try:
                    result = CliRunner().invoke(main, arguments, env={"COLUMNS": "120"})
                finally:
                    signal.setitimer(signal.ITIMER_REAL, 0)
                record: dict[str, Any] = {"index": index, "command": number, "seconds": round(time.monotonic() -
                                                                                             began, 3)}
                exception = result.exception
                traceback = ("Traceback" in result.output or
                             (exception is not None and not isinstance(exception, SystemExit)))
                tail = result.output[-1500:] + (f"\n{exception!r}" if traceback and exception else "")
                record.update(exit=result.exit_code, hang=False, traceback=traceback, tail=tail)
                log.write(json.dumps(record) + "\n")
                log.flush()


def _progress(log: Path) -> tuple[int, int, int]:
    """(lines in the log, the mutant the last ``start`` line named (-1: none), the runs completed)."""
    last, done, lines = -1, 0, 0
    if log.exists():
        for line in log.read_text(encoding="utf-8").splitlines():
            try:
                entry = json.loads(line)
            except json.JSONDecodeError:  # the worker is writing this line
                break
            lines += 1
            if "start" in entry:
                last = entry["start"]
            else:
                done += 1
    return lines, last, done


def _chunk_jobs(kinds: list[str], scale: float) -> Iterator[tuple[str, int, int]]:
    """(kind, chunk number, mutants in it) for each chunk the campaign runs."""
    for kind in kinds:
        total = max(1, round(KINDS[kind][0] * scale))
        for chunk in range((total + CHUNK - 1) // CHUNK):
            yield kind, chunk, min(CHUNK, total - chunk * CHUNK)


def _run_chunk(kind: str, seed: int, chunk: int, count: int, out: Path) -> list[dict[str, Any]]:
    """Run one chunk in worker processes; a worker silent past twice the bound is killed, its run recorded as a
    hang, and a new worker carries on from the next mutant."""
    log = out / f"log-{kind}-{chunk}.jsonl"
    log.unlink(missing_ok=True)
    start, killed = 0, []
    while True:
        process = subprocess.Popen([sys.executable, __file__, "--worker", kind, str(seed), str(chunk), str(start),
                                    str(count), str(log)], env={**os.environ, "PYTHONPATH": str(REPO)}, cwd=REPO,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        seen, quiet_since = -1, time.monotonic()
        while process.poll() is None:
            time.sleep(0.5)
            lines, last, _ = _progress(log)
            if lines != seen:
                seen, quiet_since = lines, time.monotonic()
            elif time.monotonic() - quiet_since > 2 * BOUND_SECONDS:
                process.kill()
                process.wait()
                killed.append({"index": last, "command": -1, "exit": None, "hang": True, "traceback": False,
                               "tail": "worker killed: no progress"})
                break
        stderr = process.stderr.read() if process.stderr else ""
        _, last, _ = _progress(log)
        if process.returncode == 0:
            break
        if process.returncode == HANG_EXIT:
            pass  # the worker recorded its hang itself
        elif process.returncode > 0 or not killed or killed[-1]["index"] != last:
            killed.append({"index": last, "command": -1, "exit": process.returncode, "hang": False,
                           "traceback": "Traceback" in stderr, "tail": stderr[-1500:]})
        start = last + 1
        if start >= count:
            break
    records = [entry for line in log.read_text(encoding="utf-8").splitlines()
               if "start" not in (entry := json.loads(line))] + killed
    mutants = _mutants(kind, seed + chunk, CHUNK)
    for record in records:
        record.update(kind=kind, chunk=chunk)
        if record["traceback"] or record["hang"] or record["exit"] not in (0, 1):
            name = out / "failures" / f"{kind}-{chunk}-{record['index']}-{record['command']}.txt"
            name.parent.mkdir(exist_ok=True)
            name.write_bytes(mutants[record["index"]].encode("utf-8", "surrogatepass"))
    return records


def main() -> None:
    """Parse the arguments; run the campaign (two chunks at a time) or, with --worker, one chunk."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=Path("campaign-out"))
    parser.add_argument("--seed", type=int, default=2500)
    parser.add_argument("--scale", type=float, default=1.0, help="a fraction of the issue's sizes")
    parser.add_argument("--kinds", default=",".join(KINDS))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--worker", nargs=6, help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.worker:
        kind, seed, chunk, start, count, log = options.worker
        _worker(kind, int(seed), int(chunk), int(start), int(count), Path(log))
        return
    from concurrent.futures import ThreadPoolExecutor

    out: Path = options.out
    out.mkdir(parents=True, exist_ok=True)
    jobs = list(_chunk_jobs(options.kinds.split(","), options.scale))
    began = time.monotonic()
    records: list[dict[str, Any]] = []
    with ThreadPoolExecutor(max(1, min(options.workers, 2))) as pool:
        for chunk_records in pool.map(lambda job: _run_chunk(job[0], options.seed, job[1], job[2], out), jobs):
            records.extend(chunk_records)
            print(f"{len(records)} runs, {time.monotonic() - began:.0f} s", file=sys.stderr, flush=True)
    with (out / "records.jsonl").open("w", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(record) + "\n")
    summary = []
    for kind in options.kinds.split(","):
        for number, template in enumerate(KINDS[kind][1]):
            mine = [r for r in records if r["kind"] == kind and r["command"] in (number, -1)]
            exits = Counter(str(r["exit"]) for r in mine if not r["hang"])
            summary.append({"kind": kind, "command": " ".join(template[:2]), "runs": len(mine),
                            "exits": dict(sorted(exits.items())),
                            "tracebacks": sum(r["traceback"] for r in mine), "hangs": sum(r["hang"] for r in mine),
                            "slowest": max((r.get("seconds", 0) for r in mine), default=0)})
    totals = {"seed": options.seed, "scale": options.scale, "runs": len(records),
              "tracebacks": sum(r["traceback"] for r in records), "hangs": sum(r["hang"] for r in records),
              "other-exits": sum(1 for r in records if not r["hang"] and r["exit"] not in (0, 1)),
              "wall-seconds": round(time.monotonic() - began)}
    (out / "summary.json").write_text(json.dumps({"commands": summary, "totals": totals}, indent=2) + "\n")
    for line in summary:
        print(json.dumps(line))
    print(json.dumps(totals))


if __name__ == "__main__":
    main()
