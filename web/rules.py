"""``/games/{game}/rules``: a game's rulebook for bot authors, rendered from its markdown.

The markdown is ours (``docs/rules/<doc>.md``, see :mod:`hamlet.rulebooks`), but it is still
rendered with raw HTML off, so nothing in it can add markup, scripts or styles of its own (the
site's CSP stays as it is). Links between rulebooks become the site's rulebook pages; other
relative links point into the repository, which the site does not serve, so they become text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path, PurePosixPath
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token
from markupsafe import Markup
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from hamlet import rulebooks
from web.templating import page

#: A rulebook's file name -> the site's page for it.
_PAGES = {
    PurePosixPath(rel).name: f"/games/{game}/rules" for game, (rel, _) in rulebooks.GAMES.items()
}
_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)


def _table_open(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
    # Wide tables scroll inside their box instead of widening the page (style.css).
    return '<div class="table-wrap"><table>\n'


def _table_close(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
    return "</table></div>\n"


_MD = MarkdownIt("commonmark", {"html": False}).enable("table")
_MD.add_render_rule("table_open", _table_open)
_MD.add_render_rule("table_close", _table_close)


def _fix_links(tokens: list[Token]) -> list[Token]:
    """Rulebook links to the site's rulebook pages; other relative links to plain text."""
    out: list[Token] = []
    dropped = 0  # how many open links were turned into text (their closes go too)
    for tok in tokens:
        if tok.children:
            tok.children = _fix_links(tok.children)
        if tok.type == "link_open":
            href = str(tok.attrGet("href") or "")
            target = _PAGES.get(PurePosixPath(href.split("#")[0]).name)
            if target is not None and not _SCHEME.match(href):
                tok.attrSet("href", target)
            elif not (_SCHEME.match(href) or href.startswith(("/", "#"))):
                dropped += 1
                continue
        elif tok.type == "link_close" and dropped:
            # Links do not nest, so a close after a dropped open is that link's own close.
            dropped -= 1
            continue
        out.append(tok)
    return out


def _slug(text: str) -> str:
    """A heading's anchor as GitHub makes it, so ``[x](#some-heading)`` works here too:
    lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def _anchor_headings(tokens: list[Token]) -> None:
    """Give every heading its GitHub anchor (``-1``, ``-2`` ... on repeats)."""
    seen: dict[str, int] = {}
    for i, tok in enumerate(tokens):
        if tok.type != "heading_open" or i + 1 >= len(tokens):
            continue
        text = "".join(child.content for child in tokens[i + 1].children or [])
        slug = _slug(text)
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        tok.attrSet("id", f"{slug}-{count}" if count else slug)


def _without_markers(text: str) -> str:
    """The markdown without the generated-table marker lines (HTML comments would be shown
    as text with raw HTML off)."""
    keep = [
        line
        for line in text.splitlines()
        if not (rulebooks.OPEN.match(line.strip()) or line.strip() == rulebooks.CLOSE)
    ]
    return "\n".join(keep) + "\n"


def render(text: str) -> tuple[str, Markup]:
    """(title, HTML body) of a rulebook: the first ``# heading`` is the title."""
    lines = _without_markers(text).splitlines()
    title = ""
    if lines and lines[0].startswith("# "):
        title, lines = lines[0][2:].strip(), lines[1:]
    tokens = _fix_links(_MD.parse("\n".join(lines)))
    _anchor_headings(tokens)
    html = _MD.renderer.render(tokens, _MD.options, {})
    return title, Markup(html)  # raw HTML was disabled: the markup is markdown-it's own


@lru_cache(maxsize=8)
def _rendered(path: Path, mtime_ns: int) -> tuple[str, Markup]:
    return render(path.read_text(encoding="utf-8"))


def rulebook(request: Request) -> Response:
    """``/games/{game}/rules``: the rulebook, or 404 for a game without one."""
    game = request.path_params["game"]
    if game not in rulebooks.GAMES:
        known = ", ".join(sorted(rulebooks.GAMES))
        raise HTTPException(404, f"There is no game called {game[:64]!r}; rulebooks: {known}.")
    path = rulebooks.doc_path(game)
    try:
        title, body = _rendered(path, path.stat().st_mtime_ns)
    except FileNotFoundError:
        raise HTTPException(
            404, f"The {game} rulebook is not installed with this web app."
        ) from None
    return page(request, "rules.html", title=title or f"Rules: {game}", game=game, body=body)
