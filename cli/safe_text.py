"""Text that users wrote, made safe to print on a terminal.

Bot names, descriptions, a bot's stderr, forfeit details, invitation messages, tournament
fields and the server's error messages (which may quote any of these) are written by other
people. Printed raw, an escape sequence in them acts on the reader's terminal: OSC 52 writes
the clipboard, OSC 0 sets the window title, CSI moves the cursor or erases lines, and a
bidirectional override makes text read differently from what it is. :func:`clean` removes all
of that and is applied to every piece of text the CLI's consoles print (see
:mod:`cli.console`); :func:`literal` also escapes rich markup, for the few places where a
user's string is put into text that is itself markup.

Removed: ESC sequences (CSI, OSC with any terminator or none, DCS, SOS, PM, APC, and the
two-character ones), their 8-bit C1 forms, every other C0 and C1 control but tab and newline,
DEL, and the bidirectional controls (U+202A-U+202E, U+2066-U+2069, U+200E, U+200F, U+061C).
A sequence left unterminated is removed to the end of the text: failing closed.
"""

from __future__ import annotations

import re

from rich.markup import escape

_SEQUENCES = re.compile(
    r"""
      \x1b \] [^\x07\x1b\x9c]* (?: \x07 | \x1b\\ | \x9c )?     # OSC ... BEL or ST (OSC 0, 52)
    | \x9d [^\x07\x1b\x9c]* (?: \x07 | \x1b\\ | \x9c )?        # 8-bit OSC
    | \x1b [PX^_] [^\x1b\x9c]* (?: \x1b\\ | \x9c )?            # DCS, SOS, PM, APC ... ST
    | [\x90\x98\x9e\x9f] [^\x1b\x9c]* (?: \x1b\\ | \x9c )?     # their 8-bit forms
    | \x1b \[ [\x30-\x3f]* [\x20-\x2f]* [\x40-\x7e]?           # CSI (cursor moves, erase)
    | \x9b [\x30-\x3f]* [\x20-\x2f]* [\x40-\x7e]?              # 8-bit CSI
    | \x1b [\x20-\x2f]* [\x30-\x7e]?                           # other ESC sequences
    """,
    re.VERBOSE,
)
#: Controls left after the sequences: C0 but tab and newline, DEL, C1, and bidi controls.
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def clean(text: str) -> str:
    """``text`` without terminal escape sequences, control characters (but tab and newline)
    and bidirectional controls; printable text is left exactly as it was."""
    if text.isprintable():  # the common case: nothing to remove (and fast)
        return text
    return _CONTROLS.sub("", _SEQUENCES.sub("", text))


def literal(text: str) -> str:
    """``text`` cleaned and with rich markup escaped, to put into a markup string: ``[red]``
    in a description is shown as ``[red]``."""
    return escape(clean(text))
