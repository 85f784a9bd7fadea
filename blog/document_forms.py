"""The admin's document form, named by WAGTAILDOCS_DOCUMENT_FORM_BASE.

Its own module, as blog/image_forms.py: Wagtail's document forms need the app
registry ready.
"""

from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import UploadedFile
from django.forms.utils import ErrorList
from wagtail.documents.forms import BaseDocumentForm

# Every PDF starts with its header, "%PDF-" and the version (ISO 32000-1, 7.5.2).
PDF_SIGNATURE = b"%PDF-"
NOT_PDF = "not_pdf"


class PdfDocumentForm(BaseDocumentForm):
    """The document upload form: a PDF by its content, not only by its name.

    Wagtail checks the extension (WAGTAILDOCS_EXTENSIONS); an HTML page named
    ``.pdf`` would pass that. The add page, the multi-upload page, the
    chooser's upload tab and replacing a document's file all use this form.
    """

    def clean_file(self):
        file = self.cleaned_data.get("file")
        if isinstance(file, UploadedFile):  # not the file already saved
            file.seek(0)
            head = file.read(len(PDF_SIGNATURE))
            file.seek(0)
            if head != PDF_SIGNATURE:
                raise ValidationError(
                    "「%(name)s」的内容不是 PDF，只能上传 PDF 文档。",
                    code=NOT_PDF,
                    params={"name": file.name},
                )
        return file

    def full_clean(self):
        super().full_clean()
        # The model's own check of the extension then finds no file and adds
        # 'file extension "" is not allowed' beside the real reason: say one.
        errors = self.errors.get("file")
        if errors is None:
            return
        reasons = [error for error in errors.as_data() if error.code == NOT_PDF]
        if reasons:
            self.errors["file"] = ErrorList(reasons)
