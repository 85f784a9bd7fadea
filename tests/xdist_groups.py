"""The page checks on one xdist worker: they share one server and one browser.

`make test` runs `--dist loadgroup`, but pytest-xdist 3.8 no longer honours
`xdist_group` marks under pytest 9.2 (pytest-dev/pytest-xdist#1386: a worker
renames each grouped test's id to carry its group, and pytest 9.2's ids ignore
the rename), so the page checks would be spread over the workers, each of
them starting its own server, browser and HTML checker. The scheduler groups
them by their folders instead, which it reads in the ids themselves.
`tests/test_xdist_groups.py` pins that they share a worker.
"""

import pytest

# Where the tests marked e2e live (tests/conftest.py refuses them elsewhere).
PAGE_CHECKS = ("tests/e2e/", "tests/html/")
GROUP = "e2e"


def is_page_check(nodeid: str) -> bool:
    return nodeid.startswith(PAGE_CHECKS)


@pytest.hookimpl(tryfirst=True, optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """Under `--dist loadgroup`, send every page check to the same worker."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadGroupScheduling

    class PageChecksTogether(LoadGroupScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return GROUP if is_page_check(nodeid) else super()._split_scope(nodeid)

    return PageChecksTogether(config, log)
