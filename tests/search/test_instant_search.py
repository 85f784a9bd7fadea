"""The search dialog's JSON answer and the snippets it shares with the results page.

Snippets show inline math typeset (MathML), never TeX; they are cut from one
passage (so a heading's words are not run into the paragraph under it) at
word boundaries in English and character boundaries in Chinese.
"""

import datetime
import json
import re
from html.parser import HTMLParser

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from wagtail.rich_text import RichText

from blog.views import INSTANT_RESULTS
from search import query as search
from search.tokens import query_tokens
from tests.factories import PostPageFactory, SeriesPageFactory
from tests.search.posts import make_post

MATH_PARAGRAPH = (
    "规律是冲突度等于 $\\gcd(s, 32)$：$s$ 为奇数时总是无冲突，"
    "$s = 2^k$ 时是 $2^k$-way，代价约 $\\frac{n}{2}$ 个周期。"
)
RAW_TEX = re.compile(r"\$|\\\(|\\\)|\\frac|\\gcd|\\[a-zA-Z]+\{")


class _Text(HTMLParser):
    """Collect the text a reader sees outside typeset math (outside .katex)."""

    def __init__(self):
        super().__init__()
        self.depth = 0  # inside a .katex span: how deep
        self.outside = []

    def handle_starttag(self, tag, attrs):
        classes = (dict(attrs).get("class") or "").split()
        if self.depth or "katex" in classes:
            self.depth += 1

    def handle_endtag(self, tag):
        if self.depth:
            self.depth -= 1

    def handle_data(self, data):
        if not self.depth:
            self.outside.append(data)


def text_outside_math(html: str) -> str:
    parser = _Text()
    parser.feed(html)
    parser.close()
    return "".join(parser.outside)


def doubled_words(text: str) -> list[str]:
    words = re.findall(r"[A-Za-z0-9_]+", text)
    return [a for a, b in zip(words, words[1:], strict=False) if a.lower() == b.lower()]


def instant(client, query, **params):
    response = client.get("/search/", {"q": query, "format": "json", **params})
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    return json.loads(response.content)


def excerpt(passages, query, context=search.SNIPPET_CONTEXT):
    pattern = search._highlight_re(query, query_tokens(query))
    return str(search._excerpt(passages, pattern, context))


# The JSON answer.


def test_json_gives_title_url_date_section_and_snippet(client, home):
    cuda = SeriesPageFactory(parent=home, title="CUDA", slug="cuda")
    series = SeriesPageFactory(parent=cuda, title="CuTe 系列", slug="cute")
    PostPageFactory(
        parent=series,
        title="Bank conflict 与 swizzle",
        slug="swizzle",
        date=datetime.date(2026, 9, 8),
        body__0__paragraph__value=RichText(f"<p>{MATH_PARAGRAPH}</p>"),
    )
    data = instant(client, "冲突度")
    assert data["count"] == 1
    [result] = data["results"]
    assert result["title"] == "Bank conflict 与 swizzle"
    assert result["url"] == "/cuda/cute/swizzle/"
    assert result["date"] == "2026-09-08"
    assert result["date_display"] == "2026年9月8日"
    assert result["section"] == "CUDA"
    assert "<mark>冲突度</mark>" in result["snippet"]
    assert "<math" in result["snippet"]
    assert not RAW_TEX.search(text_outside_math(result["snippet"]))


def test_json_and_results_page_show_the_same_snippet(client, home):
    make_post(home, "Bank conflict", paragraph=MATH_PARAGRAPH)
    data = instant(client, "冲突度")
    page = client.get("/search/", {"q": "冲突度"})
    assert data["results"][0]["snippet"] == str(page.context["hits"][0].snippet)
    assert data["results"][0]["snippet"] in page.content.decode()


def test_json_is_capped_and_counts_every_match(client, home):
    for n in range(INSTANT_RESULTS + 3):
        make_post(home, f"Tiling {n}", paragraph="tiling", slug=f"t{n}")
    data = instant(client, "tiling")
    assert data["count"] == INSTANT_RESULTS + 3
    assert len(data["results"]) == INSTANT_RESULTS


def test_json_is_cacheable(client, home):
    make_post(home, "Tiling", paragraph="tiling")
    response = client.get("/search/", {"q": "tiling", "format": "json"})
    assert "public" in response["Cache-Control"]
    assert "max-age=" in response["Cache-Control"]


def test_page_cache_keeps_json_and_html_apart(client, home, settings):
    settings.PAGE_CACHE_SECONDS = 3600
    make_post(home, "Tiling", paragraph="tiling")
    html = client.get("/search/", {"q": "tiling"})
    assert html["Content-Type"].startswith("text/html")
    first = client.get("/search/", {"q": "tiling", "format": "json"})
    again = client.get("/search/", {"q": "tiling", "format": "json"})
    assert first["Content-Type"] == again["Content-Type"] == "application/json"
    assert again["X-Page-Cache"] == "hit"
    assert json.loads(again.content)["results"][0]["title"] == "Tiling"


@pytest.mark.parametrize(
    "query",
    [
        "",
        "   ",
        "x" * 5000,
        "量化 " * 300,
        "\x00\x1f\x7f",
        '"*)(-: OR 1=1; --',
        "$$ \\frac{ $",
        "AND OR NOT NEAR",
        "🙂🙃",
        "%",
        "\\",
    ],
)
def test_odd_queries_answer_json_never_an_error(client, home, query):
    make_post(home, "Tiling", paragraph="tiling")
    data = instant(client, query)
    assert isinstance(data["results"], list)
    assert data["count"] == len(data["results"]) or data["count"] > INSTANT_RESULTS


def test_empty_query_answers_an_empty_list(client, home):
    make_post(home, "Tiling", paragraph="tiling")
    assert instant(client, "tiling")["results"]
    assert instant(client, "")["results"] == []


def json_queries(client, query):
    with CaptureQueriesContext(connection) as captured:
        data = instant(client, query)
    assert data["results"]
    return [q["sql"] for q in captured.captured_queries]


def test_json_query_count_does_not_grow_with_results(client, home):
    cuda = SeriesPageFactory(parent=home, title="CUDA", slug="cuda")
    for n in range(3):
        make_post(cuda, f"Tile {n}", ["cuda"], "tiling", slug=f"a{n}")
    instant(client, "tiling")  # warm per-process caches
    few = json_queries(client, "tiling")
    date = datetime.date(2025, 1, 1)
    for n in range(30):
        make_post(cuda, f"Tile {n + 3}", ["cuda"], "tiling", slug=f"b{n}", date=date)
    json_queries(client, "tiling")  # new posts' passages made once
    many = json_queries(client, "tiling")
    assert len(many) == len(few), "\n".join(many)
    # Sections (site, its sections), view restrictions, the search, the
    # results' posts and their tags.
    assert len(few) <= 8, "\n".join(few)


# Snippets: no TeX, no doubled words, cut at boundaries.


def test_snippet_shows_math_typeset_not_tex(client, home):
    make_post(home, "Bank conflict", paragraph=MATH_PARAGRAPH)
    snippet = instant(client, "奇数")["results"][0]["snippet"]
    assert snippet.count('<span class="katex">') == 5
    outside = text_outside_math(snippet)
    assert not RAW_TEX.search(outside), outside
    assert "为奇数时总是无冲突" in outside


def test_markdown_snippet_typesets_math_and_drops_markup(client, home):
    post = make_post(home, "Markdown post")
    post.body = [
        (
            "markdown",
            "## 标题\n\n**对称量化**把 $x$ 映射到 $\\operatorname{round}(x/s)$，"
            "见 [论文](https://example.com)。\n\n$$\ns = \\frac{a}{b}\n$$\n",
        )
    ]
    post.save_revision().publish()
    snippet = instant(client, "对称量化")["results"][0]["snippet"]
    outside = text_outside_math(snippet)
    assert not RAW_TEX.search(outside), outside
    assert "**" not in outside and "](" not in outside
    assert "<math" in snippet


def test_heading_and_the_paragraph_under_it_are_not_run_together(client, home):
    post = make_post(home, "ldmatrix 与 bank")
    post.body = [
        ("heading", {"text": "行主序 tile 上的 ldmatrix", "level": "h2"}),
        ("paragraph", RichText("<p>ldmatrix 每读一个 $8 \\times 8$ 的 b16 矩阵。</p>")),
    ]
    post.save_revision().publish()
    snippet = instant(client, "ldmatrix")["results"][0]["snippet"]
    outside = text_outside_math(snippet)
    assert doubled_words(outside) == [], outside
    assert outside.startswith("ldmatrix 每读一个")


def test_code_is_searched_once_not_twice(client, home):
    make_post(home, "Barrier", paragraph="等待", code="__syncthreads();\nreturn;")
    snippet = instant(client, "syncthreads")["results"][0]["snippet"]
    assert text_outside_math(snippet).count("syncthreads") == 1


def test_excerpt_cuts_english_at_word_boundaries():
    words = [f"word{n}" for n in range(60)]
    text = " ".join(words[:30] + ["swizzle"] + words[30:])
    html = excerpt([[("text", text)]], "swizzle", context=40)
    assert html.startswith("…") and html.endswith("…")
    shown = text_outside_math(html).strip("…").split()
    assert "swizzle" in shown
    assert set(shown) <= set(words) | {"swizzle"}, shown


def test_excerpt_cuts_chinese_at_any_character():
    text = "前言" * 60 + "对称量化" + "后记" * 60
    html = excerpt([[("text", text)]], "量化", context=10)
    assert html.startswith("…") and html.endswith("…")
    inner = text_outside_math(html).strip("…")
    assert inner in text
    assert 20 <= len(inner) <= 26


def test_excerpt_keeps_formulas_whole_or_leaves_them_out():
    passage = [("text", "开头 " + "x " * 30)]
    for n in range(12):
        passage += [("math", f"\\frac{{a_{n}}}{{b_{n}}}"), ("text", f" 第{n}项 ")]
    passage += [("text", "目标词 在这里"), ("math", "\\sum_{i=1}^{n} i^2")]
    html = excerpt([passage], "目标词", context=30)
    shown = re.findall(
        r'<annotation encoding="application/x-tex">(.*?)</annotation>', html
    )
    sources = {value for kind, value in passage if kind == "math"}
    assert shown and set(shown) <= sources
    assert html.count("<math") == html.count("</math>") == len(shown)
    assert not RAW_TEX.search(text_outside_math(html))


def test_excerpt_reads_passages_in_order_and_none_when_nothing_matches():
    passages = [[("text", "first passage")], [("text", "the target is here")]]
    assert "<mark>target</mark>" in excerpt(passages, "target")
    assert not excerpt(passages, "target").startswith("first")
    pattern = search._highlight_re("absent", query_tokens("absent"))
    assert search._excerpt(passages, pattern) is None


def test_excerpt_escapes_text():
    html = excerpt([[("text", "<script>alert(1)</script> tiling & more")]], "tiling")
    assert "<script>" not in html and "&lt;script&gt;" in html
