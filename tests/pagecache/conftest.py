"""A small site for the page cache's tests, and the switch that turns the cache on.

A module whose tests need the cache on says so with
``pytestmark = pytest.mark.usefixtures("page_cache_on")``.
"""

import pytest

from tests.factories import PostPageFactory, SeriesPageFactory


@pytest.fixture
def page_cache_on(settings):
    settings.PAGE_CACHE_SECONDS = 3600
    settings.LISTING_CACHE_SECONDS = 3600


@pytest.fixture
def site(home, tag_index, archive):
    cuda = SeriesPageFactory(parent=home, title="CUDA", slug="cuda", ordering="newest")
    cute = SeriesPageFactory(parent=cuda, title="CuTe 系列", slug="cute")
    notes = SeriesPageFactory(parent=home, title="笔记", slug="notes")
    posts = {
        "first": PostPageFactory(
            parent=cute, title="第一篇", slug="first", tags=["gemm"]
        ),
        "second": PostPageFactory(
            parent=cute, title="第二篇", slug="second", tags=["cuda"]
        ),
        "third": PostPageFactory(
            parent=cute, title="第三篇", slug="third", tags=["cuda"]
        ),
        "elsewhere": PostPageFactory(
            parent=notes, title="CSAPP 笔记", slug="csapp", tags=["csapp"]
        ),
    }
    return {"home": home, "cuda": cuda, "cute": cute, "notes": notes, **posts}
