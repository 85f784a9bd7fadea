"""`manage.py import_markdown` builds the page tree from a vault and keeps it in step."""

import datetime
import shutil
from pathlib import Path
from urllib.parse import unquote

import pytest
from taggit.models import Tag
from wagtail.contrib.redirects.models import Redirect
from wagtail.images import get_image_model
from wagtail.models import Page

from blog.models import PostPage, SeriesPage
from tests.factories import SeriesPageFactory
from tests.vault.importer.runs import (
    MAIN,
    children,
    line_of,
    outcomes,
    post,
)

pytestmark = pytest.mark.django_db

CORPUS = Path(__file__).resolve().parents[3] / ".." / "shared" / "corpus"


@pytest.fixture
def imported(vault, run_import):
    run = run_import(vault)
    assert run.error is None, run.out
    return run


# The tree ------------------------------------------------------------------


def test_folders_become_series_and_files_posts_in_reading_order(imported, home):
    assert outcomes(imported.out) == {
        "created": (11, 5),
        "updated": (0, 0),
        "unchanged": (0, 0),
        "failed": (0, 0),
    }
    imported_children = [s for s in children("/home/") if s not in ("tags", "archive")]
    # Weighted sections first, then undated-name posts by date, then the rest.
    assert imported_children[:2] == ["cuda", "notes"]
    assert set(imported_children) == {
        "cuda",
        "notes",
        "about",
        "diagramexcalidraw",
        "scratch",
        "drafts",
    }
    # Natural order (2 before 10), then a sub-series; weights inside cute/.
    assert children("/home/cuda/") == ["2-shared-memory", "10-warp-shuffle", "cute"]
    assert children("/home/cuda/cute/") == ["tiled-copy", "layout"]
    assert children("/home/notes/") == ["csapp"]
    assert children("/home/notes/csapp/") == ["7-链接", "8-异常控制流", "10-虚拟内存"]
    assert not Page.objects.filter(title="The root index is ignored").exists()


def test_series_take_title_intro_and_ordering_from_their_index(imported):
    cuda = SeriesPage.objects.get(source_path="cuda")
    assert cuda.title == "CUDA"
    assert cuda.ordering == SeriesPage.Ordering.NEWEST
    smem = post(MAIN)
    # The intro is a body like a post's: every block kept, in order.
    intro = list(cuda.intro.raw_data)
    assert [block["type"] for block in intro] == [
        "paragraph",
        "heading",
        "paragraph",
        "markdown",
        "paragraph",
        "math",
        "image",
    ]
    assert intro[0]["value"] == (
        "<p><b>CUDA</b> 编程笔记：<i>共享内存</i>、<code>warp</code> 与 "
        '<a href="https://docs.nvidia.com/cuda/">官方文档</a>，公式 $O(n^2)$ 保持原样。'
        f'从 <a linktype="page" id="{smem.pk}">2-shared-memory</a> 读起。</p>'
    )
    assert intro[1]["value"] == {"text": "本栏目", "level": "h2"}
    assert intro[2]["value"] == "<ul><li>列表项保留为列表</li></ul>"
    assert intro[3]["value"].startswith('!!! tip "环境"\n    需要 CUDA 12')
    assert intro[5]["value"]["tex"] == "B = \\frac{\\text{bytes}}{t}"
    assert intro[6]["value"]["alt"] == "本栏目的封面"
    notes = SeriesPage.objects.get(source_path="notes")
    assert notes.title == "读书笔记"
    # No index.md: the folder name is the title.
    assert SeriesPage.objects.get(source_path="notes/CSAPP").title == "CSAPP"
    assert SeriesPage.objects.get(source_path="cuda/cute").title == "cute"


def test_pages_are_published_except_drafts(imported):
    assert post(MAIN).live
    wip = post("drafts/wip.md")
    assert not wip.live
    assert wip.get_latest_revision() is not None


# Front matter ----------------------------------------------------------------


def test_front_matter_gives_title_dates_summary_cover_and_comments(imported):
    smem = post(MAIN)
    assert smem.title == "CUDA: 共享内存与 Bank Conflict"
    assert smem.date == datetime.date(2026, 8, 5)
    assert smem.updated == datetime.date(2026, 8, 20)
    assert smem.summary == "共享内存的 32 个 bank，以及如何避开冲突。"
    assert smem.allow_comments is True
    assert smem.cover is not None
    assert (smem.cover.width, smem.cover.height) == (8, 6)
    linking = post("notes/CSAPP/7-链接.md")
    assert (linking.title, linking.date) == ("链接", datetime.date(2023, 9, 18))
    ecf = post("notes/CSAPP/8 异常控制流.md")
    assert ecf.updated == datetime.date(2023, 10, 1)
    vm = post("notes/CSAPP/10-虚拟内存.md")
    assert vm.updated == vm.date == datetime.date(2023, 9, 25)


def test_titles_without_front_matter_come_from_the_h1_or_the_file_name(imported, vault):
    about = post("about.md")
    assert about.title == "About this vault"
    assert [b.block_type for b in about.body] == ["paragraph"]  # the H1 is dropped
    scratch = post("scratch.md")
    assert scratch.title == "scratch"
    mtime = datetime.date.fromtimestamp((vault / "scratch.md").stat().st_mtime)
    assert scratch.date == scratch.updated == mtime


def test_tags_are_one_per_name_whatever_the_case(imported):
    assert sorted(t.name for t in post(MAIN).tags.all()) == ["CUDA", "GPU"]
    warp = post("cuda/10-warp-shuffle.md")
    assert sorted(t.name for t in warp.tags.all()) == ["CUDA", "Warp", "shuffle"]
    assert Tag.objects.filter(name__iexact="cuda").count() == 1


# Bodies ----------------------------------------------------------------------


def test_a_post_body_is_split_into_blocks(imported):
    body = post(MAIN).body
    assert [b.block_type for b in body] == [
        "paragraph",
        "paragraph",
        "heading",
        "math",
        "paragraph",
        "math",
        "code",
        "code",
        "code",
        "code",
        "image",
        "table",
        *["callout"] * 10,
        "quote",
        "markdown",
        "html_figure",
        "image",  # an inline <svg>: a drawing of the media library
        "markdown",
        "html_figure",
    ]
    raw = body.raw_data
    assert raw[0]["value"].startswith(
        "<p>共享内存按 4 字节分成 32 个 bank，带宽为 $B = 32 \\times 4$ 字节/周期。\n"
    )
    assert (
        "<ul><li>同一 warp 访问同一 bank 的不同地址会冲突<ul><li>广播不算冲突</li></ul></li>"
        in (raw[0]["value"])
    )
    assert raw[1]["value"] == "<p>第二个段落块，一杯咖啡 \\$5。</p>"
    assert raw[3]["value"] == {
        "tex": "T = T_0 \\cdot n_{\\text{conflict}}",
        "label": "1",
        "numbered": False,
    }
    assert raw[5]["value"] == {
        "tex": "t = \\frac{n}{32}",
        "label": "",
        "numbered": False,
    }
    code = [b["value"] for b in raw if b["type"] == "code"]
    assert [
        (c["language"], c["filename"], c["highlight_lines"], c["line_numbers"])
        for c in code
    ] == [
        ("cuda", "transpose.cu", "2-3", True),
        ("cpp", "", "", True),
        ("bash", "", "", True),
        ("python", "bench.py", "", False),
    ]
    image = body[10].value
    assert (image["alt"], image["caption"]) == ("共享内存示意", "图 1：32 个 bank")
    table = raw[11]["value"]
    assert table["table_caption"] == "步长与 $n$ 路冲突"
    assert table["data"] == [
        ["访问模式", "冲突路数", "时间"],
        ["连续", "1", "$t$"],
        ["步长 2", "2", "$2t$"],
    ]
    callouts = [
        (b["value"]["kind"], b["value"]["title"]) for b in raw if b["type"] == "callout"
    ]
    assert callouts == [
        ("note", ""),
        ("tip", "自定义标题"),
        ("warning", "折叠的警告"),
        ("danger", ""),
        ("info", ""),
        ("info", ""),
        ("warning", ""),
        ("danger", ""),
        ("tip", ""),
        ("note", ""),
    ]
    assert raw[22]["value"] == {
        "quote": "<p>过早优化是万恶之源。</p>",
        "source": "Donald Knuth",
    }
    assert raw[23]["value"] == (
        "Bank 冲突的说法来自硬件手册[^hw]。\n\n"
        "[^hw]: 见 CUDA C++ Programming Guide 的 Shared Memory 一节。"
    )
    iframe, svg = raw[24]["value"], raw[25]["value"]
    assert iframe["html"].startswith("<!doctype html>") and iframe["height"] == 360
    drawing = get_image_model().objects.get(pk=svg["image"])
    assert drawing.file.name.endswith(".svg")
    assert drawing.file.open("rb").read().startswith(b'<svg viewBox="0 0 100 20"')
    assert raw[27]["value"] == {
        "html": '<div id="fig">Hello</div>',
        "height": 200,
        "caption": '一个 "HTML" 图',
    }


def test_links_between_files_become_page_links(imported):
    smem, layout = post(MAIN), post("cuda/cute/layout.md")
    warp = post("cuda/10-warp-shuffle.md").body.raw_data[0]["value"]
    assert f'<a linktype="page" id="{smem.pk}">共享内存</a>' in warp
    assert f'<a linktype="page" id="{layout.pk}">cute/layout</a>' in warp
    # The broken link is kept as its text.
    assert "失效的链接：does-not-exist。" in warp
    # Links to files imported later are filled in after every page exists.
    about = post("about.md").body.raw_data[0]["value"]
    linking = post("notes/CSAPP/7-链接.md")
    assert f'<a linktype="page" id="{linking.pk}">the linking notes</a>' in about
    assert post("about.md").revisions.count() == 1


def test_images_are_imported_once_by_content(imported):
    # cover, smem.png = smem-copy.png, and an inline <svg> drawing
    assert get_image_model().objects.count() == 3
    smem_image = post(MAIN).body[10].value["image"]
    assert post("notes/CSAPP/7-链接.md").body[2].value["image"] == smem_image


def test_the_report_names_file_and_line_of_every_warning(imported, vault):
    main = vault / MAIN
    out = imported.out
    assert f"{MAIN}:2: front matter is not valid YAML" in out
    assert (
        f"{MAIN}:{line_of(main, 'gone.png')}: missing image: C:\\Users\\me\\Desktop\\gone.png"
        in out
    )
    warp = vault / "cuda/10-warp-shuffle.md"
    assert (
        f"cuda/10-warp-shuffle.md:{line_of(warp, 'does-not-exist')}: "
        "broken link to does-not-exist: no such file"
    ) in out
    assert "warnings: 3" in out


def test_a_series_intro_renders_code_math_callouts_and_images(client, imported):
    html = client.get("/cuda/").content.decode()

    intro = html[html.index('class="intro') : html.index('class="series-posts"')]
    assert '<aside class="callout callout-tip">' in intro
    assert 'class="highlight' in intro and "nvidia-smi" in intro
    assert intro.count('class="katex-display"') == 1
    assert "<img" in intro and 'alt="本栏目的封面"' in intro
    for raw in ("!!!", "$$", "{ width=", "```"):
        assert raw not in intro
    assert "katex/katex.min.css" in html
    assert "css/pygments.css" in html


def test_attribute_lists_never_reach_a_title(tmp_path, run_import, client):
    (tmp_path / "a.md").write_text(
        '---\ntitle: "Roofline 模型 { #roofline }"\n---\n\nText.\n', "utf-8"
    )
    (tmp_path / "b.md").write_text("# Tiling {: .center }\n\nText.\n", "utf-8")
    assert run_import(tmp_path).error is None

    assert post("a.md").title == "Roofline 模型"
    assert post("b.md").title == "Tiling"
    assert "{" not in client.get("/archive/").content.decode().split("<main", 1)[1]


def test_a_rendered_post_shows_no_markdown_syntax(client, imported):
    response = client.get("/cuda/2-shared-memory/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "$$" not in html
    assert "[!" not in html
    assert html.count('class="katex"') >= 6
    assert '<span class="k">' in html or '<span class="kt">' in html  # Pygments
    assert "<table" in html and "callout-tip" in html
    assert 'class="footnote' in html or "footnotes" in html
    assert 'href="/cuda/10-warp-shuffle/"' in html


# Old URLs --------------------------------------------------------------------


@pytest.mark.parametrize(
    "old, new",
    [
        ("/notes/CSAPP/7-链接", "/notes/csapp/7-链接/"),
        ("/notes/CSAPP/7-链接/", "/notes/csapp/7-链接/"),
        ("/notes/CSAPP/8-异常控制流", "/notes/csapp/8-异常控制流/"),
        ("/notes/CSAPP", "/notes/csapp/"),
        ("/cuda/old-smem", "/cuda/2-shared-memory/"),
        ("/legacy/shared-memory/", "/cuda/2-shared-memory/"),
    ],
)
def test_old_quartz_paths_and_aliases_redirect_permanently(client, imported, old, new):
    response = client.get(old)
    assert response.status_code == 301
    assert unquote(response["Location"]) == new


def test_no_redirect_loops_onto_the_page_itself(imported):
    assert not Redirect.objects.filter(old_path="/cuda/2-shared-memory").exists()
    assert not Redirect.objects.filter(old_path="/about").exists()


# Options ---------------------------------------------------------------------


def test_draft_imports_every_page_unpublished(vault, run_import):
    run = run_import(vault, "--draft")
    assert run.error is None
    imported = Page.objects.filter(
        pk__in=[
            *PostPage.objects.filter(source_path__gt="").values_list("pk", flat=True)
        ]
    )
    assert imported.count() == 11
    assert not imported.filter(live=True).exists()
    assert not SeriesPage.objects.filter(live=True).exists()


def test_exclude_skips_matching_paths(vault, run_import):
    run = run_import(vault, "--exclude", "drafts/*", "--exclude", "*.excalidraw.md")
    assert run.error is None
    sources = set(PostPage.objects.values_list("source_path", flat=True))
    assert "drafts/wip.md" not in sources
    assert "diagram.excalidraw.md" not in sources
    assert not SeriesPage.objects.filter(source_path="drafts").exists()
    assert outcomes(run.out)["created"] == (9, 4)


def test_parent_imports_under_another_page(home, vault, run_import, client):
    section = SeriesPageFactory(parent=home, slug="section", title="Section")
    run = run_import(
        vault / "notes", "--parent", "/section/", "--old-url-prefix", "/notes/"
    )
    assert run.error is None, run.out
    assert children("/home/section/") == ["csapp"]
    assert children("/home/section/csapp/") == ["7-链接", "8-异常控制流", "10-虚拟内存"]
    assert post("CSAPP/7-链接.md").get_parent().get_parent().pk == section.pk
    response = client.get("/notes/CSAPP/7-链接")
    assert unquote(response["Location"]) == "/section/csapp/7-链接/"


def test_an_unknown_parent_is_refused(vault, run_import):
    run = run_import(vault, "--parent", "/nowhere/")
    assert run.error is not None
    assert "No page at '/nowhere/'" in str(run.error)


def test_a_single_file_imports_under_the_parent(vault, run_import, home):
    run = run_import(vault / "scratch.md")
    assert run.error is None
    page = post("scratch.md")
    assert page.get_parent().pk == home.pk


# The author's real posts -----------------------------------------------------


@pytest.mark.skipif(
    not CORPUS.is_dir(), reason=f"the shared corpus is not at {CORPUS} (CI has it)"
)
def test_the_corpus_posts_import_and_render(tmp_path, run_import, client):
    shutil.copytree(CORPUS, tmp_path / "corpus")
    run = run_import(tmp_path / "corpus", "--exclude", "README.md")
    assert run.error is None, run.out
    assert outcomes(run.out)["created"] == (2, 0)
    assert (
        "7-链接.md:25: missing image: C:\\Users\\我\\Desktop\\MyblogImg\\csapp\\ELF.png"
        in run.out
    )
    for source, min_math in (("从GEMM实践CUDA优化.md", 60), ("7-链接.md", 0)):
        page = post(source)
        response = client.get(page.url)
        assert response.status_code == 200
        html = response.content.decode()
        assert "$$" not in html
        for marker in ("[!NOTE]", "[!TIP]", "[!WARNING]", "[!"):
            assert marker not in html
        assert html.count('class="katex"') >= min_math
        assert '<span class="k">' in html or '<span class="kt">' in html
        assert "math-error" not in html
    gemm = post("从GEMM实践CUDA优化.md")
    assert gemm.title == "从 GEMM 实践 CUDA 优化"
    assert gemm.date == datetime.date(2025, 12, 8)
    assert [b.block_type for b in gemm.body].count("callout") == 2
    response = client.get("/从GEMM实践CUDA优化")
    assert response.status_code == 301
    assert unquote(response["Location"]) == "/从gemm实践cuda优化/"


def test_progress_and_the_file_list_on_request(vault, run_import):
    run = run_import(vault, "--progress", "--verbosity", "2")
    assert "[16/16]" in run.err  # 11 posts and 5 series
    assert "  created  cuda/2-shared-memory.md" in run.out
