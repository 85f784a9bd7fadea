"""The explorer beside every page: the site's folders, their posts, 最近更新.

What it lists, so that a site of ten thousand posts stays small on every page:

- every live section and series, nested, as folders, on every page;
- a folder's own posts only when the folder is on the current page's path (the
  page itself or one of its ancestors): at most ``FOLDER_POSTS`` of them in the
  folder's order, then a link "全部 N 篇 →" to the folder's page; the current
  post is always shown; any other folder's, the same list, when a reader opens
  it: a fragment of its own (``/_explorer-posts/<folder>/``) that explorer.js
  loads, so no page carries every folder's posts;
- the posts straight under home (a folder every page is in), capped the same
  way, with the link going to the archive;
- the ``RECENT_COUNT`` posts most recently updated (最近更新, ``blog.models.post``).

The explorer is not part of a page's HTML: it is a fragment of its own, one
per folder (``/_explorer/<folder>/``, the same for every page in the folder),
which the page loads (``static/js/explorer.js``, which also marks the current
page); without JavaScript the header's sections, 标签 and 归档 remain. So a
change to what the explorer lists purges a few fragments, never every page,
and a CDN in front is never asked for ``/*`` for it.

Folders, home's posts and the recent posts are worked out once per site and
kept until a site-wide purge; a folder's posts until the folder is purged.
What purges which fragments (``blog.models.changes``): a post added,
removed or moved, or whose title, URL or dates changed, purges its folder's
fragment and those of the folders under it (each lists the folders above it
open); one that is (or was) among the recent posts or sits straight under
home purges every folder's fragment. A series published, moved, renamed or
deleted still purges every page (the header lists the sections).
"""

from django.db.models import Count, Window
from wagtail.models import Page, Site

from blog.models import LINK_COLUMNS, PostPage, SeriesPage
from blog.models import post as post_models
from blog.models.base import readable
from pagecache.cache import remember, remember_site

FOLDER_POSTS = 15


def link(page, root_path: str) -> dict:
    """Return what the explorer shows of a page: its title, URL and tree path."""
    return {
        "title": page.title,
        "url": page.url_path[len(root_path) - 1 :],
        "path": page.path,
        "depth": page.depth,
    }


def _capped(posts, root_path: str) -> dict:
    """Return the first ``FOLDER_POSTS`` of ``posts`` and, if there are more, N.

    One query whatever the number: the total rides along each row (a window
    count is taken before the limit).
    """
    rows = list(posts.annotate(total=Window(Count("pk")))[:FOLDER_POSTS])
    total = rows[0].total if rows else 0
    return {
        "posts": [link(post, root_path) for post in rows],
        "count": total if total > FOLDER_POSTS else None,
    }


def site_tree(root) -> dict:
    """Return the site's folders, home's own posts and the recent posts.

    Three queries, kept until the next site-wide purge.
    """
    root_path = root.url_path

    def compute():
        folders = (
            readable(SeriesPage.objects.descendant_of(root).live())
            .only(*LINK_COLUMNS, "ordering")
            .order_by("path")
        )
        own = PostPage.objects.child_of(root).visible()
        recent = PostPage.objects.below(root).recently_updated()
        return {
            "folders": [
                {**link(folder, root_path), "newest": folder.ordering == "newest"}
                for folder in folders
            ],
            "home": _capped(
                own.only(*LINK_COLUMNS).order_by("-date", "-pk"), root_path
            ),
            "recent": [
                {**link(post, root_path), "updated": post.updated}
                for post in recent.only(*LINK_COLUMNS, "updated")[
                    : post_models.RECENT_COUNT
                ]
            ],
        }

    return remember_site(f"explorer:{root.pk}", compute)


def folder_posts(folder: dict, root_path: str) -> dict:
    """Return a folder's own posts, capped, kept until the folder is purged."""
    url_path = root_path[:-1] + folder["url"]

    def compute():
        posts = (
            PostPage.objects.visible()
            .filter(path__startswith=folder["path"], depth=folder["depth"] + 1)
            .only(*LINK_COLUMNS)
        )
        order = ("-date", "-pk") if folder["newest"] else ("path",)
        return _capped(posts.order_by(*order), root_path)

    return remember(url_path, "explorer-posts", compute)


def explorer(request, page=None, *, mark: bool = True) -> dict | None:
    """Return the explorer of ``page`` (None for a page outside the tree).

    ``tree`` is a nested list of folders, each ``{"link", "open", "current",
    "folders", "posts", "count"}``; posts are links with ``current``. With
    ``mark`` off (a fragment, shared by a folder's pages) nothing is current:
    the page's script marks it.
    """
    site = Site.find_for_request(request)
    if site is None:
        return None
    root = site.root_page
    data = site_tree(root)
    here = getattr(page, "path", "")
    here_pk = getattr(page, "pk", None)
    on_path = [f for f in data["folders"] if here.startswith(f["path"])]
    marked = here if mark else None

    def posts_of(links, current_link=None):
        shown = [{**link, "current": link["path"] == marked} for link in links]
        if current_link and not any(link["current"] for link in shown):
            shown.append({**current_link, "current": True})
        return shown

    current_post = None
    if isinstance(page, PostPage) and page.live:
        current_post = link(page, root.url_path)

    nodes = {}
    top = []
    for folder in data["folders"]:
        node = {
            "link": folder,
            "open": folder in on_path,
            "current": folder["path"] == marked,
            "folders": [],
            "posts": [],
            "count": None,
        }
        if node["open"]:
            posts = folder_posts(folder, root.url_path)
            parent_of_here = here[: -Page.steplen] == folder["path"]
            node["posts"] = posts_of(
                posts["posts"], current_post if parent_of_here else None
            )
            node["count"] = posts["count"]
        nodes[folder["path"]] = node
        parent = nodes.get(folder["path"][: -Page.steplen])
        (parent["folders"] if parent else top).append(node)

    in_home = page is not None and here[: -Page.steplen] == root.path
    home_posts = posts_of(data["home"]["posts"], current_post if in_home else None)
    return {
        "tree": top,
        "home_posts": home_posts,
        "home_count": data["home"]["count"],
        "recent": [
            {**link, "current": link["path"] == marked} for link in data["recent"]
        ],
        "here_pk": here_pk,
    }
