"""PostgreSQL that waits out a restart: Django's backend, patient when connecting.

A database that restarts or fails over refuses connections for a second or
two. Django's backend turns each request in that window into a 500; this one
tries again for up to ``DATABASE_CONNECT_WAIT`` seconds while the server says
it is not there yet (no answer, shutting down, starting up), so those requests
are answered late instead. A connection never holds a query when it is made,
so trying again cannot do anything twice, whatever the request. Errors that
waiting cannot mend — a wrong password, a database that does not exist — fail
at once.

Selected by ``DATABASES["default"]["ENGINE"] = "config.postgresql"``
(config/settings/base.py); everything else is Django's backend.
"""

import logging
import time

from django.conf import settings
from django.db.backends.postgresql import base

logger = logging.getLogger(__name__)

# How often to knock while the server is away, in seconds.
RETRY_EVERY = 0.2


def not_there_yet(error: Exception) -> bool:
    """Whether a failed connect is one that waiting can mend.

    libpq gives no SQLSTATE for a failed connect, only its message: no server
    answered at all (refused, reset, timed out: no "FATAL"), or one answered
    that "the database system is" starting up, shutting down or recovering.
    A FATAL about the role, the password or the database is for a person.
    """
    message = str(error)
    return "FATAL:" not in message or "the database system is" in message


class DatabaseWrapper(base.DatabaseWrapper):
    # Seconds to wait for the server; None reads settings.DATABASE_CONNECT_WAIT.
    # /healthz sets 0 on its connection: a probe wants the present state.
    connect_wait: float | None = None

    def get_new_connection(self, conn_params):
        wait = self.connect_wait
        if wait is None:
            wait = getattr(settings, "DATABASE_CONNECT_WAIT", 0)
        deadline = time.monotonic() + wait
        while True:
            try:
                return super().get_new_connection(conn_params)
            except self.Database.OperationalError as error:
                if not not_there_yet(error) or time.monotonic() >= deadline:
                    raise
                logger.warning("Database not answering, trying again: %s", error)
                time.sleep(RETRY_EVERY)
