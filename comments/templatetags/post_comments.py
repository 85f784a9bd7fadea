"""The comment section at the end of a post (``{% comment_section page %}``)."""

from django import template

from comments.forms import PostCommentForm
from comments.threads import published_threads

register = template.Library()


@register.inclusion_tag("comments/section.html")
def comment_section(post):
    """Render the post's published comments, in threads, and the form; one query."""
    if not getattr(post, "allow_comments", False):
        return {"shown": False}
    threads, count = published_threads(post)
    return {
        "shown": True,
        "post": post,
        "threads": threads,
        "count": count,
        "form": PostCommentForm(post),
        "math": any("katex" in t.html for t in _all(threads)),
    }


def _all(threads):
    for thread in threads:
        yield thread
        yield from _all(thread.replies)
