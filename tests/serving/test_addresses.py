"""The reader's address: believed from X-Forwarded-For only behind a trusted proxy."""

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.test import RequestFactory

from serving.addresses import is_trusted_proxy, reader_address

READER = "203.0.113.7"


def request_from(peer, forwarded=None):
    extra = {"REMOTE_ADDR": peer}
    if forwarded is not None:
        extra["HTTP_X_FORWARDED_FOR"] = forwarded
    return RequestFactory().get("/", **extra)


def test_without_a_trusted_proxy_the_header_is_never_believed(settings):
    settings.TRUSTED_PROXIES = []
    assert reader_address(request_from("127.0.0.1", READER)) == "127.0.0.1"
    assert reader_address(request_from("198.51.100.1", READER)) == "198.51.100.1"


def test_a_client_that_is_not_the_proxy_cannot_choose_its_address(settings):
    settings.TRUSTED_PROXIES = ["127.0.0.1"]
    assert reader_address(request_from("198.51.100.1", READER)) == "198.51.100.1"


def test_behind_the_proxy_the_address_it_appended_is_the_readers(settings):
    settings.TRUSTED_PROXIES = ["127.0.0.1"]
    assert reader_address(request_from("127.0.0.1", READER)) == READER
    # What the client wrote itself is on the left, and never reached.
    forged = request_from("127.0.0.1", f"10.0.0.1, 192.0.2.1, {READER}")
    assert reader_address(forged) == READER


def test_a_chain_of_trusted_proxies_is_walked_from_the_right(settings):
    settings.TRUSTED_PROXIES = ["127.0.0.1", "10.0.0.0/8"]
    chain = request_from("127.0.0.1", f"192.0.2.1, {READER}, 10.1.2.3")
    assert reader_address(chain) == READER


def test_ports_brackets_and_ipv6_are_read(settings):
    settings.TRUSTED_PROXIES = ["::1"]
    assert reader_address(request_from("::1", f"{READER}:51234")) == READER
    assert reader_address(request_from("::1", "[2001:db8::7]:443")) == "2001:db8::7"
    assert reader_address(request_from("::1", "2001:db8::7")) == "2001:db8::7"


def test_a_proxy_that_forwards_nothing_readable_leaves_its_own_address(settings):
    settings.TRUSTED_PROXIES = ["127.0.0.1"]
    for forwarded in (None, "", "unknown", f"{READER}, unknown"):
        address = reader_address(request_from("127.0.0.1", forwarded))
        assert address == "127.0.0.1"
        assert is_trusted_proxy(address)


def test_a_star_trusts_every_peer(settings):
    settings.TRUSTED_PROXIES = ["*"]
    assert reader_address(request_from("198.51.100.1", READER)) == READER


def test_a_bad_entry_is_a_clear_configuration_error(settings):
    settings.TRUSTED_PROXIES = ["127.0.0.1", "the-proxy"]
    with pytest.raises(ImproperlyConfigured, match="the-proxy"):
        reader_address(request_from("127.0.0.1", READER))
