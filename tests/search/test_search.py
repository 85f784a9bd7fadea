"""Search: Chinese, English and code; ranking, snippets, paging and bad input.

Each test starts from an empty site and makes the posts it searches; the
relevance table, on a shared corpus, is in test_relevance.py.
"""

import datetime

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from wagtail.models import PageViewRestriction
from wagtail.rich_text import RichText

from blog import text
from blog.models import PostPage, body
from pagecache.cache import purge_all
from search import query as search
from search.tokens import MAX_QUERY_LENGTH, clean_query, index_tokens, query_tokens
from tests.search.posts import make_post, titles


def test_title_hits_rank_before_body_hits(client, home):
    # By term frequency alone the short body that repeats the word would win.
    body_only = make_post(home, "Double Buffering", paragraph="pipeline " * 20)
    title_hit = make_post(
        home,
        "Pipeline 设计",
        paragraph=" ".join(f"stage{n} overlaps loads with compute." for n in range(80)),
    )
    found = titles(client, "pipeline")
    assert found == [title_hit.title, body_only.title]


def test_drafts_and_private_posts_are_not_found(client, home):
    make_post(home, "草稿：对称量化进阶", paragraph="对称量化", live=False)
    private = make_post(home, "私密：对称量化", paragraph="对称量化")
    PageViewRestriction.objects.create(
        page=private, restriction_type=PageViewRestriction.PASSWORD, password="x"
    )
    public = make_post(home, "公开：量化", paragraph="对称量化")
    assert titles(client, "对称量化") == [public.title]


def test_unpublished_changes_are_not_searchable(client, home):
    post = make_post(home, "Roofline", paragraph="bandwidth bound")
    post.title = "Roofline (draft: tensor memory accelerator)"
    post.save_revision()
    assert titles(client, "tensor memory accelerator") == []
    assert titles(client, "bandwidth") == ["Roofline"]


def test_snippet_is_cut_around_the_first_match(client, home):
    filler = "前言。" * 100
    make_post(home, "长文", paragraph=f"{filler}这里讲对称量化。{filler}")
    hit = client.get("/search/", {"q": "量化"}).context["hits"][0]
    snippet = str(hit.snippet)
    assert snippet.startswith("…") and snippet.endswith("…")
    assert "<mark>量化</mark>" in snippet
    assert len(snippet) < 200


def test_query_and_content_markup_are_escaped(client, home):
    make_post(
        home, "Escaping <b>HTML</b>", paragraph="Never trust &lt;script&gt; input."
    )
    response = client.get("/search/", {"q": "<script>alert(1)</script>"})
    html = response.content.decode()
    assert response.status_code == 200
    assert "<script>alert" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    response = client.get("/search/", {"q": "script"})
    html = response.content.decode()
    assert "Escaping &lt;b&gt;HTML&lt;/b&gt;" in html
    assert "Never trust &lt;<mark>script</mark>&gt; input." in html
    assert "<b>HTML" not in html


def test_results_are_paginated_ten_a_page(client, home):
    for n in range(25):
        make_post(home, f"Tiling note {n}", paragraph="tiling", slug=f"t{n}")
    first = client.get("/search/", {"q": "tiling"})
    assert len(first.context["hits"]) == 10
    assert "找到 25 篇文章" in first.content.decode()
    assert 'href="?q=tiling&amp;page=2"' in first.content.decode()
    last = client.get("/search/", {"q": "tiling", "page": "3"})
    assert len(last.context["hits"]) == 5
    seen = set()
    for page in ("1", "2", "3"):
        response = client.get("/search/", {"q": "tiling", "page": page})
        seen.update(hit.post.pk for hit in response.context["hits"])
    assert len(seen) == 25


@pytest.mark.parametrize(
    "params",
    [
        {"q": "tiling", "page": "-1"},
        {"q": "tiling", "page": "abc"},
        {"q": "tiling", "page": "1e9"},
        {"q": "tiling", "page": "99999999999999999999999"},
        {"q": "tiling", "page": "\x00"},
        {"q": "a\x00b"},
        {"q": "\x00"},
        {"q": "量" * 100_000},
        {"q": "x" * 100_000},
        {"q": '"unbalanced'},
        {"q": "it's"},
        {"q": "100%"},
        {"q": "a*"},
        {"q": "(a OR b) AND NOT c"},
        {"q": "NEAR(a b)"},
        {"q": "-tiling"},
        {"q": "\\"},
        {"q": "title:tiling"},
        {"q": "🙂 emoji"},
        {"q": "ｌｄｍａｔｒｉｘ"},
    ],
)
def test_junk_input_never_errors(client, home, params):
    make_post(home, "Tiling", paragraph="tiling")
    response = client.get("/search/", params)
    assert response.status_code == 200


def test_query_is_capped_and_cleaned():
    assert clean_query("a\x00b\n c") == "a b c"
    assert len(clean_query("x" * 10_000)) == MAX_QUERY_LENGTH
    assert clean_query(None) == ""


def test_index_and_query_tokens_agree():
    assert set(query_tokens("量化")) <= set(index_tokens("对称量化"))
    assert set(query_tokens("调度器")) <= set(index_tokens("warp 调度器会选择"))
    assert set(query_tokens("cp.async")) <= set(
        index_tokens("cp.async.cg.shared.global")
    )
    assert set(query_tokens("ldmatrix.sync")) <= set(
        index_tokens("ldmatrix.sync.aligned.m8n8.x4")
    )
    assert set(query_tokens("concurrencies")) <= set(index_tokens("concurrency"))
    assert set(query_tokens("ReLU")) <= set(index_tokens("relu"))
    assert set(query_tokens("relu")) <= set(index_tokens("ReLU"))
    assert index_tokens("__syncthreads") == ["syncthreads", "syncthread"]
    # Only [a-z0-9] or Han: both databases split these on spaces alone.
    tokens = index_tokens("cp.async <b>x</b> 3.14 sm_80 std::vector 量化！")
    assert tokens
    for token in tokens:
        assert token.isalnum() and token == token.lower()


def search_queries(client, query):
    with CaptureQueriesContext(connection) as captured:
        response = client.get("/search/", {"q": query})
    assert response.status_code == 200
    return [q["sql"] for q in captured.captured_queries]


def test_query_count_does_not_grow_with_results(
    client, home, settings, django_capture_on_commit_callbacks
):
    # As in production: the explorer beside the results and the results'
    # figures are kept between requests until a publish purges them.
    settings.LISTING_CACHE_SECONDS = 3600
    date = datetime.date(2025, 1, 1)  # Older: listed after the first five.
    for n in range(5):
        make_post(home, f"Tile {n}", ["cuda", f"t{n}"], "tiling", slug=f"a{n}")
    client.get("/search/", {"q": "tiling"})  # warm per-process caches
    few = search_queries(client, "tiling")
    with django_capture_on_commit_callbacks(execute=True):
        for n in range(25):
            make_post(
                home, f"Tile {n + 5}", ["cuda"], "tiling", slug=f"b{n}", date=date
            )
        purge_all()  # what their publishes do
    cold = search_queries(client, "tiling")
    many = search_queries(client, "tiling")
    assert len(many) == len(few), "\n".join(many)
    # Right after the purge: the explorer and the search run again, once.
    assert len(cold) <= 20, "\n".join(cold)
    assert len(few) <= 10, "\n".join(few)
    # And the purge showed the new posts.
    assert "找到 30 篇文章" in client.get("/search/", {"q": "tiling"}).content.decode()


def test_index_follows_publishing(client, home):
    post = make_post(home, "Warp specialization", paragraph="producer warps")
    assert titles(client, "producer") == [post.title]
    post.title = "Warp specialisation"
    post.body = [("paragraph", RichText("<p>consumer warps</p>"))]
    post.save_revision().publish()
    assert titles(client, "producer") == []
    assert titles(client, "consumer") == ["Warp specialisation"]
    post.unpublish()
    assert titles(client, "consumer") == []
    assert PostPage.objects.count() == 1


def test_only_the_newest_matches_are_ranked(home, monkeypatch):
    monkeypatch.setattr(search, "MAX_RESULTS", 3)
    oldest = make_post(home, "Tiling 入门", paragraph="tiling tiling tiling")
    older = make_post(home, "Shared memory", paragraph="tiling once")
    kept = [
        make_post(home, "Tensor cores", paragraph="tiling for mma"),
        make_post(home, "Tiling 进阶", paragraph="tiling, again"),
        make_post(home, "Double buffering", paragraph="tiling and copies"),
    ]
    # Newer still, but never shown: they must not take the bound's places.
    make_post(home, "Tiling draft", paragraph="tiling", live=False)
    private = make_post(home, "Tiling, private", paragraph="tiling")
    PageViewRestriction.objects.create(
        page=private, restriction_type=PageViewRestriction.PASSWORD, password="x"
    )
    found = PostPage.search_ids("tiling")
    assert oldest.pk not in found and older.pk not in found
    # The newest three, the title hit first.
    assert found[0] == kept[1].pk
    assert sorted(found) == sorted(post.pk for post in kept)


def test_snippets_follow_the_body_and_are_not_made_again(client, home, monkeypatch):
    post = make_post(home, "Warp specialization", paragraph="producer warps wait")
    calls = []
    monkeypatch.setattr(
        body,
        "snippet_passages",
        lambda value: calls.append(value) or search_passages(value),
    )
    client.get("/search/", {"q": "producer"})
    calls.clear()
    hit = client.get("/search/", {"q": "producer"}).context["hits"][0]
    assert "<mark>producer</mark> warps wait" in str(hit.snippet)
    assert calls == [], "the body's text was extracted again"
    post.body = [("paragraph", RichText("<p>producer warps signal</p>"))]
    post.save_revision().publish()
    hit = client.get("/search/", {"q": "producer"}).context["hits"][0]
    assert "<mark>producer</mark> warps signal" in str(hit.snippet)


search_passages = text.snippet_passages


def test_cached_results_follow_the_index_a_worker_updates(
    client, home, settings, django_capture_on_commit_callbacks
):
    # With a queue (not the tests' immediate one), the index takes the new
    # text when a worker runs. A search asked meanwhile still finds the old
    # text; once the index has the new one, the results shown must too.
    from django_tasks import default_task_backend

    settings.PAGE_CACHE_SECONDS = 3600
    settings.LISTING_CACHE_SECONDS = 3600
    post = make_post(home, "Warp specialization", paragraph="producer warps")
    settings.TASKS = {
        "default": {"BACKEND": "django_tasks.backends.dummy.DummyBackend"}
    }
    post.body = [("paragraph", RichText("<p>consumer warps</p>"))]
    with django_capture_on_commit_callbacks(execute=True):
        post.save_revision().publish()
    assert titles(client, "consumer") == []  # the worker has not run

    queued = list(default_task_backend.results)
    assert queued, "the publish queued nothing"
    with django_capture_on_commit_callbacks(execute=True):
        for result in queued:
            result.task.call(*result.args, **result.kwargs)

    shown = client.get("/search/", {"q": "consumer"}).content.decode()
    assert "找到 1 篇文章" in shown
    assert post.title in shown
