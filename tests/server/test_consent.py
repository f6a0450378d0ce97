"""Consent: who may enter whose bot. Every caller (the owner, another user, an admin) against
every permission (private, challengeable, open) and every way of entering a bot (rated and
unrated tournaments, a gauntlet, SPRT, the ladder); a refused call writes nothing. Then the
invitations that let another user in, and the rule's single query."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import grpc
import pytest
from sqlalchemy import update

from hamlet.v1 import arena_pb2, arena_pb2_grpc, common_pb2
from server.services.caller import SYSTEM, Caller
from server.services.consent import Permission, check_entries
from server.services.errors import PermissionDeniedError
from server.storage import SqlStore
from server.storage import models as m
from server.storage.base import utcnow
from tests.server import fakeworker
from tests.server.conftest import Running, snapshot

SOURCE = "from bots.sdk import run\nrun(lambda observation, legal: 0)\n"
PERMISSIONS = {
    "private": arena_pb2.BOT_PERMISSION_PRIVATE,
    "challengeable": arena_pb2.BOT_PERMISSION_CHALLENGEABLE,
    "open": arena_pb2.BOT_PERMISSION_OPEN,
}
Stub = arena_pb2_grpc.ArenaStub


def _tournament(rated: bool, fmt: int = common_pb2.TOURNAMENT_FORMAT_ROUND_ROBIN) -> Any:
    def enter(stub: Stub, bot: str) -> Any:
        field = ["alpha", "beta"] if fmt == common_pb2.TOURNAMENT_FORMAT_GAUNTLET else ["alpha"]
        return stub.CreateTournament(
            arena_pb2.CreateTournamentRequest(
                game="toy", bots=[bot, *field], players_per_table=2, rated=rated, format=fmt
            )
        )

    return enter


def _sprt(stub: Stub, bot: str) -> Any:
    return stub.StartSprt(
        arena_pb2.StartSprtRequest(
            game="toy", bot_a="alpha", bot_b=bot, opponents=["beta"], elo0=0, elo1=40, max_pairs=1
        )
    )


def _ladder(stub: Stub, bot: str) -> Any:
    return stub.JoinLadder(arena_pb2.LadderRequest(bot_name=bot, game="toy"))


#: Each way of entering a bot, and whether it is rated.
EVENTS: dict[str, tuple[Callable[[Stub, str], Any], bool]] = {
    "rated": (_tournament(True), True),
    "unrated": (_tournament(False), False),
    "gauntlet": (_tournament(True, common_pb2.TOURNAMENT_FORMAT_GAUNTLET), True),
    "swiss": (_tournament(False, common_pb2.TOURNAMENT_FORMAT_SWISS), False),
    "sprt": (_sprt, False),
    "ladder": (_ladder, True),
}


def _code(err: pytest.ExceptionInfo[grpc.RpcError]) -> grpc.StatusCode:
    return err.value.code()  # type: ignore[attr-defined,no-any-return]


def _details(err: pytest.ExceptionInfo[grpc.RpcError]) -> str:
    return str(err.value.details())  # type: ignore[attr-defined]


@dataclass
class People:
    """ann owns the bots; bo is another user; the admin is the server's."""

    run: Running
    ann: Stub
    bo: Stub
    admin: Stub
    made: list[str] = field(default_factory=list)

    def bot(self, permission: str) -> str:
        """A new bot of ann's with ``permission``."""
        name = f"b{len(self.made)}"
        self.made.append(name)
        src = SOURCE + f"# {name}\n"
        self.ann.SubmitBot(arena_pb2.SubmitBotRequest(name=name, game="toy", source=src))
        if permission != "private":
            self.ann.SetBotPermission(
                arena_pb2.SetBotPermissionRequest(name=name, permission=PERMISSIONS[permission])
            )
        return name


@pytest.fixture
def people(running: Running) -> People:
    fakeworker.announce(running.worker_channel, ["toy"], bots=("alpha", "beta", "gamma"))
    _, ann = running.user("ann")
    _, bo = running.user("bo")
    return People(running, ann, bo, running.arena)


def _allowed(who: str, permission: str, rated: bool) -> bool:
    if who in ("owner", "admin"):
        return True
    return permission == "open" or (permission == "challengeable" and not rated)


@pytest.mark.parametrize("permission", sorted(PERMISSIONS))
@pytest.mark.parametrize("who", ["owner", "other", "admin"])
def test_who_may_enter_whose_bot(people: People, who: str, permission: str) -> None:
    stub = {"owner": people.ann, "other": people.bo, "admin": people.admin}[who]
    for event, (enter, rated) in EVENTS.items():
        bot = people.bot(permission)
        before = snapshot(people.run.store)
        if _allowed(who, permission, rated):
            enter(stub, bot)
            continue
        with pytest.raises(grpc.RpcError) as err:
            enter(stub, bot)
        assert _code(err) == grpc.StatusCode.PERMISSION_DENIED, (event, who, permission)
        assert snapshot(people.run.store) == before, (event, who, permission)
        said = _details(err)
        assert f"bot {bot!r} is ann's, not yours (you are bo)" in said, said
        assert f"hamlet challenge {bot}" in said and "hamlet bot permission" in said, said
        assert ("a rated event" if rated else "an unrated event") in said, said


def test_built_in_bots_enter_anything_but_the_ladder_needs_an_admin(people: People) -> None:
    people.bo.CreateTournament(
        arena_pb2.CreateTournamentRequest(game="toy", bots=["alpha", "beta"], players_per_table=2)
    )
    before = snapshot(people.run.store)
    with pytest.raises(grpc.RpcError) as err:
        _ladder(people.bo, "alpha")
    assert _code(err) == grpc.StatusCode.PERMISSION_DENIED and "only an admin" in _details(err)
    assert snapshot(people.run.store) == before
    assert "alpha" in _ladder(people.admin, "alpha").bots


def test_only_the_owner_or_an_admin_takes_a_bot_off_the_ladder(people: People) -> None:
    bot = people.bot("open")
    assert bot in _ladder(people.bo, bot).bots  # open: bo may put it on
    before = snapshot(people.run.store)
    with pytest.raises(grpc.RpcError) as err:
        people.bo.LeaveLadder(arena_pb2.LadderRequest(bot_name=bot, game="toy"))
    assert _code(err) == grpc.StatusCode.PERMISSION_DENIED and "take it off" in _details(err)
    assert snapshot(people.run.store) == before
    left = people.ann.LeaveLadder(arena_pb2.LadderRequest(bot_name=bot, game="toy"))
    assert bot not in left.bots


def test_permissions_are_the_owners_to_set(people: People) -> None:
    bot = people.bot("private")
    listed = {b.name: b for b in people.bo.ListBots(arena_pb2.ListBotsRequest()).bots}
    assert listed[bot].permission == arena_pb2.BOT_PERMISSION_PRIVATE
    assert listed["alpha"].permission == arena_pb2.BOT_PERMISSION_PRIVATE  # unused for built-ins
    for stub, name, wanted in (
        (people.bo, bot, "belongs to ann"),
        (people.ann, "alpha", "built-in"),
        (people.admin, "alpha", "built-in"),
    ):
        before = snapshot(people.run.store)
        with pytest.raises(grpc.RpcError) as err:
            stub.SetBotPermission(
                arena_pb2.SetBotPermissionRequest(name=name, permission=PERMISSIONS["open"])
            )
        assert _code(err) == grpc.StatusCode.PERMISSION_DENIED and wanted in _details(err)
        assert snapshot(people.run.store) == before
    with pytest.raises(grpc.RpcError) as err:
        people.ann.SetBotPermission(arena_pb2.SetBotPermissionRequest(name=bot))
    assert _code(err) == grpc.StatusCode.INVALID_ARGUMENT
    done = people.admin.SetBotPermission(
        arena_pb2.SetBotPermissionRequest(name=bot, permission=PERMISSIONS["challengeable"])
    )
    assert done.permission == arena_pb2.BOT_PERMISSION_CHALLENGEABLE


def _challenge(stub: Stub, bot: str, rated: bool = False, message: str = "") -> Any:
    return stub.Challenge(arena_pb2.ChallengeRequest(bot=bot, rated=rated, message=message))


def _answer(stub: Stub, invitation_id: int, accept: bool) -> Any:
    return stub.AnswerInvitation(
        arena_pb2.AnswerInvitationRequest(invitation_id=invitation_id, accept=accept)
    )


def _refused(people: People, enter: Callable[[], Any], wanted: str = "") -> str:
    before = snapshot(people.run.store)
    with pytest.raises(grpc.RpcError) as err:
        enter()
    assert _code(err) == grpc.StatusCode.PERMISSION_DENIED, _details(err)
    assert snapshot(people.run.store) == before
    assert wanted in _details(err)
    return _details(err)


def _expire(people: People, invitation_id: int) -> None:
    with people.run.store.engine.begin() as conn:
        conn.execute(
            update(m.Invitation)
            .where(m.Invitation.id == invitation_id)
            .values(expires_at=utcnow() - timedelta(seconds=1))
        )


def test_an_accepted_invitation_lets_the_challenger_in(people: People) -> None:
    bot = people.bot("private")
    rated, unrated, sprt, ladder = (
        lambda: EVENTS["rated"][0](people.bo, bot),
        lambda: EVENTS["unrated"][0](people.bo, bot),
        lambda: _sprt(people.bo, bot),
        lambda: _ladder(people.bo, bot),
    )
    _refused(people, unrated)
    asked = _challenge(people.bo, bot, message="a friendly game?")
    assert asked.status == arena_pb2.INVITATION_STATUS_PENDING and not asked.rated
    assert (asked.bot_name, asked.challenger, asked.owner) == (bot, "bo", "ann")
    assert _challenge(people.bo, bot).invitation_id == asked.invitation_id  # no duplicate
    received = people.ann.ListInvitations(arena_pb2.ListInvitationsRequest())
    assert [i.invitation_id for i in received.received] == [asked.invitation_id]
    assert received.received[0].message == "a friendly game?" and not received.sent
    sent = people.bo.ListInvitations(arena_pb2.ListInvitationsRequest()).sent
    assert [i.invitation_id for i in sent] == [asked.invitation_id]
    _refused(people, unrated)  # pending is not accepted

    for stub in (people.bo,):  # the challenger cannot answer for the owner
        before = snapshot(people.run.store)
        with pytest.raises(grpc.RpcError) as err:
            _answer(stub, asked.invitation_id, True)
        assert _code(err) == grpc.StatusCode.PERMISSION_DENIED
        assert snapshot(people.run.store) == before
    yes = _answer(people.ann, asked.invitation_id, True)
    assert yes.status == arena_pb2.INVITATION_STATUS_ACCEPTED and yes.answered_at
    unrated()
    sprt()
    said = _refused(people, rated, "for unrated events only")
    assert f"hamlet challenge {bot} --rated" in said
    _refused(people, ladder)

    # A rated invitation is a new one; accepted, it opens rated play and the ladder.
    more = _challenge(people.bo, bot, rated=True)
    assert more.invitation_id != asked.invitation_id and more.rated
    _answer(people.admin, more.invitation_id, True)  # an admin may answer too
    rated()
    ladder()
    assert _challenge(people.bo, bot).invitation_id == more.invitation_id  # covered already

    # Declining an accepted invitation withdraws it; the unrated one still holds.
    gone = _answer(people.ann, more.invitation_id, False)
    assert gone.status == arena_pb2.INVITATION_STATUS_DECLINED
    _refused(people, rated)
    unrated()

    # A grant past its end lets nobody in; a lapsed challenge can no longer be accepted.
    _expire(people, asked.invitation_id)
    _refused(people, unrated)
    states = {
        i.invitation_id: i.status
        for i in people.ann.ListInvitations(arena_pb2.ListInvitationsRequest()).received
    }
    assert states[asked.invitation_id] == arena_pb2.INVITATION_STATUS_EXPIRED
    late = _challenge(people.bo, bot)
    _expire(people, late.invitation_id)
    with pytest.raises(grpc.RpcError) as err:
        _answer(people.ann, late.invitation_id, True)
    assert _code(err) == grpc.StatusCode.FAILED_PRECONDITION and "expired" in _details(err)


def test_a_declined_challenge_lets_nobody_in(people: People) -> None:
    bot = people.bot("challengeable")
    asked = _challenge(people.bo, bot, rated=True)
    no = _answer(people.ann, asked.invitation_id, False)
    assert no.status == arena_pb2.INVITATION_STATUS_DECLINED
    _refused(people, lambda: EVENTS["rated"][0](people.bo, bot))
    EVENTS["unrated"][0](people.bo, bot)  # challengeable: unrated needs no invitation
    with pytest.raises(grpc.RpcError) as err:
        _answer(people.ann, asked.invitation_id, True)
    assert _code(err) == grpc.StatusCode.FAILED_PRECONDITION


@pytest.mark.parametrize(
    ("bot", "rated", "message", "code", "wanted"),
    [
        ("alpha", False, "", grpc.StatusCode.FAILED_PRECONDITION, "built-in"),
        ("OWN", False, "", grpc.StatusCode.FAILED_PRECONDITION, "is yours"),
        ("OPEN", True, "", grpc.StatusCode.FAILED_PRECONDITION, "no invitation needed"),
        ("CHALLENGEABLE", False, "", grpc.StatusCode.FAILED_PRECONDITION, "no invitation"),
        ("PRIVATE", False, "x" * 201, grpc.StatusCode.INVALID_ARGUMENT, "at most 200"),
        ("nobody", False, "", grpc.StatusCode.NOT_FOUND, "unknown bot"),
        ("", False, "", grpc.StatusCode.INVALID_ARGUMENT, "bot name"),
    ],
)
def test_challenges_that_make_no_sense_are_refused(
    people: People, bot: str, rated: bool, message: str, code: grpc.StatusCode, wanted: str
) -> None:
    stub = people.bo
    if bot == "OWN":
        bot, stub = people.bot("private"), people.ann
    elif bot.isupper():
        bot = people.bot(bot.lower())
    before = snapshot(people.run.store)
    with pytest.raises(grpc.RpcError) as err:
        _challenge(stub, bot, rated, message)
    assert _code(err) == code and wanted in _details(err), _details(err)
    assert snapshot(people.run.store) == before


def test_answers_need_a_known_invitation(people: People) -> None:
    for invitation_id, code in (
        (0, grpc.StatusCode.INVALID_ARGUMENT),
        (99, grpc.StatusCode.NOT_FOUND),
    ):
        with pytest.raises(grpc.RpcError) as err:
            _answer(people.ann, invitation_id, True)
        assert _code(err) == code


@dataclass(frozen=True)
class _Bot:
    name: str
    owner: str
    permission: str = "private"


class _CountingStore:
    """Only what the rule asks of a store: grants, counted."""

    def __init__(self, grants: dict[str, bool]) -> None:
        self.grants = grants
        self.calls: list[tuple[int, tuple[str, ...]]] = []

    def consent_grants(
        self, user_id: int, bot_names: Sequence[str], now: datetime
    ) -> dict[str, bool]:
        self.calls.append((user_id, tuple(bot_names)))
        return {n: r for n, r in self.grants.items() if n in bot_names}


def test_the_rule_looks_up_every_grant_of_a_request_in_one_query() -> None:
    ann = Caller(user_id=1, name="ann")
    bots = [
        _Bot("mine", "ann"),
        _Bot("builtin", ""),
        _Bot("open", "cy", "open"),
        _Bot("x", "bo"),
        _Bot("y", "bo", "challengeable"),
        _Bot("z", "cy"),
    ]
    store = _CountingStore({"x": True, "y": True, "z": False})
    check_entries(store, ann, bots, rated=False, now=utcnow())  # type: ignore[arg-type]
    assert store.calls == [(1, ("x", "z"))]  # one query, for the bots that need consent
    store.calls.clear()
    with pytest.raises(PermissionDeniedError, match="'z' is cy's"):
        check_entries(store, ann, bots, rated=True, now=utcnow())  # type: ignore[arg-type]
    assert store.calls == [(1, ("x", "y", "z"))]
    store.calls.clear()
    check_entries(store, SYSTEM, bots, rated=True, now=utcnow())  # type: ignore[arg-type]
    check_entries(store, Caller(2, "root", admin=True), bots, True, utcnow())  # type: ignore[arg-type]
    check_entries(store, ann, bots[:3], rated=True, now=utcnow())  # type: ignore[arg-type]
    assert store.calls == []  # nothing to look up


def test_permissions_parse_and_fail_closed() -> None:
    assert Permission.parse(" Open ") is Permission.OPEN
    assert Permission.of("bogus") is Permission.PRIVATE
    assert [p.allows(True) for p in Permission] == [False, False, True]
    assert [p.allows(False) for p in Permission] == [False, True, True]


def test_the_store_keeps_permissions_and_invitations(store: SqlStore) -> None:
    now = utcnow()
    ann = store.create_user("ann", False, now)
    bo = store.create_user("bo", False, now)
    for name in ("x", "y"):
        store.add_bot_version(name, "toy", name.encode(), name * 64, "", ann.user_id)
    assert store.set_bot_permission("x", "open") is not None
    assert store.get_bot("x").permission == "open"  # type: ignore[union-attr]
    assert store.set_bot_permission("nobody", "open") is None
    later = now + timedelta(days=7)
    first = store.add_invitation("x", bo.user_id, False, "hi", now, later)
    second = store.add_invitation("y", bo.user_id, True, "", now, later)
    assert first is not None and second is not None and first.owner == "ann"
    assert store.add_invitation("nobody", bo.user_id, False, "", now, later) is None
    assert store.pending_sent(bo.user_id, now) == 2
    assert store.consent_grants(bo.user_id, ["x", "y"], now) == {}
    for inv in (first, second):
        done = store.answer_invitation(inv.invitation_id, "accepted", now, later, ["pending"])
        assert done is not None and done.status == "accepted" and done.answered_at == now
    assert store.answer_invitation(first.invitation_id, "accepted", now, later, ["pending"]) is None
    assert store.consent_grants(bo.user_id, ["x", "y", "z"], now) == {"x": False, "y": True}
    assert store.consent_grants(bo.user_id, ["x", "y"], later) == {}  # expired by then
    assert store.consent_grants(ann.user_id, ["x", "y"], now) == {}
    received, sent = store.list_invitations(ann.user_id, 10)
    assert [i.invitation_id for i in received] == [second.invitation_id, first.invitation_id]
    assert sent == [] and len(store.list_invitations(bo.user_id, 1)[1]) == 1
    assert [i.bot_name for i in store.live_invitations("x", bo.user_id, now)] == ["x"]
