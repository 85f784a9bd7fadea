"""The admin's Markdown paste: its view, and the editor script that calls it."""

from django.templatetags.static import static
from django.urls import path, reverse
from django.utils.html import format_html
from wagtail import hooks


def markdown_paste(request):
    """The paste view (vault/paste.py), imported by the first paste.

    It brings the importer's parser with it: a web process serving readers
    never needs it, so it is not loaded with the admin's URLs.
    """
    from .paste import markdown_paste as view

    return view(request)


@hooks.register("register_admin_urls")
def register_markdown_paste_url():
    # Admin URLs are already behind Wagtail's login and admin-access check.
    return [path("markdown-paste/", markdown_paste, name="vault_markdown_paste")]


@hooks.register("insert_editor_js")
def markdown_paste_js():
    # An external file (the admin's CSP allows 'self'); the view's URL rides on it.
    # Deferred scripts run in order: the adapter first.
    return format_html(
        '<script src="{}" defer></script>'
        '<script src="{}" data-endpoint="{}" defer></script>',
        static("js/admin/streamfield-adapter.js"),
        static("js/admin/md-paste.js"),
        reverse("vault_markdown_paste"),
    )


@hooks.register("insert_global_admin_css")
def markdown_paste_css():
    # Wagtail 8 has no editor-only CSS hook; the file is small.
    return format_html(
        '<link rel="stylesheet" href="{}">', static("css/admin/md-paste.css")
    )
