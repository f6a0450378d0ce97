"""A match's page, its log as a JSON download, and the replay viewer.

The viewer page is complete without JavaScript: the board of decision ``?d=N`` (drawn by the
game's renderer from the public state the server sent), what the drawing leaves out as text,
the action taken, the scores chart and links to step. ``viewer.js`` then steps in place,
asking ``frame.json?d=N`` for the same fragment. Only public states are rendered for
anyone; with ``&seat=S`` a logged-in visitor also gets that seat's own view
(:mod:`web.seatview`), which the server gives only to the seat's bot's owner or an admin.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict

from google.protobuf import json_format
from markupsafe import Markup
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from hamlet.v1 import common_pb2
from web import render, seatview, security
from web.arena import ArenaReader, ReplayData
from web.charts import Series, line_chart
from web.templating import ENV, page

_SAFE_ID = re.compile(r"[^A-Za-z0-9_.-]")
_charts: OrderedDict[str, tuple[tuple[Series, ...], str]] = OrderedDict()
_charts_lock = threading.Lock()


def _reader(request: Request) -> ArenaReader:
    reader: ArenaReader = request.app.state.reader
    return reader


def _to_dict(msg: object) -> dict[str, object]:
    out: dict[str, object] = json_format.MessageToDict(
        msg,  # type: ignore[arg-type]
        preserving_proto_field_name=True,
        always_print_fields_with_no_presence=True,
    )
    return out


def match(request: Request) -> Response:
    """``/matches/{mid}``: seats, versions, scores, places, forfeits, seed and commitment."""
    r = _reader(request)
    detail = r.match(request.path_params["mid"])
    m = detail.match
    # The tournament only for context (its seed commitment): one standing line, not all.
    t = r.tournament(m.tournament_id, standings_page_size=1) if m.tournament_id else None
    return page(
        request,
        "match.html",
        title=f"Match {m.match_id} ({m.game})",
        m=m,
        t=t,
        decisions=len(detail.decisions),
        finished=m.status == common_pb2.MATCH_STATUS_FINISHED,
    )


def log_json(request: Request) -> Response:
    """``/matches/{mid}/log.json``: the match and its decision log, as a download."""
    detail = _reader(request).match(request.path_params["mid"])
    body = {
        "match": _to_dict(detail.match),
        "decisions": [_to_dict(d) for d in detail.decisions],
    }
    name = _SAFE_ID.sub("_", detail.match.match_id) or "match"
    return JSONResponse(
        body, headers={"content-disposition": f'attachment; filename="match-{name}.json"'}
    )


def _position(request: Request, data: ReplayData) -> int:
    try:
        d = int(request.query_params.get("d", "0"))
    except ValueError:
        raise HTTPException(400, "d must be a decision number") from None
    return min(max(d, 0), data.last)


def scores_series(data: ReplayData) -> tuple[tuple[Series, ...], str]:
    """Per seat: its public score after each decision (when the states show one), then the
    final score the engine computes; and a note on what the chart shows."""
    mid = data.replay.match.match_id
    with _charts_lock:
        if mid in _charts:
            return _charts[mid]
    game = data.replay.match.game
    draw = render.renderer(game)
    per_state = [draw(s).scores for s in data.states]
    seats = len(data.replay.match.seats)
    final = list(data.replay.replayed_scores)
    series = []
    for seat in range(seats):
        pts = [(float(i), sc[seat]) for i, sc in enumerate(per_state) if sc and seat < len(sc)]
        if seat < len(final):
            pts.append((float(data.last), float(final[seat])))
        series.append(Series(f"seat {seat + 1}", seat, tuple(pts)))
    shown = any(sc for sc in per_state)
    note = (
        "public score after each decision; the last point is the final score"
        if shown
        else "this game's public state shows no running score: the final score only"
    )
    out = (tuple(series), note)
    with _charts_lock:
        _charts[mid] = out
        while len(_charts) > 32:
            _charts.popitem(last=False)
    return out


def frame_context(data: ReplayData, d: int) -> dict[str, object]:
    """What the frame fragment shows at decision ``d``."""
    rep = data.replay
    rendered = render.render(rep.match.game, data.states[d])
    step = rep.steps[d - 1] if d > 0 else None
    final = None
    if d == data.last:
        final = [
            (seat, s.bot_name, rep.replayed_scores[i] if i < len(rep.replayed_scores) else None,
             rep.replayed_ranks[i] + 1 if i < len(rep.replayed_ranks) else None)
            for i, (seat, s) in enumerate((s.seat, s) for s in rep.match.seats)
        ]  # fmt: skip
    return {"d": d, "last": data.last, "rendered": rendered, "step": step, "final": final}


def _frame_html(data: ReplayData, d: int) -> Markup:
    macro = ENV.get_template("_frame.html").module.frame  # type: ignore[attr-defined]
    return Markup(macro(**frame_context(data, d)))


def _seat(request: Request, data: ReplayData) -> int | None:
    raw = request.query_params.get("seat", "")
    if not raw:
        return None
    if not raw.isdigit() or int(raw) >= len(data.replay.match.seats):
        raise HTTPException(400, "seat must be a seat number of this match")
    return int(raw)


def _seat_html(request: Request, data: ReplayData, d: int, seat: int | None) -> Markup | None:
    """The seat panel at ``d``: the seat's view when the server gives it to this visitor's
    own token (asked for again on every request: private answers are never kept)."""
    if seat is None:
        return None
    token = security.visitor_token(request)
    result = seatview.fetch(_reader(request), data.replay.match.match_id, seat, token)
    p = seatview.panel(result.view, d, data.states) if result.view is not None else None
    macro = ENV.get_template("_seat.html").module.seat_panel  # type: ignore[attr-defined]
    return Markup(macro(result, p))


def viewer(request: Request) -> Response:
    """``/matches/{mid}/replay?d=N[&seat=S]``: the replay viewer at decision N (with seat S's
    own view beside the board, for its bot's owner)."""
    r = _reader(request)
    data = r.replay(request.path_params["mid"])
    m = data.replay.match
    d = _position(request, data)
    seat = _seat(request, data)
    series, note = scores_series(data)
    chart = line_chart(series, "Scores over the match", "decision", (0, data.last), cursor=d)
    return page(
        request,
        "replay.html",
        title=f"Replay of match {m.match_id} ({m.game}), decision {d}",
        rep=data.replay,
        m=m,
        last=data.last,
        d=d,
        frame=_frame_html(data, d),
        chart=chart,
        chart_note=note,
        seat_html=_seat_html(request, data, d, seat),
        seat_param="" if seat is None else str(seat),
        seat_query="" if seat is None else f"&seat={seat}",
    )


def frame_json(request: Request) -> Response:
    """``/matches/{mid}/replay/frame.json?d=N[&seat=S]``: the viewer's fragment at decision N
    (and seat S's panel, private only when the server allows the visitor's own token)."""
    data = _reader(request).replay(request.path_params["mid"])
    d = _position(request, data)
    seat = _seat(request, data)
    body: dict[str, object] = {"d": d, "last": data.last, "html": str(_frame_html(data, d))}
    panel = _seat_html(request, data, d, seat)
    if panel is not None:
        body["seat"] = seat
        body["seat_html"] = str(panel)
    return JSONResponse(body)
