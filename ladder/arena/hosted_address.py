"""Where a participant's hosted bot may be reached: its ``HOST:PORT`` resolved once, every address
it resolves to checked against this machine's own, and the address literal to connect to.

The house bots and the arena listen on this machine: a "bot" that is one of them, reached at an
address of this machine, would play the organiser's bot under a participant's name. So an address
is refused when any address its host resolves to, or any IPv4 address it embeds (IPv4-mapped
``::ffff:a.b.c.d``, IPv4-compatible ``::a.b.c.d``, IPv4-translated ``::ffff:0:a.b.c.d``, NAT64
``64:ff9b::/96``, 6to4 ``2002::/16``, Teredo's client), is loopback, unspecified (``0.0.0.0/8``,
``::``), link-local, multicast or reserved (the broadcast address too), or one of this machine's own: every
interface address and local route, IPv4 (``/proc/net/fib_trie``, then ``SIOCGIFADDR`` on every
interface) and IPv6 (``/proc/net/if_inet6``, ``/proc/net/ipv6_route``). A name is resolved once,
by ``resolve``: the caller connects to the literal ``pin`` returns, never to the name, so a name
that resolves elsewhere a second later (DNS rebinding) reaches only what was checked.
"""

from __future__ import annotations

import contextlib
import fcntl
import ipaddress
import socket
import struct
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

__all__ = [
    "AddressRefused",
    "Resolve",
    "embedded_ipv4",
    "local_reason",
    "own_networks",
    "pin",
    "resolve_host",
    "split_address",
]

IP = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Resolve = Callable[[str], Sequence[str]]
"""A host name (or literal) to the addresses it resolves to, as text."""

_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_NAT64_LOCAL = ipaddress.ip_network("64:ff9b:1::/48")  # local-use NAT64: its prefix embeds IPv4 in many ways
_TRANSLATED = ipaddress.ip_network("::ffff:0:0:0/96")
_THIS_NETWORK = ipaddress.ip_network("0.0.0.0/8")
_SIOCGIFADDR = 0x8915
_RTF_LOCAL = 0x80000000  # an IPv6 route of the local table: an address of this machine
_HOST_LOCAL = "host LOCAL"


class AddressRefused(ValueError):
    """An address the arena will not reach; the message says why and what to do."""


def resolve_host(host: str) -> list[str]:
    """The addresses ``host`` resolves to here (the system's resolver), as text."""
    infos = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    return [str(info[4][0]) for info in infos]


def split_address(address: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[V6]:PORT`` for an IPv6 literal) as the host and the port."""
    host, sep, port = address.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise AddressRefused(f"{address!r} is not HOST:PORT with a port from 1 to 65535")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    return host, int(port)


def embedded_ipv4(ip: IP) -> list[tuple[str, ipaddress.IPv4Address]]:
    """Every IPv4 address an IPv6 address carries, with how it carries it (none for IPv4 itself)."""
    if not isinstance(ip, ipaddress.IPv6Address):
        return []
    low = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    out: list[tuple[str, ipaddress.IPv4Address]] = []
    if ip.ipv4_mapped is not None:
        out.append(("IPv4-mapped", ip.ipv4_mapped))
    if int(ip) >> 32 == 0:
        out.append(("IPv4-compatible", low))
    if ip in _TRANSLATED:
        out.append(("IPv4-translated", low))
    if ip in _NAT64:
        out.append(("NAT64", low))
    if ip.sixtofour is not None:
        out.append(("6to4", ip.sixtofour))
    if ip.teredo is not None:
        out.append(("Teredo", ip.teredo[1]))
    return out


def _kind(ip: IP) -> str | None:
    """Which kind of address that never names another machine ``ip`` is, or None."""
    if ip.is_loopback:
        return "loopback"
    if ip.is_unspecified or (isinstance(ip, ipaddress.IPv4Address) and ip in _THIS_NETWORK):
        return "unspecified"
    if ip.is_link_local:
        return "link-local"
    if ip.is_multicast:
        return "multicast"
    if isinstance(ip, ipaddress.IPv4Address) and ip.is_reserved:  # 240.0.0.0/4, the broadcast address too
        return "reserved"
    if isinstance(ip, ipaddress.IPv6Address) and ip in _NAT64_LOCAL:
        return "local-use NAT64"
    return None


def local_reason(ip: IP, own: Iterable[Network]) -> str | None:
    """Why ``ip`` names this machine (or no machine at all), in every spelling of it; None if it does not."""
    own = list(own)
    for how, inner in [("", ip), *((f"{how} ", v4) for how, v4 in embedded_ipv4(ip))]:
        kind = _kind(inner)
        if kind is None and any(inner.version == n.version and inner in n for n in own):
            kind = "an address of this machine"
        if kind is not None:
            return f"{how}{inner} is {kind}"
    return None


def own_networks() -> list[Network]:
    """Every address and local route of this machine, read now (interfaces come and go)."""
    nets: set[Network] = set()
    nets.update(_fib_trie_local(_read("/proc/net/fib_trie")))
    nets.update(ipaddress.ip_network(a) for a in _interface_ipv4())
    nets.update(_if_inet6(_read("/proc/net/if_inet6")))
    nets.update(_ipv6_local_routes(_read("/proc/net/ipv6_route")))
    with contextlib.suppress(OSError, UnicodeError):
        nets.update(ipaddress.ip_network(a) for a in socket.gethostbyname_ex(socket.gethostname())[2])
    return sorted(nets, key=lambda n: (n.version, n))


def _read(path: str) -> str:
    try:
        return Path(path).read_text()
    except OSError:
        return ""


def _fib_trie_local(text: str) -> list[Network]:
    """The ``host LOCAL`` routes of /proc/net/fib_trie: each address (or prefix, ``ip route add
    local``) this machine answers for as its own."""
    out: list[Network] = []
    last: str | None = None
    for line in text.splitlines():
        word = line.strip()
        if word.startswith("|--"):
            last = word[3:].strip()
        elif word.endswith(_HOST_LOCAL) and last is not None and word.startswith("/"):
            with contextlib.suppress(ValueError):
                out.append(ipaddress.ip_network(f"{last}{word.split()[0]}", strict=False))
    return out


def _interface_ipv4() -> list[str]:
    """Each interface's IPv4 address as the kernel gives it (SIOCGIFADDR), where /proc is not mounted."""
    out: list[str] = []
    try:
        names = [name for _i, name in socket.if_nameindex()]
    except OSError:
        return out
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        for name in names:
            try:
                raw = fcntl.ioctl(s.fileno(), _SIOCGIFADDR, struct.pack("256s", name.encode()[:15]))
            except OSError:  # no IPv4 address on it
                continue
            out.append(socket.inet_ntoa(raw[20:24]))
    return out


def _hex6(word: str) -> ipaddress.IPv6Address:
    return ipaddress.IPv6Address(int(word, 16))


def _if_inet6(text: str) -> list[Network]:
    out: list[Network] = []
    for line in text.splitlines():
        words = line.split()
        with contextlib.suppress(ValueError, IndexError):
            out.append(ipaddress.ip_network(_hex6(words[0])))
    return out


def _ipv6_local_routes(text: str) -> list[Network]:
    out: list[Network] = []
    for line in text.splitlines():
        words = line.split()
        with contextlib.suppress(ValueError, IndexError):
            if int(words[8], 16) & _RTF_LOCAL:
                out.append(ipaddress.ip_network(f"{_hex6(words[0])}/{int(words[1], 16)}", strict=False))
    return out


def _literal(ip: IP, port: int) -> str:
    return f"[{ip}]:{port}" if isinstance(ip, ipaddress.IPv6Address) else f"{ip}:{port}"


def pin(address: str, *, resolve: Resolve = resolve_host, own: Iterable[Network] | None = None) -> str:
    """The address literal (``a.b.c.d:PORT`` or ``[v6]:PORT``) to reach ``address`` at, its host
    resolved once by ``resolve``; ``AddressRefused`` if it does not resolve, or if any address it
    resolves to names this machine (``local_reason``). ``own``: this machine's (``own_networks``)."""
    host, port = split_address(address)
    try:
        texts = list(resolve(host))
    except (OSError, UnicodeError):
        texts = []
    resolved: list[IP] = []
    for text in texts:
        with contextlib.suppress(ValueError):
            resolved.append(ipaddress.ip_address(text.split("%", 1)[0]))
    if not resolved:
        raise AddressRefused(f"{host!r} does not resolve here: give an address this arena's machine can reach")
    mine = own_networks() if own is None else list(own)
    for ip in resolved:
        why = local_reason(ip, mine)
        if why is not None:
            raise AddressRefused(
                f"{host!r} names this arena's own machine or no machine at all ({why}): a bot you host must be "
                "reached at an address of your own machine (or ask the organiser to set [submissions] "
                "allow_local_addresses)"
            )
    first = resolved[0]
    # An IPv4 address written as IPv6 is reached as itself: the same machine, without a mapping socket.
    mapped = first.ipv4_mapped if isinstance(first, ipaddress.IPv6Address) else None
    return _literal(mapped or first, port)
