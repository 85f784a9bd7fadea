"""Atom feeds with full content: the whole site, one tag, one series.

Each feed lists the latest posts by date with their whole body, rendered for
feed readers (``{"feed": True}`` in the block context): math as MathML only,
code with inline styles, the interactive figure as a link, no heading anchors,
every URL absolute (the post model's ``feed_entries``, kept in the render
cache with the post's tags, escaped already).
"""

import datetime
from urllib.parse import urlsplit

from django.contrib.syndication.views import Feed
from django.utils import timezone
from django.utils.feedgenerator import Atom1Feed
from django.utils.html import escape
from wagtail.models import Site

from blog.site_urls import absolute_url

FEED_LENGTH = 20


def as_datetime(date: datetime.date) -> datetime.datetime:
    """Return midnight of ``date`` in the site's time zone."""
    return datetime.datetime.combine(
        date, datetime.time.min, tzinfo=timezone.get_default_timezone()
    )


class AtomContentFeed(Atom1Feed):
    """Atom 1.0 with each entry's full HTML in ``<content type="html">``.

    ``content`` is escaped XML character data already: the SAX handler's
    ``ignorableWhitespace`` writes it as it is, where ``characters`` would
    scan and escape a hundred kilobytes again on every request.
    """

    def add_item_elements(self, handler, item):
        super().add_item_elements(handler, item)
        if item.get("content"):
            handler.startElement("content", {"type": "html"})
            handler.ignorableWhitespace(item["content"])
            handler.endElement("content")


class PostFeed(Feed):
    """The latest posts of ``posts`` (a PostPage queryset), full content.

    ``order`` is newest first, told in the columns of an index the posts'
    filter can read in order; by default the queryset's ``for_feed`` order.
    """

    feed_type = AtomContentFeed
    language = "zh-CN"

    def __init__(self, posts, *, title: str, link: str, subtitle: str = "", order=None):
        super().__init__()
        self.posts = posts
        self.order = order
        self.title = title
        self.link = link
        self.subtitle = subtitle

    def get_object(self, request, *args, **kwargs):
        self.request = request
        self.site = Site.find_for_request(request)
        # Every URL on the site's root URL, not the request's (blog/site_urls.py).
        self.link = absolute_url(request, self.link)
        return None

    def feed_url(self):
        return absolute_url(self.request, self.request.path)

    def author_name(self):
        """Return the author named on the site's home page, if it names one.

        Pages routed by Wagtail (tag and series feeds) have the root page and
        its specific page cached on the request's Site already.
        """
        root = self.site.root_page.specific if self.site else None
        return getattr(root, "author", "") or None

    def items(self):
        feed = self.posts.for_feed(self.order) if self.order else self.posts.for_feed()
        posts = list(feed[:FEED_LENGTH])
        links = [post.get_url(self.request) for post in posts]
        urls = [absolute_url(self.request, link) for link in links]
        entries = self.posts.model.feed_entries(posts, self.request, urls)
        for post, url, entry in zip(posts, urls, entries, strict=True):
            post.feed_link, post.feed_entry = url, entry
        return posts

    def item_title(self, item):
        return item.title

    def item_link(self, item):
        return item.feed_link

    def item_description(self, item):
        # Atom <summary type="html">: the summary is plain text.
        return escape(item.summary)

    def item_guid(self, item):
        # Stable across renames and moves: the page id, and the site's host
        # (not the request's, which the page cache does not key on) and the
        # date of first publication (RFC 4151 tag URI).
        host = urlsplit(self.link).netloc
        return f"tag:{host},{item.date:%Y-%m-%d}:post/{item.pk}"

    def item_guid_is_permalink(self, item):
        return False

    def item_pubdate(self, item):
        return as_datetime(item.date)

    def item_updateddate(self, item):
        return as_datetime(max(item.updated, item.date))

    def item_categories(self, item):
        return item.feed_entry["tags"]

    def item_extra_kwargs(self, item):
        return {"content": item.feed_entry["content"]}
