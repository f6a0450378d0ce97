"""Game actions <-> their ``<Game>Action`` wrapper messages (see :mod:`hamlet.codec`)."""

from __future__ import annotations

import enum
import typing
from dataclasses import fields
from typing import Any

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

import games
from games import Action
from hamlet.codec.messages import CodecError, game_messages, snake, upper_snake
from hamlet.v1 import common_pb2

_ONEOF = "action"


def missing_action_messages(game: str) -> list[str]:
    """Action classes of ``game`` (or their fields) with no message: empty when complete."""
    wrapper = game_messages(game).action.DESCRIPTOR
    missing = []
    for cls in games.get(game).action_types:
        field = wrapper.fields_by_name.get(snake(cls.__name__))
        if field is None or field.message_type is None:
            missing.append(cls.__name__)
            continue
        names = field.message_type.fields_by_name
        missing += [f"{cls.__name__}.{f.name}" for f in fields(cls) if f.name not in names]  # type: ignore[arg-type]
    return missing


def action_to_proto(game: str, action: Action) -> Message:
    """The game's action wrapper message (e.g. ``VillageAction``) for ``action``."""
    wrapper = game_messages(game).action()
    name = snake(type(action).__name__)
    if name not in wrapper.DESCRIPTOR.fields_by_name:
        raise CodecError(f"{wrapper.DESCRIPTOR.name} has no field {name!r} for {type(action)!r}")
    inner = getattr(wrapper, name)
    inner.SetInParent()
    for f in fields(action):  # type: ignore[arg-type]
        fd = inner.DESCRIPTOR.fields_by_name.get(f.name)
        if fd is None:
            raise CodecError(f"{inner.DESCRIPTOR.full_name} has no field {f.name!r}")
        value = getattr(action, f.name)
        if value is None:
            continue
        if isinstance(value, tuple):
            getattr(inner, f.name).extend(_scalar_to_proto(fd, v) for v in value)
        else:
            setattr(inner, f.name, _scalar_to_proto(fd, value))
    return wrapper


def action_from_proto(game: str, msg: Message) -> Action:
    """The domain action of a game's action wrapper (or of a ``GameAction``)."""
    if isinstance(msg, common_pb2.GameAction):
        which = msg.WhichOneof("game")
        if which != game:
            raise CodecError(f"expected a {game} action, got {which or 'nothing'}")
        msg = getattr(msg, game)
    which = msg.WhichOneof(_ONEOF)
    if which is None:
        raise CodecError(f"{msg.DESCRIPTOR.name} carries no action")
    inner = getattr(msg, which)
    by_field = {snake(t.__name__): t for t in games.get(game).action_types}
    cls = by_field.get(which)
    if cls is None:
        raise CodecError(f"{game} has no action type for {msg.DESCRIPTOR.name}.{which}")
    hints = typing.get_type_hints(cls)
    data: dict[str, Any] = {"type": cls.__name__}
    for f in fields(cls):  # type: ignore[arg-type]
        fd = inner.DESCRIPTOR.fields_by_name[f.name]
        enum_type = _enum_of(hints[f.name])
        if fd.is_repeated:
            data[f.name] = [_scalar_from_proto(fd, v, enum_type) for v in getattr(inner, f.name)]
        elif fd.has_presence and not inner.HasField(f.name):
            data[f.name] = None
        else:
            data[f.name] = _scalar_from_proto(fd, getattr(inner, f.name), enum_type)
    try:
        return games.get(game).action_from_dict(data)
    except (ValueError, TypeError) as exc:
        raise CodecError(f"bad {game} action: {exc}") from exc


def _scalar_to_proto(fd: FieldDescriptor, value: object) -> object:
    if isinstance(value, enum.Enum):
        if fd.enum_type is None:
            return value.value
        enum_name = f"{upper_snake(fd.enum_type.name)}_{upper_snake(str(value.value))}"
        member = fd.enum_type.values_by_name.get(enum_name)
        if member is None:
            raise CodecError(f"proto enum {fd.enum_type.full_name} has no value {enum_name}")
        return member.number
    return value


def _scalar_from_proto(
    fd: FieldDescriptor, value: object, enum_type: type[enum.Enum] | None
) -> object:
    if fd.enum_type is None or enum_type is None:
        return value
    name = fd.enum_type.values_by_number[int(typing.cast(int, value))].name
    prefix = upper_snake(fd.enum_type.name) + "_"
    for member in enum_type:
        if prefix + upper_snake(str(member.value)) == name:
            return member.value
    raise CodecError(f"{name} is not a value of {enum_type.__name__}")


def _enum_of(hint: object) -> type[enum.Enum] | None:
    """The enum class inside a field annotation (``E``, ``tuple[E, ...]``, ``E | None``)."""
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return hint
    for arg in typing.get_args(hint):
        found = _enum_of(arg)
        if found is not None:
            return found
    return None
