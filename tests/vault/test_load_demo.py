"""`manage.py load_demo` builds the author's blog as its two public pages show it.

The demo is loaded once for the module (tests/shared_data.py); each test's own
changes are undone. How it treats a site that is not empty, or not migrated, is
in test_load_demo_on_a_used_site.py.

The demo is the Markdown folder vault/demo/content/, imported. The expected
titles below are copied from ../shared/seeds/: `000_…` is the `#cuda` tag
page, `001_…` the CSAPP series page with the "最近更新" sidebar. They are
written out here, not read from the folder, so the tests check the demo
against the seeds rather than against itself.
"""

import datetime
import re
from io import StringIO

import pytest
from django.core.management import call_command
from taggit.models import Tag
from wagtail.images import get_image_model
from wagtail.models import Page, Revision

from blog.models import (
    ArchivePage,
    HomePage,
    PostPage,
    PostTag,
    SeriesPage,
    TagIndexPage,
)
from tests.shared_data import kept_for_the_module
from vault.management.commands.load_demo import CONTENT

pytestmark = pytest.mark.django_db

# Seed 000: the `#cuda` tag page, newest first, with the dates it shows.
CUDA_TAG_PAGE = [
    ("FlashAttention v1-v4：从 IO 感知到异步流水与硬件协同", "2026-09-18"),
    ("理解 H100：从硬件数据路径到 Nsight Compute 瓶颈分析", "2026-09-15"),
    (
        "Bridging the Gap Between Promise and Performance for Microscaling FP4 "
        "Quantization 论文笔记",
        "2026-09-13",
    ),
    ("FP4、FP8 与 INT8/INT4：数值范围、块缩放与推理计算精度", "2026-09-13"),
    ("CuTe 详解：以 FlashAttention-2 拆解 Layout、TiledCopy 与 TiledMMA", "2026-09-11"),
    ("从 Bank Conflict 到 CUTLASS Swizzle：推导 ldmatrix 的访存布局", "2026-09-08"),
    ("CUDA 中的 ILP 与 MLP：从依赖链到延迟隐藏", "2026-09-04"),
    ("CUDA Basic Concept", None),  # the seed shows no date
    ("cuda performance checklist", "2026-09-03"),
    ("quantization cuda", "2026-09-03"),
]

# Seed 001: the sidebar's "最近更新".
RECENT_UPDATES = [
    "FlashAttention v1-v4：从 IO 感知到异步流水与硬件协同",
    "理解 H100：从硬件数据路径到 Nsight Compute 瓶颈分析",
    "Bridging the Gap Between Promise and Performance for Microscaling FP4 "
    "Quantization 论文笔记",
    "FP4、FP8 与 INT8/INT4：数值范围、块缩放与推理计算精度",
    "从 EAGLE 到 DFlash 2：SGLang 与 SpecForge 的投机解码训练和推理",
    "README",
    "CuTe 详解：以 FlashAttention-2 拆解 Layout、TiledCopy 与 TiledMMA",
    "LLM 量化综述：数据格式、PTQ 与 QAT 的算法演进",
]

# Seed 001: "CSAPP · 6 篇文章", in the series' reading order.
CSAPP_SERIES = [
    "csapp-7-链接",
    "csapp-8-异常控制流",
    "csapp-在系统上运行程序",
    "csapp-程序的结构和执行",
    "csapp-5-优化程序性能",
    "csapp-6-存储器层次结构",
]

SEED_SUMMARIES = {
    "FlashAttention v1-v4：从 IO 感知到异步流水与硬件协同": "沿着 FlashAttention v1-v4 的论文",
    "从 EAGLE 到 DFlash 2：SGLang 与 SpecForge 的投机解码训练和推理": "沿 EAGLE、EAGLE-2",
    "README": "CuTe FlashAttention-2 case-study benchmark This directory preserves",
    "LLM 量化综述：数据格式、PTQ 与 QAT 的算法演进": "从 INT8、FP8、INT4、MXFP4、NVFP4",
}


def load_demo():
    out = StringIO()
    call_command("load_demo", stdout=out)
    return out.getvalue()


@pytest.fixture(scope="module", autouse=True)
def first_run(django_db_setup, django_db_blocker):
    """What load_demo says on an empty site (its report, its warnings); the demo."""

    def run():
        out, err = StringIO(), StringIO()
        call_command("load_demo", stdout=out, stderr=err)
        return out.getvalue(), err.getvalue()

    with kept_for_the_module(django_db_blocker, run) as said:
        yield said


@pytest.fixture
def demo(db, first_run):
    report, _ = first_run
    return report


@pytest.fixture
def posts(demo):
    return list(PostPage.objects.live().order_by("path"))


def body_block():
    return PostPage._meta.get_field("body").stream_block


def blocks_of(posts, block_type):
    return [
        (post, child.value)
        for post in posts
        for child in post.body
        if child.block_type == block_type
    ]


def state():
    """Count what a run of load_demo could create."""
    return {
        "pages": Page.objects.count(),
        "revisions": Revision.objects.count(),
        "images": get_image_model().objects.count(),
        "tags": Tag.objects.count(),
        "tagged": PostTag.objects.count(),
    }


def test_builds_the_sections_and_series_at_their_urls(client, demo):
    for url, title in [
        ("/cuda/", "CUDA"),
        ("/cuda/cute/", "CuTe"),
        ("/llm_inference/", "LLM 推理"),
        ("/notes/", "笔记"),
        ("/notes/csapp/", "CSAPP"),
    ]:
        response = client.get(url)
        assert response.status_code == 200, url
        assert isinstance(response.context["page"], SeriesPage)
        assert response.context["page"].title == title
    home = HomePage.objects.get()
    sections = home.sections()
    assert [s.slug for s in sections] == ["cuda", "llm_inference", "notes"]
    assert {s.ordering for s in sections} == {"newest"}
    assert SeriesPage.objects.get(slug="csapp").ordering == "explorer"
    assert SeriesPage.objects.get(slug="cute").ordering == "explorer"
    assert client.get("/tags/").status_code == 200
    assert client.get("/archive/").status_code == 200
    assert TagIndexPage.objects.count() == 1
    assert ArchivePage.objects.count() == 1


def test_sets_the_author_and_intro_of_the_home_page(client, demo):
    home = HomePage.objects.get()
    assert home.author == "刘芷溢"
    assert "GPU" in home.intro
    html = client.get("/").content.decode()
    assert "刘芷溢" in html


def test_csapp_series_holds_its_six_posts_in_reading_order(client, demo):
    csapp = SeriesPage.objects.get(slug="csapp")
    assert [post.title for post in csapp.posts()] == CSAPP_SERIES
    html = client.get("/notes/csapp/").content.decode()
    assert "6 篇文章" in html
    positions = [html.index(title) for title in CSAPP_SERIES]
    assert positions == sorted(positions)
    # Chinese slugs resolve.
    assert client.get("/notes/csapp/csapp-7-链接/").status_code == 200


def test_exactly_the_seed_posts_are_tagged_cuda_in_the_seed_order(client, demo):
    tagged = PostPage.objects.live().filter(tags__slug="cuda").order_by("-date", "-pk")
    assert [post.title for post in tagged] == [title for title, _ in CUDA_TAG_PAGE]
    for post, (_, shown) in zip(tagged, CUDA_TAG_PAGE, strict=True):
        if shown:
            assert post.date == datetime.date.fromisoformat(shown), post.title
    # Undated on the seed: between its neighbours.
    basic = PostPage.objects.get(title="CUDA Basic Concept")
    assert datetime.date(2026, 9, 3) <= basic.date <= datetime.date(2026, 9, 4)

    html = client.get("/tags/cuda/").content.decode()
    html = html[html.index("<main") : html.index("</main>")]  # not the explorer
    positions = [html.index(title) for title, _ in CUDA_TAG_PAGE]
    assert positions == sorted(positions)
    assert "从 EAGLE 到 DFlash 2" not in html


def test_recent_updates_are_the_seed_sidebar_in_order(client, demo):
    recent = PostPage.objects.recently_updated()[:8]
    assert [post.title for post in recent] == RECENT_UPDATES
    html = client.get("/").content.decode()
    positions = [html.index(title) for title in RECENT_UPDATES]
    assert positions == sorted(positions)


def test_posts_are_published_with_dates_tags_and_summaries(posts):
    assert len(posts) == 19
    titles = {post.title for post in posts}
    assert {title for title, _ in CUDA_TAG_PAGE} | set(RECENT_UPDATES) | set(
        CSAPP_SERIES
    ) == titles
    for post in posts:
        assert post.live and post.live_revision_id, post.title
        assert post.first_published_at is not None
        assert post.updated >= post.date, post.title
        assert post.summary.strip(), post.title
        names = post.tags.names()
        assert names, post.title
        for name in names:
            assert re.fullmatch(r"[a-z0-9-]+|[\u4e00-\u9fff]+", name), name
    for title, start in SEED_SUMMARIES.items():
        assert PostPage.objects.get(title=title).summary.startswith(start)
    # LLM and quantization posts live in their own section.
    assert (
        PostPage.objects.get(slug="eagle-to-dflash-2").get_parent().slug
        == "llm_inference"
    )
    assert PostPage.objects.get(slug="readme").get_parent().slug == "cute"


def test_running_twice_changes_nothing(demo):
    before = state()
    latest = {page.pk: page.latest_revision_id for page in Page.objects.all()}
    output = load_demo()
    assert state() == before
    assert {page.pk: page.latest_revision_id for page in Page.objects.all()} == latest
    assert "0 pages created, 26 already present" in output
    assert "0 images created" in output
    assert "home page unchanged" in output


def test_first_run_reports_what_it_created(demo):
    # The tag index and archive come with the data migration.
    assert "24 pages created, 2 already present" in demo
    assert "2 images created" in demo
    assert "home page updated" in demo


def test_images_are_imported_once_and_reused(posts):
    images = get_image_model().objects.order_by("title")
    assert images.count() == 2
    for img in images:
        assert img.file.name.endswith(".png")
        assert img.width > 0 and img.height > 0
        assert img.file_size and img.file_hash
    used = {value["image"].pk for _, value in blocks_of(posts, "image")}
    assert used == {img.pk for img in images}


def test_bodies_use_every_block_type_but_embed(posts):
    # The note block too: the ILP post embeds a section of another.
    used = {child.block_type for post in posts for child in post.body}
    assert used == set(body_block().child_blocks) - {"embed"}


def test_bodies_show_the_features_of_each_block(posts):
    headings = blocks_of(posts, "heading")
    assert {value["level"] for _, value in headings} >= {"h2", "h3"}
    # One post repeats a heading; its anchors still differ.
    repeated = [
        post
        for post in posts
        if len({t for _, t, _ in post.headings()}) < len(post.headings())
    ]
    assert repeated
    for post in repeated:
        anchors = [anchor for anchor, _, _ in post.headings()]
        assert len(set(anchors)) == len(anchors)

    paragraphs = [value.source for _, value in blocks_of(posts, "paragraph")]
    assert any("$5 or $10" in html for html in paragraphs)
    assert any("\\$" in html for html in paragraphs)
    assert any(re.search(r"\$[^$\s][^$]*\$", html) for html in paragraphs)

    sources = [value for _, value in blocks_of(posts, "markdown")]
    assert any(
        all(part in md for part in ("$$", "```", "| --- |", "[^", "> [!NOTE]"))
        for md in sources
    )

    codes = [value for _, value in blocks_of(posts, "code")]
    assert {c["language"] for c in codes} >= {
        "cuda",
        "cpp",
        "c",
        "python",
        "ptx",
        "bash",
    }
    assert any(c["filename"] for c in codes)
    assert any(re.fullmatch(r"\d+-\d+", c["highlight_lines"]) for c in codes)
    assert {bool(c["line_numbers"]) for c in codes} == {True, False}

    maths = [value for _, value in blocks_of(posts, "math")]
    assert any(r"\begin{aligned}" in m["tex"] for m in maths)
    assert any(m["label"] for m in maths)

    tables = [value for _, value in blocks_of(posts, "table")]
    assert any("$" in cell for t in tables for row in t["data"] for cell in row)
    assert len({value["kind"] for _, value in blocks_of(posts, "callout")}) >= 2
    assert any(
        "<script>" in value["html"] for _, value in blocks_of(posts, "html_figure")
    )


def test_bodies_pass_the_admin_validation(posts):
    stream_block = body_block()
    for post in posts:
        post.full_clean()
        stream_block.clean(post.body)  # raises on bad LaTeX, languages, line specs


def test_every_post_renders_with_its_math_typeset(client, posts):
    for post in posts:
        response = client.get(post.url)
        html = response.content.decode()
        assert response.status_code == 200, post.url
        assert "math-error" not in html, post.url
    eagle = client.get("/llm_inference/eagle-to-dflash-2/").content.decode()
    assert "$5 or $10" in eagle  # a price, not math
    assert 'class="katex' in eagle


def test_loads_without_warnings(db, first_run):
    report, warnings = first_run
    assert "24 pages created" in report  # it ran, and loaded the demo
    assert warnings == ""


def test_importing_the_demo_folder_after_it_changes_nothing(demo):
    """The demo is made by the importer: importing its folder again finds it all."""
    before = state()
    out = StringIO()
    call_command("import_markdown", str(CONTENT), stdout=out)
    assert re.search(r"created\s+0\s+0\n", out.getvalue())
    assert re.search(r"updated\s+0\s+0\n", out.getvalue())
    assert re.search(r"unchanged\s+19\s+5\n", out.getvalue())
    assert state() == before


def test_a_deleted_post_comes_back_on_the_next_run(client, demo):
    PostPage.objects.get(slug="ilp-and-mlp").delete()
    assert client.get("/cuda/ilp-and-mlp/").status_code == 404
    assert "1 pages created, 25 already present" in load_demo()
    assert client.get("/cuda/ilp-and-mlp/").status_code == 200
