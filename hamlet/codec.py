"""The one module that converts between protobuf messages and the games' domain values.

A game's wire form is generic by name, so adding a game is a ``.proto`` file plus one line in
:data:`GAME_MODULES` (and its field in the ``GameAction``/``GameObservation`` oneofs):

* ``<Game>Action`` (e.g. ``VillageAction``) wraps one message per action class in a ``oneof
  action``; the oneof field is the class name in snake_case (``PayWell`` -> ``pay_well``), the
  message (named ``<Game><Class>`` to keep the package's names unique) has the dataclass's
  field names. ``int``/``bool``/``str`` map to the same proto scalars,
  tuples to ``repeated``, ``X | None`` to ``optional``, a ``str`` enum either to ``string``
  (its value) or to a proto enum whose value names are ``<ENUM_NAME>_<VALUE>`` in upper snake
  case (``enum VillageGood { VILLAGE_GOOD_UNSPECIFIED = 0; VILLAGE_GOOD_GRAIN = 1; }``).
* ``<Game>Observation`` is a typed message mirroring the observation dict, filled from it by
  field name with ``json_format.ParseDict`` (strict) and turned back into the identical dict;
  ``proto/hamlet/v1/shape.proto`` declares, with message and field options, what json_format's
  mapping cannot say (``None`` versus absent keys, bare lists, tuples, unions): see
  :func:`dict_to_message` and :func:`message_to_dict`. A message whose only field is a
  ``google.protobuf.Struct`` (the observation dict as is) is still accepted.

Bots over stdin/stdout use :func:`write_frame` / :func:`read_frame`: each message is prefixed
by its length as 4 big-endian bytes.
"""

from __future__ import annotations

import enum
import functools
import importlib
import re
import typing
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import IO, Any

from google.protobuf import json_format, struct_pb2
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

import games
from games import Action
from hamlet.v1 import common_pb2, shape_pb2

#: game name -> generated module holding ``<Game>Action`` and ``<Game>Observation``.
GAME_MODULES: dict[str, str] = {
    "village": "hamlet.v1.village_pb2",
    "my_village": "hamlet.v1.my_village_pb2",
    "farmaria": "hamlet.v1.farmaria_pb2",
}

#: Largest frame :func:`read_frame` accepts unless told otherwise (4 MiB).
DEFAULT_MAX_FRAME = 4 * 1024 * 1024

_ONEOF = "action"


class CodecError(ValueError):
    """A value has no wire form, or a message does not decode to a valid domain value."""


class FrameError(ValueError):
    """A length-prefixed frame is truncated or larger than allowed."""


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


# --- actions -------------------------------------------------------------------------------


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


def game_action(game: str, action: Action) -> common_pb2.GameAction:
    """``action`` wrapped for the common ``GameAction`` oneof."""
    out = common_pb2.GameAction()
    if game not in out.DESCRIPTOR.fields_by_name:
        raise CodecError(f"GameAction has no field for game {game!r} (add it to common.proto)")
    getattr(out, game).CopyFrom(action_to_proto(game, action))
    return out


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


# --- observations --------------------------------------------------------------------------


def observation_to_proto(game: str, observation: Mapping[str, Any]) -> Message:
    """The game's observation message for an observation dict.

    A typed message is filled by :func:`json_format.ParseDict` after the values whose dict form
    is not json_format's (see :func:`dict_to_message`) are rewritten; it stays strict: a key the
    schema lacks, or a value of the wrong type, is a :class:`CodecError`.
    """
    msg = game_messages(game).observation()
    struct_field = _struct_field(msg)
    try:
        if struct_field is not None:
            getattr(msg, struct_field).update(observation)
        else:
            dict_to_message(observation, msg)
    except (ValueError, TypeError, json_format.ParseError) as exc:
        raise CodecError(f"{game} observation does not fit {msg.DESCRIPTOR.name}: {exc}") from exc
    return msg


def observation_from_proto(game: str, msg: Message) -> dict[str, Any]:
    """The observation dict of a game's observation message (or of a ``GameObservation``)."""
    if isinstance(msg, common_pb2.GameObservation):
        which = msg.WhichOneof("game")
        if which != game:
            raise CodecError(f"expected a {game} observation, got {which or 'nothing'}")
        msg = getattr(msg, game)
    struct_field = _struct_field(msg)
    if struct_field is not None:
        return typing.cast(dict[str, Any], struct_to_dict(getattr(msg, struct_field)))
    return typing.cast(dict[str, Any], message_to_dict(msg))


# A typed observation maps to its dict by field name, as json_format does, with two additions
# declared in proto/hamlet/v1/shape.proto: a field with presence marked ``null_if_unset`` is a
# key holding ``None`` when unset (other unset fields are absent keys), and a message's
# ``dict_form`` option makes it a bare value, a fixed-length list or a union instead of a dict.


#: Descriptors as the stubs see them: ``descriptor.Descriptor`` or its upb twin.
_MessageType = Any
_FieldType = Any


def dict_to_message(data: Mapping[str, Any], msg: Message) -> None:
    """Fill ``msg`` from the JSON-like ``data`` (strict: unknown keys raise ``ParseError``)."""
    json_format.ParseDict(_json_message(data, msg.DESCRIPTOR), msg)


def message_to_dict(msg: Message) -> Any:
    """The JSON-like value of ``msg``: exactly the dict :func:`dict_to_message` was given."""
    descriptor = msg.DESCRIPTOR
    form = _dict_form(descriptor)
    if form == shape_pb2.DICT_FORM_VALUE:
        return _field_value(msg, _only_field(descriptor))
    if form == shape_pb2.DICT_FORM_TUPLE:
        return [_field_value(msg, f) for f in _by_number(descriptor)]
    if form == shape_pb2.DICT_FORM_UNION:
        which = _union(descriptor).name
        member = msg.WhichOneof(which)
        if member is None:
            raise CodecError(f"{descriptor.full_name} has no member of its oneof {which} set")
        field = descriptor.fields_by_name[member]
        value = _field_value(msg, field)
        return value if field.message_type is None else {member: value}
    out: dict[str, Any] = {}
    for field in descriptor.fields:
        value = _field_value(msg, field)
        if value is not None or _null_if_unset(field):
            out[field.name] = value
    return out


def _field_value(msg: Message, field: _FieldType) -> Any:
    """The dict value of one field; ``None`` when it has presence and is unset."""
    value = getattr(msg, field.name)
    if _is_map(field):
        value_field = field.message_type.fields_by_name["value"]
        return {k: _element_value(v, value_field) for k, v in value.items()}
    if field.is_repeated:
        return [_element_value(v, field) for v in value]
    if field.has_presence and not msg.HasField(field.name):
        return None
    return _element_value(value, field)


def _element_value(value: Any, field: _FieldType) -> Any:
    if field.message_type is not None:
        return message_to_dict(value)
    if field.type in _INT64_TYPES:
        return int(value)
    if field.enum_type is not None:
        return field.enum_type.values_by_number[int(value)].name
    return value


def _json_message(value: Any, descriptor: _MessageType) -> Any:
    """``value`` (the dict form of a ``descriptor`` message) in json_format's form."""
    form = _dict_form(descriptor)
    if form == shape_pb2.DICT_FORM_VALUE:
        field = _only_field(descriptor)
        return {} if value is None else {field.name: _json_field(value, field)}
    if form == shape_pb2.DICT_FORM_TUPLE:
        fields_ = _by_number(descriptor)
        if not isinstance(value, list | tuple) or len(value) != len(fields_):
            raise json_format.ParseError(
                f"{descriptor.full_name} expects a list of {len(fields_)} values, got {value!r}"
            )
        return {f.name: _json_field(v, f) for f, v in zip(fields_, value, strict=True)}
    if form == shape_pb2.DICT_FORM_UNION and not isinstance(value, Mapping):
        scalars = [f for f in _union(descriptor).fields if f.message_type is None]
        if len(scalars) != 1:
            raise json_format.ParseError(f"{descriptor.full_name} has no single scalar member")
        return {scalars[0].name: value}
    if not isinstance(value, Mapping):
        return value  # ParseDict reports it
    out: dict[str, Any] = {}
    for key, item in value.items():
        field = descriptor.fields_by_name.get(key)
        out[key] = item if field is None else _json_field(item, field)  # unknown: ParseDict fails
    return out


def _json_field(value: Any, field: _FieldType) -> Any:
    if value is None or field.message_type is None:
        return value
    if _is_map(field):
        value_field = field.message_type.fields_by_name["value"]
        if value_field.message_type is None or not isinstance(value, Mapping):
            return value
        return {k: _json_message(v, value_field.message_type) for k, v in value.items()}
    if field.is_repeated:
        if not isinstance(value, list | tuple):
            return value
        return [_json_message(v, field.message_type) for v in value]
    return _json_message(value, field.message_type)


_INT64_TYPES = frozenset(
    {
        FieldDescriptor.TYPE_INT64,
        FieldDescriptor.TYPE_UINT64,
        FieldDescriptor.TYPE_SINT64,
        FieldDescriptor.TYPE_FIXED64,
        FieldDescriptor.TYPE_SFIXED64,
    }
)


@functools.cache
def _dict_form(descriptor: _MessageType) -> int:
    return int(descriptor.GetOptions().Extensions[shape_pb2.dict_form])


@functools.cache
def _null_if_unset(field: _FieldType) -> bool:
    return bool(field.GetOptions().Extensions[shape_pb2.null_if_unset])


@functools.cache
def _is_map(field: _FieldType) -> bool:
    return field.message_type is not None and field.message_type.GetOptions().map_entry


def _by_number(descriptor: _MessageType) -> list[_FieldType]:
    return sorted(descriptor.fields, key=lambda f: f.number)


def _only_field(descriptor: _MessageType) -> _FieldType:
    if len(descriptor.fields) != 1:
        raise CodecError(f"{descriptor.full_name} has dict form VALUE but not exactly one field")
    return descriptor.fields[0]


def _union(descriptor: _MessageType) -> Any:
    if len(descriptor.oneofs) != 1 or len(descriptor.oneofs[0].fields) != len(descriptor.fields):
        raise CodecError(f"{descriptor.full_name} has dict form UNION but is not one oneof")
    return descriptor.oneofs[0]


def game_observation(game: str, observation: Mapping[str, Any]) -> common_pb2.GameObservation:
    """``observation`` wrapped for the common ``GameObservation`` oneof."""
    out = common_pb2.GameObservation()
    if game not in out.DESCRIPTOR.fields_by_name:
        raise CodecError(f"GameObservation has no field for game {game!r} (add it to common.proto)")
    getattr(out, game).CopyFrom(observation_to_proto(game, observation))
    return out


def dict_to_struct(data: Mapping[str, Any]) -> struct_pb2.Struct:
    """A ``Struct`` holding JSON-like ``data`` (public states in replays)."""
    out = struct_pb2.Struct()
    out.update(data)
    return out


def struct_to_dict(struct: struct_pb2.Struct) -> Any:
    """Inverse of :func:`dict_to_struct`; whole numbers come back as ``int``."""
    return _ints(json_format.MessageToDict(struct))


def _ints(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: _ints(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_ints(v) for v in value]
    return value


def _struct_field(msg: Message) -> str | None:
    descriptor = msg.DESCRIPTOR
    if len(descriptor.fields) == 1:
        field = descriptor.fields[0]
        if (
            field.message_type is not None
            and field.message_type.full_name == "google.protobuf.Struct"
        ):
            return str(field.name)
    return None


# --- decisions -----------------------------------------------------------------------------


def decision_request(
    game: str,
    match_id: str,
    seat: int,
    decision_index: int,
    observation: Mapping[str, Any],
    legal: list[Action],
    time_left_ms: int,
) -> common_pb2.DecisionRequest:
    """The request a bot answers for one decision."""
    return common_pb2.DecisionRequest(
        match_id=match_id,
        game=game,
        seat=seat,
        decision_index=decision_index,
        observation=game_observation(game, observation),
        legal_actions=[game_action(game, a) for a in legal],
        time_left_ms=max(0, int(time_left_ms)),
    )


def legal_from_request(req: common_pb2.DecisionRequest) -> list[dict[str, Any]]:
    """The legal actions of a request as action dicts (``games.action_to_dict`` form)."""
    return [games.action_to_dict(action_from_proto(req.game, a)) for a in req.legal_actions]


def observation_from_request(req: common_pb2.DecisionRequest) -> dict[str, Any]:
    """The observation dict of a request."""
    return observation_from_proto(req.game, req.observation)


# --- framing -------------------------------------------------------------------------------


def write_frame(stream: IO[bytes], payload: bytes) -> None:
    """Write ``payload`` prefixed by its length (4 bytes, big-endian) and flush."""
    stream.write(len(payload).to_bytes(4, "big") + payload)
    stream.flush()


def read_frame(stream: IO[bytes], max_bytes: int = DEFAULT_MAX_FRAME) -> bytes | None:
    """The next frame's payload; ``None`` at a clean end of stream.

    Raises :class:`FrameError` on a truncated frame or one longer than ``max_bytes``.
    """
    header = _read_exactly(stream, 4)
    if not header:
        return None
    if len(header) < 4:
        raise FrameError("stream ended inside a frame header")
    size = int.from_bytes(header, "big")
    if size > max_bytes:
        raise FrameError(f"frame of {size} bytes exceeds the limit of {max_bytes}")
    body = _read_exactly(stream, size)
    if len(body) < size:
        raise FrameError(f"stream ended after {len(body)} of {size} frame bytes")
    return body


def _read_exactly(stream: IO[bytes], size: int) -> bytes:
    chunks: list[bytes] = []
    remaining = size
    while remaining > 0:
        chunk = stream.read(remaining)
        if not chunk:
            break
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)
