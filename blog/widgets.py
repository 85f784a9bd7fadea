"""Form widgets of the admin's block editor.

A widget inside a StreamField block is drawn by JavaScript in the browser;
its adapter tells Wagtail which script class draws it ("Form widget
client-side API": https://docs.wagtail.org/en/stable/reference/streamfield/widget_api.html).
"""

from django import forms
from wagtail.admin.telepath import register
from wagtail.admin.telepath.widgets import WidgetAdapter

# Built by `npm run build` (make install) from static_src/blog/admin/.
CODE_EDITOR_JS = "blog/admin/code-editor.js"

CODE_EDITOR_HINT = "Tab 缩进，Shift+Tab 减少缩进；先按 Esc 再按 Tab 可离开编辑器。"


class CodeEditor(forms.Textarea):
    """A textarea the admin turns into a code editor (CodeMirror).

    Line numbers, Tab indents, and syntax colours for the language chosen in
    the sibling field ``language_field`` of the same block. The textarea
    stays in the form and carries the value, so the form posts as before.
    """

    def __init__(self, attrs=None, *, language_field=None, language="text"):
        self.language_field = language_field
        self.language = language
        default_attrs = {
            "rows": 10,
            "spellcheck": "false",
            "autocapitalize": "off",
            "autocomplete": "off",
            "wrap": "off",
            "class": "code-editor-source",
        }
        super().__init__({**default_attrs, **(attrs or {})})

    class Media:
        js = [CODE_EDITOR_JS]


class CodeEditorAdapter(WidgetAdapter):
    js_constructor = "blog.widgets.CodeEditor"

    def js_args(self, widget):
        return [
            widget.render("__NAME__", None, attrs={"id": "__ID__"}),
            {
                "languageField": widget.language_field,
                "language": widget.language,
                "hint": CODE_EDITOR_HINT,
            },
        ]


register(CodeEditorAdapter(), CodeEditor)
