"""The admin an editor uses is Chinese, even when their browser asks for English.

Each page an editor works in is fetched as a logged-in editor whose browser sends
``Accept-Language: en``; the text they would read (text nodes, placeholders,
tooltips, and the labels and help of the body's blocks, which Wagtail's
JavaScript draws from JSON) must hold no run of English words other than
product names and the editor's own content.
"""

import json
import re

import pytest
import wagtail_factories
from bs4 import BeautifulSoup, Comment
from django.urls import reverse
from wagtail.models import Collection, Site
from wagtail.users.models import UserProfile

from tests.blog.admin.editing import (
    add_url,
    code,
    edit_url,
    form_data,
    paragraph,
    stream_errors,
)
from tests.factories import PostPageFactory, SeriesPageFactory

# Names a Chinese editor reads as they are: products, formats, languages.
NAMES = {
    "Wagtail",
    "KaTeX",
    "LaTeX",
    "TeX",
    "CUDA",
    "Markdown",
    "Mermaid",
    # Mermaid's own keywords, in the diagram block's help text.
    "flowchart",
    "LR",
    "sequenceDiagram",
    "URL",
    "URLs",
    "SEO",
    "HTML",
    "CSS",
    "JSON",
    "YAML",
    "TOML",
    "SQL",
    "PTX",
    "C",
    "C++",
    "Python",
    "Bash",
    "Shell",
    "Rust",
    "Makefile",
    "Go",
    "Java",
    "JavaScript",
    "TypeScript",
    "Dockerfile",
    "CMake",
    "LLVM",
    "IR",
    "NASM",
    "GNU",
    "Lua",
    "Haskell",
    "INI",
    "Diff",
    "Text",
    "H2",
    "H3",
    "H4",
    "ID",
    "SVG",
    "GIF",
    "PNG",
    "JPEG",
    "JPG",
    "WebP",
    "AVIF",
    "HEIC",
    "Note",
    "Tip",
    "Info",
    "Warning",
    "Danger",
    "Gravatar",
    "Email",
    "Tab",
    "Shift",
    "Ctrl",
    "Cmd",
    "Enter",
    "Esc",
    "px",
    "x",
    "MB",
    "KB",
    "Alt",
    "API",
    "RSS",
    "Atom",
    "Obsidian",
    "GPU",
    "WEBP",
    "iframe",
    "oEmbed",
}
# Wagtail 8.0.1 writes these in its templates without gettext, for screen
# readers only (an aria-label, a visually hidden submit button): no catalog
# can translate them.
UNTRANSLATABLE = {"Actions", "Search"}
# Code and addresses inside help texts: LaTeX commands, Markdown syntax, URLs,
# HTML tags, image sizes, versions, file extensions.
NOT_WORDS = re.compile(
    r"https?://\S*|\\[A-Za-z]+(?:\{[A-Za-z*]+\})?|!?\[[^\]]*\]\([^)]*\)|\[![A-Z]+\]"
    r"|</?[a-z]+>|\b\d+x\d+\b|\bv\d+(?:\.\d+)+|(?<!\w)\.[a-z]+\b"
)
# A word of two letters or more: single letters are math (x, l, c, r).
WORD = re.compile(r"[A-Za-z][A-Za-z0-9+#]+(?:['’.-][A-Za-z0-9]+)*")
# Attributes whose text an editor reads: placeholders and tooltips.
SHOWN_ATTRIBUTES = ("placeholder", "title", "aria-label", "alt")
# Keys of the body's block definitions that the editor reads as text.
SHOWN_KEYS = {"label", "helpText", "description", "placeholder", "messages"}
HIDDEN_TAGS = ("script", "style", "code", "pre", "textarea", "svg", "noscript")


def block_strings(value):
    """Yield the labels, help and errors in a telepath-packed block definition."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key in SHOWN_KEYS:
                yield from all_strings(item)
            else:
                yield from block_strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from block_strings(item)


def all_strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from all_strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from all_strings(item)


def shown_text(html):
    """Return the strings an editor reads on this admin page."""
    soup = BeautifulSoup(html, "html.parser")
    strings = []
    for element in soup.find_all(attrs={"data-w-block-data-value": True}):
        strings += block_strings(json.loads(element["data-w-block-data-value"]))
    for element in soup.find_all(attrs={"data-w-block-arguments-value": True}):
        strings += block_strings(json.loads(element["data-w-block-arguments-value"]))
    for tag in soup.find_all(HIDDEN_TAGS):
        tag.decompose()
    # A hidden counter Wagtail's JS fills in (it leaves "None" there until then).
    for tag in soup.find_all(attrs={"data-side-panel-toggle-counter": True}):
        tag.decompose()
    for comment in soup.find_all(string=lambda s: isinstance(s, Comment)):
        comment.extract()
    for element in soup.find_all(True):
        for attribute in SHOWN_ATTRIBUTES:
            if element.get(attribute):
                strings.append(element[attribute])
        if element.name == "input" and element.get("type") in ("submit", "button"):
            strings.append(element.get("value", ""))
    strings += soup.stripped_strings
    return strings


def english_left(html, own_content=()):
    """Return each run of English words on the page, but names and own content."""
    return english_in(shown_text(html), own_content)


def english_in(strings, own_content=()):
    """Return the strings holding English words, but names and own content."""
    runs = set()
    for text in strings:
        if text.strip() in UNTRANSLATABLE:
            continue
        shown = text
        # KaTeX underlines the offending token of a formula with U+0332.
        text = text.replace("\u0332", "")
        for own in sorted(own_content, key=len, reverse=True):
            text = text.replace(own, " ")
        text = NOT_WORDS.sub(" ", text)
        words = [w for w in WORD.findall(text) if w not in NAMES]
        if words:
            run = re.sub(r"\s+", " ", shown.strip())
            runs.add(run)
    return sorted(runs)


@pytest.fixture
def editor_in_english(as_editor):
    """The editor's browser asks for English (a work laptop, say)."""
    as_editor.defaults["HTTP_ACCEPT_LANGUAGE"] = "en-US,en;q=0.9"
    return as_editor


@pytest.fixture
def content(home, editor):
    series = SeriesPageFactory(parent=home, title="并行计算", slug="parallel")
    post = PostPageFactory(
        parent=series,
        title="共享内存与库冲突",
        slug="shared-memory",
        summary="一篇关于共享内存的短文。",
        tags=["cuda"],
    )
    image = wagtail_factories.ImageFactory(
        title="架构图",
        uploaded_by_user=editor,
        collection=Collection.get_first_root_node(),
    )
    return {"series": series, "post": post, "image": image}


def own_content(content, editor):
    """Return the strings the editor or the fixtures wrote, which may be English."""
    return {
        content["image"].file.name.rsplit("/", 1)[-1],
        content["image"].filename,
        "shared-memory",
        "parallel",
        "cuda",
        editor.username,
        editor.email,
        editor.get_full_name(),
        Site.objects.get().hostname,
    } - {""}


def admin_pages(content, home):
    series, post, image = content["series"], content["post"], content["image"]
    return {
        "dashboard": reverse("wagtailadmin_home"),
        "explorer: home": reverse("wagtailadmin_explore", args=(home.pk,)),
        "explorer: series": reverse("wagtailadmin_explore", args=(series.pk,)),
        "add a post": add_url(series),
        "edit a post": edit_url(post),
        "add a series": reverse(
            "wagtailadmin_pages:add", args=("blog", "seriespage", home.pk)
        ),
        "edit a series": edit_url(series),
        "images": reverse("wagtailimages:index"),
        "edit an image": reverse("wagtailimages:edit", args=(image.pk,)),
        "search": reverse("wagtailadmin_pages:search") + "?q=共享内存",
    }


def test_every_admin_page_an_editor_uses_is_chinese(
    editor_in_english, editor, content, home
):
    leftovers = {}
    for name, url in admin_pages(content, home).items():
        response = editor_in_english.get(url)
        assert response.status_code == 200, (name, url, response.status_code)
        english = english_left(response.content.decode(), own_content(content, editor))
        if english:
            leftovers[name] = english
    assert not leftovers, "English left in the admin:\n" + "\n".join(
        f"{name}: {run!r}" for name, runs in leftovers.items() for run in runs
    )


def test_a_refused_save_and_its_errors_are_chinese(editor_in_english, editor, content):
    """A post that cannot be saved: the message, field errors and KaTeX's error."""
    formulas = [r"\frac{1}{\foo}", r"x^1^2", r"\begin{array}{q}a\end{array}"]
    body = [
        ("paragraph", paragraph("<p>设 $n = 2^k$。</p>")),
        *[("math", {"tex": tex, "label": ""}) for tex in formulas],
        ("code", code("__global__ void k() {}")),
    ]
    response = editor_in_english.post(
        edit_url(content["post"]),
        form_data(body, date="2020-09-02", updated="2020-09-01", slug="shared-memory"),
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert english_left(html, own_content(content, editor) | set(formulas)) == []
    assert "存在验证错误，页面未能保存。" in html
    assert "更新日期不能早于发布日期。" in html
    errors = [
        block["blockErrors"]["tex"]["messages"][0]
        for block in stream_errors(response)["blockErrors"].values()
    ]
    assert errors == [
        r"公式错误：未定义的命令：\foo（第 10 个字符处）：\frac{1}{\̲f̲o̲o̲}",
        "公式错误：重复的上标：一个符号只能有一个 ^，多层请用 {} 分组（第 4 个字符处）：x^1^̲2",
        "公式错误：未知的列对齐方式：q（应为 l、c 或 r）（第 15 个字符处）："
        r"\begin{array}{q̲}a\end{array}",
    ]


def test_an_editor_who_chose_english_gets_english(editor_in_english, editor):
    profile = UserProfile.get_for_user(editor)
    profile.preferred_language = "en"
    profile.save()
    page = editor_in_english.get(reverse("wagtailadmin_home")).content.decode()
    assert "Dashboard" in page
    assert "仪表板" not in page
