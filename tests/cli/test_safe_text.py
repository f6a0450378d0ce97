"""Terminal injection: what users wrote reaches the terminal without escape sequences, control
characters or bidirectional overrides, and rich markup in it is shown as written.

The unit tests check :func:`cli.safe_text.clean` sequence by sequence; the last test runs the
CLI against a real test server, with a bot whose description and stderr (and a forfeit's
detail) hold a clipboard write (OSC 52), a window title (OSC 0), an erase line, a cursor move
and a right-to-left override."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli import console
from cli.main import main
from cli.safe_text import clean, literal
from hamlet.v1 import arena_pb2, worker_pb2
from tests.server import fakeworker
from tests.server.conftest import Running

CLIPBOARD = "\x1b]52;c;aGFja2Vk\x07"
TITLE = "\x1b]0;title\x07"
ERASE_LINE = "\x1b[2K"
CURSOR_UP = "\x1b[1A"
RTL_OVERRIDE = "\u202e"
PAYLOAD = (
    f"start {CLIPBOARD}one {TITLE}two {ERASE_LINE}three {CURSOR_UP}four {RTL_OVERRIDE}five "
    "[red]six[/] end"
)
#: Nothing of the payload's sequences may be in the output, not even their printable tails.
FORBIDDEN = ("\x1b", "\x07", "\x9b", "\x9d", RTL_OVERRIDE, "52;c;", "aGFja2Vk", "0;title", "[2K")


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        (CLIPBOARD, ""),
        ("\x1b]52;c;aGFja2Vk\x1b\\after", "after"),  # OSC ended by ST
        ("\x1b]0;title\x9cafter", "after"),  # ... by the 8-bit ST
        ("before\x1b]52;c;never ended", "before"),  # unterminated: removed to the end
        ("\x9d0;title\x07after", "after"),  # 8-bit OSC
        (ERASE_LINE + CURSOR_UP + "\x1b[38;5;196mred\x1b[0m", "red"),  # CSI
        ("\x9b2Jafter", "after"),  # 8-bit CSI
        ("\x1bP1;2|payload\x1b\\after", "after"),  # DCS
        ("\x1b_apc\x1b\\\x1b^pm\x1b\\\x1bXsos\x1b\\after", "after"),  # APC, PM, SOS
        ("\x1bcreset \x1b7saved \x1b(Bcharset", "reset saved charset"),  # ESC sequences
        (
            "bell\x07 back\x08 return\r feed\x0c nul\x00 del\x7f c1\x85",
            "bell back return feed nul del c1",
        ),
        ("a\u202eb\u202ac\u202bd\u202ce\u202df", "abcdef"),  # embeddings and overrides
        ("a\u2066b\u2067c\u2068d\u2069e\u200ef\u200fg\u061ch", "abcdefgh"),  # isolates, marks
        ("tab\tand\nnewline", "tab\tand\nnewline"),  # kept
        ("Ελληνικά, 日本語, émoji 🎲 [red]x[/]", "Ελληνικά, 日本語, émoji 🎲 [red]x[/]"),  # kept
    ],
)
def test_clean_removes_sequences_and_controls(text: str, shown: str) -> None:
    assert clean(text) == shown


def test_literal_escapes_markup() -> None:
    assert literal("[red]x[/] \x1b[2K") == "\\[red]x\\[/] "


def _forbidden_in(text: str) -> list[str]:
    return [f for f in FORBIDDEN if f in text]


def test_bot_show_and_match_show_print_no_escape(
    running: Running,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    srv = ("--server", running.addr)
    monkeypatch.setenv("HAMLET_TOKEN", running.admin_token)
    monkeypatch.setattr(console.out, "width", 300)  # table cells on one line each
    fakeworker.announce(running.worker_channel, ["toy"])
    source = tmp_path / "evil.py"
    source.write_text("from bots.sdk import run\nrun(lambda observation, legal: 0)\n")
    assert main(["bot", "submit", "evil", "toy", str(source), "--description", PAYLOAD, *srv]) == 0
    capsys.readouterr()
    running.arena.CreateTournament(
        arena_pb2.CreateTournamentRequest(
            game="toy", bots=["evil", "alpha"], players_per_table=2, rated=False, start=True
        )
    )
    match_id = running.queue.sent[0]

    def edit(spec: worker_pb2.MatchSpec, outcome: worker_pb2.MatchOutcome) -> None:
        outcome.forfeits[0].detail = f"the bot exited with status 1: {PAYLOAD}"
        outcome.seat_traces.append(fakeworker.honest_trace(spec, outcome, 0, PAYLOAD + "\n"))

    fakeworker.play(running.worker_channel, match_id, forfeit_seat=0, edit=edit)
    for other in running.queue.sent[1:]:
        fakeworker.play(running.worker_channel, other)

    # What each shows of the payload: a description, or a stderr the bot's owner sees. The
    # forfeit's public detail may hold less of the bot's output; its seat's line is shown.
    shown = "start [red]six[/]"
    commands = [
        (["bot", "show", "evil"], shown),
        (["bot", "versions", "evil"], shown),
        (["bots"], shown),
        (["match", "show", match_id, "--log"], "forfeited: crash"),
        (["match", "replay", match_id, "--seat", "1"], shown),
    ]
    for argv, words in commands:
        assert main([*argv, *srv]) in (0, 1), argv
        out, err = capsys.readouterr()
        assert _forbidden_in(out + err) == [], argv
        # the words around the sequences are shown, and markup as it was written
        assert all(word in out for word in words.split()), argv
