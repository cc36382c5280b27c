"""Re-running saved failing cases (a campaign's distinct/ folder) to see whether they still fail."""
from __future__ import annotations

import json
import shutil
import sys
import tempfile
from pathlib import Path

from .campaign import Case, Worker, copy_case, key_of, run_one, worker_env


def replay(example_dirs, steps=None) -> list[tuple[str, list, list]]:
    """(example, old key, new failing keys) for each saved example."""
    worker = Worker(worker_env())
    out = []
    try:
        for example in example_dirs:
            example = Path(example)
            info = json.loads((example / "info.json").read_text())
            request = info["request"]
            with tempfile.TemporaryDirectory() as scratch:
                directory = Path(scratch) / "case"
                copy_case(example, directory, ignore=shutil.ignore_patterns("info.json"))
                case = Case(0, request["kind"], info["seed"], info["mutations"], directory, directory / info["main"],
                            request["token"], request["resources"], simulate=request["simulate"],
                            cli=request["cli"], usdc_out=request["usdc_out"],
                            cli_command=request.get("cli_command", "walk"))
                result = run_one(worker, case, steps)
            new = sorted({key_of(s) for s in result["steps"] if s["outcome"] not in ("ok", "rejected")})
            out.append((str(example), info["key"], new, result))
    finally:
        worker.kill()
    return out


if __name__ == "__main__":
    for example, old, new, result in replay(sys.argv[1:]):
        status = "FIXED" if not new else ("same" if tuple(old) in new else "other")
        print(f"{status:5s} {example} {'/'.join(map(str, old))} -> {new}")
        for s in result["steps"]:
            if s["outcome"] not in ("ok", "rejected"):
                print("      ", s["step"], s.get("type"), s.get("frame"), (s.get("message") or "")[:200].replace("\n", " "))
