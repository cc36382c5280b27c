"""XML read as tinyxml2 reads it: the parser of urdfdom and of libsdformat.

tinyxml2 accepts files that XML 1.0, and so libxml2, rejects. Measured with urdfdom (through
pinocchio) and libsdformat 12 on the same bytes, both load files with:

- whitespace or a byte-order mark before the XML declaration, several declarations, a declared
  version other than 1.x or an unknown encoding (read as UTF-8);
- ``--`` inside a comment (a comment ends at the first ``-->``);
- an ``&`` that starts no reference (kept as the character);
- undeclared namespace prefixes and names such as ``gz::system_priority`` (plain names);
- content after the root element (ignored: both read the first root), text before it, and
  text after it that more markup follows (the document may not end in text);
- a NUL byte (the document ends there: both parse a C string);

A comment before the declaration is refused by both (XML_ERROR_PARSING_DECLARATION), and so here.
Each tolerance is applied only when the strict parse fails, and each leaves a :data:`Note` for the
caller's report; line numbers stay those of the file. Anything else that is not well-formed raises
:class:`~usdjoints.errors.InputError` at file:line. Entities are never resolved and nothing is
fetched from the network.
"""
from __future__ import annotations

import codecs
import io
import os
import re
from typing import Mapping

from lxml import etree

from ..errors import InputError

#: (line, topic, message): something read as tinyxml2 reads it that XML parsers reject
Note = tuple[int, str, str]

_STRAY_AMPERSAND = re.compile(rb"&(?!(?:amp|lt|gt|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);)")
_DECLARATION = re.compile(rb"<\?xml(?=[\s?])(.*?)\?>", re.S)
_PSEUDO_ATTRIBUTE = re.compile(rb"""(\w+)\s*=\s*(?:"([^"]*)"|'([^']*)')""")
_COMMENT_OR_CDATA = re.compile(rb"<!\[CDATA\[.*?\]\]>|<!--(.*?)-->", re.S)
_XML_VERSION = re.compile(r"1\.[0-9]+$")
_BOM = b"\xef\xbb\xbf"


def document_url(path: str) -> str:
    """What a document's ``docinfo.URL`` holds for the file ``path``: the path itself, or, for a
    path that is not UTF-8 (which lxml cannot hold), its ``file://`` URL with those bytes
    percent-encoded; :func:`path_of_url` turns either back into the path."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        from urllib.parse import quote

        return "file://" + quote(os.path.abspath(path).encode("utf-8", "surrogateescape"))
    return path


def path_of_url(url: str) -> str:
    """The file path of a ``docinfo.URL`` set through :func:`document_url`."""
    if url.startswith("file:///"):
        from urllib.parse import unquote_to_bytes

        return os.fsdecode(unquote_to_bytes(url[len("file://"):]))
    return url


def strict_parser() -> etree.XMLParser:
    return etree.XMLParser(remove_comments=True, resolve_entities=False, no_network=True)


def parse(where: str, data: bytes, reader: str, *, base_url: str | None = None,
          undeclared_namespace: str | None = None) -> tuple[etree._ElementTree, list[Note]]:
    """The tree of ``data`` as tinyxml2 reads it, and a note for each tolerance used.

    ``reader`` names the consumer in the notes ("urdfdom", "libsdformat"). With
    ``undeclared_namespace``, an undeclared prefix ``p`` is declared as that URI plus ``p`` (the
    names keep their prefix as a namespace); without it, prefixed names are plain names.
    """
    _refuse_utf16(where, data, reader)
    data, nul_notes = _before_nul(data, reader)
    data, notes = _prolog(data, reader)
    notes = nul_notes + notes
    base_url = document_url(base_url) if base_url is not None else None
    try:
        tree = etree.parse(io.BytesIO(data), strict_parser(), base_url=base_url)
        return _without_default_namespace(tree, reader, notes), notes
    except etree.XMLSyntaxError as error:
        strict_error = error
    data = _text_before_root(data, reader, notes)
    data = _comment_hyphens(data, reader, notes)
    data = _stray_ampersands(data, reader, notes)
    tree = _parse_tolerating_namespaces(data, reader, base_url, undeclared_namespace, notes)
    if tree is None:
        strict_error = _first_intolerable_error(data) or strict_error
        line = strict_error.lineno if strict_error.lineno else 1
        raise InputError(f"{where}:{line}", f"not well-formed XML: {strict_error.msg}",
                         "fix the XML syntax") from strict_error
    return _without_default_namespace(tree, reader, notes), notes


def _without_default_namespace(tree, reader: str, notes: list[Note]):
    """``tree`` with every element of a default namespace (``<robot xmlns="...">``) renamed to
    its plain name. tinyxml2 knows no namespaces: to it ``xmlns`` is an attribute like any other
    and the element is ``robot`` (bullet3's quadrotor.urdf declares one; urdfdom loads it).
    Prefixed names keep their namespace."""
    first = None
    for element in tree.getroot().iter():
        if not isinstance(element.tag, str) or element.prefix is not None or not element.tag.startswith("{"):
            continue
        name = etree.QName(element)
        if first is None:
            first = (element.sourceline or 1, name.namespace)
        element.tag = name.localname
    if first is not None:
        notes.append((first[0], "XML namespace", f"the default namespace '{first[1]}' is ignored: its "
                      f"elements are read by their plain names, as {reader} reads them"))
    return tree


_WIDE_STARTS = (("UTF-32", (codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE, b"<\x00\x00\x00", b"\x00\x00\x00<")),
                ("UTF-16", (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE, b"<\x00", b"\x00<")))


def _refuse_utf16(where: str, data: bytes, reader: str) -> None:
    """UTF-16 or UTF-32 (a byte-order mark, or a first ``<`` with NUL bytes beside it): tinyxml2
    reads bytes as UTF-8, so its first NUL ends the document after a byte or two and both
    urdfdom and libsdformat refuse the file (measured on the same bytes)."""
    start = data.lstrip(b" \t\r\n")
    for name, starts in _WIDE_STARTS:
        if start.startswith(starts):
            raise InputError(f"{where}:1", f"the file is {name} encoded; {reader} (tinyxml2) reads UTF-8 only",
                             "save it as UTF-8")


def _before_nul(data: bytes, reader: str) -> tuple[bytes, list[Note]]:
    """``data`` up to its first NUL byte: tinyxml2 parses the file as a C string, so a NUL ends the
    document it reads (urdfdom parses ``std::string::c_str()``, libsdformat the buffer tinyxml2's
    LoadFile ends with a NUL). pybullet's humanoid.urdf ends in a NUL byte after ``</robot>``."""
    nul = data.find(b"\x00")
    if nul < 0:
        return data, []
    line = data.count(b"\n", 0, nul) + 1
    return data[:nul], [(line, "XML NUL byte", f"a NUL byte ends the document {reader} reads: the "
                         f"{len(data) - nul} byte(s) from it on are ignored (XML parsers reject this file)")]


def _parse_tolerating_namespaces(data, reader, base_url, undeclared_namespace, notes):
    """The tree when the only errors left are namespace errors and content after the root; else None."""
    if undeclared_namespace is not None:
        data = _declare_prefixes(data, undeclared_namespace, reader, notes)
    parser = etree.XMLParser(remove_comments=True, resolve_entities=False, no_network=True, recover=True)
    try:
        tree = etree.parse(io.BytesIO(data), parser, base_url=base_url)
    except etree.XMLSyntaxError:
        return None
    if tree.getroot() is None:
        return None
    seen = set()
    for entry in parser.error_log:
        if entry.level < etree.ErrorLevels.ERROR:
            continue
        if entry.domain == etree.ErrorDomains.NAMESPACE:
            topic = "XML namespace"
            text = f"{entry.message.strip()}: read as a plain name, as {reader} reads it"
        elif entry.type == etree.ErrorTypes.ERR_DOCUMENT_END and _markup_after_root(data, entry):
            topic = "XML content after the root element"
            text = f"content after the root element is ignored, as {reader} ignores it"
        else:
            return None
        if (entry.line, text) not in seen:
            seen.add((entry.line, text))
            notes.append((entry.line, topic, text + " (XML parsers reject this file)"))
    return tree


def _first_intolerable_error(data: bytes) -> etree.XMLSyntaxError | None:
    """The strict parser's error on ``data`` after the tolerances, unless that is a tolerated one."""
    parser = strict_parser()
    try:
        etree.parse(io.BytesIO(data), parser)
    except etree.XMLSyntaxError as error:
        if any(e.level >= etree.ErrorLevels.ERROR and e.domain != etree.ErrorDomains.NAMESPACE
               and e.type != etree.ErrorTypes.ERR_DOCUMENT_END for e in parser.error_log):
            return error
    return None


def _markup_after_root(data: bytes, entry) -> bool:
    """Whether what follows the root element is markup (a second element), which tinyxml2 reads
    and its users skip; text there is an error for tinyxml2 too."""
    lines = data.split(b"\n")
    if not 1 <= entry.line <= len(lines):
        return False
    offset = sum(len(line) + 1 for line in lines[:entry.line - 1]) + max(entry.column - 1, 0)
    return data[offset:].rstrip().endswith(b">")  # text there must be followed by markup


_UNDECLARED = re.compile(r"Namespace prefix (\S+) (?:for|on) ")


def _declare_prefixes(data: bytes, namespace: str, reader: str, notes: list[Note]) -> bytes:
    """``data`` with each undeclared prefix libxml2 reports declared on the root element (on the
    root's line, so line numbers are kept)."""
    parser = strict_parser()
    try:
        etree.parse(io.BytesIO(data), parser)
        return data
    except etree.XMLSyntaxError:
        pass
    prefixes: dict[str, int] = {}
    for entry in parser.error_log:
        match = _UNDECLARED.match(entry.message)
        if entry.domain == etree.ErrorDomains.NAMESPACE and match is not None:
            prefixes.setdefault(match.group(1), entry.line)
    at = re.search(rb"<sdf\b|<robot\b", data)
    if not prefixes or at is None:
        return data
    declarations = b"".join(b' xmlns:%s="%s%s"' % (p.encode(), namespace.encode(), p.encode()) for p in prefixes)
    for prefix, line in prefixes.items():
        notes.append((line, "XML namespace", f"namespace prefix '{prefix}' is not declared; read as {reader} reads it "
                      "(the prefixed elements and attributes are not interpreted)"))
    return data[:at.end()] + declarations + data[at.end():]


def _text_before_root(data: bytes, reader: str, notes: list[Note]) -> bytes:
    """Text before the first markup (a lost '<' of the declaration, a stray word) blanked out:
    tinyxml2 keeps it as a text node beside the root, which its users skip. Line breaks stay."""
    start = data.find(b"<")
    head = data[:start] if start >= 0 else b""
    if start <= 0 or not head.replace(_BOM, b"").strip():
        return data
    if b"\x00" in head or _DECLARATION.match(data, start):
        return data  # tinyxml2 stops at a NUL, and refuses a declaration after text
    notes.append((1, "XML text before the root element", f"text before the first element is ignored, as "
                  f"{reader} ignores it (XML parsers reject this file)"))
    blank = bytes(b if b == 0x0A else 0x20 for b in head)
    data = blank + data[start:]
    return _prolog(data, reader)[0]


def _comment_hyphens(data: bytes, reader: str, notes: list[Note]) -> bytes:
    """Comments holding ``--`` or ending in ``-`` made well-formed; a comment ends at the first ``-->``."""
    first = None
    count = 0

    def blank(match: re.Match) -> bytes:
        nonlocal first, count
        body = match.group(1)
        if body is None or (b"--" not in body and not body.endswith(b"-")):
            return match.group(0)
        count += 1
        first = match.start() if first is None else first
        return b"<!--" + body.replace(b"-", b" ") + b"-->"

    data = _COMMENT_OR_CDATA.sub(blank, data)
    if count:
        notes.append((data.count(b"\n", 0, first) + 1, "XML comment",
                      f"{count} comment(s) holding '--' (first here): read to the first '-->', as {reader} "
                      "reads them (XML parsers reject this file)"))
    return data


def _stray_ampersands(data: bytes, reader: str, notes: list[Note]) -> bytes:
    escaped, count = _STRAY_AMPERSAND.subn(b"&amp;", data)
    if count:
        line = escaped.count(b"\n", 0, escaped.find(b"&amp;")) + 1
        notes.append((line, "XML '&'", f"{count} '&' starting no character or entity reference (first here): "
                      f"read as the character '&', as {reader} reads it (XML parsers reject this file)"))
    return escaped


def _prolog(data: bytes, reader: str) -> tuple[bytes, list[Note]]:
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
        if match and _XML_VERSION.match(fields.get("version", "1.0")) and _known_encoding(fields):
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
    notes: list[Note] = []
    line = data.count(b"\n", 0, declarations[0].start()) + 1 if declarations else 1
    encoding = None
    if declarations:
        fields = _pseudo_attributes(declarations[0].group(1))
        version = fields.get("version")
        if version is not None and not _XML_VERSION.match(version):
            notes.append((line, "XML declaration", f"version {version!r} is not an XML version; read as XML 1.0, "
                          f"as {reader} reads it (XML parsers reject this file)"))
        encoding = fields.get("encoding")
        if not _known_encoding(fields):
            notes.append((line, "XML declaration", f"unknown encoding {encoding!r}; read as UTF-8, as {reader} "
                          "reads it"))
            encoding = None
        if len(declarations) > 1:
            notes.append((line, "XML declaration", f"{len(declarations)} declarations; the first is used, as "
                          f"{reader} uses it (XML parsers reject this file)"))
    if leading and declarations:
        notes.append((line, "XML declaration", f"whitespace or a byte-order mark comes before it; skipped, as "
                      f"{reader} skips it (XML parsers reject this file)"))
    prolog_end = declarations[-1].end() if declarations else position
    head = b'<?xml version="1.0"' + (f' encoding="{encoding}"'.encode("ascii", "replace") if encoding else b"")
    head = head + b"?>" if declarations else b""
    return head + b"\n" * data.count(b"\n", 0, prolog_end) + data[prolog_end:], notes


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

