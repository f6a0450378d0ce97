"""Starting points for bot authors: one commented, working uploaded bot per game.

``hamlet bot new NAME --game GAME`` writes ``NAME.py`` from ``bots/templates/<game>.py``
(the marker ``TEMPLATE_NAME`` becomes the bot's name). Each template is a complete bot file
(it calls ``bots.sdk.run(decide)`` and reads only the observation and the legal actions) and
beats ``random`` (``tests/workers/test_localplay_templates.py`` plays it in the sandbox).
"""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

import games

MARKER = "TEMPLATE_NAME"
#: A bot name: what ``hamlet bot submit`` accepts and a file name can hold.
NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,63}$")


class TemplateError(ValueError):
    """The template cannot be written; the message is one line saying why and what is valid."""


class TemplateExistsError(TemplateError):
    """The target file exists: a template never overwrites an author's work."""


def template_games() -> list[str]:
    """The registered games that have a template."""
    here = resources.files(__name__)
    return [g for g in games.names() if here.joinpath(f"{g}.py").is_file()]


def render(name: str, game: str) -> str:
    """The text of the bot file ``NAME.py`` for ``game``."""
    if not NAME.match(name):
        raise TemplateError(
            f"bad bot name {name!r}: use a letter, then letters, digits, '_' or '-' (up to 64)"
        )
    if game not in template_games():
        raise TemplateError(
            f"unknown game {game!r}; games with a template: {', '.join(template_games())}"
        )
    text = resources.files(__name__).joinpath(f"{game}.py").read_text(encoding="utf-8")
    return text.replace(MARKER, name)


def write(name: str, game: str, directory: Path) -> Path:
    """Write ``directory/NAME.py``; :class:`TemplateExistsError` if it is there already."""
    text = render(name, game)
    if not directory.is_dir():
        raise TemplateError(f"no such directory: {directory}")
    target = directory / f"{name}.py"
    try:
        with target.open("x", encoding="utf-8") as out:  # "x": never overwrite
            out.write(text)
    except FileExistsError:
        raise TemplateExistsError(
            f"{target} exists already: pick another name or --dir (nothing was overwritten)"
        ) from None
    return target
