"""A post embedded in another (the note block): what a reader sees, kept current,
without loops, and never a post the reader may not see."""

import pytest
from bs4 import BeautifulSoup
from wagtail.models import PageViewRestriction
from wagtail.rich_text import RichText

from tests.factories import PostPageFactory


def paragraph(text: str):
    return ("paragraph", RichText(f"<p>{text}</p>"))


def heading(text: str, level: str = "h2"):
    return ("heading", {"text": text, "level": level})


def note(page, section: str = ""):
    return ("note", {"page": page, "heading": section})


def post(home, slug, body, title=None, publish=True):
    page = PostPageFactory(
        parent=home, slug=slug, title=title or slug, body=[], live=publish
    )
    page.body = body
    if publish:
        page.save_revision().publish()
    else:
        page.save_revision()  # a draft: never published
    return page


def republish(page, body, django_capture_on_commit_callbacks):
    page.body = body
    with django_capture_on_commit_callbacks(execute=True):
        page.save_revision().publish()


def frames(response) -> list:
    """Return the embed frames of a page's body."""
    html = BeautifulSoup(response.content, "html.parser")
    return html.select(".post-body aside.note-embed")


@pytest.fixture
def source(home):
    return post(
        home,
        "source",
        [
            paragraph("开头的一段。"),
            heading("Bank Conflict"),
            paragraph("同一 bank 的不同地址要排队。"),
            heading("细节", "h3"),
            paragraph("细节里的一段。"),
            heading("小结"),
            paragraph("小结的一段。"),
        ],
        title="共享内存",
    )


def test_an_embedded_post_is_shown_whole_in_a_frame_linked_to_it(client, home, source):
    post(home, "host", [paragraph("前文。"), note(source)])

    (frame,) = frames(client.get("/host/"))

    link = frame.select_one(".note-embed-source a")
    assert frame.select_one(".note-embed-source").get_text() == "引自《共享内存》"
    assert link["href"] == "/source/"
    body = frame.select_one(".note-embed-body").get_text()
    assert "开头的一段。" in body
    assert "小结的一段。" in body


def test_a_section_runs_to_the_next_heading_of_its_level(client, home, source):
    post(home, "host", [note(source, "Bank Conflict")])

    (frame,) = frames(client.get("/host/"))

    source_line = frame.select_one(".note-embed-source")
    assert source_line.get_text() == "引自《共享内存》 › Bank Conflict"
    assert source_line.a["href"] == "/source/#bank-conflict"
    body = frame.select_one(".note-embed-body").get_text()
    assert "同一 bank 的不同地址要排队。" in body
    assert "细节里的一段。" in body  # an h3 inside it
    assert "开头的一段。" not in body
    assert "小结的一段。" not in body


def test_embedded_headings_take_ids_of_their_own(client, home, source):
    post(home, "host", [heading("小结"), note(source)])

    html = BeautifulSoup(client.get("/host/").content, "html.parser")

    ids = [tag["id"] for tag in html.select(".post-body [id]")]
    assert len(ids) == len(set(ids))
    assert "小结" in ids
    # The table of contents lists the page's own headings only.
    toc = [a.get_text() for a in html.select(".toc a")]
    assert "Bank Conflict" not in toc


def test_a_section_that_is_not_there_is_a_link_with_a_notice(client, home, source):
    post(home, "host", [note(source, "没有这一节")])

    (frame,) = frames(client.get("/host/"))

    assert frame.select_one(".note-embed-source a")["href"] == "/source/"
    assert (
        frame.select_one(".note-embed-notice").get_text() == "未找到章节「没有这一节」"
    )
    assert frame.select_one(".note-embed-body") is None


def test_publishing_the_embedded_post_changes_the_embedding_page(
    client, home, source, settings, django_capture_on_commit_callbacks
):
    settings.PAGE_CACHE_SECONDS = 3600
    post(home, "host", [note(source, "小结")])
    assert "小结的一段。" in client.get("/host/").content.decode()
    assert client.get("/host/")["X-Page-Cache"] == "hit"

    body = list(source.body.raw_data)
    body[-1] = {**body[-1], "value": "<p>改过的小结。</p>"}
    republish(source, body, django_capture_on_commit_callbacks)

    response = client.get("/host/")
    assert response["X-Page-Cache"] == "miss"
    assert "改过的小结。" in response.content.decode()
    assert "小结的一段。" not in response.content.decode()


def test_a_post_embedded_through_another_is_kept_current_too(
    client, home, source, django_capture_on_commit_callbacks
):
    middle = post(home, "middle", [note(source, "小结")])
    post(home, "host", [note(middle)])
    assert "小结的一段。" in client.get("/host/").content.decode()

    body = list(source.body.raw_data)
    body[-1] = {**body[-1], "value": "<p>改过的小结。</p>"}
    republish(source, body, django_capture_on_commit_callbacks)

    assert "改过的小结。" in client.get("/host/").content.decode()


def test_a_post_that_embeds_itself_stops_with_a_link(client, home):
    page = post(home, "self", [paragraph("自己的一段。")], title="自指")
    page.body = [paragraph("自己的一段。"), note(page)]
    page.save_revision().publish()

    (frame,) = frames(client.get("/self/"))

    assert frame.select_one(".note-embed-source a")["href"] == "/self/"
    assert frame.select_one(".note-embed-notice").get_text() == "循环嵌入，未展开"


def test_two_posts_that_embed_each_other_stop_after_one_round(client, home):
    first = post(home, "a", [paragraph("甲的一段。")], title="甲")
    second = post(home, "b", [paragraph("乙的一段。"), note(first)], title="乙")
    first.body = [paragraph("甲的一段。"), note(second)]
    first.save_revision().publish()

    outer, inner = frames(client.get("/a/"))

    assert "乙的一段。" in outer.select_one(".note-embed-body").get_text()
    assert inner.select_one(".note-embed-source a")["href"] == "/a/"
    assert inner.select_one(".note-embed-notice").get_text() == "循环嵌入，未展开"


def test_embeds_nested_deeper_than_the_limit_stop(client, home):
    from blog.blocks.note import MAX_DEPTH

    last = post(home, "p0", [paragraph("最深的一段。")])
    for n in range(1, MAX_DEPTH + 1):
        last = post(home, f"p{n}", [paragraph(f"第 {n} 层。"), note(last)])

    shown = frames(client.get(f"/p{MAX_DEPTH}/"))

    assert len(shown) == MAX_DEPTH
    assert shown[-1].select_one(".note-embed-notice").get_text() == "嵌套过深，未展开"
    assert "最深的一段。" not in shown[0].get_text()


@pytest.mark.parametrize("restriction", ["draft", "password", "login"])
def test_a_post_no_reader_may_see_is_not_shown_inside_a_public_one(
    client, admin_client, home, restriction
):
    hidden = post(
        home,
        "hidden",
        [paragraph("私密的一段。")],
        title="私密文章",
        publish=restriction != "draft",
    )
    if restriction == "password":
        PageViewRestriction.objects.create(
            page=hidden, restriction_type="password", password="x"
        )
    elif restriction == "login":
        PageViewRestriction.objects.create(page=hidden, restriction_type="login")
    post(home, "host", [paragraph("公开的一段。"), note(hidden)])

    for reader in (client, admin_client):  # the render is kept for every reader
        page = reader.get("/host/").content.decode()
        assert "公开的一段。" in page
        assert "私密的一段。" not in page
        assert "私密文章" not in page
        assert "/hidden/" not in page


def test_making_an_embedded_post_private_hides_it(
    client, home, source, django_capture_on_commit_callbacks
):
    post(home, "host", [note(source)])
    assert "开头的一段。" in client.get("/host/").content.decode()

    with django_capture_on_commit_callbacks(execute=True):
        PageViewRestriction.objects.create(page=source, restriction_type="login")

    assert "开头的一段。" not in client.get("/host/").content.decode()
