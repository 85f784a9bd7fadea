"""The admin's Markdown paste view: Markdown in, the body's blocks out."""

import json
import time

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.test import Client
from django.urls import reverse
from wagtail.models import GroupPagePermission

from blog.models import PostPage
from tests.math_bombs import MACRO_BOMB, macro_bomb
from vault.paste import convert

pytestmark = pytest.mark.django_db

MARKDOWN = """# 一篇文章

## 共享内存

用 **共享内存** 减少访存，$O(n)$ 次。

```cuda
__global__ void add(float *a) { a[threadIdx.x] += 1.0f; }
```

$$
\\sum_{i=1}^{n} i = \\frac{n(n+1)}{2}
$$

| 线程 | 值 |
|---|---|
| 0 | $x$ |

> [!WARNING] 小心
> 别越界。

![吞吐量](https://example.com/throughput.png)
"""


@pytest.fixture
def url():
    return reverse("vault_markdown_paste")


def paste(client, url, text, title=""):
    return client.post(
        f"{url}?title={title}",
        data=text.encode(),
        content_type="text/markdown; charset=utf-8",
    )


def by_type(blocks):
    return [block["type"] for block in blocks]


def test_markdown_becomes_the_bodys_blocks(admin_client, url):
    response = paste(admin_client, url, MARKDOWN)

    assert response.status_code == 200
    data = response.json()
    assert data["title"] == "一篇文章"
    blocks = data["blocks"]
    assert by_type(blocks) == [
        "heading",
        "paragraph",
        "code",
        "math",
        "table",
        "callout",
        "image",
    ]
    heading, paragraph, code, math, table, callout, image = blocks
    assert heading["value"]["text"] == "共享内存"
    assert heading["value"]["level"] == ["h2"]
    # The paragraph comes as Draftail's content state, bold and math kept.
    state = json.loads(paragraph["value"])
    assert state["blocks"][0]["text"] == "用 共享内存 减少访存，$O(n)$ 次。"
    assert state["blocks"][0]["inlineStyleRanges"][0]["style"] == "BOLD"
    assert code["value"]["language"] == ["cuda"]
    assert "threadIdx.x" in code["value"]["code"]
    assert math["value"]["tex"] == "\\sum_{i=1}^{n} i = \\frac{n(n+1)}{2}"
    assert table["value"]["data"] == [["线程", "值"], ["0", "$x$"]]
    assert callout["value"]["kind"] == ["warning"]
    assert callout["value"]["title"] == "小心"
    assert image["value"]["url"] == "https://example.com/throughput.png"
    assert image["value"]["image"] is None
    assert image["value"]["alt"] == "吞吐量"
    assert len({block["id"] for block in blocks}) == len(blocks)
    assert data["warnings"] == []


def test_the_returned_blocks_are_a_valid_body(admin_client, url):
    # What the editor gets back saves: the raw data behind it passes validation.
    raw = convert(MARKDOWN)["blocks"]
    stream_block = PostPage.body.field.stream_block
    stream_block.clean(stream_block.to_python(raw))


def test_an_h1_equal_to_the_typed_title_is_dropped_another_is_a_heading(
    admin_client, url
):
    same = paste(admin_client, url, "# 标题\n\n正文", title="标题").json()
    other = paste(admin_client, url, "# 另一个\n\n正文", title="标题").json()

    assert by_type(same["blocks"]) == ["paragraph"]
    assert same["title"] == ""
    assert by_type(other["blocks"]) == ["heading", "paragraph"]
    assert other["blocks"][0]["value"]["text"] == "另一个"


def test_a_local_image_leaves_a_placeholder_and_a_warning(admin_client, url):
    data = paste(admin_client, url, "前文\n\n![图](img/a.png)\n").json()

    assert by_type(data["blocks"]) == ["paragraph", "callout"]
    placeholder = data["blocks"][1]["value"]
    assert placeholder["title"] == "待上传的图片"
    assert "img/a.png" in json.loads(placeholder["body"])["blocks"][0]["text"]
    assert any("img/a.png" in warning for warning in data["warnings"])


def test_a_link_to_another_file_keeps_its_text(admin_client, url):
    data = paste(admin_client, url, "见 [另一篇](other.md) 和 [[笔记]]。").json()

    text = json.loads(data["blocks"][0]["value"])["blocks"][0]["text"]
    assert text == "见 另一篇 和 笔记。"
    assert len(data["warnings"]) == 2


def test_empty_markdown_is_refused_in_chinese(admin_client, url):
    response = paste(admin_client, url, "  \n\n ")

    assert response.status_code == 400
    assert response.json() == {"error": "没有可转换的 Markdown 内容"}


def test_text_that_is_not_utf8_is_refused(admin_client, url):
    response = admin_client.post(
        url, data="标题".encode("gbk"), content_type="text/markdown"
    )

    assert response.status_code == 400
    assert response.json()["error"] == "内容不是 UTF-8 编码的文本"


def test_markdown_past_the_size_limit_is_refused(admin_client, url, settings):
    settings.VAULT_MAX_POST_BYTES = 1000
    response = paste(admin_client, url, "很长的文字。" * 100)

    assert response.status_code == 413
    assert response.json()["error"].startswith("Markdown 太长")


def test_a_formula_past_a_bound_is_refused_naming_its_line(admin_client, url):
    text = f"# 标题\n\n正文。\n\n$$\n{MACRO_BOMB}\n$$\n"

    response = paste(admin_client, url, text)

    assert response.status_code == 400
    assert response.json()["error"] == (
        "无法转换（第 5 行）：公式展开后过大（超过 10,000 个元素），请简化宏定义。"
    )


def test_sixteen_bombs_are_refused_well_within_the_workers_timeout(admin_client, url):
    # Each new to the render cache, as an attacker's would be.
    bombs = [macro_bomb(mark=chr(ord("A") + n)) for n in range(16)]
    text = "\n\n".join(f"$${bomb}$$" for bomb in bombs)
    start = time.perf_counter()

    response = paste(admin_client, url, text)

    assert time.perf_counter() - start < 5
    assert response.status_code == 400
    assert "公式展开后过大" in response.json()["error"]


def test_formulas_that_take_long_stop_the_paste_at_its_time_bound(
    admin_client, url, settings
):
    # No output bound: each bomb is typeset until the time-out.
    settings.MATH_MAX_OUTPUT_BYTES = 10**10
    settings.MATH_TIMEOUT_SECONDS = 0.2
    settings.VAULT_PASTE_MATH_SECONDS = 0.5
    bombs = [macro_bomb(mark=chr(ord("a") + n)) for n in range(16)]
    text = "\n\n".join(f"$${bomb}$$" for bomb in bombs)
    start = time.perf_counter()

    response = paste(admin_client, url, text)

    # Three bombs checked (0.6 s), the other thirteen left alone.
    assert time.perf_counter() - start < 3
    assert response.status_code == 400
    assert response.json()["error"] == (
        "无法转换（第 1 行）：公式排版超时（超过 0.2 秒），请简化公式。"
    )


def test_a_paste_whose_formulas_take_too_long_to_check_is_refused(
    admin_client, url, settings
):
    settings.VAULT_PASTE_MATH_SECONDS = 0.01
    nonce = time.time_ns()
    text = "\n\n".join(f"$\\sqrt{{{nonce + n}}}$" for n in range(300))

    response = paste(admin_client, url, text)

    assert response.status_code == 400
    assert response.json()["error"] == "公式太多：检查用时超过 0.01 秒，请分段粘贴"


def test_only_post_is_answered(admin_client, url):
    assert admin_client.get(url).status_code == 405


def test_a_visitor_is_sent_to_the_login(client, url):
    response = paste(client, url, "## 标题")

    assert response.status_code == 302
    assert "/admin/login/" in response["Location"]


def test_an_admin_user_who_may_edit_no_page_is_refused(url):
    user = get_user_model().objects.create_user("reader", password="x")  # noqa: S106
    group = Group.objects.create(name="只能登录")
    group.permissions.add(Permission.objects.get(codename="access_admin"))
    user.groups.add(group)
    client = Client()
    client.force_login(user)

    response = paste(client, url, "## 标题")

    assert response.status_code == 403
    assert response.json() == {"error": "你没有编辑页面的权限"}


def test_a_post_without_the_csrf_token_is_refused(admin_user, url):
    client = Client(enforce_csrf_checks=True)
    client.force_login(admin_user)

    assert paste(client, url, "## 标题").status_code == 403


def test_an_editor_with_page_permissions_may_convert(url, home):
    user = get_user_model().objects.create_user("editor", password="x")  # noqa: S106
    editors = Group.objects.create(name="编辑")
    editors.permissions.add(Permission.objects.get(codename="access_admin"))
    GroupPagePermission.objects.create(
        group=editors,
        page=home,
        permission=Permission.objects.get(codename="change_page"),
    )
    user.groups.add(editors)
    client = Client()
    client.force_login(user)

    response = paste(client, url, "## 标题")

    assert response.status_code == 200
    assert by_type(response.json()["blocks"]) == ["heading"]


def test_the_editor_loads_the_paste_script(admin_client, home):
    response = admin_client.get(f"/admin/pages/add/blog/postpage/{home.pk}/")

    html = response.content.decode()
    assert "js/admin/streamfield-adapter.js" in html
    assert f'data-endpoint="{reverse("vault_markdown_paste")}"' in html
