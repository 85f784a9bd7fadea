"""The 后台任务 report under 报告, and a line about the queue on the dashboard."""

from django.urls import path, reverse
from wagtail import hooks
from wagtail.admin.menu import MenuItem
from wagtail.admin.ui.components import Component

from background import queue
from background.views import TaskReport, may_see


@hooks.register("register_admin_urls")
def register_report_urls():
    return [
        path("reports/tasks/", TaskReport.as_view(), name="background_tasks"),
        path(
            "reports/tasks/results/",
            TaskReport.as_view(results_only=True),
            name="background_tasks_results",
        ),
    ]


class TaskMenuItem(MenuItem):
    def is_shown(self, request):
        return may_see(request.user)


@hooks.register("register_reports_menu_item")
def register_report_menu_item():
    return TaskMenuItem(
        "后台任务", reverse("background_tasks"), icon_name="cogs", order=900
    )


class QueuePanel(Component):
    """Tasks that wait, a queue no worker reads, failures: for administrators."""

    name = "background-tasks"
    template_name = "background/queue_panel.html"
    order = 90

    def render_html(self, parent_context=None):
        if not may_see(parent_context["request"].user):
            return ""
        self.state = queue.state()
        if self.state is None or not (self.state.waiting or self.state.failed):
            return ""
        return super().render_html(parent_context)

    def get_context_data(self, parent_context=None):
        return {"queue": self.state, "report": reverse("background_tasks")}


@hooks.register("construct_homepage_panels")
def add_queue_panel(request, panels):
    panels.append(QueuePanel())
