"""Why a file failed: the exception that rolls it back, and its messages."""

from __future__ import annotations

import traceback
from collections.abc import Iterable, Sequence
from typing import Any

from django.core.exceptions import ValidationError
from wagtail.models import Page

from .report import Issue


class FileFailed(Exception):
    """A file cannot be imported; its transaction is rolled back."""

    def __init__(self, issues: Sequence[Issue] | Issue | str) -> None:
        if isinstance(issues, str):
            issues = [Issue(issues)]
        elif isinstance(issues, Issue):
            issues = [issues]
        self.issues = list(issues)
        super().__init__("; ".join(str(issue) for issue in self.issues))


def internal_error(error: Exception) -> Issue:
    detail = "".join(traceback.format_exception_only(error)).strip()
    return Issue(f"internal error: {detail}")


def slug_taken(page: Page, slug: str) -> Issue:
    where = page.get_url() or page.url_path
    origin = (
        f" (imported from {page.source_path})"
        if getattr(page, "source_path", "")
        else ""
    )
    return Issue(
        f"slug {slug!r} is already used by {where}{origin}; set `slug:` in the front matter"
    )


def error_messages(error: ValidationError) -> Iterable[str]:
    if hasattr(error, "message_dict"):
        for name, messages in error.message_dict.items():
            for message in messages:
                yield f"{name}: {message}"
    else:
        yield from error.messages


def block_errors(error: ValidationError, blocks: list[tuple[str, int]]) -> list[Issue]:
    """Return one issue per invalid block, at the block's line."""
    block_errors = getattr(error, "block_errors", None)
    if not block_errors:
        return [Issue(f"invalid body: {'; '.join(error.messages)}")]
    issues = []
    for index, child in sorted(block_errors.items()):
        type_, line = blocks[index]
        data = (
            child.as_json_data()
            if hasattr(child, "as_json_data")
            else {"messages": child.messages}
        )
        issues.append(Issue(f"{type_} block: {'; '.join(_flatten(data))}", line))
    return issues


def _flatten(data: Any) -> Iterable[str]:
    if isinstance(data, str):
        yield data
    elif isinstance(data, dict):
        for value in data.values():
            yield from _flatten(value)
    elif isinstance(data, list):
        for value in data:
            yield from _flatten(value)
