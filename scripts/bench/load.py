"""Requests for `make bench`: warm-ups, timed requests, wrk runs, page weight.

Every request says `Accept-Encoding: gzip, deflate, br`, as browsers do, the
page runs and the static-file runs alike, so both send the compressed bytes a
browser would get (Brotli, from the site and from WhiteNoise alike).
"""

from __future__ import annotations

import gzip
import http.client
import re
import shutil
import statistics
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit

import brotli

from scripts.bench.server import Gunicorn

ACCEPT_ENCODING = "gzip, deflate, br"
HEADERS = {"Accept-Encoding": ACCEPT_ENCODING}
# Rounds of timed requests: at least this many, however long they take,
MIN_ROUNDS = 3
# and at most this many.
MAX_ROUNDS = 2000


@dataclass
class Response:
    status: int
    headers: dict[str, str]
    body: bytes


def fetch(url: str, timeout: float = 120) -> Response:
    """GET `url` as a browser would; the body stays as sent (compressed or not)."""
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
    try:
        target = parts.path + (f"?{parts.query}" if parts.query else "")
        connection.request("GET", target, headers={**HEADERS, "Connection": "close"})
        response = connection.getresponse()
        body = response.read()
        headers = {name.lower(): value for name, value in response.getheaders()}
        return Response(response.status, headers, body)
    finally:
        connection.close()


def expect_ok(url: str) -> Response:
    response = fetch(url)
    if response.status != 200:
        raise RuntimeError(f"{url} answered {response.status}")
    return response


def warm_up(url: str, *, parallel: int, budget: float, rounds: int = 3) -> None:
    """Request `url` once, then `parallel` at a time, so that every worker has it.

    The parallel rounds stop once `budget` seconds have gone by: a page that
    takes longer than that to render is warmed by its first request only.
    """
    started = time.monotonic()
    expect_ok(url)
    with ThreadPoolExecutor(parallel) as pool:
        for _ in range(rounds):
            if time.monotonic() - started > budget:
                break
            list(pool.map(expect_ok, [url] * parallel))


def times_in_turns(
    targets: list[tuple[Gunicorn, str]], duration: float
) -> list[dict[str, float]]:
    """Request each (server, url) in turn, one at a time, for `duration` s in all.

    Return each one's p50/p95 (ms): gunicorn's own times (request in to
    response out, in the worker), read back from its access log, so the
    client's overhead is not in them. Taking turns request by request spreads
    whatever else the machine does over every target alike: a busy spell
    raises every target's times a little, not one target's a lot, and targets
    timed together can be compared with each other.
    """
    offsets = {id(server): server.access_log_offset() for server, _ in targets}
    deadline = time.monotonic() + duration
    rounds = 0
    while rounds < MAX_ROUNDS and (rounds < MIN_ROUNDS or time.monotonic() < deadline):
        for _, url in targets:
            expect_ok(url)
        rounds += 1
    return [
        summary(logged_times(server, offsets[id(server)], url, rounds), rounds)
        for server, url in targets
    ]


def logged_times(server: Gunicorn, offset: int, url: str, sent: int) -> list[float]:
    """Return the durations (ms) of the `sent` requests for `url` logged after `offset`."""
    parts = urlsplit(url)
    target = parts.path + (f"?{parts.query}" if parts.query else "")
    times = []
    for _ in range(50):  # gunicorn writes the last lines a moment after answering
        times = server.durations_ms(offset, target)
        if len(times) >= sent:
            return times
        time.sleep(0.05)
    raise RuntimeError(f"{url}: {sent} requests but {len(times)} logged")


def summary(times: list[float], sent: int) -> dict[str, float]:
    return {"p50": percentile(times, 50), "p95": percentile(times, 95), "n": sent}


def percentile(values: list[float], pct: int) -> float:
    """Return the `pct`-th percentile (inclusive method), rounded to 0.1 ms."""
    if len(values) == 1:
        return round(values[0], 1)
    return round(statistics.quantiles(values, n=100, method="inclusive")[pct - 1], 1)


@dataclass
class WrkResult:
    rps: float
    requests: int
    bytes_per_response: int
    latency_p50_ms: float
    latency_p99_ms: float
    errors: int
    non_2xx: int


_UNITS = {"B": 1, "KB": 1024, "MB": 1024**2, "GB": 1024**3}
_TIME_UNITS = {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60_000.0}


def _size(text: str) -> float:
    number, unit = re.fullmatch(r"([\d.]+)([KMG]?B)", text).groups()
    return float(number) * _UNITS[unit]


def _ms(text: str) -> float:
    number, unit = re.fullmatch(r"([\d.]+)(us|ms|s|m)", text).groups()
    return float(number) * _TIME_UNITS[unit]


def wrk_path() -> str | None:
    return shutil.which("wrk")


def wrk(url: str, *, duration: float, connections: int, threads: int) -> dict:
    """Load `url` with wrk for `duration` s; return its throughput and latency."""
    done = subprocess.run(  # noqa: S603
        [
            wrk_path() or "wrk",
            f"--threads={threads}",
            f"--connections={connections}",
            f"--duration={max(1, round(duration))}s",
            "--timeout=10s",
            "--latency",
            f"--header=Accept-Encoding: {ACCEPT_ENCODING}",
            url,
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=duration + 60,
    )
    out = done.stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    requests, read = re.search(
        r"(\d+) requests in [\d.]+\w+, ([\d.]+[KMG]?B) read", out
    ).groups()
    sockets = re.search(
        r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out
    )
    errors = sum(map(int, sockets.groups())) if sockets else 0
    non_2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    latency = dict(
        # wrk pads a time to its column ("1.00s "): the line may end in spaces.
        re.findall(r"^\s+(50|99)%\s+([\d.]+(?:us|ms|s|m))\s*$", out, re.MULTILINE)
    )
    if not {"50", "99"} <= latency.keys():
        raise RuntimeError(f"wrk gave no latency distribution for {url}:\n{out}")
    return asdict(
        WrkResult(
            rps=round(rps, 1),
            requests=int(requests),
            bytes_per_response=round(_size(read) / max(1, int(requests))),
            latency_p50_ms=round(_ms(latency["50"]), 2),
            latency_p99_ms=round(_ms(latency["99"]), 2),
            errors=errors,
            non_2xx=int(non_2xx.group(1)) if non_2xx else 0,
        )
    )


class _AssetLinks(HTMLParser):
    """Collect the stylesheets and scripts a page links."""

    def __init__(self):
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "link" and "stylesheet" in (values.get("rel") or "").split():
            self.urls.append(values.get("href") or "")
        elif tag == "script" and values.get("src"):
            self.urls.append(values["src"])


def page_weight(base: str, path: str) -> dict:
    """Return the bytes sent of a page and of the CSS and JS it links."""
    page = expect_ok(base + path)
    html = page.body
    encoding = page.headers.get("content-encoding", "")
    if encoding == "gzip":
        html = gzip.decompress(html)
    elif encoding == "br":
        html = brotli.decompress(html)
    links = _AssetLinks()
    links.feed(html.decode("utf-8", "replace"))
    assets = {}
    for url in dict.fromkeys(u for u in links.urls if u):
        absolute = urljoin(base + path, url)
        if urlsplit(absolute).netloc != urlsplit(base).netloc:
            continue  # nothing third-party is expected; not ours to weigh
        assets[urlsplit(absolute).path] = len(expect_ok(absolute).body)
    return {
        "html_bytes": len(page.body),
        "encoding": encoding,
        "assets_bytes": sum(assets.values()),
        "assets": assets,
    }
