"""Admin customisations: the writing panel on the dashboard, live math in the editor.

See https://docs.wagtail.org/en/stable/reference/hooks.html
"""

import wagtail.admin.rich_text.editors.draftail.features as draftail_features
from django.contrib.contenttypes.models import ContentType
from django.http import JsonResponse
from django.templatetags.static import static
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html
from wagtail import hooks
from wagtail.admin import messages
from wagtail.admin.rich_text.converters.html_to_contentstate import (
    InlineStyleElementHandler,
)
from wagtail.admin.ui.components import Component
from wagtail.models import Page
from wagtail.permission_policies.pages import PagePermissionPolicy
from wagtail.permissions import policy_registry

from blog.blocks import PostBodyBlock
from blog.forms import abandoned_drafts
from blog.models import BadFormula, BodyCheck, BodyLink, PostPage
from blog.writing import checked_models
from rendering.math_messages import chinese_reason

WRITING_PANEL_LIMIT = 8


def block_edit_url(page, block_id):
    """Return the page's edit URL, scrolled to one block of its body.

    Wagtail's StreamField draws each block as a panel with the id
    ``block-<block id>-section``; on load the editor scrolls a panel the URL's
    fragment names into view.
    """
    url = reverse("wagtailadmin_pages:edit", args=(page.pk,))
    return f"{url}#block-{block_id}-section" if block_id else url


def block_label(block_type):
    child = PostBodyBlock.base_blocks.get(block_type)
    return str(child.label) if child is not None else block_type


class Finding:
    """One row of a problem list: the block to fix and what is wrong in it."""

    def __init__(self, row, text, reason=""):
        self.page = row.body_check.page
        self.text = text
        self.reason = reason
        self.block = block_label(row.block_type)
        self.url = block_edit_url(self.page, row.block_id)


class Findings(list):
    """The first rows of a problem list, and how many problems there are in all."""

    def __init__(self, rows, total):
        super().__init__(rows)
        self.total = total

    @property
    def more(self):
        return self.total - len(self)


def link_reason(link):
    if not link.target_exists:
        return "页面已删除" if link.target_page_id else "没有这个页面"
    if not link.target_live:
        return "页面未发布"
    return "页面已移动"


def editable_pages(user):
    """Return the pages ``user`` may edit, as one query to filter others by.

    Wagtail's page permission policy: the subtrees of the user's groups' edit
    permissions, their own pages where they may only add, every page for a
    superuser. Its permissions are read once per request and cached on the user.
    """
    return PagePermissionPolicy().instances_user_has_permission_for(user, "change")


class WritingPanel(Component):
    """The dashboard's "写作" panel: work in progress, and what to fix.

    Every list and count covers only the pages the user may edit.
    """

    name = "writing"
    template_name = "blog/admin/writing_panel.html"
    # Above Wagtail's own panels (moderation 210–220, recent edits 250).
    order = 100

    @staticmethod
    def drafts(pages):
        """Return posts never published or with unpublished changes, latest first.

        A post approved to go live later is done: it is listed as scheduled.
        """
        drafts = WritingPanel.with_status(PostPage.objects.drafts(), pages)
        return drafts.filter(_approved_schedule=False)[:WRITING_PANEL_LIMIT]

    @staticmethod
    def scheduled(pages):
        posts = PostPage.objects.scheduled()
        return WritingPanel.with_status(posts, pages)[:WRITING_PANEL_LIMIT]

    @staticmethod
    def recently_updated(pages):
        """Return live posts by update date, as the home page lists them."""
        posts = PostPage.objects.recently_updated()
        return WritingPanel.with_status(posts, pages)[:WRITING_PANEL_LIMIT]

    @staticmethod
    def with_status(posts, pages):
        """Keep the posts among ``pages``, and load what Wagtail's status tag reads
        ("已计划", "审核中"…) with them, so it costs no query per row."""
        posts = posts.filter(pk__in=pages.values("pk"))
        return posts.annotate_approved_schedule().prefetch_workflow_states()

    @staticmethod
    def broken_links(pages):
        links = BodyLink.objects.on(pages).broken()
        rows = links.latest_first()[:WRITING_PANEL_LIMIT]
        found = [Finding(link, link.text, link_reason(link)) for link in rows]
        return Findings(
            found, links.count() if len(found) == WRITING_PANEL_LIMIT else len(found)
        )

    @staticmethod
    def bad_formulas(pages):
        formulas = BadFormula.objects.on(pages)
        rows = formulas.latest_first()[:WRITING_PANEL_LIMIT]
        found = [Finding(formula, formula.tex, formula.message) for formula in rows]
        return Findings(
            found, formulas.count() if len(found) == WRITING_PANEL_LIMIT else len(found)
        )

    @staticmethod
    def unchecked(pages):
        """Return how many posts and series were saved before bodies were checked."""
        types = ContentType.objects.get_for_models(*checked_models()).values()
        pages = pages.filter(content_type__in=types)
        return pages.exclude(pk__in=BodyCheck.objects.values("pk")).count()

    def render_html(self, parent_context=None):
        # Only people who write or publish pages need it.
        user = parent_context["request"].user
        policy = policy_registry.get_by_type(Page)
        if not policy.user_has_any_permission(user, {"add", "change", "publish"}):
            return ""
        return super().render_html(parent_context)

    def get_context_data(self, parent_context=None):
        request = parent_context["request"]
        pages = editable_pages(request.user)
        return {
            "drafts": self.drafts(pages),
            "scheduled": self.scheduled(pages),
            "recently_updated": self.recently_updated(pages),
            "broken_links": self.broken_links(pages),
            "bad_formulas": self.bad_formulas(pages),
            "unchecked": self.unchecked(pages),
            "request": request,
        }


@hooks.register("insert_editor_js")
def block_anchor_js():
    """Make a link to one block of a body land on it (see `block_edit_url`)."""
    return format_html(
        '<script src="{}" defer></script>', static("js/admin/block-anchor.js")
    )


@hooks.register("construct_homepage_panels")
def add_writing_panel(request, panels):
    panels.append(WritingPanel())


def math_message(request):
    """Return KaTeX's error ``m`` in Chinese, for the live preview of formulas.

    One table of translations (rendering/math_messages.py) serves the
    admin's validation errors and the preview as the editor types.
    """
    return JsonResponse({"message": chinese_reason(request.GET.get("m", "")[:500])})


@hooks.register("register_admin_urls")
def register_math_message_url():
    # Admin URLs are behind Wagtail's login and admin-access check.
    return [path("math-message/", math_message, name="blog_math_message")]


@hooks.register("insert_editor_js")
def live_math():
    """KaTeX (the build the server renders with) and our live preview of formulas.

    Files from this site, as the admin's policy allows; the stylesheets come
    with them (a ``<link>`` may sit in the body) so pages without an editor
    never load KaTeX.
    """
    return format_html(
        '<link rel="stylesheet" href="{}"><link rel="stylesheet" href="{}">'
        '<script src="{}"></script><script src="{}" data-messages="{}"></script>',
        static("katex/katex.min.css"),
        static("css/admin-math.css"),
        static("katex/katex.min.js"),
        static("js/admin-math.js"),
        reverse("blog_math_message"),
    )


@hooks.register("insert_editor_js")
def live_diagrams():
    """Our live preview of diagram blocks, with the Mermaid build readers get.

    The preview script fetches Mermaid itself once the form holds a diagram
    block, so an editor without one never loads it. Its styles are in
    css/admin-math.css, which `live_math` loads.
    """
    return format_html(
        '<script src="{}" data-mermaid="{}" defer></script>',
        static("js/admin-diagram.js"),
        static("mermaid/mermaid.min.js"),
    )


DRAFTS_OFFERED = 3


@hooks.register("before_create_page")
def offer_drafts(request, parent_page, page_class):
    """Offer the editor's unpublished drafts here before they start a page over.

    Autosave keeps every attempt once its title is typed; the add form names
    them, each with a link to continue or delete it, so starting over does not
    leave a second draft behind or stop at "slug already in use". Shown on the
    form (GET), and again when a save is refused for a slug one of them holds.
    """
    if not request.accepts("text/html"):
        return None  # Autosave: its answer is JSON, and messages would wait.
    drafts = abandoned_drafts(parent_page, request.user, page_class)
    if request.method == "POST":
        drafts = drafts.filter(slug=request.POST.get("slug", ""))
    for draft in drafts[:DRAFTS_OFFERED]:
        saved = draft.latest_revision_created_at
        when = f"（{timezone.localtime(saved):%Y-%m-%d %H:%M} 保存）" if saved else ""
        messages.warning(
            request,
            f"你在「{parent_page.title}」下有一篇未发布的草稿「{draft.title}」{when}。"
            "要接着写，请继续编辑它；不再需要可以删除。",
            buttons=[
                messages.button(
                    reverse("wagtailadmin_pages:edit", args=[draft.pk]), "继续编辑草稿"
                ),
                messages.button(
                    reverse("wagtailadmin_pages:delete", args=[draft.pk]), "删除"
                ),
            ],
        )
    return None


@hooks.register("register_icons")
def register_highlighter_icon(icons):
    return [*icons, "blog/icons/highlighter.svg"]


@hooks.register("register_rich_text_features")
def register_mark_feature(features):
    """高亮: a highlight, stored as ``<mark>`` (Obsidian's ``==text==``)."""
    features.register_editor_plugin(
        "draftail",
        "mark",
        draftail_features.InlineStyleFeature(
            {"type": "MARK", "icon": "highlighter", "description": "高亮（==文字==）"}
        ),
    )
    features.register_converter_rule(
        "contentstate",
        "mark",
        {
            "from_database_format": {"mark": InlineStyleElementHandler("MARK")},
            "to_database_format": {"style_map": {"MARK": "mark"}},
        },
    )
