"""The served paths that list or link to the blog's pages: what a change purges.

A post is shown on its own page and on: its sections and series (and their
feeds), the other posts of its series (their "part k of n" and
previous/next), home, the tag index and its tags' pages and feeds, the
archive, the posts it links to and that link to it (their backlinks and
graphs), the site feed, the sitemap, search results, its social image and its
hover card (``<url>preview/``). Each page type puts these together in
its ``get_purge_paths()`` (see ``pagecache.purge``).
"""

from django.urls import reverse
from wagtail.models import Page, Site

from pagecache.cache import site_paths
from pagecache.purge import paths_of


def site_wide_paths() -> set[str]:
    """Return the paths every new, changed or removed post shows up on."""
    return {reverse("feed"), reverse("search")} | sitemap_paths()


def sitemap_paths() -> set[str]:
    """Return the sitemap index and its file of pages (every ?p= of it)."""
    return {reverse("sitemap"), reverse("sitemap-section", args=["pages"])}


def tag_paths(tags) -> set[str]:
    """Return the tag index and, for each tag, its page and feed.

    The index is looked up unordered: ordered by path, SQLite walks the whole
    page table to find it.
    """
    paths = set()
    indexes = Page.objects.live().filter(tagindexpage__isnull=False)
    for index_path in paths_of(indexes.order_by().only("url_path")):
        paths.add(index_path)
        for tag in tags:
            paths |= {f"{index_path}{tag.slug}/", f"{index_path}{tag.slug}/feed/"}
    return paths


def archive_paths() -> set[str]:
    """Return the paths of the archive."""
    archives = Page.objects.live().filter(archivepage__isnull=False)
    return paths_of(archives.order_by().only("url_path"))


def listing_paths(pages) -> set[str]:
    """Return the paths of ``pages`` and of what each lists them on (its feed)."""
    paths = set()
    for page in pages:
        listed = getattr(page, "listing_paths", None)
        paths |= listed() if listed else paths_of([page])
    return paths


def is_site_root(page) -> bool:
    """Return whether ``page`` is the root (home) of a site."""
    return any(
        page.url_path == root_path for _, root_path, _, _ in Site.get_site_root_paths()
    )


def feed_paths(page) -> set[str]:
    """Return the paths of ``page``'s feed."""
    return {f"{path}feed/" for path in site_paths(page.url_path)}
