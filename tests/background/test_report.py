"""The admin's 后台任务 report and the dashboard's word about the queue."""

from datetime import timedelta

from bs4 import BeautifulSoup
from django.urls import reverse
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from background import queue
from tests.background.tasks import fails_until
from tests.queue import run_worker


def page(response):
    assert response.status_code == 200
    return BeautifulSoup(response.content, "html.parser")


def test_the_report_lists_failed_runs_with_their_errors(admin_client, database_queue):
    fails_until.enqueue("公式渲染", succeeds_on=99)
    run_worker()
    html = page(admin_client.get(reverse("background_tasks")))

    state = html.select_one(".background-queue").get_text(" ", strip=True)
    assert "等待中： 0 个" in state
    assert "稍后重试： 1 个" in state  # its second run
    assert "近 14 天失败： 1 次" in state
    (row,) = html.select("table tbody tr")
    cells = [td.get_text(" ", strip=True) for td in row.find_all("td")]
    assert cells[0] == "fails_until"
    assert cells[1] == '"公式渲染", succeeds_on=99'
    assert cells[2] == "第 1 次，将重试"
    assert "Flaky: 公式渲染: run 1 fails" in row.select_one("summary").get_text()
    assert "Traceback" in row.select_one("pre").get_text()


def test_the_report_says_when_nothing_failed(admin_client, database_queue):
    html = page(admin_client.get(reverse("background_tasks")))
    assert "近 14 天没有失败的任务。" in html.get_text()
    assert not html.select("table tbody tr")


def test_the_report_says_when_no_worker_reads_the_queue(admin_client, database_queue):
    fails_until.enqueue("waits", succeeds_on=1)
    DBTaskResult.objects.update(
        enqueued_at=timezone.now() - queue.IDLE_AFTER - timedelta(minutes=5)
    )
    text = page(admin_client.get(reverse("background_tasks"))).get_text(" ", strip=True)
    assert "看起来没有任务进程在运行" in text
    assert "python manage.py db_worker" in text


def test_editors_neither_see_nor_open_the_report(as_editor, database_queue):
    fails_until.enqueue("hidden", succeeds_on=99)
    run_worker()
    assert as_editor.get(reverse("background_tasks")).status_code in (302, 403)
    dashboard = as_editor.get(reverse("wagtailadmin_home")).content.decode()
    assert "后台任务" not in dashboard
    assert reverse("background_tasks") not in dashboard


def test_the_dashboard_tells_an_administrator_what_waits(admin_client, database_queue):
    home = reverse("wagtailadmin_home")
    assert page(admin_client.get(home)).find(id="background-tasks-section") is None

    fails_until.enqueue("late", succeeds_on=1)
    DBTaskResult.objects.update(
        enqueued_at=timezone.now() - queue.IDLE_AFTER - timedelta(minutes=5)
    )
    panel = page(admin_client.get(home)).find(id="background-tasks-section")
    text = panel.get_text(" ", strip=True).replace("\xa0", " ")
    assert "等待中： 1 个" in text
    assert "看起来没有任务进程在运行" in text
    assert "最早的已等待 5 分钟" in text
