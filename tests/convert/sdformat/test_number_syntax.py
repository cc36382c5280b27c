"""Numbers in Python's own syntax that libsdformat does not read as Python does.

Oracle: C's ``strtod``, which libsdformat's ``std::stod`` calls for every double (and for each
token of a pose), in the C locale. It stops at a digit separator ("1_000" is 1, where Python's
``float`` reads 1000) and knows ASCII digits only (Python reads "\u0661" and "\uff11" as 1), and
libsdformat splits a pose at ASCII white space only (Python's ``split`` also splits at a no-break
space). The reader refuses such a value at its line, as it refuses any token strtod reads only part of.
"""
from __future__ import annotations

import ctypes
import ctypes.util

import pytest

from test_unusable_values import LINK, _model, _refused

_LIBC = ctypes.CDLL(ctypes.util.find_library("c"))
_LIBC.strtod.restype = ctypes.c_double
_LIBC.strtod.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_char_p)]


def strtod_prefix(token: str) -> int:
    """How many bytes of ``token`` (UTF-8) C's strtod reads."""
    data = token.encode()
    buffer = ctypes.create_string_buffer(data)
    end = ctypes.c_char_p()
    _LIBC.strtod(buffer, ctypes.byref(end))
    return ctypes.cast(end, ctypes.c_void_p).value - ctypes.addressof(buffer)


TOKENS = {"separator": "1_000", "arabic_indic": "\u0661", "fullwidth": "\uff11"}
PLACES = {
    "mass": (LINK.format("c").replace("<mass>1</mass>", "<mass>{}</mass>"), "<mass>"),
    "inertia": (LINK.format("c").replace("<ixx>1</ixx>", "<ixx>{}</ixx>"), "<ixx>"),
    "pose": ('<link name="c"><pose>0 0 {} 0 0 0</pose></link>', "<pose>"),
    "limit": ('<joint name="j" type="revolute"><parent>a</parent><child>b</child><axis><xyz>0 0 1</xyz>'
              '<limit><lower>-1</lower><upper>{}</upper></limit></axis></joint>', "<upper>"),
    "axis": ('<joint name="j" type="revolute"><parent>a</parent><child>b</child><axis><xyz>0 0 {}</xyz>'
             '</axis></joint>', "<xyz>"),
}


def test_the_oracle_reads_these_tokens_only_in_part():
    assert float("1_000") == 1000.0 and float("\u0661") == 1.0 and float("\uff11") == 1.0
    assert strtod_prefix("1_000") == 1
    assert strtod_prefix("\u0661") == 0 and strtod_prefix("\uff11") == 0
    assert strtod_prefix("1000") == 4


@pytest.mark.parametrize("token", sorted(TOKENS))
@pytest.mark.parametrize("place", sorted(PLACES))
def test_a_number_in_python_syntax_is_refused_at_its_line(tmp_path, place, token):
    body, tag = PLACES[place]
    message = _refused(tmp_path, _model(body.format(TOKENS[token])))
    assert "m.sdf:6: " in message and tag in message and "not" in message, message


def test_a_pose_split_at_a_no_break_space_is_refused_and_shows_it(tmp_path):
    message = _refused(tmp_path, _model('<link name="c"><pose>0 0 1\u00a00 0 0</pose></link>'))
    assert "m.sdf:6: <pose> holds '0 0 1\\xa00 0 0', which is not a list of numbers" in message
