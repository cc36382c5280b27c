"""A URDF file's XML read as urdfdom's parser (tinyxml2) reads it (:mod:`.xml_tinyxml`), with a
warning in the report for each thing accepted that XML parsers reject."""
from __future__ import annotations

from ..errors import InputError
from . import xml_tinyxml
from .ir import SourceRef
from .report import EntryKind, ReportEntry
from .resolve import regular_file_problem


def parse_xml(file: str):
    """The root element, and report entries for what urdfdom's XML parser accepts and libxml2 does not."""
    problem = regular_file_problem(file)
    if problem is not None:
        raise InputError(file, problem, "give a URDF file" if problem != "no such file" else "check the path")
    try:
        with open(file, "rb") as stream:
            data = stream.read()
    except OSError as error:
        raise InputError(file, f"cannot read the file: {error.strerror or error}") from error
    tree, notes = xml_tinyxml.parse(file, data, "urdfdom")
    return tree.getroot(), [ReportEntry(EntryKind.WARNING, str(SourceRef(file, line)), topic, message)
                            for line, topic, message in notes]
