"""Which remote bot endpoints the server may reach: endpoint URLs and the allow-list.

A remote bot names a gRPC endpoint, and the server (at registration) and its workers (at
play) connect to it: without limits, anyone with a token could make Hamlet reach any host,
its own loopback and private network included. So:

- an endpoint is exactly ``grpc://host:port`` or ``grpcs://host:port``: no other scheme, no
  userinfo, path, query or fragment; an IP host only in canonical form (``127.1``,
  ``2130706433``, ``0x7f.0.0.1`` and ``017.0.0.1`` are refused: resolvers read them as
  loopback while they look like names);
- ``HAMLET_REMOTE_BOT_HOSTS`` lists host names, IPs and CIDRs, each optionally with a port;
  empty, remote bots are off;
- the host is resolved and **every** address must be allowed: an address is allowed when an IP
  or CIDR entry covers it, or (for a public address) when the endpoint's host name is listed.
  Loopback, private, link-local, multicast, reserved, unspecified and other non-global
  addresses (IPv4-mapped IPv6 is judged as its IPv4 address) are allowed only by an entry that
  lies wholly inside such a range, such as ``127.0.0.1`` or ``10.0.0.0/8``: listing the name
  ``localhost`` or ``0.0.0.0/0`` never opens the loopback.

The check returns the addresses it approved; the server pins the first one into the match
plan, and workers dial that address as it is, never a name
(:func:`hamlet.channels.open_bot_channel`).
"""

from __future__ import annotations

import enum
import ipaddress
import re
import socket
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

#: The environment variable of the allow-list (named in every refusal).
VARIABLE = "HAMLET_REMOTE_BOT_HOSTS"
MAX_ENDPOINT_CHARS = 300

#: (host, port) -> the addresses it resolves to, as text.
Resolver = Callable[[str, int], Sequence[str]]

_LABEL = re.compile(r"^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$")
_NUMERIC_LABEL = re.compile(r"^([0-9]+|0x[0-9a-f]*)$")
_PORT = re.compile(r"^[1-9][0-9]{0,4}$")

# Ranges that embed an IPv4 address in IPv6 (6to4, NAT64): a relay could forward them to
# one of our own IPv4 neighbours, so they count as special too.
_EMBEDDING = tuple(
    ipaddress.IPv6Network(n) for n in ("2002::/16", "64:ff9b::/96", "64:ff9b:1::/48")
)
# Special-purpose ranges (IANA registries): an allow-list entry lying wholly inside one of these
# opens the addresses it covers; a wider entry (0.0.0.0/0) covers only the public ones.
_SPECIAL_BLOCKS: tuple[IPNetwork, ...] = (
    tuple(
        ipaddress.ip_network(n)
        for n in (
            "0.0.0.0/8",
            "10.0.0.0/8",
            "100.64.0.0/10",
            "127.0.0.0/8",
            "169.254.0.0/16",
            "172.16.0.0/12",
            "192.0.0.0/24",
            "192.0.2.0/24",
            "192.168.0.0/16",
            "198.18.0.0/15",
            "198.51.100.0/24",
            "203.0.113.0/24",
            "224.0.0.0/4",
            "240.0.0.0/4",
            "::/8",
            "100::/64",
            "2001::/23",
            "2001:db8::/32",
            "fc00::/7",
            "fe80::/10",
            "fec0::/10",
            "ff00::/8",
        )
    )
    + _EMBEDDING
)


class EndpointError(ValueError):
    """An endpoint the server refuses to reach; the message says why and what to do."""


class Scheme(enum.Enum):
    """How a remote bot is spoken to."""

    GRPC = "grpc"  # plaintext HTTP/2
    GRPCS = "grpcs"  # TLS


@dataclass(frozen=True, slots=True)
class Endpoint:
    """A parsed endpoint: ``host`` is a lower-case name or a canonical IP (no brackets)."""

    scheme: Scheme
    host: str
    port: int

    @property
    def tls(self) -> bool:
        """Whether the endpoint wants TLS."""
        return self.scheme is Scheme.GRPCS

    @property
    def literal(self) -> IPAddress | None:
        """The host as an IP address, if it is one."""
        try:
            return ipaddress.ip_address(self.host)
        except ValueError:
            return None

    @property
    def url(self) -> str:
        """The canonical URL."""
        return f"{self.scheme.value}://{hostport(self.host, self.port)}"


def hostport(host: str, port: int) -> str:
    """``host:port``, with IPv6 addresses bracketed."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _canonical_ipv4(host: str, what: str) -> str:
    try:
        addr = ipaddress.IPv4Address(host)
    except ValueError:
        raise EndpointError(
            f"{what} {host!r} looks like a number but is not a dotted-quad IPv4 address; "
            "decimal, octal, hexadecimal and shortened forms are refused"
        ) from None
    return str(addr)


def _host(raw: str, what: str) -> str:
    """A validated host: canonical IP text or a lower-case DNS name."""
    if raw.startswith("[") and raw.endswith("]"):
        try:
            return str(ipaddress.IPv6Address(raw[1:-1]))
        except ValueError:
            raise EndpointError(f"{what} {raw!r} is not an IPv6 address") from None
    host = raw.lower()
    labels = host.split(".")
    if _NUMERIC_LABEL.match(labels[-1]):
        return _canonical_ipv4(host, what)
    if len(host) > 253 or not all(_LABEL.match(label) for label in labels):
        raise EndpointError(
            f"{what} {raw!r} is not a host name (letters, digits, hyphens and dots) or an IP"
        )
    return host


def _split_port(text: str, what: str, required: bool) -> tuple[str, int | None]:
    """(host part, port) of ``host:port``, ``[v6]:port`` or (port optional) a bare host."""
    if text.startswith("["):
        close = text.find("]")
        if close < 0:
            raise EndpointError(f"{what} {text!r}: unclosed '['")
        host, rest = text[: close + 1], text[close + 1 :]
        if not rest:
            port_text = None
        elif rest.startswith(":"):
            port_text = rest[1:]
        else:
            raise EndpointError(f"{what} {text!r}: expected ':port' after ']'")
    elif text.count(":") == 1:
        host, port_text = text.split(":")
    elif ":" in text:
        host, port_text = f"[{text}]", None  # a bare IPv6 address (allow-list entries only)
    else:
        host, port_text = text, None
    if port_text is None:
        if required:
            raise EndpointError(f"{what} {text!r} needs a port (host:port)")
        return host, None
    if not _PORT.match(port_text) or not 1 <= int(port_text) <= 65535:
        raise EndpointError(f"{what} {text!r}: the port must be 1..65535")
    return host, int(port_text)


def parse_endpoint(raw: str) -> Endpoint:
    """``grpc://host:port`` or ``grpcs://host:port``, or :class:`EndpointError`."""
    if not raw:
        raise EndpointError("endpoint is empty: use grpc://host:port or grpcs://host:port")
    if len(raw) > MAX_ENDPOINT_CHARS:
        raise EndpointError(f"endpoint is longer than {MAX_ENDPOINT_CHARS} characters")
    if not raw.isascii() or any(c.isspace() or not c.isprintable() for c in raw):
        raise EndpointError("endpoint has spaces, control or non-ASCII characters")
    scheme_text, sep, rest = raw.partition("://")
    if not sep:
        raise EndpointError(f"endpoint {raw!r} has no scheme: use grpc://host:port")
    try:
        scheme = Scheme(scheme_text.lower())
    except ValueError:
        raise EndpointError(
            f"scheme {scheme_text!r} is not allowed: use grpc:// (plaintext) or grpcs:// (TLS)"
        ) from None
    if "@" in rest:
        raise EndpointError("endpoint has userinfo (user@host): give only host:port")
    if any(c in rest for c in "/?#\\%"):
        raise EndpointError("endpoint has a path, query, fragment or escape: give only host:port")
    host_text, port = _split_port(rest, "endpoint", required=True)
    assert port is not None
    return Endpoint(scheme, _host(host_text, "host"), port)


def system_resolver(host: str, port: int) -> list[str]:
    """The addresses ``host`` resolves to (``socket.getaddrinfo``)."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [str(info[4][0]) for info in infos]


class TimedResolver:
    """A resolver with a time limit and a bound on lookups in flight.

    ``socket.getaddrinfo`` has no timeout, and a name server an endpoint's owner controls can
    answer as slowly as it likes. Each lookup runs on a thread of its own (at most
    ``parallel`` at once); the caller waits ``seconds`` at most, then gets an
    :class:`EndpointError`. A lookup still hanging keeps its place until it returns, so
    hanging lookups cost at most ``parallel`` idle threads, never a gRPC thread.
    """

    def __init__(self, resolve: Resolver, seconds: float, parallel: int = 8) -> None:
        self.resolve = resolve
        self.seconds = seconds
        self.parallel = parallel
        self._places = threading.BoundedSemaphore(parallel)

    def __call__(self, host: str, port: int) -> Sequence[str]:
        if not self._places.acquire(blocking=False):
            raise EndpointError(
                f"cannot resolve {host} now: {self.parallel} host name lookups are already "
                "in flight; retry later"
            )
        done = threading.Event()
        box: list[Sequence[str] | BaseException] = []

        def lookup() -> None:
            try:
                box.append(self.resolve(host, port))
            except BaseException as exc:  # handed to the caller, who judges it
                box.append(exc)
            finally:
                self._places.release()
                done.set()

        threading.Thread(target=lookup, name="hamlet-lookup", daemon=True).start()
        if not done.wait(self.seconds):
            raise EndpointError(
                f"cannot resolve {host}: no answer within {self.seconds:g} s "
                "(HAMLET_REMOTE_LOOKUP_SECONDS)"
            )
        found = box[0]
        if isinstance(found, BaseException):
            raise found
        return found


def unmapped(addr: IPAddress) -> IPAddress:
    """An IPv4-mapped IPv6 address as its IPv4 address; others as they are."""
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        return addr.ipv4_mapped
    return addr


def special_kind(addr: IPAddress) -> str:
    """What kind of non-public address ``addr`` is ("" for a public one)."""
    addr = unmapped(addr)
    for kind in ("unspecified", "loopback", "link_local", "multicast", "reserved", "private"):
        if getattr(addr, f"is_{kind}"):
            return kind.replace("_", "-")
    if isinstance(addr, ipaddress.IPv6Address) and (
        addr.is_site_local or any(addr in n for n in _EMBEDDING)
    ):
        return "IPv4-embedding or site-local"
    return "" if addr.is_global else "non-global"


def _wholly_special(net: IPNetwork) -> bool:
    return any(net.version == b.version and net.subnet_of(b) for b in _SPECIAL_BLOCKS)  # type: ignore[arg-type]


@dataclass(frozen=True, slots=True)
class AllowEntry:
    """One allow-list entry: a host name or a network, optionally limited to a port."""

    name: str = ""
    network: IPNetwork | None = None
    port: int | None = None

    def fits(self, port: int) -> bool:
        """Whether the entry's port (if any) is ``port``."""
        return self.port is None or self.port == port

    def __str__(self) -> str:
        net = self.network
        host = self.name or (
            str(net.network_address) if net is not None and net.num_addresses == 1 else str(net)
        )
        return host if self.port is None else hostport(host, self.port)


def _entry(item: str) -> AllowEntry:
    if "://" in item or "@" in item:
        raise EndpointError(f"{item!r}: give host names, IPs or CIDRs, not URLs")
    address, slash, prefix = item.partition("/")
    host_text, port = _split_port(address, "entry", required=False)
    if slash:
        if not prefix.isdigit():
            raise EndpointError(f"{item!r}: the prefix length must be a number")
        host = _host(host_text, "entry")
        try:
            network: IPNetwork = ipaddress.ip_network(f"{host}/{int(prefix)}")
        except ValueError as exc:
            raise EndpointError(f"{item!r} is not a network: {exc}") from None
        return AllowEntry(network=network, port=port)
    host = _host(host_text, "entry")
    try:
        addr = unmapped(ipaddress.ip_address(host))
    except ValueError:
        return AllowEntry(name=host, port=port)
    return AllowEntry(network=ipaddress.ip_network(addr), port=port)


@dataclass(frozen=True, slots=True)
class AllowList:
    """The parsed ``HAMLET_REMOTE_BOT_HOSTS``; empty refuses every remote bot."""

    entries: tuple[AllowEntry, ...] = ()

    @classmethod
    def parse(cls, raw: str) -> AllowList:
        """Comma-separated entries; :class:`EndpointError` names the first bad one."""
        items = [i.strip() for i in raw.split(",")]
        return cls(tuple(_entry(i) for i in items if i))

    def __str__(self) -> str:
        return ",".join(str(e) for e in self.entries)

    def check(self, endpoint: Endpoint, resolve: Resolver = system_resolver) -> list[IPAddress]:
        """The addresses ``endpoint`` reaches, every one allowed; else :class:`EndpointError`."""
        if not self.entries:
            raise EndpointError(
                f"remote bots are not enabled on this server: {VARIABLE} is empty (an "
                "operator lists the hosts remote bots may run on, e.g. "
                f"{VARIABLE}=bots.example.org,203.0.113.0/24)"
            )
        literal = endpoint.literal
        named = literal is None and any(
            e.name == endpoint.host and e.fits(endpoint.port) for e in self.entries
        )
        if literal is None and not named:
            # Judged on the name as written, before any lookup: the server resolves only
            # names an operator listed (no DNS query, no wait, for anybody else's name).
            raise EndpointError(
                f"{hostport(endpoint.host, endpoint.port)} is not in {VARIABLE} (allowed: "
                f"{self}); a host name must be listed by name"
            )
        addresses = [literal] if literal is not None else self._resolve(endpoint, resolve)
        for addr in addresses:
            self._check_address(endpoint, unmapped(addr), named)
        return addresses

    def _resolve(self, endpoint: Endpoint, resolve: Resolver) -> list[IPAddress]:
        try:
            found = resolve(endpoint.host, endpoint.port)
        except (OSError, UnicodeError) as exc:
            raise EndpointError(f"cannot resolve {endpoint.host}: {exc}") from None
        out: list[IPAddress] = []
        for text in found:
            try:
                addr = ipaddress.ip_address(text)
            except ValueError:
                raise EndpointError(
                    f"{endpoint.host} resolves to {text!r}, which is not a plain IP address"
                ) from None
            if addr not in out:
                out.append(addr)
        if not out:
            raise EndpointError(f"{endpoint.host} resolves to no address")
        return out

    def _check_address(self, endpoint: Endpoint, addr: IPAddress, named: bool) -> None:
        covering = [
            e
            for e in self.entries
            if e.network is not None
            and e.network.version == addr.version
            and addr in e.network
            and e.fits(endpoint.port)
        ]
        kind = special_kind(addr)
        where = endpoint.host if endpoint.host == str(addr) else f"{endpoint.host} ({addr})"
        if kind:
            if not any(e.network is not None and _wholly_special(e.network) for e in covering):
                raise EndpointError(
                    f"{where} is a {kind} address; remote bots may not reach it unless "
                    f"{VARIABLE} lists it (or a network around it) explicitly"
                )
        elif not named and not covering:
            raise EndpointError(
                f"{hostport(where, endpoint.port)} is not in {VARIABLE} (allowed: {self})"
            )
