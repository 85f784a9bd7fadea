"""Admin forms for blog pages."""

from django import forms
from django.utils import timezone
from wagtail.admin.forms import WagtailAdminPageForm


def abandoned_drafts(parent, user, page_class):
    """Return ``user``'s pages of ``page_class`` under ``parent`` never published.

    Autosave saves a new page as a draft as soon as its title is typed; an
    editor who leaves and starts over meets it again (its slug is taken).
    """
    return (
        page_class.objects.child_of(parent)
        .filter(owner=user, live=False, first_published_at__isnull=True)
        .order_by("-latest_revision_created_at", "-pk")
    )


def same_slug_message(draft):
    return (
        f"你在这里已有一篇未发布的草稿「{draft.title}」用了这个 slug"
        "（可能是之前自动保存留下的）。点页面顶部提示里的“继续编辑草稿”接着写，"
        "或换一个标题（slug）另起一篇。"
    )


class StartOverPageForm(WagtailAdminPageForm):
    """A page form that names the editor's own draft when a new page's slug is taken.

    Wagtail's message says only that the slug is in use; starting a post over
    after autosave kept the first attempt, it is the editor's own draft, and
    the add form offers it (``blog.wagtail_hooks.offer_drafts``).
    """

    def clean(self):
        slug = self.cleaned_data.get("slug")  # Gone once Wagtail refuses it.
        cleaned_data = super().clean()
        if self.instance.pk is None and slug and self.has_error("slug"):
            draft = (
                abandoned_drafts(self.parent_page, self.for_user, type(self.instance))
                .filter(slug=slug)
                .first()
            )
            if draft is not None:
                # Replaces Wagtail's "already in use": this slug is the
                # editor's own earlier attempt, offered above the form.
                self.errors["slug"] = self.error_class([same_slug_message(draft)])
                self.add_error(None, same_slug_message(draft))
        return cleaned_data


class PostPageForm(StartOverPageForm):
    """The post editor, with a switch that marks an edit as a significant update.

    The switch is not stored: ticking it sets `updated` to today in the saved
    revision, so a draft saved with it ticked carries the new date to publish.
    """

    significant_update = forms.BooleanField(
        required=False,
        label="重要更新",
        help_text="勾选后，保存或发布时把“更新日期”设为今天（首页“最近更新”按它排序）。"
        "改错字等小修改不必勾选。",
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk is None:
            # A new post is dated today anyway; there is nothing to update.
            del self.fields["significant_update"]

    def clean(self):
        cleaned_data = super().clean()
        if cleaned_data.get("significant_update"):
            # Set before the model instance is built, so the model's own checks
            # (not earlier than the publication date) see the new date.
            cleaned_data["updated"] = timezone.localdate()
        return cleaned_data
