"""Views outside the page tree: search, the site feed, the favicon, the explorer."""

from django.conf import settings
from django.core.paginator import Paginator
from django.http import Http404, JsonResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.templatetags.static import static
from django.utils.dateformat import format as date_format
from wagtail.models import Site

from blog.context_processors import top_sections
from blog.explorer import explorer, folder_posts, link
from blog.feeds import PostFeed
from blog.models import PostPage, SeriesPage
from blog.models.base import may_see, readable
from pagecache.query import reads_query
from search.query import MAX_RESULTS, RESULTS_PER_PAGE
from search.tokens import MAX_QUERY_LENGTH, clean_query

# The search dialog shows this many results, then links to the results page.
INSTANT_RESULTS = 8
# Browsers may keep an answer this long; the page cache keeps it until a purge.
INSTANT_MAX_AGE = 60


def search(request):
    """Search live, public posts: `/search/?q=…&page=…`, or JSON with `format=json`.

    A fixed number of queries whatever the number of matches: view
    restrictions, the search (ids, titles, summaries), the page's posts and
    their tags, plus the header's. Junk in `page` shows the first or last page.
    A query longer than `MAX_QUERY_LENGTH` is cut, and then not cached.
    """
    query = clean_query(request.GET.get("q"))
    ids = PostPage.search_ids(query) if query else []
    if request.GET.get("format") == "json":
        return instant_search(request, query, ids)
    page = Paginator(ids, RESULTS_PER_PAGE).get_page(request.GET.get("page"))
    # Kept briefly: anyone can ask for any query (pagecache.query).
    reads_query(
        request,
        q=query,
        page=page.number if page.number > 1 else None,
        seconds=settings.PAGE_CACHE_SEARCH_SECONDS,
    )
    return TemplateResponse(
        request,
        "blog/search_results.html",
        {
            "query": query,
            "search_query": query,  # Fills the header's search box.
            "max_query_length": MAX_QUERY_LENGTH,
            "results": page,
            "hits": _with_sections(
                request, PostPage.search_hits(page.object_list, query) if ids else []
            ),
            "capped": len(ids) >= MAX_RESULTS,
        },
    )


def _with_sections(request, hits: list) -> list:
    """Set each hit's ``section``: the title of the top-level section it is in.

    Read from the header's sections (kept until a site-wide purge): no query.
    """
    if not hits:
        return hits
    sections = {section.path: section.title for section in top_sections(request)}
    for hit in hits:
        # A section is a child of the site's root: its path is one step longer.
        for length in range(PostPage.steplen, len(hit.post.path), PostPage.steplen):
            if (title := sections.get(hit.post.path[:length])) is not None:
                hit.section = title
                break
    return hits


def instant_search(request, query: str, ids: list[int]) -> JsonResponse:
    """Answer the search dialog (static/js/search.js): the best few results as JSON.

    The same search, titles and snippets as the results page; the snippet and
    ``title_html`` are HTML, escaped but for ``<mark>`` and typeset math.
    Kept by the page cache under `/search/`, so a publish purges it too.
    """
    reads_query(
        request, q=query, format="json", seconds=settings.PAGE_CACHE_SEARCH_SECONDS
    )
    hits = _with_sections(
        request, PostPage.search_hits(ids[:INSTANT_RESULTS], query) if ids else []
    )
    results = [
        {
            "title": hit.post.title,
            "title_html": str(hit.title),
            "url": hit.post.get_url(request),
            "date": hit.post.date.isoformat(),
            "date_display": date_format(hit.post.date, "Y年n月j日"),
            "section": hit.section,
            "snippet": str(hit.snippet),
        }
        for hit in hits
    ]
    response = JsonResponse(
        {
            "query": query,
            "count": len(ids),
            "capped": len(ids) >= MAX_RESULTS,
            "results": results,
        },
        json_dumps_params={"ensure_ascii": False},
    )
    response["Cache-Control"] = f"public, max-age={INSTANT_MAX_AGE}"
    response["X-Robots-Tag"] = "noindex"
    return response


def favicon(request):
    """Send clients that ask for /favicon.ico to the icon the pages link to."""
    return redirect(static("favicon.svg"), permanent=True)


def site_feed(request):
    """Serve the latest posts of the whole site."""
    site = Site.find_for_request(request)
    posts = PostPage.objects.all()
    if site is not None:
        posts = posts.below(site.root_page)
    return PostFeed(
        posts,
        title=settings.WAGTAIL_SITE_NAME,
        subtitle="最近的文章",
        link="/",
    )(request)


def explorer_fragment(request, path=""):
    """The explorer and 最近更新 of one folder's pages, which they load (``blog.explorer``).

    ``/_explorer/`` is home's (for the posts straight under it and every page
    outside the folders); ``/_explorer/cuda/cute/`` that series'. A folder a
    reader may not see has none (404), and a fragment marks no page current:
    the same copy serves every page of the folder, and its script marks it.
    """
    site = Site.find_for_request(request)
    if site is None:
        raise Http404
    root = site.root_page
    if path:
        folders = SeriesPage.objects.live().filter(url_path=root.url_path + path)
        folder = readable(folders).first()
        if folder is None:
            raise Http404
    else:
        folder = root
    response = TemplateResponse(
        request,
        "includes/explorer.html",
        {"explorer": explorer(request, folder, mark=False)},
    )
    # A part of pages, not one: search engines index the pages.
    response["X-Robots-Tag"] = "noindex"
    return response


def explorer_posts_fragment(request, path):
    """A folder's own posts, which the explorer loads when a reader opens it.

    ``/_explorer-posts/notes/csapp/`` lists that series' posts as the explorer
    lists an open folder's (capped, then "全部 N 篇 →"): a list of links, the
    same for every reader, kept by the page cache until the folder's posts
    change (``blog.models.changes.explorer_paths``). A folder this request may
    not see is missing, naming nothing.
    """
    site = Site.find_for_request(request)
    if site is None:
        raise Http404
    root = site.root_page
    folder = (
        SeriesPage.objects.filter(url_path=root.url_path + path)
        .only("title", "url_path", "path", "depth", "live", "ordering")
        .first()
    )
    if folder is None or not may_see(request, folder):
        raise Http404
    response = TemplateResponse(
        request,
        "includes/explorer_posts.html",
        {
            "folder": link(folder, root.url_path),
            "posts": folder_posts(
                {**link(folder, root.url_path), "newest": folder.ordering == "newest"},
                root.url_path,
            ),
        },
    )
    response["X-Robots-Tag"] = "noindex"
    return response
