"""Markdown pasted in the editor, turned into body blocks by the importer's parser.

The admin's paste script (static/js/admin/md-paste.js) posts the Markdown here
and inserts what comes back into the StreamField: each block's *form state*,
the shape Wagtail's client-side blocks are drawn from. Nothing is saved: the
editor sees the blocks and saves the post as usual.

A paste has no vault around it, so nothing on the disk is read: an image named
by a relative path becomes a callout asking for the image to be uploaded, an
http(s) image an image block shown from its URL, and a link to another file
its text.
"""

from __future__ import annotations

import uuid
from pathlib import Path

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import JsonResponse
from django.utils.html import escape
from django.views.decorators.http import require_POST
from wagtail.permission_policies.pages import PagePermissionPolicy

from blog.models import PostPage
from rendering import is_bound_error
from rendering.math_messages import chinese_math_error

from .importer.assets import AssetFinder, Located, local_part
from .importer.body import parse_body
from .importer.fill import finish
from .importer.parsed import ParsedBody

# The editor's own permissions: anyone who may add or change some page.
EDIT_ACTIONS = {"add", "change", "publish"}


class PasteError(ValueError):
    """Markdown that cannot be converted; the message is shown to the editor."""


class _NoFiles(AssetFinder):
    """Name every local file a paste refers to without reading any of them."""

    def __init__(self) -> None:
        self._by_name = {}

    def locate(self, src: str, base: Path) -> Located:
        path = local_part(src)
        return Located(Path(path)) if path else Located()

    def inside(self, path: Path) -> bool:
        return False  # so figure pages (.html, .svg) are never read


def convert(text: str, title: str = "") -> dict:
    """Return the blocks (raw StreamField data), H1 and warnings of a Markdown text.

    ``title`` is the post's title as typed: a first ``# H1`` equal to it is
    dropped, another one becomes a heading; with no title the first H1 is
    returned as ``title`` for the editor to use. Raises `PasteError` for empty
    or oversized text, for what the parser refuses (nesting too deep), for a
    formula past a bound (too large, too slow) and for formulas that take more
    than ``VAULT_PASTE_MATH_SECONDS`` to check, so a paste ends well within the
    worker's timeout.
    """
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not text.strip():
        raise PasteError("没有可转换的 Markdown 内容")
    limit = settings.VAULT_MAX_POST_BYTES
    if len(text.encode()) > limit:
        raise PasteError(f"Markdown 太长：最多 {limit // 1000:,} KB，请分段粘贴")
    body = parse_body(
        text,
        title=title.strip() or None,
        finder=_NoFiles(),
        max_formulas=settings.VAULT_MAX_POST_FORMULAS,
        max_nesting=settings.VAULT_MAX_NESTING,
        max_math_seconds=settings.VAULT_PASTE_MATH_SECONDS or None,
    )
    if body.errors:
        issue = body.errors[0]
        raise PasteError(f"无法转换（第 {issue.line} 行）：{issue.message}")
    for formula in body.formulas:
        if formula.error and is_bound_error(formula.error):
            message = chinese_math_error(formula.error)
            raise PasteError(f"无法转换（第 {formula.line} 行）：{message}")
    if body.math_out_of_time:
        seconds = settings.VAULT_PASTE_MATH_SECONDS
        raise PasteError(f"公式太多：检查用时超过 {seconds:g} 秒，请分段粘贴")
    blocks, warnings = _raw_blocks(body)
    return {"blocks": blocks, "title": body.h1 or "", "warnings": warnings}


def _raw_blocks(body: ParsedBody) -> tuple[list[dict], list[str]]:
    """Return the raw blocks of a parsed paste, with placeholders, and its warnings."""
    warnings = []
    for link in body.links:
        warnings.append(
            f"第 {link.line} 行：站内链接“{link.label_text}”未解析，保留为文字"
        )
    # No image is in the library yet: none has a primary key.
    no_pks = [None] * len(body.images)
    no_pages = [None] * len(body.links)
    raw, placed = [], set()
    for block in body.blocks:
        if block.type == "image":
            placed.add(block.value["image"].index)
            if not block.value.get("url"):
                image = body.images[block.value["image"].index]
                raw.append(_missing_image(image.path, image.alt))
                warnings.append(
                    f"第 {block.line} 行：本地图片 {image.path} 无法随粘贴上传，"
                    "已留下占位提示框"
                )
                continue
        value = finish(block.value, body.links, no_pages, no_pks, body.images)
        raw.append({"type": block.type, "value": value})
    for index, image in enumerate(body.images):
        if index not in placed and image.path is not None:
            warnings.append(
                f"第 {image.line} 行：Markdown 块中的本地图片 {image.src} 无法显示，"
                "请上传后改用图片块"
            )
    return raw, warnings


def _missing_image(path: Path | None, alt: str) -> dict:
    """A callout standing where a local image was: the editor uploads it there."""
    name = escape(str(path or ""))
    text = f"<p>此处原有本地图片 <code>{name}</code>"
    if alt:
        text += f"（{escape(alt)}）"
    text += "：请在这里添加一个图片块并上传它，然后删除这个提示框。</p>"
    return {
        "type": "callout",
        "value": {"kind": "warning", "title": "待上传的图片", "body": text},
    }


def form_states(raw: list[dict]) -> list[dict]:
    """Return raw body blocks as the StreamField's client side draws them."""
    stream_block = PostPage.body.field.stream_block
    value = stream_block.to_python(raw)
    states = stream_block.get_form_state(value)
    for state in states:
        state["id"] = str(uuid.uuid4())
    return states


def can_edit_pages(user) -> bool:
    return PagePermissionPolicy().user_has_any_permission(user, EDIT_ACTIONS)


@require_POST
def markdown_paste(request):
    """Answer ``{"blocks": [...], "title": …, "warnings": [...]}`` for posted Markdown.

    The request body is the Markdown itself (UTF-8); ``?title=`` the post's
    title as typed (see `convert`). Errors answer
    ``{"error": "…"}`` in Chinese with status 400, 403 or 413.
    """
    if not can_edit_pages(request.user):
        return JsonResponse({"error": "你没有编辑页面的权限"}, status=403)
    limit = settings.VAULT_MAX_POST_BYTES
    too_big = {"error": f"Markdown 太长：最多 {limit // 1000:,} KB，请分段粘贴"}
    try:
        length = int(request.headers.get("Content-Length") or 0)
    except ValueError:
        length = 0
    if length > limit:
        return JsonResponse(too_big, status=413)
    try:
        data = request.body
    except RequestDataTooBig:
        return JsonResponse(too_big, status=413)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return JsonResponse({"error": "内容不是 UTF-8 编码的文本"}, status=400)
    try:
        result = convert(text, request.GET.get("title", ""))
    except PasteError as error:
        status = 413 if len(data) > limit else 400
        return JsonResponse({"error": str(error)}, status=status)
    result["blocks"] = form_states(result["blocks"])
    return JsonResponse(result)
