"""What a post's page shows beside its body: tags, navigation, links, its end.

``PostPage.get_context`` calls ``post_page_context``. Each part is kept in
the page cache until a publish that changes it purges the page.
"""

from django.urls import reverse

from blog.context.links import graph, neighbours
from blog.context.navigation import navigation
from blog.context.post_end import find_post_end
from pagecache.cache import remember


def post_page_context(post, request) -> dict:
    """Return what the post page's template reads besides the page and its body."""
    context = {}
    context["post_tags"] = shown_tags(post, request)
    nav = navigation(post)
    context["breadcrumbs"] = nav["breadcrumbs"]
    context["series_nav"] = nav["series"]
    # A post that links here or that this one links to, published, moved
    # or no longer linking, purges this page (``get_purge_paths``).
    linking = remember(post.url_path, "neighbours", lambda: neighbours(post))
    context["backlinks"] = linking["in"]
    context["graph"] = graph(post, linking, nav)
    # What the post's end shows beside it: changed only by a publish,
    # unpublish or move of one of them, which purges this page.
    context["post_end"] = remember(
        post.url_path, "post-end", lambda: find_post_end(post, nav)
    )
    context["post_feeds"] = feed_links(post, request, context["post_tags"], nav)
    return context


def shown_tags(post, request):
    """Return the tags a reader sees on this post, kept until it is purged.

    Retagging a post is a publish, and renaming a tag purges every page;
    both purge this. A preview shows the tags of the form, held in memory.
    """
    if getattr(request, "is_preview", False):
        return post.tag_list
    return remember(post.url_path, "tag-list", lambda: post.tag_list)


def feed_links(post, request, tags, nav):
    """Return (title, URL) of the feeds this post is in: site, parent, ``tags``."""
    links = [("全站", reverse("feed"))]
    crumbs = nav["breadcrumbs"]
    parent_path = post.path[: -post.steplen]
    if crumbs and crumbs[-1].path == parent_path:
        parent_url = crumbs[-1].get_url(request)
        if parent_url:
            links.append((crumbs[-1].title, parent_url + "feed/"))
    for tag in tags:
        links.append((f"#{tag.name}", f"/tags/{tag.slug}/feed/"))
    return links
