"""JSON Schemas (draft 2020-12) of usdjoints' JSON documents, shipped in the package.

``walk`` (``usdjoints.walk/1``), ``audit`` (``usdjoints.audit/1``), ``columns``
(``usdjoints.columns/1``) and ``convert`` (``usdjoints.convert/1``); ``usdjoints schema NAME``
prints one. A document names its schema in its ``schema`` field, which :func:`schema_for` reads.
Validating needs the ``jsonschema`` package (the ``test`` extra); reading the files does not.
"""
from __future__ import annotations

import json

from ..errors import UsageError

NAMES = ("walk", "audit", "columns", "convert")


def schema_text(name: str) -> str:
    """The schema file of ``name`` (``walk`` or ``usdjoints.walk/1``) as text."""
    from importlib import resources  # not at import: the command line starts without it

    short = name.removeprefix("usdjoints.").removesuffix("/1")
    if short not in NAMES:
        raise UsageError(f"no schema {name!r}: one of {', '.join(NAMES)}")
    return resources.files(__name__).joinpath(f"{short}-1.json").read_text(encoding="utf-8")


def load(name: str) -> dict:
    return json.loads(schema_text(name))


def schema_for(document: dict) -> dict:
    """The schema a document names in its ``schema`` field (``usdjoints.audit/1``...)."""
    return load(str(document.get("schema", "")))


def register(subparsers) -> None:
    """Add the ``schema`` subcommand to the ``usdjoints`` parser."""
    parser = subparsers.add_parser("schema", help="print the JSON Schema of a JSON output format",
                                   description="Print the JSON Schema (draft 2020-12) of one of usdjoints' JSON "
                                               "documents: walk, audit, columns or convert.")
    parser.add_argument("name", choices=NAMES, metavar="NAME", help=", ".join(NAMES))
    parser.set_defaults(run=_run)


def _run(args) -> int:
    import sys

    sys.stdout.write(schema_text(args.name))
    return 0
