"""Board renderers, one per game, over one shared shape.

A renderer turns one public state (the JSON the server's ``GetReplay`` sends) into a
:class:`Frame`: an SVG board, the dotted paths of the state it drew, and the public score of
each seat if the state shows one. :func:`render` adds the rest of the state as readable text
(:func:`undrawn`), so nothing a renderer cannot draw is ever hidden. Renderers see only
public states: what a spectator may see is decided by the server, never here.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from markupsafe import Markup

JSONValue = object


@dataclass(frozen=True)
class Frame:
    """What a renderer draws of one state."""

    svg: Markup
    drawn: frozenset[str]  # dotted paths, "*" for any list index or key ("players.*.coins")
    scores: tuple[float, ...] | None  # public score per seat, None when the state shows none


@dataclass(frozen=True)
class Rendered:
    """A frame plus everything it did not draw, as (path, value) text lines."""

    frame: Frame
    text: tuple[tuple[str, str], ...]


Renderer = Callable[[dict[str, object]], Frame]

_RENDERERS: dict[str, Renderer] = {}


def register(game: str) -> Callable[[Renderer], Renderer]:
    """Register the renderer of ``game`` (the registry key of games.names())."""

    def wrap(func: Renderer) -> Renderer:
        _RENDERERS[game] = func
        return func

    return wrap


def renderer(game: str) -> Renderer:
    """The renderer of ``game``, or the text-only fallback for a game without one."""
    _load()
    return _RENDERERS.get(game, text_only)


def render(game: str, state: dict[str, object]) -> Rendered:
    """Draw ``state`` and list what the drawing leaves out."""
    frame = renderer(game)(state)
    return Rendered(frame, tuple(undrawn(state, frame.drawn)))


def text_only(state: dict[str, object]) -> Frame:
    """A board for a game without a renderer: nothing drawn, everything listed."""
    from web.render.svg import Svg

    svg = Svg(400, 40, "no board drawing for this game; the state is listed as text")
    svg.text(10, 25, "no board drawing: see the state listed beside it")
    return Frame(svg.markup(), frozenset(), None)


def leaves(
    value: JSONValue, path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], JSONValue]]:
    """Every leaf of a JSON value with its path (empty lists and objects are leaves)."""
    if isinstance(value, dict) and value:
        for key, item in value.items():
            yield from leaves(item, (*path, str(key)))
    elif isinstance(value, list) and value and any(isinstance(v, dict | list) for v in value):
        for i, item in enumerate(value):
            yield from leaves(item, (*path, str(i)))
    else:
        yield path, value


def is_drawn(path: tuple[str, ...], drawn: frozenset[str]) -> bool:
    """True if ``path`` or one of its prefixes is drawn (``*`` matching any component)."""
    for pattern in drawn:
        parts = pattern.split(".")
        if len(parts) <= len(path) and all(
            p in ("*", c) for p, c in zip(parts, path, strict=False)
        ):
            return True
    return False


def undrawn(state: dict[str, object], drawn: frozenset[str]) -> Iterator[tuple[str, str]]:
    """(dotted path, value as text) of every leaf the drawing leaves out."""
    for path, value in leaves(state):
        if not is_drawn(path, drawn):
            yield ".".join(path), _text(value)


def _text(value: JSONValue) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str):
        return value
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, list) and not value:
        return "none"
    return json.dumps(value, separators=(", ", ": "))


def _load() -> None:
    # Importing the modules registers them; done lazily so this module has no cycle.
    from web.render import farmaria, my_village, village  # noqa: F401
