"""The Content-Security-Policy of a page whose figures run their own scripts.

Every response carries the site's policy (``CONTENT_SECURITY_POLICY`` in the
settings, sent by django-csp's middleware): scripts from this site's files
only, no inline script anywhere. The interactive figure is the exception an
author writes on purpose. Its HTML is a document of its own, served at its
own URL (``<page url>figures/<block id>/``) and shown in an ``<iframe
sandbox="allow-scripts" src=…>``. That document's policy (``figure_policy``)
allows exactly the SHA-256 of each inline ``<script>`` it holds, and sandboxes
it (``sandbox allow-scripts``: an opaque origin, even opened on its own); only
this site may frame it. The page around it allows no inline script at all: a
script copied from a figure into the page itself would not run there.

The admin's preview of a draft, which has no public URL, still shows figures
inline (``srcdoc``): a ``srcdoc`` document inherits the policy of the page
around it, so that preview, seen only by editors, carries the figures' hashes.

The admin behind its login is the other: Wagtail's editor writes inline
scripts of its own (wagtail/wagtail#1288, open), in templates this project does
not own. Each such page is sent with the hashes of the inline scripts it
holds. That trusts what the admin wrote into the page, as ``unsafe-inline``
would, but it still refuses inline event handlers, ``javascript:`` URLs and
any script added to the page after it was sent. The login pages, which anyone
can reach, get the site's policy as it is.
"""

import base64
import hashlib
import html
import re
from html.parser import HTMLParser

from csp.constants import HEADER, NONE, SELF
from csp.middleware import CSPMiddleware

# In a preview the figure template (blocks/html_figure_block.html) writes
# srcdoc="…" with the figure's HTML escaped; the browser reads it back unescaped.
_SRCDOC = re.compile(r'<iframe\b[^>]*?\ssrcdoc="([^"]*)"')


class _InlineScripts(HTMLParser):
    """Collect the text of every <script> without a src, as a browser parses it."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.scripts: list[str] = []
        self._text: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "script" and not dict(attrs).get("src"):
            self._text = []

    def handle_data(self, data):
        if self._text is not None:
            self._text.append(data)

    def handle_endtag(self, tag):
        if tag == "script" and self._text is not None:
            self.scripts.append("".join(self._text))
            self._text = None


def figure_script_sources(page_html: str) -> list[str]:
    """Return the CSP hash sources of the figures' inline scripts in ``page_html``."""
    sources = set()
    for match in _SRCDOC.finditer(page_html):
        sources.update(inline_script_sources(html.unescape(match.group(1))))
    return sorted(sources)


def inline_script_sources(document: str) -> list[str]:
    """Return the CSP hash sources of the inline scripts of an HTML document."""
    # Browsers turn CR LF and lone CR into LF before parsing (and hashing).
    parser = _InlineScripts()
    parser.feed(document.replace("\r\n", "\n").replace("\r", "\n"))
    parser.close()
    return sorted(
        {
            f"'sha256-{base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()}'"
            for script in parser.scripts
        }
    )


def figure_policy(document: str) -> dict[str, list[str]]:
    """Return what the policy of a figure's own document replaces in the site's.

    Its inline scripts by hash and nothing else; a sandbox with scripts (an
    opaque origin, whoever opens it); framed by this site only.
    """
    return {
        "script-src": inline_script_sources(document) or [NONE],
        "sandbox": ["allow-scripts"],
        "frame-ancestors": [SELF],
    }


def allow_figure_scripts(response, sources: list[str]) -> None:
    """Have the policy sent with ``response`` allow these figure scripts (a preview).

    django-csp's middleware reads ``_csp_update``; the page cache keeps it
    with the page it stores.
    """
    if sources:
        response._csp_update = {"script-src": sources}


ADMIN_PREFIXES = ("/admin/", "/django-admin/")
LOGIN_PATHS = ("/admin/login/", "/django-admin/login/")


def is_admin_behind_login(path: str) -> bool:
    """Return whether ``path`` is an admin page only a logged-in editor sees."""
    return path.startswith(ADMIN_PREFIXES) and not path.startswith(LOGIN_PATHS)


class SitePolicyMiddleware(CSPMiddleware):
    """django-csp's middleware, with framing allowed where Wagtail allows it.

    The site's policy denies every frame ancestor, as ``X-Frame-Options: DENY``
    does. Wagtail's preview, shown in an iframe of the editor, overrides that
    header to ``SAMEORIGIN``: its policy then allows this site as its frame too.
    Wagtail renders the preview through the middleware once already, before
    the override, so a policy set then is made again.
    """

    def process_response(self, request, response):
        if response.status_code == 304:
            # A browser revalidating a page replaces the headers it keeps
            # with those of the 304. Sent none, it keeps the page's own
            # policy, figure hashes included; the site's would drop them.
            return response
        if self._framed_by_this_site(response) and HEADER in response:
            del response[HEADER]
        return super().process_response(request, response)

    def get_policy_parts(self, request, response, report_only=False):
        parts = super().get_policy_parts(request, response, report_only)
        replace = dict(parts.replace or {})
        if self._framed_by_this_site(response):
            replace["frame-ancestors"] = [SELF]
        parts.replace = replace
        return parts

    @staticmethod
    def _framed_by_this_site(response) -> bool:
        return response.get("X-Frame-Options", "").upper() == "SAMEORIGIN"


class AdminInlineScriptsMiddleware:
    """Allow, by their hashes, the inline scripts of an admin page behind the login.

    Placed below compression, so it reads the page as written; the policy
    middleware at the top sends the hashes with the rest.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if (
            is_admin_behind_login(request.path_info)
            and not response.streaming
            and response.get("Content-Type", "").startswith("text/html")
        ):
            sources = inline_script_sources(response.content.decode(errors="replace"))
            if sources:
                update = getattr(response, "_csp_update", None) or {}
                response._csp_update = {
                    **update,
                    "script-src": [*update.get("script-src", []), *sources],
                }
        return response
