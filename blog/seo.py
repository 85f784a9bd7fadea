"""Metadata for every page's <head>: description, canonical URL, OpenGraph,
Twitter card, feed autodiscovery and JSON-LD (BlogPosting, BreadcrumbList).

`page_meta` gathers it from the template context; `templates/includes/meta.html`
only places it. Absolute URLs are on the Wagtail Site's root URL (its host,
and 443 for https), never the request's scheme and host (blog/site_urls.py):
the page cache serves one copy to readers of either scheme.
"""

import json
from urllib.parse import urlsplit, urlunsplit

from django.conf import settings
from django.http import HttpResponse
from django.urls import reverse
from django.utils.functional import cached_property
from django.utils.html import strip_tags
from django.utils.safestring import mark_safe
from django.utils.text import Truncator
from wagtail.blocks import StreamValue
from wagtail.contrib.sitemaps import Sitemap
from wagtail.contrib.sitemaps.views import index as wagtail_sitemap_index
from wagtail.models import Site

from blog.models import CountedPaginator, readable
from blog.paths import sitemap_paths
from blog.site_urls import absolute_url, root_url_of, site_root_url
from blog.social import social_image_url
from blog.text import prose_text
from pagecache.cache import remember_at

DESCRIPTION_LENGTH = 160

# Inside <script>, "</script" or "<!--" would end or confuse the element; as
# JSON escapes these are the same strings to a JSON parser (as json_script does).
_JSON_SCRIPT_ESCAPES = {ord("<"): "\\u003c", ord(">"): "\\u003e", ord("&"): "\\u0026"}


def json_ld(data) -> str:
    """Return ``data`` as JSON safe to place inside a <script> element."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    # Safe to mark: every character that could end the element is escaped.
    return mark_safe(text.translate(_JSON_SCRIPT_ESCAPES))  # noqa: S308


def _plain(html: str) -> str:
    return " ".join(strip_tags(html or "").split())


def _intro_text(page) -> str:
    """Return the plain text of a page's intro: rich text, or a series' prose."""
    intro = getattr(page, "intro", "")
    if isinstance(intro, StreamValue):
        return prose_text(intro)
    return _plain(intro)


class _Home:
    """The site's home page: author and intro.

    Wagtail routed the request from the site's root page and cached it, with
    its specific page, on the request's Site: reading it costs no query.
    """

    def __init__(self, request):
        site = Site.find_for_request(request) if request else None
        root = site.root_page.specific if site else None
        self.page = root

    @property
    def author(self) -> str:
        return getattr(self.page, "author", "")

    @property
    def intro(self) -> str:
        return _plain(getattr(self.page, "intro", ""))


def _description(page, tag, home: _Home) -> str:
    if tag is not None:
        return f"标签 #{tag.name} 下的文章。"
    candidates = [
        getattr(page, "search_description", ""),
        getattr(page, "summary", ""),
        _intro_text(page),
    ]
    text = next((c for c in candidates if c and c.strip()), "") or home.intro
    return Truncator(" ".join(text.split())).chars(DESCRIPTION_LENGTH)


def _canonical_path(request, page) -> str:
    """Return the page's path, with ?page=N for later pages of a listing.

    The request's path, not the page's URL: routable pages (a tag) serve many
    URLs. Previews are served elsewhere and fall back to the page's URL.
    """
    if getattr(request, "is_preview", False):
        return page.get_url(request) or request.path
    path = request.path
    number = request.GET.get("page", "")
    if number.isdigit() and int(number) > 1:
        path += f"?page={number}"
    return path


def _breadcrumbs(context) -> list:
    """Return the live ancestors the page shows as breadcrumbs, below home.

    Taken from the view's context (posts supply them), never queried here: the
    breadcrumb template iterates the same, now evaluated, queryset.
    """
    return list(context.get("breadcrumbs") or [])


def page_meta(context) -> dict:
    """Return the metadata for the page the template context renders."""
    request = context.get("request")
    page = context.get("page")
    site_name = context.get("site_name") or settings.WAGTAIL_SITE_NAME
    home = _Home(request)

    def absolute(url: str) -> str:
        return absolute_url(request, url) if request else url

    feeds = [{"title": site_name, "url": absolute(reverse("feed"))}]
    meta = {"site_name": site_name, "feeds": feeds, "locale": "zh_CN"}
    if page is None or request is None:
        meta["description"] = ""
        return meta

    tag = context.get("tag")
    if tag is not None:
        title = f"#{tag.name}"
        tag_url = page.get_url(request) + page.reverse_subpage(
            "tag_detail", args=[tag.slug]
        )
        feeds.append(
            {"title": f"#{tag.name} · {site_name}", "url": absolute(tag_url + "feed/")}
        )
    elif getattr(page, "is_site_home", False):
        title = site_name
    else:
        title = page.seo_title or page.title
    page_url = page.get_url(request)  # None in the preview of a new page
    if getattr(page, "has_feed", False) and page_url:
        feeds.append(
            {
                "title": f"{page.title} · {site_name}",
                "url": absolute(page_url + "feed/"),
            }
        )

    # A post's own feeds (its section or series, its tags), as its end lists them.
    site_feed = reverse("feed")
    for name, url in context.get("post_feeds") or ():
        if url != site_feed:
            feeds.append({"title": f"{name} · {site_name}", "url": absolute(url)})

    canonical = absolute(_canonical_path(request, page))
    image_url = social_image_url(page)
    image = absolute(image_url) if image_url else ""
    # A post is an article (its dates and tags, a BlogPosting); the rest are pages.
    is_post = getattr(page, "is_article", False)
    meta.update(
        title=title,
        description=_description(page, tag, home),
        canonical=canonical,
        image=image,
        og_type="article" if is_post else "website",
    )

    crumbs = [(site_name, absolute("/"))]
    crumbs += [
        (crumb.title, absolute(crumb.get_url(request)))
        for crumb in _breadcrumbs(context)
    ]
    if not getattr(page, "is_site_home", False):
        crumbs.append((page.title, absolute(page_url or request.path)))
    if tag is not None:
        crumbs.append((title, canonical))
    graph = [
        {
            "@type": "BreadcrumbList",
            "itemListElement": [
                {"@type": "ListItem", "position": n, "name": name, "item": url}
                for n, (name, url) in enumerate(crumbs, start=1)
            ],
        }
    ]

    if is_post:
        # The post's view gives the tags it shows; a template without them asks.
        shown = context.get("post_tags")
        tags = [t.name for t in (page.tag_list if shown is None else shown)]
        published = page.date.isoformat()
        modified = max(page.updated, page.date).isoformat()
        meta.update(published=published, modified=modified, tags=tags)
        posting = {
            "@type": "BlogPosting",
            "headline": page.title,
            "description": meta["description"],
            "datePublished": published,
            "dateModified": modified,
            "inLanguage": "zh-CN",
            "url": canonical,
            "mainEntityOfPage": {"@type": "WebPage", "@id": canonical},
            "publisher": {"@type": "Organization", "name": site_name},
        }
        if image:
            posting["image"] = image
        if home.author:
            posting["author"] = {"@type": "Person", "name": home.author}
        if tags:
            posting["keywords"] = ", ".join(tags)
        graph.insert(0, posting)
    meta["json_ld"] = json_ld({"@context": "https://schema.org", "@graph": graph})
    return meta


def _day(moment) -> str:
    """Return a date or datetime as the sitemap's YYYY-MM-DD, or ""."""
    return moment.strftime("%Y-%m-%d") if moment else ""


class PageSitemap(Sitemap):
    """The site's live, public pages, a few hundred to a file.

    ``/sitemap.xml`` is the index of these files. Wagtail's own sitemap builds
    every page as a model instance and writes them all into one file, which
    grows with the site (docs/performance.md). This reads the few columns a ``<url>`` shows (a
    post's dates joined in) as plain rows, one file's worth at a time; the
    number of files is counted once until a publish purges the sitemap.
    """

    limit = 200

    def items(self):
        site = self.get_wagtail_site()
        pages = readable(site.root_page.get_descendants(inclusive=True).live())
        return pages.order_by("path").values_list(
            "url_path",
            "last_published_at",
            "latest_revision_created_at",
            "postpage__date",
            "postpage__updated",
        )

    @cached_property
    def paginator(self):
        items = self._items()
        paths = sorted(sitemap_paths())  # Purged together with the sitemap.
        return CountedPaginator(
            items,
            self.limit,
            count=lambda: remember_at(paths, "sitemap-count", items.count),
        )

    def get_latest_lastmod(self):
        # The index would otherwise read every page to date itself.
        return None

    def _urls(self, page, protocol, domain):
        # Every page is under this site's root, so its URL is the site's root
        # URL and its url_path below the root's (what Page.get_full_url works
        # out, without building the page). A post's lastmod is its last
        # significant update as readers see it, not its last publish.
        site = self.get_wagtail_site()
        root_url = root_url_of(site)
        cut = len(site.root_page.url_path) - 1
        # The template (blog/sitemap.xml) places these strings, and nothing else.
        return [
            {
                "location": root_url + url_path[cut:],
                "lastmod": _day(max(updated, date) if date else published or revised),
            }
            for url_path, published, revised, date, updated in self.paginator.page(
                page
            ).object_list
        ]


# What a kept sitemap index answers with besides its XML (Django's view sets it).
INDEX_HEADERS = ("Content-Type", "X-Robots-Tag")


def sitemap_index(request, sitemaps, **kwargs):
    """``/sitemap.xml``: Django's sitemap index, kept until the sitemap is purged.

    The index grows with the site — a line per file of ``PageSitemap.limit``
    pages, each a URL reversed and rendered — so, like a listing's rows, it is
    kept in the render cache under the sitemap's purge tokens, per site root
    URL (its URLs are absolute). Every publish that changes the pages purges
    the sitemap (``pagecache.purge``).
    """

    def render():
        response = wagtail_sitemap_index(request, sitemaps, **kwargs)
        # Django writes each file's URL with the request's scheme and host;
        # they are put on the site's root URL instead, as in the files.
        for item in response.context_data["sitemaps"]:
            parts = urlsplit(item.location)
            item.location = absolute_url(
                request, urlunsplit(("", "", parts.path, parts.query, ""))
            )
        response.render()
        if response.status_code != 200:
            return None  # not kept
        headers = {name: response[name] for name in INDEX_HEADERS if name in response}
        return {"content": response.content, "headers": headers}

    origin = site_root_url(request)
    kept_index = remember_at(sorted(sitemap_paths()), f"sitemap-index:{origin}", render)
    if kept_index is None:
        return wagtail_sitemap_index(request, sitemaps, **kwargs)
    return HttpResponse(kept_index["content"], headers=kept_index["headers"])
