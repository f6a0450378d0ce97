"""The remote bot allow-list, attacked: every endpoint form that could reach a host the
operator did not list is refused, with a message that says why."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from server.config import ConfigError, Settings
from server.remote_hosts import AllowList, EndpointError, Resolver, parse_endpoint


def resolver(table: dict[str, Sequence[str]]) -> Resolver:
    """A resolver answering from ``table`` (like a DNS server the attacker controls)."""

    def resolve(host: str, port: int) -> Sequence[str]:
        if host not in table:
            raise OSError(f"[Errno -2] Name or service not known: {host}")
        return table[host]

    return resolve


DNS = resolver(
    {
        "bots.example.org": ["93.184.216.34"],
        "evil.example.org": ["127.0.0.1"],
        "mixed.example.org": ["93.184.216.34", "10.0.0.7"],
        "mapped.example.org": ["::ffff:127.0.0.1"],
        "meta.example.org": ["169.254.169.254"],
        "v6.example.org": ["2606:2800:220:1:248:1893:25c8:1946"],
        "localhost": ["127.0.0.1", "::1"],
    }
)


def check(allowed: str, endpoint: str) -> list[str]:
    return [str(a) for a in AllowList.parse(allowed).check(parse_endpoint(endpoint), DNS)]


def refusal(allowed: str, endpoint: str) -> str:
    with pytest.raises(EndpointError) as err:
        check(allowed, endpoint)
    return str(err.value)


# --- endpoints that are not grpc://host:port ----------------------------------------------


@pytest.mark.parametrize(
    ("endpoint", "says"),
    [
        ("", "empty"),
        ("bots.example.org:50051", "no scheme"),
        ("http://bots.example.org:50051", "scheme 'http' is not allowed"),
        ("https://bots.example.org:443", "scheme 'https' is not allowed"),
        ("dns:///bots.example.org:50051", "scheme 'dns' is not allowed"),
        ("unix:///tmp/bot.sock", "scheme 'unix' is not allowed"),
        ("unix:/tmp/bot.sock", "no scheme"),
        ("unix-abstract://bot", "scheme 'unix-abstract' is not allowed"),
        ("ipv4://127.0.0.1:50051", "scheme 'ipv4' is not allowed"),
        ("grpc://user:pw@bots.example.org:50051", "userinfo"),
        ("grpc://127.0.0.1@bots.example.org:50051", "userinfo"),
        ("grpc://bots.example.org:50051/path", "path"),
        ("grpc://bots.example.org:50051?x=1", "query"),
        ("grpc://bots.example.org:50051#frag", "fragment"),
        ("grpc://bots.example.org%2e:50051", "escape"),
        ("grpc://bots.example.org", "needs a port"),
        ("grpc://bots.example.org:0", "1..65535"),
        ("grpc://bots.example.org:65536", "1..65535"),
        ("grpc://bots.example.org:050051", "1..65535"),
        ("grpc://bots.example.org:+80", "1..65535"),
        ("grpc://bots.example.org.:50051", "not a host name"),
        ("grpc://bots_example.org:50051", "not a host name"),
        ("grpc://bots.example.org :50051", "spaces"),
        ("grpc://bots.exämple.org:50051", "non-ASCII"),
        ("grpc://2130706433:50051", "decimal, octal, hexadecimal"),
        ("grpc://0x7f000001:50051", "decimal, octal, hexadecimal"),
        ("grpc://0x7f.0.0.1:50051", "decimal, octal, hexadecimal"),
        ("grpc://017.0.0.1:50051", "decimal, octal, hexadecimal"),
        ("grpc://0177.0.0.01:50051", "decimal, octal, hexadecimal"),
        ("grpc://127.1:50051", "decimal, octal, hexadecimal"),
        ("grpc://127.0.1:50051", "decimal, octal, hexadecimal"),
        ("grpc://[::ffff:127.0.0.1:50051", "unclosed"),
        ("grpc://[not-v6]:50051", "not an IPv6 address"),
        ("grpc://[fe80::1%25eth0]:50051", "escape"),
        ("grpc://::1:50051", "needs a port"),
    ],
)
def test_malformed_endpoints_are_refused(endpoint: str, says: str) -> None:
    with pytest.raises(EndpointError) as err:
        parse_endpoint(endpoint)
    assert says in str(err.value)


def test_endpoints_are_canonical() -> None:
    assert parse_endpoint("GRPCS://Bots.Example.ORG:443").url == "grpcs://bots.example.org:443"
    assert parse_endpoint("grpc://[::FFFF:127.0.0.1]:7").url == "grpc://[::ffff:7f00:1]:7"
    assert parse_endpoint("grpcs://1.2.3.4:5").tls


# --- the allow-list --------------------------------------------------------------------------


def test_an_empty_list_refuses_every_remote_bot_and_names_the_variable() -> None:
    for endpoint in ("grpc://bots.example.org:50051", "grpc://93.184.216.34:50051"):
        assert "HAMLET_REMOTE_BOT_HOSTS is empty" in refusal("", endpoint)


def test_a_listed_name_with_public_addresses_is_allowed() -> None:
    assert check("bots.example.org", "grpc://bots.example.org:50051") == ["93.184.216.34"]
    assert check("v6.example.org", "grpcs://v6.example.org:443") == [
        "2606:2800:220:1:248:1893:25c8:1946"
    ]
    # a network entry covers addresses, not names: a name is resolved only if listed
    assert "must be listed by name" in refusal("93.184.216.0/24", "grpc://bots.example.org:1")


def test_an_unlisted_host_is_refused() -> None:
    says = refusal("bots.example.org", "grpc://v6.example.org:50051")
    assert "is not in HAMLET_REMOTE_BOT_HOSTS" in says
    assert "is not in" in refusal("bots.example.org", "grpc://93.184.216.35:1")


def test_a_port_in_an_entry_limits_it_to_that_port() -> None:
    assert check("bots.example.org:50051", "grpc://bots.example.org:50051")
    assert "is not in" in refusal("bots.example.org:50051", "grpc://bots.example.org:22")
    assert check("127.0.0.1:7000", "grpc://127.0.0.1:7000")
    assert "loopback" in refusal("127.0.0.1:7000", "grpc://127.0.0.1:6379")


def test_a_listed_name_that_resolves_to_loopback_is_refused() -> None:
    says = refusal("evil.example.org", "grpc://evil.example.org:50051")
    assert "evil.example.org (127.0.0.1) is a loopback address" in says
    assert "loopback" in refusal("localhost", "grpc://localhost:50051")


def test_every_resolved_address_must_be_allowed() -> None:
    says = refusal("mixed.example.org", "grpc://mixed.example.org:50051")
    assert "10.0.0.7" in says and "private" in says


def test_ipv4_mapped_ipv6_is_judged_as_ipv4() -> None:
    assert "loopback" in refusal("bots.example.org", "grpc://[::ffff:127.0.0.1]:50051")
    assert "loopback" in refusal("mapped.example.org", "grpc://mapped.example.org:50051")
    # and listing the IPv4 address allows its mapped form (it is the same host)
    assert check("127.0.0.1", "grpc://[::ffff:127.0.0.1]:50051") == ["::ffff:7f00:1"]


@pytest.mark.parametrize(
    ("address", "kind"),
    [
        ("127.0.0.1", "loopback"),
        ("127.254.0.9", "loopback"),
        ("[::1]", "loopback"),
        ("0.0.0.0", "unspecified"),
        ("[::]", "unspecified"),
        ("10.1.2.3", "private"),
        ("172.16.0.1", "private"),
        ("192.168.1.1", "private"),
        ("[fd00::1]", "private"),
        ("169.254.169.254", "link-local"),
        ("[fe80::1]", "link-local"),
        ("224.0.0.1", "multicast"),
        ("[ff02::1]", "multicast"),
        ("240.0.0.1", "reserved"),
        ("100.64.0.1", "non-global"),
        ("[2002:7f00:1::1]", "IPv4-embedding"),
        ("[64:ff9b::7f00:1]", "reserved"),
        ("[fec0::1]", "site-local"),
        ("[::127.0.0.1]", "reserved"),
    ],
)
def test_special_addresses_are_refused_even_under_a_wide_entry(address: str, kind: str) -> None:
    says = refusal("0.0.0.0/0,::/0", f"grpc://{address}:50051")
    assert kind in says and "HAMLET_REMOTE_BOT_HOSTS" in says


def test_special_addresses_are_allowed_when_listed_explicitly() -> None:
    assert check("127.0.0.1", "grpc://127.0.0.1:50051") == ["127.0.0.1"]
    assert check("10.0.0.0/8", "grpc://10.9.8.7:1") == ["10.9.8.7"]
    assert check("::1", "grpc://[::1]:1") == ["::1"]
    assert check("meta.example.org,169.254.0.0/16", "grpc://meta.example.org:80") == [
        "169.254.169.254"
    ]
    assert "link-local" in refusal("meta.example.org", "grpc://meta.example.org:80")
    # a wide entry still covers the public addresses inside it
    assert check("0.0.0.0/0", "grpc://93.184.216.34:1") == ["93.184.216.34"]


def test_a_name_that_does_not_resolve_is_refused() -> None:
    assert "cannot resolve nowhere.example.org" in refusal(
        "nowhere.example.org", "grpc://nowhere.example.org:1"
    )


@pytest.mark.parametrize(
    ("raw", "says"),
    [
        ("grpc://bots.example.org:1", "not URLs"),
        ("user@bots.example.org", "not URLs"),
        ("10.0.0.1/8", "has host bits set"),
        ("10.0.0.0/33", "not a network"),
        ("10.0.0.0/x", "prefix length"),
        ("127.1", "decimal, octal"),
        ("bad_name", "not a host name"),
        ("host:0", "1..65535"),
    ],
)
def test_a_bad_list_is_refused_at_startup(raw: str, says: str) -> None:
    with pytest.raises(ConfigError) as err:
        Settings.from_env({"HAMLET_REMOTE_BOT_HOSTS": raw})
    assert "HAMLET_REMOTE_BOT_HOSTS" in str(err.value) and says in str(err.value)


def test_the_list_is_parsed_once_into_the_settings() -> None:
    settings = Settings.from_env(
        {"HAMLET_REMOTE_BOT_HOSTS": " bots.example.org:50051, 10.0.0.0/8 ,, ::1, [fd00::1]:7 "}
    )
    assert str(settings.remote_bot_hosts) == "bots.example.org:50051,10.0.0.0/8,::1,[fd00::1]:7"
    assert Settings.from_env({}).remote_bot_hosts == AllowList()
