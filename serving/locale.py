"""One language for the whole site: ``LANGUAGE_CODE``, whatever the browser says.

The public pages are written in Chinese (``<html lang="zh-CN">``, dates as
2026年9月18日) and the page cache keeps one copy of each for every reader, so
they are rendered in ``LANGUAGE_CODE`` and say so in one ``Content-Language``,
without ``Vary: Accept-Language``: what the first reader's browser asked for
is never served to the others.

The admin (and its login page) is Chinese too: the editors of this blog write
Chinese, and a browser set to English (common on work machines) must not turn
their admin English. An editor who wants another language picks it in their
account (Wagtail's "preferred language"), which Wagtail's admin views switch to
on top of this default.
"""

from django.conf import settings
from django.utils import translation
from django.utils.deprecation import MiddlewareMixin

from serving.security import ADMIN_PREFIXES


class PublicLocaleMiddleware(MiddlewareMixin):
    """Activate ``LANGUAGE_CODE`` for every request; ignore ``Accept-Language``."""

    def process_request(self, request):
        translation.activate(settings.LANGUAGE_CODE)
        request.LANGUAGE_CODE = settings.LANGUAGE_CODE

    def process_response(self, request, response):
        # An admin view may have been rendered in the editor's own language
        # (Wagtail overrides it inside the view), so say nothing for the admin;
        # its pages carry <html lang> themselves.
        if not request.path_info.startswith(ADMIN_PREFIXES):
            response.headers.setdefault("Content-Language", settings.LANGUAGE_CODE)
        return response
