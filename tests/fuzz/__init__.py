"""usdjoints' own structure-aware fuzzer.

Seeds (sample stages, test fixtures, small URDF and SDFormat robots) are mutated structurally
(XML elements dropped, duplicated, reordered; odd values; dangling names and cycles; invalid
UTF-8; external entities pointing at a marker file; USD attribute types and targets changed,
joints duplicated, crate bytes corrupted) and every case runs through the public functions in a
worker process with a per-case timeout. Each case is classified as ok, rejected (a usdjoints
error), crash, hang, partial output, changed input or leaked secret.

Run a campaign with ``python -m tests.fuzz --cases 10000 --jobs 2`` from the repository root
(or ``python -m fuzz`` from tests/). The CI budget is tests/fuzz/test_fuzz_smoke.py.
"""
