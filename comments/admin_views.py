"""The Wagtail admin's 评论 page: list comments by state, approve, spam or delete."""

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django_comments_xtd.models import XtdComment

from blog.models import PostPage
from comments.threads import PENDING, PUBLISHED, SPAM, purge_posts_of, with_replies

PERMISSION = "django_comments.can_moderate"
STATES = {
    "pending": ("待审核", PENDING),
    "public": ("已发布", PUBLISHED),
    "spam": ("垃圾", SPAM),
}
ACTIONS = {"approve": "批准", "spam": "标为垃圾", "delete": "删除"}
PER_PAGE = 50


def can_moderate(user) -> bool:
    return user.has_perm(PERMISSION)


def pending_count() -> int:
    return XtdComment.norel_objects.filter(PENDING).count()


def moderate(request):
    """List the comments in one state; POST applies an action to the ticked ones."""
    if not can_moderate(request.user):
        raise PermissionDenied
    state = request.GET.get("state", "pending")
    if state not in STATES:
        state = "pending"
    if request.method == "POST":
        return _act(request, state)
    rows = XtdComment.norel_objects.filter(STATES[state][1]).order_by("-submit_date")
    page = Paginator(rows, PER_PAGE).get_page(request.GET.get("p"))
    comments = list(page.object_list)
    posts = (
        PostPage.objects.filter(pk__in={int(c.object_pk) for c in comments})
        .only("title", "url_path")
        .in_bulk()
    )
    for comment in comments:
        comment.post = posts.get(int(comment.object_pk))
    counts = {
        key: XtdComment.norel_objects.filter(q).count()
        for key, (_, q) in STATES.items()
    }
    tabs = [(key, label, counts[key]) for key, (label, _) in STATES.items()]
    return TemplateResponse(
        request,
        "comments/admin/moderate.html",
        {
            "state": state,
            "tabs": tabs,
            "page": page,
            "comments": comments,
            "actions": ACTIONS,
        },
    )


def _act(request, state):
    action = request.POST.get("action", "")
    ids = request.POST.getlist("ids")
    if "." in action:  # a row's own button: "approve.12"
        action, one = action.split(".", 1)
        ids = [one]
    comments = list(
        XtdComment.norel_objects.filter(pk__in=[i for i in ids if i.isdigit()])
    )
    back = redirect(f"{reverse('comments_moderate')}?state={state}")
    if action not in ACTIONS or not comments:
        messages.warning(request, "请先勾选评论，再选择操作。")
        return back
    chosen = XtdComment.norel_objects.filter(pk__in=[c.pk for c in comments])
    # Rows are updated, not saved: saving would run django-comments-xtd's
    # pre_save hook, which publishes every held reply below an approved comment.
    if action == "approve":
        chosen.update(is_public=True, is_removed=False)
    elif action == "spam":
        chosen.update(is_public=False, is_removed=True)
    else:
        XtdComment.norel_objects.filter(pk__in=with_replies(comments)).delete()
    purge_posts_of(comments)
    messages.success(request, f"已{ACTIONS[action]} {len(comments)} 条评论。")
    return back
