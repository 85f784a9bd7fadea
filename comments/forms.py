"""The form a reader comments with."""

import time

from django import forms
from django_comments.forms import CommentForm

# The form's timestamp is the start of its day (UTC): the post page, form
# included, is then the same all day, as a kept page and an ETag expect; a
# form stays good for COMMENTS_TIMEOUT less at most a day.
TIMESTAMP_STEP = 24 * 60 * 60


class PostCommentForm(CommentForm):
    """Name, an optional email never shown, the comment; a reply names its parent.

    django-contrib-comments' form brings the target's security hash, its
    timestamp and the honeypot field; the link field is left out.
    """

    reply_to = forms.IntegerField(required=False, initial=0, widget=forms.HiddenInput)

    def __init__(self, *args, reply_to=0, **kwargs):
        super().__init__(*args, **kwargs)
        del self.fields["url"]
        if reply_to:
            self.initial["reply_to"] = reply_to
        name, email, comment = (self.fields[f] for f in ("name", "email", "comment"))
        name.label = "称呼"
        name.error_messages["required"] = "请填写称呼。"
        name.widget.attrs.update(autocomplete="name", maxlength=50)
        email.label = "邮箱（可选，不公开）"
        email.required = False
        email.error_messages["invalid"] = "请填写有效的邮箱地址，或者留空。"
        email.widget.attrs.update(autocomplete="email")
        comment.label = "评论"
        comment.help_text = "支持 Markdown 与行内公式 $…$"
        comment.error_messages["required"] = "请写下评论内容。"
        comment.error_messages["max_length"] = "评论最长 %(limit_value)d 字。"
        comment.widget.attrs.update(rows=5)
        comment.widget.attrs.pop("cols", None)
        honeypot = self.fields["honeypot"]
        honeypot.label = "请勿填写此栏"
        honeypot.widget.attrs.update(tabindex="-1", autocomplete="off")

    def generate_security_data(self):
        timestamp = int(time.time()) // TIMESTAMP_STEP * TIMESTAMP_STEP
        return {
            **super().generate_security_data(),
            "timestamp": str(timestamp),
            "security_hash": self.initial_security_hash(timestamp),
        }

    def expired_only(self) -> bool:
        """Whether the form failed its checks only for an old timestamp."""
        return "timestamp" in self.errors and not (
            {"honeypot", "security_hash"} & set(self.errors)
        )
