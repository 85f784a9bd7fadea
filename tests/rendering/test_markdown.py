"""Markdown blocks: prose, tables, footnotes, code, headings, images, safety."""

from bs4 import BeautifulSoup

from rendering import library_image_ids, render_markdown
from tests.rendering.rendered import formulas, soup_of


def test_paragraphs_emphasis_and_links():
    html = render_markdown("Hello *world* and [docs](https://example.com).")

    assert html == (
        '<p>Hello <em>world</em> and <a href="https://example.com">docs</a>.</p>\n'
    )


def test_table():
    soup = soup_of("| op | cost |\n|----|-----:|\n| add | $1$ |\n| mul | 4 |\n")

    assert [th.get_text() for th in soup.select("thead th")] == ["op", "cost"]
    assert [td.get_text() for td in soup.select("tbody tr:last-child td")] == [
        "mul",
        "4",
    ]
    assert formulas(soup) == [("1", False)]


def test_strikethrough():
    assert "<s>old</s>" in render_markdown("~~old~~ new")


def test_footnotes():
    soup = soup_of("Claim.[^1]\n\n[^1]: Source.\n")

    ref = soup.select_one("sup.footnote-ref a")
    assert ref["href"] == "#fn1"
    note = soup.select_one("section.footnotes li#fn1")
    assert note.get_text().startswith("Source.")


def test_footnote_ids_can_be_prefixed_per_document():
    soup = BeautifulSoup(
        render_markdown("A.[^1]\n\n[^1]: B.\n", doc_id="b2"), "html.parser"
    )

    assert soup.select_one("sup.footnote-ref a")["href"] == "#fn-b2-1"
    assert soup.select_one("li.footnote-item")["id"] == "fn-b2-1"


def test_fenced_cuda_code_is_highlighted():
    soup = soup_of("```cuda\n__global__ void k(float* a) {}\n```\n")

    code = soup.select_one("div.highlight pre code.language-cuda")
    assert code is not None
    assert code.find("span", class_="kt").get_text() == "void"
    assert code.get_text() == "__global__ void k(float* a) {}\n"


def test_fence_language_aliases_and_unknown_languages():
    assert 'class="language-cpp"' in render_markdown("```c++\nint x;\n```\n")
    assert 'class="language-text"' in render_markdown("```\nplain\n```\n")
    assert 'class="language-text"' in render_markdown("```klingon\nqapla'\n```\n")


def test_fenced_code_has_the_code_blocks_frame_label_and_line_numbers():
    soup = soup_of("```py\nx = 1\ny = 2\n```\n")
    frame = soup.select_one("figure.block-code")
    assert frame["data-language"] == "python"
    assert frame.select_one(".code-language").get_text() == "Python"
    assert [n.get_text() for n in frame.select("td.linenos .normal")] == ["1", "2"]
    assert frame.select_one("code").get_text() == "x = 1\ny = 2\n"


def test_fenced_code_without_line_numbers_keeps_its_frame():
    soup = soup_of("```ptx nolinenos\nmov.u32 %r1, %r2;\n```\n\n    indented\n")
    framed, indented = soup.select("figure.block-code")
    assert framed.select_one(".code-language").get_text() == "PTX"
    assert not framed.select("td.linenos")
    assert indented.select_one(".code-language").get_text() == "Text"


def test_fence_info_string_highlights_lines_and_shows_a_title():
    soup = soup_of('```cuda {2} title="gemm.cu"\nint a;\nint b;\nint c;\n```\n')

    assert [line.get_text() for line in soup.select("code .hll")] == ["int b;\n"]
    assert soup.select_one(".code-filename").get_text() == "gemm.cu"
    assert soup.select_one("code")["class"] == ["language-cuda"]


def test_fence_info_string_line_numbers():
    soup = soup_of("```python linenos=10\na = 1\nb = 2\n```\n")

    assert soup.select_one("td.linenos").get_text().split() == ["10", "11"]


def test_fence_with_a_bad_line_spec_still_renders():
    soup = soup_of("```cuda {3-1}\nint a;\n```\n")

    assert soup.select_one("code.language-cuda").get_text() == "int a;\n"
    assert soup.select("code .hll") == []


def test_indented_code_uses_the_same_code_frame():
    soup = soup_of("Text:\n\n    <b>raw</b>\n")

    assert soup.select_one("div.highlight code.language-text").get_text() == (
        "<b>raw</b>\n"
    )


def test_raw_html_is_escaped():
    html = render_markdown("<script>alert(1)</script>\n\nHi <b onclick=x>there</b>")

    assert "<script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<b " not in html
    assert "&lt;b onclick=x&gt;" in html


def test_javascript_links_are_not_links():
    soup = soup_of("[x](javascript:alert(1)) and <javascript:alert(1)>")

    assert soup.find("a") is None


def test_headings_get_unique_stable_ids():
    soup = soup_of(
        "# 2.1 Shared Memory 与 Bank Conflict\n\n## 静态链接\n\n## Intro\n\n## Intro\n"
    )

    assert [h["id"] for h in soup.find_all(["h1", "h2"])] == [
        "21-shared-memory-与-bank-conflict",
        "静态链接",
        "intro",
        "intro-2",
    ]


def test_heading_ids_ignore_link_urls_and_math_delimiters():
    soup = soup_of("## See [docs](https://x.org/a) for $O(n)$\n")

    assert soup.h2["id"] == "see-docs-for-on"
    assert formulas(soup.h2) == [("O(n)", False)]


def test_library_images_take_the_url_they_are_given_and_load_lazily():
    html = render_markdown(
        'See ![the *roofline*](image:7 "Fig. 1") and ![gone](image:8) and '
        "![remote](https://example.com/a.png).",
        images={"7": ("/media/original_images/roof.png", 640, 480)},
    )

    soup = BeautifulSoup(html, "html.parser")
    library, remote = soup.find_all("img")
    assert library.attrs == {
        "src": "/media/original_images/roof.png",
        "alt": "the roofline",
        "title": "Fig. 1",
        "width": "640",
        "height": "480",
        "loading": "lazy",
        "decoding": "async",
    }
    assert remote.attrs == {
        "src": "https://example.com/a.png",
        "alt": "remote",
        "referrerpolicy": "no-referrer",
        "loading": "lazy",
        "decoding": "async",
    }
    # A library image the page was not given shows its alt text, not a broken image.
    assert soup.select_one(".image-missing").get_text() == "gone"
    assert "image:" not in html


def test_library_image_ids_lists_the_images_markdown_shows():
    text = "![a](image:3) ![b](<image:12>) `image:5` ![c](image:3)"
    assert library_image_ids(text) == [3, 12]


def test_lists_nested_past_markdown_its_default_depth_lose_nothing():
    # markdown-it stops at 20 levels (10 lists) and drops the rest of the text.
    text = "".join(f"{'  ' * i}- level {i}\n" for i in range(15)) + "\nAfter.\n"
    soup = soup_of(text)
    assert [li.contents[0].strip() for li in soup.find_all("li")] == [
        f"level {i}" for i in range(15)
    ]
    assert soup.find_all("p")[-1].get_text() == "After."
