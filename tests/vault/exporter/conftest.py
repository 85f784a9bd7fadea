"""The site every export test starts from, and no oEmbed request over the network."""

import pytest

from tests.vault.exporter.sites import build_site, no_oembed_requests


@pytest.fixture(autouse=True)
def _no_oembed_requests():
    with no_oembed_requests():
        yield


@pytest.fixture
def site(home):
    """The demo blog plus what it lacks: embed, draft, alias, links, nolinenos…"""
    return build_site(home)
