"""Views outside the page tree: search, the site feed, the favicon."""

from django.conf import settings
from django.core.paginator import Paginator
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.templatetags.static import static
from wagtail.models import Site

from blog.feeds import PostFeed
from blog.models import PostPage
from pagecache.query import reads_query
from search.query import MAX_RESULTS, RESULTS_PER_PAGE
from search.tokens import MAX_QUERY_LENGTH, clean_query


def search(request):
    """Search live, public posts: `/search/?q=…&page=…`.

    A fixed number of queries whatever the number of matches: view
    restrictions, the search (ids, titles, summaries), the page's posts and
    their tags, plus the header's. Junk in `page` shows the first or last page.
    A query longer than `MAX_QUERY_LENGTH` is cut, and then not cached.
    """
    query = clean_query(request.GET.get("q"))
    ids = PostPage.search_ids(query) if query else []
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
            "hits": PostPage.search_hits(page.object_list, query) if ids else [],
            "capped": len(ids) >= MAX_RESULTS,
        },
    )


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
