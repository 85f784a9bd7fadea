"""Admin customisations: the writing panel on the dashboard, live math in the editor.

See https://docs.wagtail.org/en/stable/reference/hooks.html
"""

from django.templatetags.static import static
from django.utils.html import format_html
from wagtail import hooks
from wagtail.admin.ui.components import Component
from wagtail.models import Page
from wagtail.permissions import policy_registry

from blog.models import PostPage

WRITING_PANEL_LIMIT = 8


class WritingPanel(Component):
    """The dashboard's "写作" panel: posts in progress and recently updated posts."""

    name = "writing"
    template_name = "blog/admin/writing_panel.html"
    # Above Wagtail's own panels (moderation 210–220, recent edits 250).
    order = 100

    def drafts(self):
        """Return posts never published or with unpublished changes, latest first."""
        return self.with_status(PostPage.objects.drafts())[:WRITING_PANEL_LIMIT]

    def recently_updated(self):
        """Return live posts by update date, as the home page lists them."""
        posts = PostPage.objects.recently_updated()
        return self.with_status(posts)[:WRITING_PANEL_LIMIT]

    @staticmethod
    def with_status(posts):
        """Load what Wagtail's status tag reads ("已计划", "审核中"…) with the posts,
        so it costs no query per row."""
        return posts.annotate_approved_schedule().prefetch_workflow_states()

    def render_html(self, parent_context=None):
        # Only people who write or publish pages need it.
        user = parent_context["request"].user
        policy = policy_registry.get_by_type(Page)
        if not policy.user_has_any_permission(user, {"add", "change", "publish"}):
            return ""
        return super().render_html(parent_context)

    def get_context_data(self, parent_context=None):
        return {
            "drafts": self.drafts(),
            "recently_updated": self.recently_updated(),
            "request": parent_context["request"],
        }


@hooks.register("construct_homepage_panels")
def add_writing_panel(request, panels):
    panels.append(WritingPanel())


@hooks.register("insert_editor_js")
def live_math():
    """KaTeX (the build the server renders with) and our live preview of formulas.

    Files from this site, as the admin's policy allows; the stylesheets come
    with them (a ``<link>`` may sit in the body) so pages without an editor
    never load KaTeX.
    """
    return format_html(
        '<link rel="stylesheet" href="{}"><link rel="stylesheet" href="{}">'
        '<script src="{}"></script><script src="{}"></script>',
        static("katex/katex.min.css"),
        static("css/admin-math.css"),
        static("katex/katex.min.js"),
        static("js/admin-math.js"),
    )
