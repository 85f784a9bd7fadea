"""The admin's image form, named by WAGTAILIMAGES_IMAGE_FORM_BASE.

Its own module: Wagtail's image forms need the app registry ready, and
blog/forms.py is imported with the page models.
"""

from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import UploadedFile
from wagtail.images.forms import BaseImageForm
from wagtail.utils.file import hash_filelike

from blog.svg import svg_size


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

    def clean_file(self):
        # Wagtail takes any XML named .svg for a drawing (an HTML page too).
        file = self.cleaned_data.get("file")
        if isinstance(file, UploadedFile) and file.name.lower().endswith(".svg"):
            file.seek(0)
            try:
                svg_size(file.read(), file.name)
            except ValueError as error:
                raise ValidationError(
                    "「%(name)s」不是 SVG 图（根元素须为 <svg>）。",
                    code="not_svg",
                    params={"name": file.name},
                ) from error
            finally:
                file.seek(0)
        return file

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
