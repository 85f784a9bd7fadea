"""One language for the public site; the admin's own for the admin.

The public pages are written in Chinese (``<html lang="zh-CN">``, dates as
2026年9月18日) whatever the reader's browser asks for, and the page cache keeps
one copy of each for every reader. So they are rendered in ``LANGUAGE_CODE``
and say so in one ``Content-Language``, without ``Vary: Accept-Language``:
what the first reader's browser asked for is never served to the others.
The admin (and its login page) still follows ``Accept-Language`` and each
editor's chosen language, as Django's ``LocaleMiddleware`` and Wagtail do.
"""

from django.conf import settings
from django.middleware.locale import LocaleMiddleware
from django.utils import translation

from config.security import ADMIN_PREFIXES


class PublicLocaleMiddleware(LocaleMiddleware):
    """Django's ``LocaleMiddleware`` for the admin; ``LANGUAGE_CODE`` elsewhere."""

    def process_request(self, request):
        if request.path_info.startswith(ADMIN_PREFIXES):
            return super().process_request(request)
        translation.activate(settings.LANGUAGE_CODE)
        request.LANGUAGE_CODE = settings.LANGUAGE_CODE
        return None

    def process_response(self, request, response):
        if request.path_info.startswith(ADMIN_PREFIXES):
            return super().process_response(request, response)
        response.headers.setdefault("Content-Language", settings.LANGUAGE_CODE)
        return response
