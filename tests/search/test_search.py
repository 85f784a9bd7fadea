"""Search: Chinese, English and code; ranking, snippets, paging and bad input.

The corpus is small but realistic: posts on quantization, GPU architecture,
CUDA and systems, in Chinese and English, with code. Every query of the
relevance table must rank its post first, on SQLite and on PostgreSQL.
"""

import datetime

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from wagtail.models import PageViewRestriction
from wagtail.rich_text import RichText

import blog.text
from blog.models import PostPage
from search import engine as search
from search.engine import (
    MAX_QUERY_LENGTH,
    clean_query,
    index_tokens,
    query_tokens,
    search_post_ids,
)
from tests.factories import PostPageFactory, SeriesPageFactory

CORPUS = [
    # (title, tags, paragraph, code)
    (
        "INT8 推理中的 scale 选择",
        ["int8"],
        "对称量化把零点固定为 0，scale 取 max(|x|)/127；非对称量化多存一个零点，"
        "能表示偏斜的激活分布。",
        "def quantize(x, scale):\n"
        "    return torch.clamp(torch.round(x / scale), -127, 127)",
    ),
    (
        "Warp Scheduler 笔记",
        ["gpu-arch"],
        "每个 SM 分成四个分区，每个分区有一个 warp 调度器，每个周期从就绪的 warp "
        "中选一条指令发射；停顿的 warp 不占发射槽。",
        "",
    ),
    (
        "共享内存 Bank Conflict 详解",
        ["cuda", "smem"],
        "共享内存被分成 32 个 bank，同一个 warp 访问同一 bank 的不同地址就会冲突；"
        "给 tile 多加一列 padding 就能消除冲突。",
        "__shared__ float tile[32][33];\n"
        "tile[threadIdx.y][threadIdx.x] = in[idx];\n"
        "__syncthreads();\n"
        "out[idx] = tile[threadIdx.x][threadIdx.y];",
    ),
    (
        "Tensor Core 片段加载",
        ["tensor-core"],
        "ldmatrix 一次把 8x8 的矩阵从共享内存搬到寄存器，正好是 mma 需要的布局。",
        'asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 '
        '{%0,%1,%2,%3}, [%4];");',
    ),
    (
        "异步拷贝与多级流水线",
        ["cuda", "ampere"],
        "Ampere 引入 cp.async，可以绕过寄存器直接从全局内存拷贝到共享内存，"
        "配合多级缓冲隐藏延迟。",
        'asm volatile("cp.async.cg.shared.global [%0], [%1], 16;");\n'
        'asm volatile("cp.async.commit_group;");',
    ),
    (
        "Softmax 的数值稳定实现",
        ["cuda", "softmax"],
        "先减去最大值再取指数；在 kernel 里用 __expf 代替 expf 可以快很多，"
        "精度损失可以接受。",
        "float e = __expf(x - m);",
    ),
    (
        "Notes on CUDA Stream Concurrency",
        ["cuda", "streams"],
        "Kernels launched into different streams may run concurrently. Real "
        "overlap depends on free SMs and on the copy engines.",
        "cudaMemcpyAsync(dst, src, n, cudaMemcpyHostToDevice, stream);",
    ),
    (
        "GPTQ: Post-Training Quantization for GPT Models",
        ["quantization", "llm"],
        "GPTQ quantizes weights one column at a time, using second-order "
        "information from the Hessian to correct the remaining columns.",
        "",
    ),
    (
        "FlashAttention 笔记",
        ["attention"],
        "分块计算注意力，用在线 softmax 避免写回 N×N 的矩阵，是 IO 感知的算法。",
        "",
    ),
    (
        "Roofline 模型入门",
        ["performance"],
        "算术强度等于 FLOPs 除以访存字节数（arithmetic intensity）；"
        "低于拐点时带宽受限，高于拐点时计算受限。",
        "",
    ),
    (
        "CSAPP 第 7 章：链接",
        ["csapp"],
        "链接器把多个可重定位目标文件合并成一个可执行文件，主要做符号解析和重定位。",
        "",
    ),
    (
        "Understanding the Linux Page Cache",
        ["linux"],
        "The page cache keeps file data in memory; dirty pages are written back "
        "by the flusher threads.",
        "",
    ),
    (
        "GEMM 优化：从 naive 到 cuBLAS 的 80%",
        ["cuda", "gemm"],
        "分块 tiling、双缓冲和向量化访存；每个线程一次读一个 float4。",
        "float4 v = reinterpret_cast<const float4*>(a)[i];",
    ),
    (
        "Reduction 与 warp shuffle",
        ["cuda"],
        "用 __shfl_down_sync 在 warp 内做归约，省掉共享内存和同步。",
        "val += __shfl_down_sync(0xffffffff, val, offset);",
    ),
    (
        "Scheduling Policies in Operating Systems",
        ["os"],
        "The CFS scheduler picks the task with the smallest virtual runtime; "
        "older schedulers used fixed time slices and round-robin queues.",
        "",
    ),
]

# (query, title of the post that must rank first). Each query's post is the
# only one that answers it, or, where several match, the one a reader means:
# the title hit (共享内存, Tensor Core) or the one with every word.
RELEVANCE = [
    ("量化", "INT8 推理中的 scale 选择"),  # its body says 对称量化 / 非对称量化
    ("对称量化", "INT8 推理中的 scale 选择"),
    ("调度器", "Warp Scheduler 笔记"),  # the notes say "warp 调度器"
    ("warp scheduler", "Warp Scheduler 笔记"),
    ("__syncthreads", "共享内存 Bank Conflict 详解"),
    ("syncthreads", "共享内存 Bank Conflict 详解"),
    ("ldmatrix", "Tensor Core 片段加载"),
    ("cp.async", "异步拷贝与多级流水线"),
    ("__expf", "Softmax 的数值稳定实现"),
    ("concurrencies", "Notes on CUDA Stream Concurrency"),
    ("concurrently", "Notes on CUDA Stream Concurrency"),
    ("cudaMemcpyAsync", "Notes on CUDA Stream Concurrency"),
    ("quantization", "GPTQ: Post-Training Quantization for GPT Models"),
    ("quantized weights", "GPTQ: Post-Training Quantization for GPT Models"),
    ("共享内存", "共享内存 Bank Conflict 详解"),  # title hit; three bodies say it
    ("bank conflict", "共享内存 Bank Conflict 详解"),
    ("在线 softmax", "FlashAttention 笔记"),
    ("算术强度", "Roofline 模型入门"),
    ("arithmetic intensity", "Roofline 模型入门"),
    ("链接器", "CSAPP 第 7 章：链接"),
    ("重定位", "CSAPP 第 7 章：链接"),
    ("page cache", "Understanding the Linux Page Cache"),
    ("dirty pages", "Understanding the Linux Page Cache"),
    ("float4", "GEMM 优化：从 naive 到 cuBLAS 的 80%"),
    ("cuBLAS", "GEMM 优化：从 naive 到 cuBLAS 的 80%"),
    ("__shfl_down_sync", "Reduction 与 warp shuffle"),
    ("归约", "Reduction 与 warp shuffle"),
    ("CFS scheduler", "Scheduling Policies in Operating Systems"),
    ("Tensor Core", "Tensor Core 片段加载"),
    ("threadIdx.x", "共享内存 Bank Conflict 详解"),
    ("m8n8", "Tensor Core 片段加载"),
    ("smem", "共享内存 Bank Conflict 详解"),  # a tag
]


def make_post(parent, title, tags=(), paragraph="", code="", **kwargs):
    fields = {"body__0__paragraph__value": RichText(f"<p>{paragraph}</p>")}
    if code:
        fields["body__1__code__code"] = code
    post = PostPageFactory(
        parent=parent, title=title, summary="", tags=list(tags), **fields, **kwargs
    )
    if tags:
        # As the admin does: publishing indexes the post with its saved tags.
        post.save_revision().publish()
    return post


@pytest.fixture
def corpus(home):
    section = SeriesPageFactory(parent=home, title="CUDA", slug="cuda")
    posts = {}
    for n, (title, tags, paragraph, code) in enumerate(CORPUS):
        posts[title] = make_post(
            section if n % 2 else home, title, tags, paragraph, code, slug=f"p{n}"
        )
    return posts


def titles(client, query, **params):
    response = client.get("/search/", {"q": query, **params})
    assert response.status_code == 200
    return [hit.post.title for hit in response.context["hits"]]


@pytest.mark.parametrize(("query", "expected"), RELEVANCE)
def test_relevance(client, corpus, query, expected):
    found = titles(client, query)
    assert found, f"{query!r} found nothing"
    assert found[0] == expected, f"{query!r} ranked {found}"


def test_relevance_table_covers_chinese_english_and_code():
    queries = [q for q, _ in RELEVANCE]
    assert len(queries) >= 20
    assert sum(any("\u4e00" <= c <= "\u9fff" for c in q) for q in queries) >= 8
    assert sum(q.isascii() and q.replace(" ", "").isalpha() for q in queries) >= 8
    assert sum(any(c in "_." for c in q) for q in queries) >= 5


def test_chinese_query_finds_a_longer_word(client, corpus):
    assert "INT8 推理中的 scale 选择" in titles(client, "量化")
    assert "Warp Scheduler 笔记" in titles(client, "调度器")


def test_every_word_of_a_query_must_match(client, corpus):
    assert titles(client, "ldmatrix softmax") == []


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


def test_snippet_and_title_are_highlighted(client, corpus):
    response = client.get("/search/", {"q": "ldmatrix"})
    html = response.content.decode()
    assert "<mark>ldmatrix</mark> 一次把 8x8 的矩阵" in html
    hit = response.context["hits"][0]
    assert str(hit.title) == "Tensor Core 片段加载"
    response = client.get("/search/", {"q": "concurrencies"})
    hit = response.context["hits"][0]
    assert "<mark>Concurrency</mark>" in str(hit.title)
    assert "run <mark>concurrently</mark>" in str(hit.snippet)


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


def test_empty_query_shows_a_prompt(client, corpus):
    for params in ({}, {"q": ""}, {"q": "   "}, {"q": "，。！"}):
        response = client.get("/search/", params)
        assert response.status_code == 200
        assert response.context["hits"] == []
    html = client.get("/search/").content.decode()
    assert "输入关键词搜索全部文章" in html
    assert '<meta name="robots" content="noindex, follow">' in html
    assert "没有找到" in client.get("/search/", {"q": "，。！"}).content.decode()


def test_no_results_says_so(client, corpus):
    response = client.get("/search/", {"q": "kubernetes"})
    assert "没有找到包含“kubernetes”的文章" in response.content.decode()


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
    for token in index_tokens("cp.async <b>x</b> 3.14 sm_80 std::vector 量化！"):
        assert token.isalnum() and token == token.lower()


def search_queries(client, query):
    with CaptureQueriesContext(connection) as captured:
        response = client.get("/search/", {"q": query})
    assert response.status_code == 200
    return [q["sql"] for q in captured.captured_queries]


def test_query_count_does_not_grow_with_results(client, home):
    date = datetime.date(2025, 1, 1)  # Older: listed after the first five.
    for n in range(5):
        make_post(home, f"Tile {n}", ["cuda", f"t{n}"], "tiling", slug=f"a{n}")
    client.get("/search/", {"q": "tiling"})  # warm per-process caches
    few = search_queries(client, "tiling")
    for n in range(25):
        make_post(home, f"Tile {n + 5}", ["cuda"], "tiling", slug=f"b{n}", date=date)
    # New posts on the page: their bodies' text is made, the bodies in one query.
    cold = search_queries(client, "tiling")
    many = search_queries(client, "tiling")
    assert len(many) == len(few), "\n".join(many)
    assert len(cold) == len(few) + 1, "\n".join(cold)
    # Header navigation (site, sections), view restrictions, the search (ids,
    # titles, summaries), the page's posts, their tags.
    assert len(few) <= 10, "\n".join(few)


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


def test_results_are_wagtails_when_under_the_bound(corpus):
    # The index is read directly on SQLite and PostgreSQL; Wagtail's own
    # `.search()` must find the same posts in the same order.
    queries = [q for q, _ in RELEVANCE] + ["warp", "cuda", "内存", "kernel 共享内存"]
    for query in queries:
        tokens = query_tokens(query)
        assert search._index_matches(tokens) is not None, "the index was not read"
        wagtail = search._rank(search._backend_matches(tokens), tokens)
        assert search_post_ids(query) == wagtail, query


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
    found = search_post_ids("tiling")
    assert oldest.pk not in found and older.pk not in found
    # The newest three, the title hit first.
    assert found[0] == kept[1].pk
    assert sorted(found) == sorted(post.pk for post in kept)


def test_snippets_follow_the_body_and_are_not_made_again(client, home, monkeypatch):
    post = make_post(home, "Warp specialization", paragraph="producer warps wait")
    calls = []
    monkeypatch.setattr(
        blog.text, "body_text", lambda body: calls.append(body) or search_body(body)
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


search_body = blog.text.body_text
