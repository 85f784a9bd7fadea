"""Bound the rendering a reader's request does (``rendering.budget``).

With an empty render cache, a post of thousands of formulas or a feed of
twenty posts would otherwise be typeset inside one request, past the worker's
timeout. A public page's request may render afresh for ``RENDER_BUDGET_SECONDS``;
what is left is shown as its source (a formula, a block of code) or, for an
image whose renditions are not made yet, as the original file. Such a page is
sent with ``Cache-Control: no-cache``, so neither the page cache nor a proxy
keeps it: the next request shows what has been rendered since.
"""

from django.conf import settings
from django.utils.cache import patch_cache_control

from rendering import budget
from serving.security import ADMIN_PREFIXES


class RenderBudgetMiddleware:
    """Open a render budget around each public GET; mark a provisional page so."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        seconds = settings.RENDER_BUDGET_SECONDS
        if (
            seconds <= 0
            or request.method not in ("GET", "HEAD")
            or request.path_info.startswith(ADMIN_PREFIXES)
        ):
            return self.get_response(request)
        with budget.budget(seconds), budget.watch() as seen:
            response = self.get_response(request)
        if seen.provisional:
            patch_cache_control(response, no_cache=True, max_age=0)
        return response
