"""The per-game message registry: which generated classes carry a game, and the naming helpers.

:data:`GAME_MODULES` maps a game to its generated module; :func:`game_messages` finds its
``<Game>Action`` and ``<Game>Observation`` there by name (:func:`camel`), and tests swap in
throwaway games with :func:`register_messages`. :class:`CodecError` is the codec's one error
for a value with no wire form or a message with no domain value.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass

from google.protobuf.message import Message

#: game name -> generated module holding ``<Game>Action`` and ``<Game>Observation``.
GAME_MODULES: dict[str, str] = {
    "village": "hamlet.v1.village_pb2",
    "my_village": "hamlet.v1.my_village_pb2",
    "farmaria": "hamlet.v1.farmaria_pb2",
}


class CodecError(ValueError):
    """A value has no wire form, or a message does not decode to a valid domain value."""


@dataclass(frozen=True, slots=True)
class GameMessages:
    """The message classes of one game."""

    action: type[Message]
    observation: type[Message]


def camel(name: str) -> str:
    """``my_village`` -> ``MyVillage``."""
    return "".join(part.capitalize() for part in name.split("_"))


def snake(name: str) -> str:
    """``PlaceWorker`` -> ``place_worker``."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


def upper_snake(text: str) -> str:
    """``VillageGood`` -> ``VILLAGE_GOOD``; ``half-price`` -> ``HALF_PRICE``."""
    return re.sub(r"[^A-Za-z0-9]+", "_", snake(text)).strip("_").upper()


_messages_cache: dict[str, GameMessages] = {}


def game_messages(game: str) -> GameMessages:
    """The action wrapper and observation classes of ``game``; ``CodecError`` if it has none."""
    found = _messages_cache.get(game)
    if found is not None:
        return found
    module_name = GAME_MODULES.get(game)
    if module_name is None:
        raise CodecError(f"game {game!r} has no protobuf messages (add it to hamlet.codec)")
    module = importlib.import_module(module_name)
    found = GameMessages(
        action=getattr(module, f"{camel(game)}Action"),
        observation=getattr(module, f"{camel(game)}Observation"),
    )
    _messages_cache[game] = found
    return found


def register_messages(game: str, messages: GameMessages) -> None:
    """Use ``messages`` for ``game`` (tests register throwaway games this way)."""
    _messages_cache[game] = messages


def unregister_messages(game: str) -> None:
    """Forget messages registered with :func:`register_messages`."""
    _messages_cache.pop(game, None)
