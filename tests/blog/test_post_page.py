"""What a reader sees on a post page: TOC, reading time, series, backlinks, chrome."""

import datetime
import re
from pathlib import Path

import pytest
import wagtail_factories
from django.contrib.staticfiles import finders
from django.core.cache import caches
from django.db import connection
from django.template.loader import render_to_string
from django.test.utils import CaptureQueriesContext
from wagtail.models import PageViewRestriction
from wagtail.rich_text import RichText

from blog.blocks import ImageBlock
from blog.models.body import render_body
from blog.reading import reading_minutes
from blog.templatetags.picture_tags import picture_widths
from pagecache.cache import purge_all
from rendering import cache
from tests.factories import PostPageFactory, SeriesPageFactory

STATIC = Path(__file__).resolve().parents[2] / "static"


def with_body(post, body):
    """Give a post a new body and publish it (raw (type, value) pairs)."""
    post.body = body
    post.save_revision().publish()
    return post


def section(html: str, start: str, end: str) -> str:
    """Return the part of ``html`` from ``start`` to the next ``end``."""
    begin = html.index(start)
    return html[begin : html.index(end, begin)]


def get(client, post):
    response = client.get(post.url)
    assert response.status_code == 200
    return response.content.decode()


@pytest.fixture
def csapp(home):
    notes = SeriesPageFactory(parent=home, title="笔记", slug="notes")
    series = SeriesPageFactory(parent=notes, title="CSAPP", slug="csapp")
    posts = [
        PostPageFactory(parent=series, title=f"CSAPP 第{n}章", slug=f"ch{n}")
        for n in range(1, 4)
    ]
    return series, posts


def test_toc_lists_headings_in_order_with_math_typeset(client, home):
    post = PostPageFactory(parent=home, slug="toc")
    with_body(
        post,
        [
            ("heading", {"text": "引言", "level": "h2"}),
            ("heading", {"text": "分块 $B_r$", "level": "h3"}),
            ("markdown", "## 小结\n\n正文。\n\n#### 细节\n"),
        ],
    )
    html = get(client, post)
    toc = section(html, '<nav aria-label="目录">', "</nav>")
    assert "<summary>目录</summary>" in toc
    entries = re.findall(r'<li class="toc-level-(\d)"><a href="#([^"]+)">', toc)
    assert entries == [("2", "引言"), ("3", "分块-b-r"), ("2", "小结"), ("4", "细节")]
    # The heading's inline math is typeset by KaTeX in the TOC, not left as $…$.
    assert 'class="katex"' in toc and "$B_r$" not in toc
    # Every TOC link points at a heading id on the page.
    for _, anchor in entries:
        assert f'id="{anchor}"' in html


def test_post_without_headings_has_no_toc(client, home):
    post = PostPageFactory(parent=home, slug="plain", body__0__paragraph__value=None)
    html = get(client, post)
    assert f'<h1 class="post-title">{post.title}</h1>' in html
    assert 'aria-label="目录"' not in html


def test_reading_time_counts_chinese_characters_and_english_words(client, home):
    # 800 字 at 400 a minute, 440 words at 220 a minute, 27 code lines at 30 a
    # minute and one display formula at 5 s: 2 + 2 + 0.9 + 0.08, so 5 minutes.
    # Inline math is not counted as prose.
    prose = "<p>" + "字" * 800 + " " + "word " * 440 + "$x^2 + y^2$</p>"
    post = PostPageFactory(parent=home, slug="long")
    with_body(
        post,
        [
            ("paragraph", RichText(prose)),
            ("math", {"tex": r"\sum_i x_i", "label": ""}),
            (
                "code",
                {
                    "language": "c",
                    "code": "\n".join(f"int v{n};" for n in range(27)),
                    "filename": "",
                    "highlight_lines": "",
                    "line_numbers": True,
                },
            ),
        ],
    )
    assert "约 5 分钟" in get(client, post)


def test_reading_time_of_raw_markdown_counts_fenced_code_as_code():
    body = [
        {"type": "markdown", "value": "中" * 400 + "\n\n```c\n" + "x;\n" * 60 + "```\n"}
    ]
    assert reading_minutes(body) == 3  # 1 minute of text, 2 of code
    assert reading_minutes([]) == 1  # never "0 minutes"


def test_series_post_shows_part_k_of_n_and_neighbours(client, csapp):
    series, (first, second, third) = csapp
    draft = PostPageFactory(parent=series, title="草稿", slug="draft")
    draft.unpublish()
    html = get(client, second)
    assert "第 2 篇，共 3 篇" in html
    nav = section(html, '<nav class="series-nav', "</nav>")
    assert f'rel="prev" href="{first.url}"' in nav and "CSAPP 第1章" in nav
    assert f'rel="next" href="{third.url}"' in nav and "CSAPP 第3章" in nav
    assert "草稿" not in nav

    first_html = get(client, first)
    assert "第 1 篇，共 3 篇" in first_html
    assert 'rel="prev"' not in first_html and 'rel="next"' in first_html


def test_series_order_is_the_explorer_order(client, csapp):
    series, (first, second, third) = csapp
    third.move(first, pos="left")  # an editor drags chapter 3 to the top
    html = get(client, first)
    assert "第 2 篇，共 3 篇" in html
    assert "CSAPP 第3章" in section(html, '<nav class="series-nav', "</nav>")


def test_section_posts_show_no_series_navigation(client, home):
    cuda = SeriesPageFactory(parent=home, title="CUDA", slug="cuda", ordering="newest")
    PostPageFactory(parent=cuda, slug="a")
    post = PostPageFactory(parent=cuda, slug="b")
    html = get(client, post)
    assert "series-nav" not in html and "篇，共" not in html


def test_backlinks_list_posts_that_link_here_from_the_reference_index(client, home):
    target = PostPageFactory(parent=home, title="Bank Conflict", slug="bank")
    linking = PostPageFactory(parent=home, title="Swizzle 详解", slug="swizzle")
    with_body(
        linking,
        [
            (
                "paragraph",
                RichText(f'<p>见 <a linktype="page" id="{target.pk}">前文</a></p>'),
            )
        ],
    )
    private = PostPageFactory(parent=home, title="私密文章", slug="private")
    with_body(
        private,
        [("paragraph", RichText(f'<p><a linktype="page" id="{target.pk}">x</a></p>'))],
    )
    PageViewRestriction.objects.create(page=private, restriction_type="login")
    draft = PostPageFactory(parent=home, title="草稿文章", slug="draft")
    with_body(
        draft,
        [("paragraph", RichText(f'<p><a linktype="page" id="{target.pk}">x</a></p>'))],
    )
    draft.unpublish()

    html = get(client, target)
    backlinks = section(html, '<section class="backlinks"', "</section>")
    assert "引用本文的文章" in backlinks
    assert f'<a href="{linking.url}">Swizzle 详解</a>' in backlinks
    assert "私密文章" not in backlinks and "草稿文章" not in backlinks
    # The linking post itself lists no backlinks: nothing links to it.
    assert "引用本文的文章" not in get(client, linking)


def test_copy_and_theme_scripts_are_external_and_the_theme_one_runs_first(client, home):
    post = PostPageFactory(parent=home, slug="js")
    html = get(client, post)
    head = section(html, "<head>", "</head>")
    theme = re.search(r'<script src="([^"]*js/theme-init\.js)"></script>', head)
    assert theme, "theme-init.js must load blocking in <head>"
    assert head.index("theme-init.js") < head.index("css/site.css")
    assert re.search(r'<script src="[^"]*js/site\.js" defer></script>', head)
    # No inline script and no inline event handler (a future CSP forbids both).
    for tag in re.findall(r"<script[^>]*>", html):
        assert "src=" in tag or 'type="application/ld+json"' in tag, tag
    assert not re.search(r"\son[a-z]+=", html)

    init = Path(finders.find("js/theme-init.js")).read_text()
    assert len(init.encode()) < 400 and "dataset.theme" in init
    site_js = Path(finders.find("js/site.js")).read_text()
    assert len(site_js.encode()) < 5000
    assert "复制" in site_js and "td.code" in site_js and "clipboard" in site_js


def test_header_has_sections_search_and_theme_toggle(client, home):
    SeriesPageFactory(parent=home, title="CUDA", slug="cuda", ordering="newest")
    post = PostPageFactory(parent=home, slug="h")
    html = get(client, post)
    header = section(html, '<header class="site-header">', "</header>")
    assert '<a href="/cuda/">CUDA</a>' in header
    assert 'href="/tags/"' in header and 'href="/archive/"' in header
    form = section(header, '<form class="site-search" role="search"', "</form>")
    assert 'action="/search/"' in form and 'method="get"' in form
    assert 'type="search" name="q"' in form and "<label" in form
    assert re.search(r'<button class="theme-toggle"[^>]*aria-label="主题：', header)
    assert '<html lang="zh-CN">' in html
    for landmark in ("<header", "<nav", '<main id="main"', "<article", "<footer"):
        assert landmark in html, landmark
    assert html.count("<h1") == 1
    assert '<a class="skip-link" href="#main">' in html


def test_dates_are_shown_in_chinese(client, home):
    post = PostPageFactory(
        parent=home,
        slug="d",
        date=datetime.date(2026, 3, 5),
        updated=datetime.date(2026, 11, 20),
    )
    html = get(client, post)
    assert '<time datetime="2026-03-05">2026年3月5日</time>' in html
    assert '更新于 <time datetime="2026-11-20">2026年11月20日</time>' in html


def test_stylesheet_has_print_rules_and_theme_scoping():
    # The sources: what is served is their minified copy (tests/blog/test_static.py).
    css = (STATIC / "css" / "site.css").read_text()
    print_css = css[css.index("@media print") :]
    assert ".post-toc" in print_css and ".site-header" in print_css
    assert 'a[href^="http"]::after' in print_css
    assert ':root:not([data-theme="light"])' in css and '[data-theme="dark"] {' in css
    # pygments.css scopes its dark theme the same way.
    pygments = (STATIC / "css" / "pygments.css").read_text()
    assert '[data-theme="dark"] .highlight' in pygments
    assert '[data-theme="light"] .highlight' in pygments


def test_footnote_ids_are_unique_across_markdown_blocks(client, home):
    post = PostPageFactory(parent=home, slug="fn")
    with_body(
        post,
        [
            ("markdown", "甲[^1]\n\n[^1]: 第一条\n"),
            ("markdown", "乙[^1]\n\n[^1]: 第二条\n"),
        ],
    )
    html = get(client, post)
    ids = re.findall(r'\sid="([^"]+)"', html)
    assert len(ids) == len(set(ids)), "duplicate ids"
    assert html.count('class="footnote-backref"') == 2


def test_missing_page_is_friendly_and_offers_search(client, home):
    response = client.get("/no/such/post/")
    html = response.content.decode()
    assert response.status_code == 404
    assert "页面不存在" in html and 'role="search"' in html and 'href="/"' in html


def test_server_error_page_needs_no_database(db, django_assert_num_queries):
    with django_assert_num_queries(0):
        html = render_to_string("500.html")
    assert "服务器出错了" in html and '<html lang="zh-CN">' in html


def queries(client, url):
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url)
    assert response.status_code == 200, url
    return len(captured)


def grow_around(series, second, start=0):
    """Give ``second`` 30 headings, 30 more posts in its series, 30 linking here."""
    with_body(
        second,
        [("heading", {"text": f"第 {n} 节 $x_{n}$", "level": "h2"}) for n in range(30)],
    )
    for n in range(start, start + 30):
        PostPageFactory(parent=series, slug=f"more-{n}")
        linking = PostPageFactory(parent=series.get_parent(), slug=f"link-{n}")
        with_body(
            linking,
            [
                (
                    "paragraph",
                    RichText(f'<p><a linktype="page" id="{second.pk}">x</a></p>'),
                )
            ],
        )


def test_post_page_queries_do_not_grow_with_headings_backlinks_or_series(
    client, csapp, settings, django_capture_on_commit_callbacks
):
    # As in production: what the page shows of other pages (breadcrumbs,
    # neighbours, related posts, backlinks, tags) is kept until a publish
    # purges it, and the publishes below run their purges.
    settings.LISTING_CACHE_SECONDS = 3600
    series, (first, second, third) = csapp
    client.get(second.url)  # warm the render cache and per-process caches
    few = queries(client, second.url)

    with django_capture_on_commit_callbacks(execute=True):
        grow_around(series, second)
        purge_all()  # the site-wide purge the new posts' publishes make
    client.get(second.url)
    many = queries(client, second.url)
    html = get(client, second)
    assert html.count("toc-level-2") == 30 and "共 33 篇" in html
    backlinks = html[html.index('class="backlinks"') :]
    assert backlinks.count('<li><a href="/notes/link-') == 30

    assert many == few
    # Site, root page, routed page (2), Wagtail's alias check, the header
    # navigation; the rest is kept.
    assert few <= 10, f"a post page runs {few} queries"


def test_post_page_queries_with_nothing_kept_do_not_grow(client, csapp):
    # Nothing kept (LISTING_CACHE_SECONDS = 0): as the first view after a
    # purge. Also breadcrumbs and series neighbours (one query), previous/next
    # and related posts (one), backlinks, tags, and the view restrictions
    # asked each time (3); the explorer beside the page: its folders, the
    # posts straight under home, 最近更新, the open folders' posts and their
    # view-restriction checks (about 12 more).
    series, (first, second, third) = csapp
    client.get(second.url)
    few = queries(client, second.url)
    # Past the explorer's cap of posts per folder, and then further.
    grow_around(series, second)
    grow_around(series, second, start=30)
    client.get(second.url)
    assert queries(client, second.url) == few
    assert few <= 24, f"a post page runs {few} queries"


def test_picture_widths_never_repeat_and_never_upscale():
    assert picture_widths(1174) == [480, 800, 1174]
    assert picture_widths(1600) == [480, 800, 1200, 1600]
    assert picture_widths(3000) == [480, 800, 1200, 1600]
    assert picture_widths(300) == [300]


@pytest.fixture
def clean_rendition_cache():
    """Wagtail caches renditions by image id, and ids are reused between tests."""
    caches["default"].clear()
    yield
    caches["default"].clear()


@pytest.mark.django_db
@pytest.mark.usefixtures("clean_rendition_cache")
def test_image_srcset_lists_each_width_once_with_size_and_lazy_loading():
    image = wagtail_factories.ImageFactory(file__width=1174, file__height=587)
    block = ImageBlock()
    html = block.render(
        block.to_python({"image": image.pk, "alt": "swizzle", "caption": ""})
    )
    srcsets = re.findall(r'srcset="([^"]+)"', html)
    assert len(srcsets) == 2  # AVIF and WebP; the <img> is the original
    for srcset in srcsets:
        assert [c.split()[-1] for c in srcset.split(",")] == ["480w", "800w", "1174w"]
    assert 'width="1174"' in html and 'height="587"' in html
    assert 'loading="lazy"' in html


def test_the_body_is_placed_once_inside_the_post_and_no_mark_is_left(client, home):
    post = with_body(
        PostPageFactory(parent=home, slug="placed"),
        [
            ("paragraph", RichText("<p>寄存器 spill 的代价</p>")),
            ("math", {"tex": r"e^{i\pi} + 1 = 0", "label": ""}),
        ],
    )
    for _ in range(2):  # rendered, then from the render cache
        html = get(client, post)
        body = section(html, '<div class="post-body">', "</article>")
        assert html.count("寄存器 spill 的代价") == 1
        assert "寄存器 spill 的代价" in body and 'class="katex-display"' in body
        assert "<!--body " not in html


def test_kept_navigation_tags_and_backlinks_follow_what_is_published(
    client, csapp, settings, django_capture_on_commit_callbacks
):
    """Kept until purged (as in production): a new part, tag and link show at once."""
    settings.LISTING_CACHE_SECONDS = 3600
    series, posts = csapp
    first, last = posts[0], posts[-1]
    html = get(client, last)
    assert "第 3 篇，共 3 篇" in html and 'rel="next"' not in html
    assert '<section class="backlinks"' not in get(client, first)

    with django_capture_on_commit_callbacks(execute=True):
        PostPageFactory(parent=series, title="CSAPP 第4章", slug="ch4")
        last.tags.add("虚拟内存")
        with_body(
            last,
            [
                (
                    "paragraph",
                    RichText(
                        f'<p>见 <a linktype="page" id="{first.pk}">第一章</a></p>'
                    ),
                )
            ],
        )

    html = get(client, last)
    assert 'href="/tags/虚拟内存/">#虚拟内存</a>' in section(
        html, '<ul class="tag-list">', "</ul>"
    )
    assert '"keywords": "虚拟内存"' in html or "虚拟内存" in section(
        html, "<head>", "</head>"
    )
    assert "第 3 篇，共 4 篇" in html
    assert 'rel="next" href="/notes/csapp/ch4/"' in html
    backlinks = section(get(client, first), '<section class="backlinks"', "</section>")
    assert f'<a href="{last.url}">CSAPP 第3章</a>' in backlinks


def test_a_body_of_many_formulas_reads_the_render_cache_in_a_few_batches(home):
    def reads(n: int) -> int:
        post = with_body(
            PostPageFactory(parent=home, slug=f"formulas-{n}"),
            [("math", {"tex": f"x_{{{i}}}", "label": ""}) for i in range(n)]
            + [("paragraph", RichText(f"<p>{'a $y$ ' * n}</p>"))]
            + [("markdown", "".join(f"$z_{{{i}}}$ " for i in range(n)))],
        )
        render_body(post, {"page": post})  # every formula is in the cache now
        store = cache.get_store()
        counts = {"get": 0, "get_many": 0}

        class Counting:
            def get(self, key, default=None):
                counts["get"] += 1
                return store.get(key, default)

            def get_many(self, keys):
                counts["get_many"] += 1
                return store.get_many(keys)

            def set(self, key, value):
                store.set(key, value)

            def set_many(self, data):
                store.set_many(data)

        with cache.use_store(Counting()):
            html = render_body(post, {"page": post})
        assert html.count('class="katex-display"') == n
        return counts["get"] + counts["get_many"]

    assert reads(5) == reads(200)


@pytest.mark.parametrize("bound", [None, 100_000])
def test_a_long_math_heavy_body_is_kept_unless_past_the_bound(home, settings, bound):
    # 150 long display formulas: about 1.2 MB, seven times the longest real
    # post's body (a 27 KB Markdown post on GEMM: 172 KB).
    tex = (
        r"\begin{aligned} m_{%d} &= \max\left(m_{%d}, \operatorname{rowmax}(S)\right)"
        r" \\ \ell &= e^{m - m'} \ell + \sum_j e^{S_{j} - m'} \end{aligned}"
    )
    post = with_body(
        PostPageFactory(parent=home, slug="long"),
        [("math", {"tex": tex % (i, i - 1), "label": ""}) for i in range(150)],
    )
    if bound:
        settings.RENDER_CACHE_MAX_ENTRY_BYTES = bound
    size = len(post.rendered()["html"])
    hits = cache.hit_count("katex")

    post.rendered()

    assert 1_000_000 < size < 2_000_000
    kept = cache.hit_count("katex") == hits
    assert kept is (bound is None)


def scripts_of(html):
    return re.findall(r'<script src="([^"]+)"', html)


def test_only_a_page_with_a_diagram_loads_mermaid_from_our_static_files(client, home):
    plain = PostPageFactory(parent=home, slug="plain")
    plain.body = [("code", {"language": "text", "code": "flowchart LR"})]
    plain.save()
    drawn = PostPageFactory(parent=home, slug="drawn")
    drawn.body = [("diagram", {"source": "flowchart LR\n    A --> B"})]
    drawn.save()
    fenced = SeriesPageFactory(parent=home, slug="fenced")
    fenced.intro = [("markdown", '```mermaid\npie\n    "a" : 1\n```')]
    fenced.save()

    plain_scripts = scripts_of(get(client, plain))
    assert plain_scripts
    assert not [src for src in plain_scripts if "mermaid" in src]
    for page in (drawn, fenced):
        html = get(client, page)
        scripts = scripts_of(html)
        # Mermaid first, then our script that draws with it; both deferred.
        mermaid = [src for src in scripts if src.endswith("mermaid/mermaid.min.js")]
        ours = [src for src in scripts if src.endswith("js/diagrams.js")]
        assert mermaid and ours, scripts
        assert scripts.index(mermaid[0]) < scripts.index(ours[0])
        assert mermaid[0].startswith("/static/"), "served by us, not a CDN"
        assert 'class="block-diagram"' in html
    assert finders.find("mermaid/mermaid.min.js"), "run `npm run build`"
