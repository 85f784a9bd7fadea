"""Work done on task workers, off every request and command.

The queue is django-tasks with django-tasks-db's database backend (the
``TASKS`` setting): SQLite in development, PostgreSQL in production, where
any number of ``manage.py db_worker`` processes on any number of hosts share
it. This app knows no content model; it gives the rest of the site:

- ``retry.retried``: a task retried with backoff when it raises;
- ``queue``: what waits, what runs, what failed, and waiting for given tasks;
- the admin's 后台任务 report and the dashboard's line about the queue.
"""
