"""Every distinct failure class the fuzzer found, as its minimal repro (tests/fuzz/repros/).

Oracle: the classification of tests/fuzz/campaign.py on the repro: every step ends ok or with a
usdjoints error (a one-line message naming the file or prim), never another exception, a dead
process, a 20 s hang, a partial output, a changed input or the marker file's content. Classes
still open in code maintained elsewhere (``"open": true`` in the manifest) are expected failures
until fixed there; a hang, leak, partial output or changed input fails them all the same unless
that is their class.
"""
from __future__ import annotations

import shutil

import pytest

from fuzz.campaign import Case, Worker, key_of, run_one, worker_env
from fuzz.known import HERE, entries
from fuzz.seeds import REPO

MARKER = "SECRET-fuzz-regression-marker"
ENTRIES = entries()


@pytest.fixture(scope="module")
def worker():
    w = Worker(worker_env())
    yield w
    w.kill()


def _run(worker, entry, tmp_path) -> list[dict]:
    source = HERE / entry["file"]
    case_dir = tmp_path / "case"
    case_dir.mkdir()
    main = case_dir / ("input." + entry["kind"])
    shutil.copyfile(source, main)
    (case_dir / "secret.txt").write_text(MARKER + "\n")
    resources = [str(REPO / r) for r in entry.get("resources", ())]
    case = Case(0, entry["kind"], entry["file"], [], case_dir, main, MARKER, resources,
                cli_command=entry.get("cli_command", "walk"))
    return run_one(worker, case, entry.get("steps"))["steps"]


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["file"].split("/")[-1] for e in ENTRIES])
def test_repro_comes_out_clean(worker, entry, tmp_path):
    steps = _run(worker, entry, tmp_path)
    bad = [(key_of(s), s.get("message", "")[:160]) for s in steps if s["outcome"] not in ("ok", "rejected")]
    if entry["open"]:
        own = tuple(entry["class"].split("/", 2))
        others = [b for b in bad if b[0] != own and not (own == ("hang", "*") and b[0][0] == "hang")]
        assert others == [], f"{entry['file']}: fails in another way than its open class {entry['class']}"
        if bad:
            pytest.xfail(f"open in {entry['owner']}: {entry['description']}")
    assert bad == [], f"{entry['file']} ({entry['description']})"


def test_manifest_files_exist_and_classes_are_distinct():
    assert ENTRIES, "no repros recorded"
    for entry in ENTRIES:
        assert (HERE / entry["file"]).is_file(), entry["file"]
        assert entry["kind"] in ("urdf", "sdf", "usda", "usdc")
        assert len(entry["description"]) < 200
    classes = [(e["class"], e["kind"]) for e in ENTRIES]
    assert len(classes) == len(set(classes))
