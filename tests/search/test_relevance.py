"""Relevance: every query of the table ranks its post first, on SQLite and PostgreSQL.

The corpus is small but realistic: posts on quantization, GPU architecture,
CUDA and systems, in Chinese and English, with code. It is built once for the
module (tests/shared_data.py); the other search tests start from an empty site.
"""

import pytest

from blog.models import HomePage, PostPage
from search import query as search
from search.tokens import query_tokens
from tests.factories import SeriesPageFactory
from tests.search.posts import make_post, titles
from tests.shared_data import kept_for_the_module

pytestmark = pytest.mark.django_db


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


@pytest.fixture(scope="module", autouse=True)
def corpus(django_db_setup, django_db_blocker):
    """The corpus, built once for the module; each test's changes are undone."""

    def build():
        home = HomePage.objects.get()
        section = SeriesPageFactory(parent=home, title="CUDA", slug="cuda")
        for n, (title, tags, paragraph, code) in enumerate(CORPUS):
            make_post(
                section if n % 2 else home, title, tags, paragraph, code, slug=f"p{n}"
            )

    with kept_for_the_module(django_db_blocker, build):
        yield


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
    assert titles(client, "ldmatrix") and titles(client, "softmax")
    assert titles(client, "ldmatrix softmax") == []


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


def test_results_are_wagtails_when_under_the_bound(corpus):
    # The index is read directly on SQLite and PostgreSQL; Wagtail's own
    # `.search()` must find the same posts in the same order.
    queries = [q for q, _ in RELEVANCE] + ["warp", "cuda", "内存", "kernel 共享内存"]
    for query in queries:
        tokens = query_tokens(query)
        assert search._index_matches(tokens, PostPage.objects.visible()) is not None, (
            "the index was not read"
        )
        wagtail = search._rank(
            search._backend_matches(tokens, PostPage.objects.visible()), tokens
        )
        assert PostPage.search_ids(query) == wagtail, query
