"""The admin's image form, named by WAGTAILIMAGES_IMAGE_FORM_BASE.

Its own module: Wagtail's image forms need the app registry ready, and
blog/forms.py is imported with the page models.
"""

from wagtail.images.forms import BaseImageForm
from wagtail.utils.file import hash_filelike


class ReusingImageForm(BaseImageForm):
    """The image upload form: a file already in the library is reused, not copied.

    Images are matched by content hash (Wagtail's ``file_hash``), among those
    the uploader may choose; the multi-upload page, the chooser's upload tab
    and the add page then show the existing image. The importer does the same
    (vault/importer/images.py).
    """

    def __init__(self, *args, user=None, **kwargs):
        super().__init__(*args, user=user, **kwargs)
        self.user = user

    def existing_copy(self):
        upload = self.cleaned_data.get("file")
        if self.instance.pk is not None or "file" not in self.changed_data:
            return None
        if upload is None or self.user is None:
            return None
        upload.seek(0)
        digest = hash_filelike(upload)
        upload.seek(0)
        images = self.permission_policy.instances_user_has_permission_for(
            self.user, "choose"
        )
        return images.filter(file_hash=digest).order_by("pk").first()

    def save(self, commit=True):
        existing = self.existing_copy()
        if existing is None:
            return super().save(commit=commit)
        self.instance = existing
        return existing
