"""Text a bot controls, made inert: shown as data, never as markup or terminal control.

A bot controls its handshake name, version and author, the messages of its error statuses, its
log lines and the bytes of its replies. Each of those may hold rich markup (``[/]``), ANSI escape
sequences (clear the screen, set the window title), bidirectional overrides that reorder what an
operator reads, or megabytes of text. ``inert`` is the one function every screen uses on such text:
the terminal here (through ``inert_text``, a rich ``Text`` that is never parsed as markup) and any
web page (which escapes HTML on top of it).
"""

from __future__ import annotations

import re

from rich.text import Text

DEFAULT_LIMIT = 300
"""Characters shown of one bot-controlled string before it is cut (the cut says how much was dropped)."""

# C0 and C1 controls, DEL, and the Unicode format characters that reorder or hide text (bidi
# embeddings, overrides and isolates; zero-width joiners and marks; the BOM; line/paragraph separators).
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")
_CONTROL_ONE_LINE = re.compile("[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def inert(text: object, limit: int = DEFAULT_LIMIT, *, multiline: bool = False) -> str:
    """``text`` as plain, visible characters: every control or reordering character written out as
    an escape (``\\x1b``, ``\\u202e``), cut to ``limit`` characters with a note of what was dropped.

    ``multiline`` keeps newlines and tabs (a log's lines); otherwise they are escaped too. Bytes
    are decoded as UTF-8 with replacement; any other value is shown by ``str``.
    """
    if isinstance(text, bytes | bytearray | memoryview):
        s = bytes(text).decode("utf-8", "replace")
    elif isinstance(text, str):
        s = text
    else:
        try:
            s = str(text)
        except Exception:
            s = f"<{type(text).__name__}>"
    dropped = len(s) - limit
    if dropped > 0:
        s = s[:limit]
    s = (_CONTROL if multiline else _CONTROL_ONE_LINE).sub(_visible, s)
    if multiline:
        s = s.replace("\r\n", "\n")
    return s + f"… ({dropped} more characters)" if dropped > 0 else s


def inert_text(text: object, limit: int = DEFAULT_LIMIT, *, multiline: bool = False, style: str = "") -> Text:
    """``inert(text)`` as a rich ``Text``: rich prints it as it stands, never reading markup or emoji codes."""
    return Text(inert(text, limit, multiline=multiline), style=style)
