"""The fuzzer's CI budget: 100 mutated inputs over the four kinds through every public function.

About 15 s on two busy cores. Oracle: the classification itself. No case may crash (an exception
that is not a usdjoints error, or a dead process), hang (20 s), leave a partial output, change an
input or print the marker file's content, except the classes listed as still open in
tests/fuzz/repros/manifest.json.
"""
from __future__ import annotations

from fuzz.campaign import Campaign, key_of
from fuzz.known import is_known_open
from fuzz.seeds import KINDS


def test_hundred_cases_come_out_clean(tmp_path):
    campaign = Campaign(100, 1, 20261201, tmp_path, KINDS, simulate_rate=0.0, cli_rate=0.03).run()
    assert sum(campaign.counts.values()) == 100
    assert sum(campaign.by_kind[k]["ok"] + campaign.by_kind[k]["rejected"] > 0 for k in KINDS) == 4
    new = {tuple(entry["key"]): entry["step"].get("message", "")[:200] for entry in campaign.distinct.values()
           if not is_known_open(tuple(entry["key"]))}
    assert new == {}, f"new failure classes (examples under {tmp_path}/distinct): {new}"


def test_key_of_names_the_exception_and_the_innermost_frame():
    step = {"step": "walk:ovphysx", "outcome": "crash", "type": "TypeError",
            "frame": "usdjoints/walker/limits.py:drives"}
    assert key_of(step) == ("crash", "TypeError", "usdjoints/walker/limits.py:drives")
    assert key_of({"step": "converted:audit", "outcome": "hang"}) == ("hang", "audit")
