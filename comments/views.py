"""Where readers send comments, and the page to reply to one.

The post page is kept in the page cache, the same copy for every reader, so
its comment form carries no per-reader CSRF token and the view that takes it
is exempt from Django's CSRF check. What guards it instead: the form's
security hash over the post and a timestamp (django-contrib-comments), the
honeypot field, a limit per reader's address (``serving.addresses``), session
cookies that browsers do not send on cross-site POSTs (SameSite=Lax), and a
comment never acting for a logged-in user: it is anonymous and held until a
moderator approves it.

A post the reader may not see (a draft, or behind a password, a login or a
group the reader has not passed: ``blog.models.may_see``) is missing to these
views, and no refusal names a post.
"""

import logging

from django.conf import settings
from django.contrib.contenttypes.models import ContentType
from django.core.cache import cache
from django.db.models import Q
from django.http import Http404
from django.template.response import TemplateResponse
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST
from django_comments_xtd.models import XtdComment, max_thread_level_for_content_type

from blog.models import PostPage, may_see
from comments.forms import PostCommentForm
from comments.threads import PUBLISHED, SPAM, comments_on
from serving.addresses import is_trusted_proxy, reader_address

logger = logging.getLogger(__name__)

TARGET = "blog.postpage"
RATE_MESSAGE = "评论太频繁了，请过几分钟再提交。你写的内容还在下面。"


def _rate_key(address) -> str:
    return f"comments:rate:{address}"


def _limited(address) -> bool:
    """Whether this address has sent its share of comments for now."""
    try:
        return (cache.get(_rate_key(address)) or 0) >= settings.COMMENTS_RATE
    except Exception:
        logger.warning("Comment rate unknown: the cache failed", exc_info=True)
        return False


def _take_turn(address) -> bool:
    """Count one more comment from this address; whether it is within the rate.

    The count is the cache's own atomic increment, so comments sent at once
    cannot all read the same count and pass together.
    """
    key = _rate_key(address)
    seconds = settings.COMMENTS_RATE_SECONDS
    try:
        cache.add(key, 0, timeout=seconds)
        try:
            sent = cache.incr(key)
        except ValueError:  # expired in between
            cache.add(key, 0, timeout=seconds)
            sent = cache.incr(key)
    except Exception:  # a comment is held for moderation anyway
        logger.warning("Comment rate not counted: the cache failed", exc_info=True)
        return True
    return sent <= settings.COMMENTS_RATE


def _page(request, post, form, *, status=200, message="", parent=None):
    """Answer with the form on a page of its own, the reader's text kept."""
    return TemplateResponse(
        request,
        "comments/form_page.html",
        {"post": post, "form": form, "message": message, "parent": parent},
        status=status,
    )


def _refuse(request, message, status=400):
    """Answer with a refusal that names no post."""
    return TemplateResponse(
        request, "comments/refused.html", {"message": message}, status=status
    )


def _post_for(request, pk: int):
    """Return the live post ``pk`` if this reader may see it, else None."""
    post = PostPage.objects.live().filter(pk=pk).first()
    return post if post is not None and may_see(request, post) else None


def _replyable(post, reply_to):
    """Return the published comment on ``post`` a reply may go under, or None."""
    parent = comments_on(post).filter(PUBLISHED, pk=reply_to).first()
    if parent and parent.level < max_thread_level_for_content_type(parent.content_type):
        return parent
    return None


@csrf_exempt
@require_POST
@never_cache
def post_comment(request):
    """Take a reader's comment on a post that allows them, held for moderation."""
    data = request.POST
    post = None
    if data.get("content_type") == TARGET and data.get("object_pk", "").isdigit():
        post = _post_for(request, int(data["object_pk"]))
    if post is None:
        return _refuse(request, "找不到要评论的文章。", status=404)
    if not post.allow_comments:
        return _refuse(request, "这篇文章不开放评论。", status=403)
    form = PostCommentForm(post, data=data)
    address = reader_address(request)
    if _limited(address):
        return _page(request, post, form, status=429, message=RATE_MESSAGE)
    if form.security_errors():
        if not form.expired_only():
            return _refuse(request, "评论未能通过检查，没有提交。")
        fresh = data.copy()
        fresh.update(form.generate_security_data())
        form = PostCommentForm(post, data=fresh)
        form.is_valid()
        message = "页面打开太久了，请再提交一次。你写的内容还在下面。"
        return _page(request, post, form, status=400, message=message)
    if not form.is_valid():
        return _page(request, post, form, status=400, message="请修改下面标出的内容。")
    parent = None
    if form.cleaned_data["reply_to"]:
        parent = _replyable(post, form.cleaned_data["reply_to"])
        if parent is None:
            return _refuse(request, "无法回复这条评论。")
    if not _take_turn(address):
        return _page(request, post, form, status=429, message=RATE_MESSAGE)
    email = form.cleaned_data["email"]
    comment = XtdComment(
        content_type=ContentType.objects.get_for_model(PostPage),
        object_pk=str(post.pk),
        site_id=settings.SITE_ID,
        user_name=form.cleaned_data["name"],
        user_email=email,
        comment=form.cleaned_data["comment"],
        submit_date=timezone.now(),
        ip_address=address,
        is_public=False,
        # One marked as spam before marks the next from the same sender.
        is_removed=_known_spammer(address, email),
        parent_id=parent.pk if parent else 0,
    )
    comment.save()
    return TemplateResponse(request, "comments/posted.html", {"post": post})


def _known_spammer(address, email) -> bool:
    """Whether a comment from this address or email was marked as spam.

    Not by a proxy's address: one that forwarded no reader's address stands
    for every reader behind it.
    """
    by_address = address and not is_trusted_proxy(address)
    sender = Q(ip_address=address) if by_address else Q(pk__in=[])
    if email:
        sender |= Q(user_email=email)
    return XtdComment.norel_objects.filter(SPAM).filter(sender).exists()


@never_cache
def reply(request, cid):
    """Show a published comment and the form to reply to it."""
    comment = (
        XtdComment.norel_objects.filter(
            PUBLISHED, content_type=ContentType.objects.get_for_model(PostPage)
        )
        .filter(pk=cid)
        .first()
    )
    post = _post_for(request, int(comment.object_pk)) if comment else None
    if post is None:
        raise Http404
    if not post.allow_comments:
        return _refuse(request, "这篇文章不开放评论。", status=403)
    if _replyable(post, comment.pk) is None:
        return _refuse(request, "这条评论不能再回复了。", status=403)
    form = PostCommentForm(post, reply_to=comment.pk)
    return _page(request, post, form, parent=comment)
