"""The soak's traffic: readers and editors over HTTP, each answer recorded.

`scripts/soak.py` runs these clients in its cold, steady and fault phases and
reads their records back as a table (`summary`).
"""

from __future__ import annotations

import random
import secrets
import statistics
import threading
import time
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import requests

EDITOR_PASSWORD = "a-long-passphrase-for-the-soak"  # noqa: S105
SEARCH_WORDS = [
    "量化",
    "GPU",
    "共享内存",
    "warp",
    "attention",
    "CUTLASS",
    "链接",
    "cache",
]
PROXY = {"X-Forwarded-Proto": "https"}  # as from the TLS proxy in front
# The worker timeout (config/gunicorn.py's default): no request may take as long.
WORKER_TIMEOUT = 30


class SoakError(Exception):
    """The soak could not run (not a target missed)."""


@dataclass
class Record:
    start: float
    kind: str
    status: int  # 0: no response (refused, reset, timed out)
    ms: float
    path: str = ""
    cache: str = ""  # the page cache's X-Page-Cache: "hit", "miss", or none


@dataclass
class Log:
    records: list[Record] = field(default_factory=list)
    revisions: list[tuple[int, str]] = field(default_factory=list)  # page, marker
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, record: Record) -> None:
        with self.lock:
            self.records.append(record)


class AdminClient:
    """An editor over HTTP: a session cookie and its CSRF token, behind the proxy.

    The production cookies are Secure; requests would send them over https
    only, so they are kept here and sent by hand.
    """

    def __init__(self, server: str):
        self.server = server
        self.cookies: dict[str, str] = {}
        self.http = requests.Session()

    def request(self, method: str, path: str, **kwargs) -> requests.Response:
        origin = "https://" + urlsplit(self.server).netloc
        headers = {**PROXY, "Origin": origin, "Referer": origin + "/admin/"}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        response = self.http.request(
            method,
            self.server + path,
            headers=headers,
            allow_redirects=False,
            timeout=30,
            **kwargs,
        )
        self.cookies.update(response.cookies.get_dict())
        return response

    def log_in(self, username: str, password: str) -> None:
        self.request("GET", "/admin/login/")
        response = self.post(
            "/admin/login/", {"username": username, "password": password}
        )
        if response.status_code != 302:
            raise SoakError(f"{username} could not log in: {response.status_code}")

    def post(self, path: str, data: dict, files=None) -> requests.Response:
        data = {**data, "csrfmiddlewaretoken": self.cookies.get("csrftoken", "")}
        return self.request("POST", path, data=data, files=files)


def reader(server: str, site: dict, stop: threading.Event, log: Log) -> None:
    http = requests.Session()
    rng = random.Random()  # noqa: S311 - picks pages, not secrets
    while not stop.is_set():
        roll = rng.random()
        if roll < 0.15:
            kind, path = "search", f"/search/?q={rng.choice(SEARCH_WORDS)}"
        elif roll < 0.3:
            kind, path = "feed", rng.choice(site["feeds"])
        else:
            kind, path = "page", rng.choice(site["pages"])
        timed(
            log,
            kind,
            lambda p=path: http.get(server + p, headers=PROXY, timeout=WORKER_TIMEOUT),
            path,
        )


def editor(server: str, who: dict, stop: threading.Event, log: Log) -> None:
    from wagtail.test.utils.form_data import nested_form_data, streamfield

    client = AdminClient(server)
    client.log_in(who["username"], EDITOR_PASSWORD)
    edit = f"/admin/pages/{who['page']}/edit/"
    count = 0
    while not stop.is_set():
        count += 1
        marker = f"soak-{who['page']}-{count}-{secrets.token_hex(3)}"
        action = "publish" if count % 2 else None
        data = nested_form_data(
            {
                "title": f"压测文章 {who['username']}",
                "slug": who["url"].strip("/").split("/")[-1],
                "summary": "压测",
                "date": "2026-12-01",
                "updated": "2026-12-01",
                "tags": "soak",
                "body": streamfield(
                    [("markdown", f"第 {count} 次修订 {marker}：$x^{count}$")]
                ),
            }
        )
        if action:
            data[f"action-{action}"] = f"action-{action}"
        response = timed(log, "edit", lambda d=data: client.post(edit, d))
        if response is not None and response.status_code == 302:
            with log.lock:
                log.revisions.append((who["page"], marker))
        time.sleep(0.2)


def timed(log: Log, kind: str, call, path: str = ""):
    start = time.monotonic()
    try:
        response = call()
        status, cache = response.status_code, response.headers.get("X-Page-Cache", "")
    except requests.RequestException:
        response, status, cache = None, 0, ""
    ms = (time.monotonic() - start) * 1000
    log.add(Record(start, kind, status, ms, path, cache))
    return response


def run_clients(server, site, args, seconds: float, log: Log, during=None) -> None:
    stop = threading.Event()
    threads = [
        threading.Thread(target=editor, args=(server.url, who, stop, log))
        for who in site["editors"][: args.editors]
    ]
    threads += [
        threading.Thread(target=reader, args=(server.url, site, stop, log))
        for _ in range(args.clients - len(threads))
    ]
    for thread in threads:
        thread.start()
    try:
        if during is not None:
            during()
        remaining = seconds - (time.monotonic() - log_start(log))
        time.sleep(max(0.0, remaining))
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=60)


def log_start(log: Log) -> float:
    while not log.records:
        time.sleep(0.01)
    return log.records[0].start


def summary(records: list[Record]) -> dict:
    by_kind: dict[str, dict] = {}
    for kind in sorted({r.kind for r in records}) + ["all"]:
        rows = [r for r in records if kind in ("all", r.kind)]
        times = sorted(r.ms for r in rows if 0 < r.status < 500)
        span = (max(r.start for r in rows) - min(r.start for r in rows)) if rows else 0
        cached = [r.cache == "hit" for r in rows if r.cache]
        by_kind[kind] = {
            "requests": len(rows),
            "5xx": sum(1 for r in rows if r.status >= 500),
            "no_response": sum(1 for r in rows if r.status == 0),
            "p50_ms": round(statistics.median(times), 1) if times else None,
            "p95_ms": round(times[int(0.95 * (len(times) - 1))], 1) if times else None,
            "rps": round(len(rows) / span, 1) if span else None,
            # Of the answers the page cache could serve (not the admin's).
            "hit_rate": round(100 * sum(cached) / len(cached), 1) if cached else None,
        }
    return by_kind
