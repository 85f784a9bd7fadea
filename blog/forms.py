"""Admin forms for blog pages."""

from django import forms
from django.utils import timezone
from wagtail.admin.forms import WagtailAdminPageForm


class PostPageForm(WagtailAdminPageForm):
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
