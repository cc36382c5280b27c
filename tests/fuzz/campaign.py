"""The fuzzer's driver: makes cases, runs them in worker processes, classifies and deduplicates."""
from __future__ import annotations

import collections
import hashlib
import json
import os
import random
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import mutate_usd, mutate_xml
from .seeds import KINDS, REPO, load_seeds

CLASSES = ("ok", "rejected", "crash", "hang", "partial", "changed_input", "leak")
_PRIORITY = {"leak": 6, "changed_input": 5, "partial": 4, "hang": 3, "crash": 2, "rejected": 1, "ok": 0}
EXTENSIONS = {"urdf": ".urdf", "sdf": ".sdf", "usda": ".usda", "usdc": ".usdc"}
TIMEOUT = 20.0  # [s] of a case's own CPU time, or of waiting with none of its processes running
# A case whose processes keep running (a machine busy with other work gives them less than a
# core) is waited for at most this many timeouts of wall time.
WALL_LIMIT = 10
BLOCKED_SAMPLES = 4  # consecutive 0.5 s samples with no process running: the case is blocked
OUTPUTS = ("out", "out_kept", "cli_out.usda")  # what the worker writes inside a case folder
RESTART_EVERY = 200


@dataclass
class Case:
    index: int
    kind: str
    seed: str
    mutations: list[str]
    directory: Path
    main: Path
    token: str
    resources: list[str]
    simulate: bool = False
    cli: bool = False
    usdc_out: bool = False
    cli_command: str = "walk"
    hashes: dict = field(default_factory=dict)

    def request(self, steps=None) -> dict:
        return {"main": str(self.main), "kind": self.kind, "token": self.token, "resources": self.resources,
                "simulate": self.simulate, "cli": self.cli, "usdc_out": self.usdc_out, "steps": steps,
                "cli_command": self.cli_command}


def copy_case(source, destination, ignore=None) -> None:
    """Copy a case folder as it is: symlinks (a loop among them) stay links and a FIFO is made
    anew, never opened (copying one would block)."""
    import stat as _stat

    def copy(src, dst):
        if _stat.S_ISFIFO(os.lstat(src).st_mode):
            os.mkfifo(dst)
        else:
            shutil.copy2(src, dst)

    shutil.copytree(source, destination, symlinks=True, ignore=ignore, copy_function=copy)


def digest_inputs(directory: Path) -> dict[str, str]:
    out = {}
    for path in sorted(directory.rglob("*")):
        rel = path.relative_to(directory)
        if rel.parts[0] in OUTPUTS or not path.is_file() or path.is_symlink():
            continue
        out[str(rel)] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


class CaseMaker:
    def __init__(self, seed: int, workdir: Path, kinds=KINDS, simulate_rate=0.02, cli_rate=0.02):
        self.rng = random.Random(seed)
        self.seeds = load_seeds()
        self.workdir = workdir
        self.kinds = kinds
        self.simulate_rate = simulate_rate
        self.cli_rate = cli_rate

    def make(self, index: int) -> Case:
        rng = self.rng
        kind = self.kinds[index % len(self.kinds)]
        pool = self.seeds["usda" if kind == "usdc" else kind]
        seed = rng.choice(pool)
        directory = self.workdir / f"case{index:06d}"
        directory.mkdir(parents=True)
        token = "SECRET-" + "%032x" % rng.getrandbits(128)
        marker = directory / "secret.txt"
        marker.write_text(token + "\n")
        ctx = {"marker": str(marker), "evil_model": str(mutate_xml.write_evil_model(directory / "models", str(marker)))
               if kind == "sdf" else ""}
        if kind in ("urdf", "sdf"):
            data, applied = mutate_xml.mutate(seed.data, kind, rng, ctx)
            resources = list(seed.resource_dirs) + ([str(directory / "models")] if kind == "sdf" else [])
        else:
            data, applied = mutate_usd.mutate(seed.data, kind, rng, directory)
            resources = []
        main = directory / ("input" + EXTENSIONS[kind])
        main.write_bytes(data)
        case = Case(index, kind, seed.name, applied, directory, main, token, resources,
                    simulate=rng.random() < self.simulate_rate, cli=rng.random() < self.cli_rate,
                    usdc_out=rng.random() < 0.3, cli_command=rng.choice(("walk", "audit", "simulate")))
        case.hashes = digest_inputs(directory)
        return case


def group_usage(pgid: int) -> tuple[float, bool] | None:
    """CPU seconds of process group ``pgid`` (its live processes and the children they waited
    for), and whether any of them is running or runnable; None where /proc cannot tell."""
    tick = os.sysconf("SC_CLK_TCK")
    total, running, found = 0.0, False, False
    try:
        entries = os.listdir("/proc")
    except OSError:
        return None
    for name in entries:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                stat = handle.read().decode("ascii", "replace")
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if len(fields) < 15 or int(fields[2]) != pgid:
            continue
        found = True
        total += sum(int(x) for x in fields[11:15]) / tick
        running |= fields[0] == "R"
    return (total, running) if found else None


class HangClock:
    """When a case counts as hung: after TIMEOUT seconds of its own CPU time, after TIMEOUT
    seconds of wall time in which its processes were blocked (a FIFO, a lock), or after
    WALL_LIMIT timeouts of wall time in any case. Wall time alone would count a case that a
    loaded machine starves of CPU as a hang."""

    def __init__(self, pgid: int, timeout: float):
        self.pgid, self.timeout = pgid, timeout
        self.started = time.monotonic()
        usage = group_usage(pgid)
        self.cpu0 = usage[0] if usage else None
        self.blocked = 0

    def verdict(self, now: float) -> str | None:
        wall = now - self.started
        if wall <= self.timeout:
            return None
        if wall > WALL_LIMIT * self.timeout or self.cpu0 is None:
            return f"no answer in {wall:.0f} s"
        usage = group_usage(self.pgid)
        if usage is None:
            return f"no answer in {wall:.0f} s"
        cpu, running = usage[0] - self.cpu0, usage[1]
        if cpu > self.timeout:
            return f"{cpu:.0f} s of CPU time without an answer"
        self.blocked = 0 if running else self.blocked + 1
        if self.blocked >= BLOCKED_SAMPLES:
            return f"blocked without an answer for {wall:.0f} s ({cpu:.1f} s of CPU time)"
        return None


class Worker:
    """One worker process (tests/fuzz/worker.py) serving cases one at a time."""

    def __init__(self, env, timeout: float = TIMEOUT):
        self.env = env
        self.timeout = timeout
        self.proc = None
        self.served = 0
        self.start()

    def start(self):
        self.proc = subprocess.Popen([sys.executable, "-m", "fuzz.worker"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=self.env,
                                     cwd=str(REPO / "tests"), start_new_session=True)
        self.buffer = b""
        self.served = 0
        self.case = None
        self.steps_seen: list[str] = []
        line = self.proc.stdout.readline()
        if not line or not json.loads(line).get("ready"):
            raise RuntimeError("fuzz worker failed to start")

    def send(self, case: Case, steps=None):
        self.case = case
        self.steps_seen = []
        self.started = time.monotonic()
        self.clock = HangClock(self.proc.pid, self.timeout)
        self.proc.stdin.write((json.dumps(case.request(steps)) + "\n").encode())
        self.proc.stdin.flush()

    def kill(self):
        if self.proc and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if self.proc:
            self.proc.wait()

    def restart(self):
        self.kill()
        self.start()


def worker_env() -> dict:
    """The workers' environment: this checkout's usdjoints first (``USDJOINTS_FUZZ_SOURCE`` names
    another source tree, e.g. an older release, to minimise repros of classes fixed since)."""
    env = dict(os.environ)
    source = env.get("USDJOINTS_FUZZ_SOURCE", str(REPO))
    env["PYTHONPATH"] = os.pathsep.join([source, str(REPO / "tests")] +
                                        ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    env["PYTHONWARNINGS"] = "ignore"
    env.setdefault("NUMBA_NUM_THREADS", "1")
    env.setdefault("OMP_NUM_THREADS", "1")
    # the binary-layer probe's CPU-time limit, inside the case's own 20 s (the default is 30 s)
    env.setdefault("USDJOINTS_PROBE_TIMEOUT", "3")
    return env


def finish(case: Case, steps: list[dict]) -> dict:
    """Classify one case from its steps' outcomes and the state of its inputs."""
    if digest_inputs(case.directory) != case.hashes:
        steps = steps + [{"step": "inputs", "outcome": "changed_input", "message": "an input file changed"}]
    outcomes = [s["outcome"] for s in steps] or ["ok"]
    worst = max(outcomes, key=lambda o: _PRIORITY[o])
    return {"case": case.index, "kind": case.kind, "seed": case.seed, "mutations": case.mutations,
            "class": worst, "steps": steps}


def _message(line: bytes) -> dict:
    try:
        message = json.loads(line)
    except ValueError:
        return {}
    return message if isinstance(message, dict) else {}


def key_of(step: dict) -> tuple:
    outcome = step["outcome"]
    if outcome == "crash":
        return ("crash", step.get("type"), step.get("frame"))
    return (outcome, step["step"].replace("converted:", ""))


def run_cases(cases_iter, jobs: int, on_result, timeout: float = TIMEOUT):
    """Run every case from ``cases_iter`` on ``jobs`` workers; ``on_result(case, result)`` for each."""
    env = worker_env()
    workers = [Worker(env, timeout) for _ in range(max(1, jobs))]
    selector = selectors.DefaultSelector()
    for w in workers:
        selector.register(w.proc.stdout, selectors.EVENT_READ, w)
    pending = iter(cases_iter)
    idle = list(workers)
    busy = 0
    exhausted = False

    def feed(w):
        nonlocal busy, exhausted
        if exhausted:
            return
        try:
            item = next(pending)
        except StopIteration:
            exhausted = True
            return
        case, steps = item if isinstance(item, tuple) else (item, None)
        w.send(case, steps)
        busy += 1

    def replace(w):
        selector.unregister(w.proc.stdout)
        w.restart()
        selector.register(w.proc.stdout, selectors.EVENT_READ, w)

    try:
        for w in idle:
            feed(w)
        while busy:
            events = selector.select(timeout=0.5)
            now = time.monotonic()
            for key, _ in events:
                w = key.data
                chunk = os.read(w.proc.stdout.fileno(), 1 << 20)
                if not chunk:  # the worker died: a signal (segfault, abort) or an exit
                    w.proc.wait()
                    code = w.proc.returncode
                    step = w.steps_seen[-1] if w.steps_seen else "?"
                    what = f"signal {-code}" if code and code < 0 else f"exit {code}"
                    result = finish(w.case, [{"step": step, "outcome": "crash", "type": what, "frame": step,
                                              "message": f"the process died with {what} during {step}"}])
                    busy -= 1
                    on_result(w.case, result)
                    replace(w)
                    feed(w)
                    continue
                w.buffer += chunk
                while b"\n" in w.buffer:
                    line, w.buffer = w.buffer.split(b"\n", 1)
                    message = _message(line)
                    if "step" in message:
                        w.steps_seen.append(message["step"])
                    elif "result" in message:
                        busy -= 1
                        w.served += 1
                        case = w.case
                        w.case = None
                        on_result(case, finish(case, message["result"]))
                        if w.served >= RESTART_EVERY:
                            replace(w)
                        feed(w)
                        break
            for w in workers:
                why = w.clock.verdict(now) if w.case is not None else None
                if why:
                    step = w.steps_seen[-1] if w.steps_seen else "?"
                    case = w.case
                    busy -= 1
                    replace(w)
                    on_result(case, finish(case, [{"step": step, "outcome": "hang",
                                                   "message": f"{why} during {step}"}]))
                    feed(w)
    finally:
        for w in workers:
            w.kill()


class Campaign:
    def __init__(self, cases: int, jobs: int, seed: int, out: Path, kinds=KINDS, keep_ok=False,
                 simulate_rate=0.02, cli_rate=0.02, log=None):
        self.cases = cases
        self.jobs = jobs
        self.out = out
        for old in ("cases", "distinct"):
            shutil.rmtree(out / old, ignore_errors=True)
        self.maker = CaseMaker(seed, out / "cases", kinds, simulate_rate, cli_rate)
        self.keep_ok = keep_ok
        self.counts = collections.Counter()
        self.by_kind = collections.defaultdict(collections.Counter)
        self.distinct: dict[tuple, dict] = {}
        self.log = log

    def _cases(self):
        for i in range(self.cases):
            yield self.maker.make(i)

    def _on_result(self, case: Case, result: dict):
        self.counts[result["class"]] += 1
        self.by_kind[case.kind][result["class"]] += 1
        keep = False
        for step in result["steps"]:
            if step["outcome"] in ("ok", "rejected"):
                continue
            key = key_of(step)
            entry = self.distinct.get(key)
            if entry is None:
                keep = True
                example = self.out / "distinct" / f"{len(self.distinct):03d}"
                if example.exists():
                    shutil.rmtree(example)
                copy_case(case.directory, example, ignore=shutil.ignore_patterns(*OUTPUTS))
                entry = self.distinct[key] = {"key": list(key), "count": 0, "example": str(example),
                                              "kind": case.kind, "step": step, "seed": case.seed,
                                              "mutations": case.mutations, "request": case.request(),
                                              "main": case.main.name}
                (example / "info.json").write_text(json.dumps(entry, indent=1))
            entry["count"] += 1
        if self.log:
            self.log.write(json.dumps(result) + "\n")
        if not self.keep_ok or not keep:
            shutil.rmtree(case.directory, ignore_errors=True)

    def prewarm(self) -> None:
        """Compile (or load) every simulator kernel variant once, in the workers' environment, so
        that no case's time budget holds a one-time compile (tests/fuzz/prewarm.py)."""
        simulated = self.maker.simulate_rate > 0 or self.maker.cli_rate > 0
        if not simulated:
            return
        code = f"import sys; sys.path.insert(0, {str(REPO)!r}); from tests.fuzz.prewarm import prewarm_kernels; prewarm_kernels()"
        subprocess.run([sys.executable, "-c", code], env=worker_env(), cwd=REPO, check=True,
                       stdout=subprocess.DEVNULL)

    def run(self, progress=None):
        self.prewarm()
        started = time.monotonic()
        done = [0]

        def on_result(case, result):
            self._on_result(case, result)
            done[0] += 1
            if progress and done[0] % progress == 0:
                rate = done[0] / (time.monotonic() - started)
                print(f"{done[0]}/{self.cases} cases, {rate:.1f}/s, " + summary_line(self.counts), flush=True)

        run_cases(self._cases(), self.jobs, on_result)
        return self


def summary_line(counts) -> str:
    return " ".join(f"{c}={counts.get(c, 0)}" for c in CLASSES)


def default_workdir() -> Path:
    return Path(tempfile.mkdtemp(prefix="usdjoints-fuzz-"))


def run_one(worker: Worker, case: Case, steps=None, timeout: float = TIMEOUT) -> dict:
    """Run one case synchronously on ``worker`` (restarting it after a hang or a death)."""
    case.hashes = digest_inputs(case.directory)
    worker.timeout = timeout
    worker.send(case, steps)
    buffer = b""
    fd = worker.proc.stdout.fileno()
    selector = selectors.DefaultSelector()
    selector.register(worker.proc.stdout, selectors.EVENT_READ)
    try:
        while True:
            why = worker.clock.verdict(time.monotonic())
            if why:
                step = worker.steps_seen[-1] if worker.steps_seen else "?"
                worker.restart()
                return finish(case, [{"step": step, "outcome": "hang", "message": f"{why} during {step}"}])
            if not selector.select(timeout=0.5):
                continue
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                worker.proc.wait()
                code = worker.proc.returncode
                step = worker.steps_seen[-1] if worker.steps_seen else "?"
                what = f"signal {-code}" if code and code < 0 else f"exit {code}"
                worker.restart()
                return finish(case, [{"step": step, "outcome": "crash", "type": what, "frame": step,
                                      "message": f"the process died with {what} during {step}"}])
            buffer += chunk
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                message = _message(line)
                if "step" in message:
                    worker.steps_seen.append(message["step"])
                elif "result" in message:
                    worker.case = None
                    worker.served += 1
                    return finish(case, message["result"])
    finally:
        selector.close()
