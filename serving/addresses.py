"""The reader's address: the one place logins, page passwords and comments read it.

Behind a proxy every connection comes from the proxy, so ``REMOTE_ADDR`` is
the proxy's. The proxies in front are named by ``TRUSTED_PROXIES`` (the
environment's ``FORWARDED_ALLOW_IPS``, which gunicorn reads too, to believe
``X-Forwarded-Proto``): addresses or networks, ``*`` for any peer. Only when
the peer is one of them is ``X-Forwarded-For`` read, from the right, each
proxy having appended the address it was reached from: the reader is the
right-most entry that is not a trusted proxy. What a client writes into the
header lands on its left and is never reached; a request from any other peer
keeps ``REMOTE_ADDR`` whatever headers it sends.
"""

import functools
import ipaddress

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address


@functools.cache
def _networks(entries: tuple[str, ...]) -> tuple[bool, tuple[Network, ...]]:
    """Return whether every peer is trusted, and the trusted networks."""
    networks = []
    for entry in entries:
        if entry == "*":
            return True, ()
        try:
            networks.append(ipaddress.ip_network(entry, strict=False))
        except ValueError:
            raise ImproperlyConfigured(
                f"TRUSTED_PROXIES (FORWARDED_ALLOW_IPS): {entry!r} is not an "
                "address or a network such as 10.0.0.0/8"
            ) from None
    return False, tuple(networks)


def _parse(text: str) -> Address | None:
    """Return the address an ``X-Forwarded-For`` entry names, port or brackets
    aside; None for anything else (``unknown``, an obfuscated name)."""
    text = text.strip()
    if text.startswith("["):  # [2001:db8::1]:443
        text = text[1 : text.find("]")] if "]" in text else ""
    elif text.count(":") == 1:  # 192.0.2.1:443
        text = text.partition(":")[0]
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def is_trusted_proxy(address: str | None) -> bool:
    """Whether ``address`` is one of the proxies in front (``TRUSTED_PROXIES``)."""
    parsed = _parse(address or "")
    if parsed is None:
        return False
    anyone, networks = _networks(tuple(settings.TRUSTED_PROXIES))
    return anyone or any(parsed in network for network in networks)


def reader_address(request) -> str | None:
    """Return the address of the reader who sent ``request``.

    The peer's address, unless the peer is a trusted proxy: then the right-most
    address in ``X-Forwarded-For`` that is not a trusted proxy's. A proxy that
    forwarded nothing readable leaves its own address, which callers must not
    hold against a reader (``is_trusted_proxy``).
    """
    address = request.META.get("REMOTE_ADDR") or None
    if not is_trusted_proxy(address):
        return address
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
    for entry in reversed(forwarded.split(",")):
        hop = _parse(entry)
        if hop is None:
            break  # nothing to the left of a hop we cannot read is believed
        address = str(hop)
        if not is_trusted_proxy(address):
            break
    return address
