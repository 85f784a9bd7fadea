"""HTML for feed readers: every URL absolute."""

import re
from urllib.parse import urljoin
from xml.sax.saxutils import escape

# Attributes holding one URL, and srcset's comma-separated "URL width" list.
# Our renderers and templates always double-quote attribute values.
_URL_ATTR = re.compile(r'\b(href|src|poster)="([^"]*)"')
_SRCSET_ATTR = re.compile(r'\bsrcset="([^"]*)"')


def absolutize_urls(html: str, base: str) -> str:
    """Return ``html`` with relative URLs resolved against ``base``.

    Feed readers resolve relative URLs unreliably (against the feed, the site or
    not at all), so anchors, images and links all go out absolute.
    """

    def one(match: re.Match) -> str:
        return f'{match.group(1)}="{urljoin(base, match.group(2))}"'

    def srcset(match: re.Match) -> str:
        candidates = []
        for candidate in match.group(1).split(","):
            url, _, descriptor = candidate.strip().partition(" ")
            candidates.append(f"{urljoin(base, url)} {descriptor}".strip())
        return f'srcset="{", ".join(candidates)}"'

    return _SRCSET_ATTR.sub(srcset, _URL_ATTR.sub(one, html))


# Characters XML 1.0 cannot hold at all, not even as references.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def as_character_data(html: str) -> str:
    """Return ``html`` as the character data of an XML element: escaped.

    A control character pasted into a post cannot go into a feed at all; it
    is dropped rather than failing the whole feed.
    """
    return _NOT_XML.sub("", escape(html))
