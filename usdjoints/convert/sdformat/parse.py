"""Reading an SDFormat file into an lxml tree with source lines, and checking its version."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from lxml import etree

from usdjoints.errors import InputError
from usdjoints.outputs import regular_input

from .. import xml_tinyxml

#: SDFormat versions this reader understands (older ones lack the frame semantics it relies on).
#: 1.3 is read as libsdformat reads it: as 1.4 after its conversion (1_3.convert in the
#: specification moves physics update_rate to real_time_update_rate and ode/solver/dt or
#: bullet/dt to max_step_size; nothing else changes).
SUPPORTED_VERSIONS = ("1.3", "1.4", "1.5", "1.6", "1.7", "1.8", "1.9", "1.10", "1.11", "1.12")


@dataclass(frozen=True, eq=False)
class SdfDocument:
    """One parsed file: its ``<sdf>`` element, its version as a tuple, and its path."""

    root: etree._Element
    version: tuple[int, int]
    path: Path
    warnings: tuple[str, ...] = ()  # "file:line: message" of what reading recovered from


def version_tuple(text: str) -> tuple[int, int]:
    major, _, minor = text.partition(".")
    return int(major), int(minor)


def check_version(text: str | None, where: str) -> tuple[int, int]:
    """The version tuple of a supported version string, or an :class:`InputError` naming ``where``."""
    if text is None:
        raise InputError(where, "the <sdf> element has no version attribute", "add version='1.12'")
    text = text.strip()
    if text not in SUPPORTED_VERSIONS:
        raise InputError(
            where,
            f"unknown or unsupported SDFormat version '{text}'",
            f"supported versions: {', '.join(SUPPORTED_VERSIONS)}",
        )
    return version_tuple(text)


def load_document(path: str | Path) -> SdfDocument:
    """Parse ``path``; errors name the file and line (bad XML, wrong root, unknown version)."""
    path = Path(path)
    if not path.is_file():
        raise InputError(str(path), "no such SDFormat file")
    regular_input(path, "SDFormat file")  # a file of the kernel's (/proc/kmsg) would block the read
    try:
        data = path.read_bytes()
    except OSError as e:
        raise InputError(str(path), f"cannot read the file: {e.strerror or e}") from e
    # parsed from the bytes: lxml reports an encoding error reading a file by name as an OSError
    # without the line; from bytes it is the XMLSyntaxError (with line) it is
    tree, notes = xml_tinyxml.parse(str(path), data, "libsdformat", base_url=str(path),
                                    undeclared_namespace=UNDECLARED_NAMESPACE)
    warnings = tuple(f"{path}:{line}: {message}" for line, _, message in notes)
    root = tree.getroot()
    if root.tag != "sdf":
        raise InputError(f"{path}:{root.sourceline}", f"the root element is <{root.tag}>, expected <sdf>")
    version = check_version(root.get("version"), f"{path}:{root.sourceline}")
    return SdfDocument(root, version, path, warnings)


#: The namespace an undeclared prefix is given: tinyxml2, libsdformat's parser, has no namespaces
#: and reads ``gz:expressed_in`` as an attribute of that literal name, which it does not interpret.
UNDECLARED_NAMESPACE = "urn:usdjoints:undeclared:"


def number(text: str) -> float:
    """``float(text)``, but for Python's own number syntax: libsdformat reads a number with
    ``std::stod``, which stops at a digit separator ("1_000" is 1) and knows ASCII digits only.
    Such a token raises ValueError (refused, as any token stod would read only part of)."""
    if "_" in text or not text.isascii():
        raise ValueError(f"not a number: {text!r}")
    return float(text)


def numbers(text: str) -> tuple[float, ...]:
    """The whitespace-separated numbers of ``text`` (:func:`number` each); ValueError for any
    other token, and for a separator that is not ASCII white space (libsdformat splits on those)."""
    if not text.isascii():
        raise ValueError(f"not ASCII: {text!r}")
    return tuple(number(token) for token in text.split())


def child_text(element: etree._Element, tag: str, default: str | None = None) -> str | None:
    """Stripped text of the first child ``tag``, or ``default`` when it is absent or empty."""
    child = element.find(tag)
    if child is None or child.text is None or not child.text.strip():
        return default
    return child.text.strip()


def child_bool(element: etree._Element, tag: str, default: bool) -> bool:
    text = child_text(element, tag)
    if text is None:
        return default
    return text.lower() in ("true", "1")
