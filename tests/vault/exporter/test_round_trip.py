"""Export, empty the site, import the folder with `import_markdown`: the same pages."""

import hashlib
import html
import re

import pytest
from django.core.management import call_command
from taggit.models import Tag
from wagtail.contrib.redirects.models import Redirect
from wagtail.images import get_image_model
from wagtail.models import Page

from blog.models import ArchivePage, PostPage, SeriesPage, TagIndexPage
from tests.factories import PostPageFactory
from tests.vault.exporter.reading import canonical_html
from tests.vault.exporter.sites import Buffer, add_post, make_image
from vault.exporter.tree import export_site


def image_key(image_id):
    if image_id is None:
        return None
    image = get_image_model().objects.get(pk=image_id)
    with image.file.open("rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


def relative_url(page, home) -> str:
    return page.url_path[len(home.url_path) - 1 :]


def body_key(body, page_url) -> list:
    """Return (block type, comparable value) for each block of a body."""

    def rich(markup):
        return canonical_html(markup, page_url)

    def plain(text):
        return " ".join((text or "").split())

    blocks = []
    for raw in body.raw_data:
        kind, value = raw["type"], raw["value"]
        if kind == "heading":
            value = (plain(value["text"]), value["level"])
        elif kind == "paragraph":
            value = rich(value)
        elif kind == "math":
            # Blocks saved before the numbering switch have no key for it.
            value = (value["tex"], value["label"], value.get("numbered", False))
        elif kind == "image":
            value = (
                image_key(value["image"]),
                value.get("url") or "",
                value["alt"],
                plain(value["caption"]),
                value.get("width"),
            )
        elif kind == "markdown":
            # Library images by content: the import gives them new ids.
            value = re.sub(
                r"image:(\d+)", lambda m: f"image:{image_key(int(m.group(1)))}", value
            )
        elif kind == "callout":
            value = (value["kind"], plain(value["title"]), rich(value["body"]))
        elif kind == "quote":
            value = (rich(value["quote"]), value["source"])
        elif kind == "code":
            value = dict(
                value, highlight_lines="".join(value["highlight_lines"].split())
            )
        elif kind == "table":
            cells = [[plain(cell) for cell in row] for row in value["data"]]
            value = (cells, plain(value["table_caption"]))
        elif kind == "html_figure":
            value = (value["html"], value["height"], plain(value["caption"]))
        elif kind == "embed":
            value = value["url"] if isinstance(value, dict) else value
        elif kind == "note":
            # The embedded post by its path: the import gives it a new id.
            page = Page.objects.filter(pk=value["page"]).first()
            value = (page and page.url_path, value["heading"])
        blocks.append((kind, value))
    return blocks


def snapshot(home) -> list[tuple[str, dict]]:
    """Return (url, fields) for every exported page, in explorer order."""

    def page_url(page_id):
        return relative_url(Page.objects.get(pk=page_id), home)

    pages = []
    for page in home.get_descendants().specific().order_by("path"):
        if isinstance(page, TagIndexPage | ArchivePage):
            continue
        latest = page.get_latest_revision_as_object()
        fields = {"type": type(page).__name__, "title": latest.title, "live": page.live}
        if isinstance(page, SeriesPage):
            fields |= {
                "ordering": latest.ordering,
                "intro": body_key(latest.intro, page_url),
                "cover": image_key(latest.cover_id),
            }
        else:
            fields |= {
                "date": latest.date,
                "updated": latest.updated,
                "tags": sorted(tag.name.lower() for tag in latest.tags.all()),
                "summary": latest.summary,
                "comments": latest.allow_comments,
                "cover": image_key(latest.cover_id),
                "body": body_key(latest.body, page_url),
            }
        pages.append((relative_url(page, home), fields))
    return pages


def aliases(home) -> set[tuple[str, str]]:
    """Return (old path, target URL) for each permanent redirect to another path."""
    found = set()
    for redirect in Redirect.objects.filter(is_permanent=True).select_related(
        "redirect_page"
    ):
        if redirect.redirect_page is None:
            continue
        target = relative_url(redirect.redirect_page, home)
        if Redirect.normalise_path(target) != redirect.old_path:
            found.add((redirect.old_path, target))
    return found


@pytest.mark.django_db
def test_importing_the_export_into_an_empty_site_gives_the_same_pages(site, tmp_path):
    before, redirects_before = snapshot(site), aliases(site)
    assert {kind for _, fields in before for kind, _ in fields.get("body", [])} == {
        "heading", "paragraph", "markdown", "code", "math", "image", "table",
        "callout", "quote", "embed", "html_figure", "diagram", "note",
    }  # fmt: skip
    out = tmp_path / "export"
    export_site(out)

    for child in site.get_children().not_type(TagIndexPage, ArchivePage):
        child.delete()
    get_image_model().objects.all().delete()
    Redirect.objects.all().delete()
    Tag.objects.all().delete()
    assert snapshot(site) == []

    call_command("import_markdown", str(out), stdout=Buffer(), stderr=Buffer())

    after = snapshot(site)
    assert [url for url, _ in after] == [url for url, _ in before]
    for (url, expected), (_, got) in zip(before, after, strict=True):
        for name in expected:
            if name == "body":
                for index, (want, have) in enumerate(
                    zip(expected["body"], got["body"], strict=False)
                ):
                    assert have == want, f"{url} block {index}"
                assert len(got["body"]) == len(expected["body"]), url
            else:
                assert got[name] == expected[name], f"{url} {name}"
    assert aliases(site) == redirects_before


def round_trip_paragraph(home, tmp_path, rich_text: str) -> str:
    """Export a post holding one paragraph, import it into an empty site; return it."""
    add_post(home, [{"type": "paragraph", "value": rich_text}], title="P", slug="p")
    export_site(tmp_path / "out")
    PostPage.objects.get(slug="p").delete()
    call_command(
        "import_markdown", str(tmp_path / "out"), stdout=Buffer(), stderr=Buffer()
    )
    return PostPage.objects.get(slug="p").body.raw_data[0]["value"]


@pytest.mark.django_db
def test_dollars_come_back_byte_for_byte(home, tmp_path):
    rich_text = "<p>It costs $5 or $10, \\$3 with tax; $x$.</p>"
    assert round_trip_paragraph(home, tmp_path, rich_text) == rich_text


@pytest.mark.django_db
def test_literal_double_brackets_stay_text(home, tmp_path):
    rich_text = "<p>Obsidian writes [[note]] for a link.</p>"
    assert round_trip_paragraph(home, tmp_path, rich_text) == rich_text


@pytest.mark.django_db
@pytest.mark.parametrize(
    "text",
    [
        # A reference as citation managers write it: a title with a bracket.
        "《CUDA 编程指南》[Blog post]. Retrieved 2024-05-01",
        "array[i] and a lone [ and a lone ]",
        "see [1](x) and [^2] and [[wiki]] and ![img]",
        "[",
        "a [b [c] d] e",
        "[x]: not a definition",
    ],
)
def test_link_text_with_brackets_comes_back_whole(home, tmp_path, text):
    escaped = html.escape(text, quote=False)
    rich_text = f'<p>Cited: <a href="https://example.com/post">{escaped}</a>.</p>'
    assert round_trip_paragraph(home, tmp_path, rich_text) == rich_text


@pytest.mark.django_db
def test_image_alt_text_with_brackets_comes_back_whole(home, tmp_path):
    image = make_image("fig", "#336699", "fig.png")
    alt = "图 [1]: 共享内存 [bank] 冲突 ["
    add_post(
        home,
        [
            {
                "type": "image",
                "value": {"image": image.pk, "alt": alt, "caption": "A [b] c"},
            }
        ],
        title="P",
        slug="p",
    )
    export_site(tmp_path / "out")
    PostPage.objects.get(slug="p").delete()
    call_command(
        "import_markdown", str(tmp_path / "out"), stdout=Buffer(), stderr=Buffer()
    )
    value = PostPage.objects.get(slug="p").body.raw_data[0]["value"]
    assert (value["alt"], value["caption"]) == (alt, "A [b] c")


def test_a_numbered_formula_keeps_its_automatic_number_through_export(home, tmp_path):
    post = PostPageFactory(parent=home, slug="numbered", title="编号")
    post.body = [
        ("math", {"tex": "a = b", "label": "", "numbered": True}),
        ("math", {"tex": "c = d", "label": "", "numbered": False}),
    ]
    post.save_revision().publish()
    out = tmp_path / "out"
    call_command("export_markdown", str(out), stdout=Buffer(), stderr=Buffer())
    text = next(out.rglob("numbered.md")).read_text("utf-8")
    assert "<!-- numbered -->\n$$\na = b\n$$" in text
    post.delete()
    call_command("import_markdown", str(out), stdout=Buffer(), stderr=Buffer())
    again = PostPage.objects.get(slug="numbered")
    assert [block.value["numbered"] for block in again.body] == [True, False]


@pytest.mark.django_db
def test_a_diagram_comes_back_as_a_diagram_through_a_mermaid_fence(home, tmp_path):
    # Backticks and HTML-looking text inside, and indentation, kept byte for byte.
    source = (
        "flowchart TD\n"
        '    A["`**粗体** label`"] --> B{a < b & c}\n'
        "    %% a Mermaid comment\n"
        "    B -->|是| C[```]"
    )
    post = PostPageFactory(parent=home, slug="diagram", title="图表")
    post.body = [("diagram", {"source": source})]
    post.save_revision().publish()
    out = tmp_path / "out"
    call_command("export_markdown", str(out), stdout=Buffer(), stderr=Buffer())
    text = next(out.rglob("diagram.md")).read_text("utf-8")
    assert f"````mermaid\n{source}\n````" in text
    post.delete()
    call_command("import_markdown", str(out), stdout=Buffer(), stderr=Buffer())
    again = PostPage.objects.get(slug="diagram")
    assert [(block.block_type, block.value["source"]) for block in again.body] == [
        ("diagram", source)
    ]


@pytest.mark.django_db
@pytest.mark.parametrize("caption", ["", "The SM"])
def test_an_images_display_width_comes_back(home, tmp_path, caption):
    image = make_image("fig", "#336699", "fig.png")
    value = {"image": image.pk, "alt": "fig", "caption": caption, "width": 300}
    add_post(home, [{"type": "image", "value": value}], title="P", slug="p")
    export_site(tmp_path / "out")
    PostPage.objects.get(slug="p").delete()
    call_command(
        "import_markdown", str(tmp_path / "out"), stdout=Buffer(), stderr=Buffer()
    )
    value = PostPage.objects.get(slug="p").body.raw_data[0]["value"]
    assert (value["alt"], value["caption"], value["width"]) == ("fig", caption, 300)
