"""A URDF file's XML read as urdfdom's parser (tinyxml2) reads it.

Whitespace or a byte-order mark before the XML declaration, a declared version other than 1.x,
several declarations, an '&' that starts no reference and undeclared namespace prefixes (``xacro:``,
``gz:``) are accepted, each with a warning in the report, since stricter XML readers reject such
files. Anything else that is not well-formed is an :class:`~usdjoints.errors.InputError` at file:line.
Entities are never resolved and nothing is fetched from the network.
"""
from __future__ import annotations

import codecs
import re
from typing import Mapping

from lxml import etree

from ..errors import InputError
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
    data, notes = _prolog_as_urdfdom_reads_it(file, data)
    try:
        return etree.fromstring(data, _strict_parser()), notes
    except etree.XMLSyntaxError as error:
        strict_error = error
    # tinyxml2 keeps an '&' that starts no reference as a plain character
    escaped, count = _STRAY_AMPERSAND.subn(b"&amp;", data)
    if count:
        data = escaped
        line = data.count(b"\n", 0, data.find(b"&amp;")) + 1
        notes.append(ReportEntry(EntryKind.WARNING, str(SourceRef(file, line)), "XML '&'",
                                 f"{count} '&' starting no character or entity reference (first here): read as "
                                 "the character '&', as urdfdom reads it (XML parsers reject this file)"))
    # urdfdom's XML parser does not know namespaces: recover from undeclared prefixes, nothing else
    parser = etree.XMLParser(remove_comments=True, resolve_entities=False, no_network=True, recover=True)
    try:
        root = etree.fromstring(data, parser)
    except etree.XMLSyntaxError:
        root = None
    errors = [e for e in parser.error_log if e.level >= etree.ErrorLevels.ERROR]
    tolerated = [e for e in errors if e.domain == etree.ErrorDomains.NAMESPACE]
    if root is None or len(tolerated) != len(errors):
        line = strict_error.lineno if strict_error.lineno else None
        raise InputError(str(SourceRef(file, line)), f"not well-formed XML: {strict_error.msg}",
                         "fix the XML syntax") from strict_error
    seen = set()
    for entry in tolerated:
        if (entry.line, entry.message) not in seen:
            seen.add((entry.line, entry.message))
            notes.append(ReportEntry(EntryKind.WARNING, str(SourceRef(file, entry.line)),
                                     "XML undeclared namespace prefix",
                                     f"{entry.message.strip()}: read as a plain name, as urdfdom reads it "
                                     "(XML parsers reject this file)"))
    return root, notes


def _strict_parser():
    return etree.XMLParser(remove_comments=True, resolve_entities=False, no_network=True)


_STRAY_AMPERSAND = re.compile(rb"&(?!(?:amp|lt|gt|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);)")
_DECLARATION = re.compile(rb"<\?xml(?=[\s?])(.*?)\?>", re.S)
_PSEUDO_ATTRIBUTE = re.compile(rb"""(\w+)\s*=\s*(?:"([^"]*)"|'([^']*)')""")
_BOM = b"\xef\xbb\xbf"


def _prolog_as_urdfdom_reads_it(file: str, data: bytes) -> tuple[bytes, list[ReportEntry]]:
    """The text before the root element made acceptable to libxml2 as tinyxml2 accepts it.

    tinyxml2 skips whitespace and a byte-order mark before the first node and does not check the
    declaration's content; XML 1.0 wants the declaration first and its version 1.x. The prolog
    (whitespace, marks, declarations) is replaced by one normalised declaration followed by as
    many line breaks as it held, so every line number stays that of the file.
    """
    at_start = data.startswith(b"<?xml") or data.startswith(_BOM + b"<?xml")
    if at_start and data.find(b"<?xml", 1) < 0:
        match = _DECLARATION.match(data, 3 if data.startswith(_BOM) else 0)
        fields = _pseudo_attributes(match.group(1)) if match else {}
        if match and _URDF_XML_VERSION.match(fields.get("version", "1.0")) and _known_encoding(fields):
            return data, []  # the common case: one well-formed declaration first
    position, declarations, leading = 0, [], False
    while True:
        start = position
        while position < len(data) and data[position] in b" \t\r\n":
            position += 1
        if data.startswith(_BOM, position):
            position += len(_BOM)
        if position != start and not (start == 0 and position == len(_BOM) and data.startswith(_BOM)):
            leading = leading or not declarations  # something before the first declaration
        if position == start:
            match = _DECLARATION.match(data, position)
            if match is None:
                break
            declarations.append(match)
            position = match.end()
    if not declarations and not leading:
        return data, []
    notes = []
    where = str(SourceRef(file, data.count(b"\n", 0, declarations[0].start()) + 1 if declarations else 1))
    encoding = None
    if declarations:
        fields = _pseudo_attributes(declarations[0].group(1))
        version = fields.get("version")
        if version is not None and not _URDF_XML_VERSION.match(version):
            notes.append(ReportEntry(EntryKind.WARNING, where, "XML declaration",
                                     f"version {version!r} is not an XML version; read as XML 1.0, as urdfdom "
                                     "reads it (XML parsers reject this file)"))
        encoding = fields.get("encoding")
        if not _known_encoding(fields):
            notes.append(ReportEntry(EntryKind.WARNING, where, "XML declaration",
                                     f"unknown encoding {encoding!r}; read as UTF-8, as urdfdom reads it"))
            encoding = None
        if len(declarations) > 1:
            notes.append(ReportEntry(EntryKind.WARNING, where, "XML declaration",
                                     f"{len(declarations)} declarations; the first is used, as urdfdom uses it "
                                     "(XML parsers reject this file)"))
    if leading and declarations:
        notes.append(ReportEntry(EntryKind.WARNING, where, "XML declaration",
                                 "whitespace or a byte-order mark comes before it; skipped, as urdfdom skips it "
                                 "(XML parsers reject this file)"))
    prolog_end = declarations[-1].end() if declarations else position
    head = b'<?xml version="1.0"' + (f' encoding="{encoding}"'.encode("ascii", "replace") if encoding else b"")
    head = head + b"?>" if declarations else b""
    return head + b"\n" * data.count(b"\n", 0, prolog_end) + data[prolog_end:], notes


_URDF_XML_VERSION = re.compile(r"1\.[0-9]+$")


def _known_encoding(fields: Mapping[str, str]) -> bool:
    if "encoding" not in fields:
        return True
    try:
        codecs.lookup(fields["encoding"])
    except LookupError:
        return False
    return True


def _pseudo_attributes(text: bytes) -> dict[str, str]:
    fields = {}
    for match in _PSEUDO_ATTRIBUTE.finditer(text):
        value = match.group(2) if match.group(2) is not None else match.group(3)
        fields[match.group(1).decode("ascii", "replace")] = value.decode("latin-1")
    return fields
