"""The admin's 后台任务 report: the queue's state, and the runs that failed."""

from __future__ import annotations

import json

from django.core.exceptions import PermissionDenied
from wagtail.admin.ui.tables import Column, DateColumn
from wagtail.admin.views.reports import ReportView

from background import queue
from background.retry import ATTEMPTS


def may_see(user) -> bool:
    """The queue names pages and errors of the whole site: administrators only."""
    return user.is_active and user.is_superuser


class TracebackColumn(Column):
    """The error's last line, opening onto its whole traceback."""

    cell_template_name = "background/traceback_cell.html"


class TaskReport(ReportView):
    page_title = "后台任务"
    header_icon = "cogs"
    index_url_name = "background_tasks"
    index_results_url_name = "background_tasks_results"
    template_name = "background/report.html"
    results_template_name = "background/report_results.html"
    no_results_message = "近 14 天没有失败的任务。"
    columns = [
        Column("task_label", label="任务"),
        Column("arguments", label="参数"),
        Column("attempt_label", label="运行"),
        TracebackColumn("error", label="错误"),
        DateColumn("finished_at", label="失败于"),
    ]

    def dispatch(self, request, *args, **kwargs):
        if not may_see(request.user):
            raise PermissionDenied
        return super().dispatch(request, *args, **kwargs)

    def get_queryset(self):
        return queue.failed_runs()

    def decorate_paginated_queryset(self, object_list):
        rows = list(object_list)
        for row in rows:
            call = row.args_kwargs or {}
            kwargs = dict(call.get("kwargs") or {})
            attempt = kwargs.pop("attempt", 1)
            row.task_label = row.task_path.rsplit(".", 1)[-1]
            row.arguments = _short(call.get("args") or [], kwargs)
            row.attempt_label = f"第 {attempt} 次" + (
                "，将重试" if attempt < ATTEMPTS and queue.retried(row) else ""
            )
            lines = (row.traceback or "").strip().splitlines()
            row.error = lines[-1] if lines else row.exception_class_path
        return rows

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["queue"] = queue.state()
        return context


def _short(args: list, kwargs: dict, limit: int = 80) -> str:
    text = ", ".join(
        [json.dumps(a, ensure_ascii=False) for a in args]
        + [f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in kwargs.items()]
    )
    return text if len(text) <= limit else text[: limit - 1] + "…"
