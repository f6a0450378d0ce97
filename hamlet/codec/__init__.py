"""The one package that converts between protobuf messages and the games' domain values.

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
by its length as 4 big-endian bytes, and written in the bot's :class:`Framing` (protobuf binary,
or the protobuf JSON mapping) by :func:`encode_message` / :func:`decode_message`.

What lives where (everything below is re-exported here, so ``from hamlet import codec`` and
``codec.<name>`` is how the rest of Hamlet uses it):

* :mod:`hamlet.codec.messages` -- the per-game message registry (:data:`GAME_MODULES`,
  :func:`game_messages`, :func:`register_messages`), the naming helpers (:func:`camel`,
  :func:`snake`, :func:`upper_snake`) and :class:`CodecError`;
* :mod:`hamlet.codec.actions` -- actions to and from their wrapper messages
  (:func:`action_to_proto`, :func:`action_from_proto`, :func:`missing_action_messages`);
* :mod:`hamlet.codec.observations` -- the schema-driven dict <-> message conversion
  (:func:`observation_to_proto`, :func:`observation_from_proto`, :func:`dict_to_message`,
  :func:`message_to_dict`) and the ``Struct`` helpers (:func:`dict_to_struct`,
  :func:`struct_to_dict`);
* :mod:`hamlet.codec.requests` -- the common oneof wrappers (:func:`game_action`,
  :func:`game_observation`) and decision requests (:func:`decision_request`,
  :func:`legal_from_request`, :func:`observation_from_request`);
* :mod:`hamlet.codec.framing` -- :func:`write_frame`, :func:`read_frame`, :class:`FrameError`
  and :data:`DEFAULT_MAX_FRAME`;
* :mod:`hamlet.codec.wire` -- what a frame holds: :class:`Framing`, :func:`encode_message`,
  :func:`decode_message`.
"""

from hamlet.codec.actions import action_from_proto, action_to_proto, missing_action_messages
from hamlet.codec.framing import DEFAULT_MAX_FRAME, FrameError, read_frame, write_frame
from hamlet.codec.messages import (
    GAME_MODULES,
    CodecError,
    GameMessages,
    camel,
    game_messages,
    register_messages,
    snake,
    unregister_messages,
    upper_snake,
)
from hamlet.codec.observations import (
    dict_to_message,
    dict_to_struct,
    message_to_dict,
    observation_from_proto,
    observation_to_proto,
    struct_to_dict,
)
from hamlet.codec.requests import (
    decision_request,
    game_action,
    game_observation,
    legal_from_request,
    observation_from_request,
)
from hamlet.codec.wire import Framing, decode_message, encode_message

__all__ = [
    "DEFAULT_MAX_FRAME",
    "GAME_MODULES",
    "CodecError",
    "FrameError",
    "Framing",
    "GameMessages",
    "action_from_proto",
    "action_to_proto",
    "camel",
    "decision_request",
    "decode_message",
    "dict_to_message",
    "dict_to_struct",
    "encode_message",
    "game_action",
    "game_messages",
    "game_observation",
    "legal_from_request",
    "message_to_dict",
    "missing_action_messages",
    "observation_from_proto",
    "observation_from_request",
    "observation_to_proto",
    "read_frame",
    "register_messages",
    "snake",
    "struct_to_dict",
    "unregister_messages",
    "upper_snake",
    "write_frame",
]
