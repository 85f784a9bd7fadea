"""The 评论 menu item and page of the Wagtail admin."""

from django.urls import path, reverse
from wagtail import hooks
from wagtail.admin.menu import MenuItem

from comments import admin_views


class CommentsMenuItem(MenuItem):
    """Shown to moderators; its label counts the comments waiting for them."""

    def is_shown(self, request):
        return admin_views.can_moderate(request.user)

    def render_component(self, request):
        component = super().render_component(request)
        pending = admin_views.pending_count()
        if pending:
            component.label = f"{self.label}（{pending}）"
        return component


@hooks.register("register_admin_urls")
def register_comments_url():
    return [path("comments/", admin_views.moderate, name="comments_moderate")]


@hooks.register("register_admin_menu_item")
def register_comments_menu_item():
    return CommentsMenuItem(
        "评论", reverse("comments_moderate"), icon_name="comment", order=250
    )
