"""class-live under a busy lab: 300 simulated learners on loopback, each posting a visible test's outcome every
20 s (15 events/s, with jitter) for a minute, the service killed (SIGKILL) and restarted in the middle. Learners
post to its events.sock with their class-live tokens and retry as learner_kit/live.py does (the same event_id)
until acknowledged; an instructor's stream on page.sock (reconnecting with Last-Event-ID, as a browser's
EventSource does) times each event from its POST's acknowledgement to its arrival. Nothing acknowledged may be
lost, in the database or on the stream.

`make bench-live` runs the same and holds it to the issue's target (the page's view under 1 s behind at the
99th percentile); the test asserts a generous bound only, so a busy CI machine cannot fail it.
"""
import http.client
import json
import random
import sqlite3
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.live_fixtures import HUB_PYTHON, FakeHub, Service, instructor, new_event, token_of
from tests.hub.test_live_service import SocketStream, events_url, live_token, page_url, request

LEARNERS, PERIOD, SECONDS = 300, 20.0, 60.0
JITTER = 2.0  # seconds either side of each learner's period
UNITS = ["scaled_dot_product_attention", "split_heads", "merge_heads", "MultiHeadAttention"]
OUTCOMES = ["passed", "passed", "failed", "sdpa-no-scale", "sdpa-mask-inverted", "heads-split-no-transpose"]
RESTART_GRACE = 5.0  # seconds after the restart whose events are counted apart (they waited for it)


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else float("nan")


def post_until_stored(url, event, token):
    """POST until the service answers 200 (the same event_id each time); the monotonic time of that answer."""
    body = json.dumps(event).encode()
    while True:
        try:
            status, _, answer = request(url + "api/events", "POST", body, token)
        except (OSError, http.client.HTTPException):  # no socket, nobody at it, cut off: the service is restarting
            status = None
        if status == 200:
            return time.monotonic()
        if status not in (None, 502, 503):
            raise AssertionError(f"{status}: {answer[:200]}")
        time.sleep(0.3 + random.random() * 0.4)


def schedule(learners, period, seconds, rng):
    """(when, learner) of every run in the session, in time order."""
    runs = []
    for k in range(learners):
        when = rng.uniform(0, period)
        while when < seconds:
            runs.append((when, k))
            when += period + rng.uniform(-JITTER, JITTER)
    return sorted(runs)


def run_load(folder, learners=LEARNERS, period=PERIOD, seconds=SECONDS, restart=True, seed=37):
    rng = random.Random(seed)
    names = [f"learner{k:03d}" for k in range(learners)]
    hub = FakeHub({**{n: live_token(n) for n in names}, "teacher": instructor("teacher")})
    service = Service(folder, hub, names)
    stream = SocketStream(page_url(service), token_of("teacher"))
    acked, restarted_at, pool = {}, None, None
    try:
        assert stream.wait_for(lambda s: s.views), "the instructor's stream did not open"
        runs = schedule(learners, period, seconds, rng)
        start = time.monotonic()
        pool = ThreadPoolExecutor(max_workers=64)
        futures = []

        def learner_run(k):
            event = new_event(unit=rng.choice(UNITS), outcome=rng.choice(OUTCOMES), lang=rng.choice(["en", "ko"]))
            acked[event["event_id"]] = post_until_stored(events_url(service), event, token_of(names[k]))

        killer = None
        if restart:
            def kill_and_restart():
                nonlocal restarted_at
                time.sleep(seconds / 2)
                restarted_at = time.monotonic()
                service.restart()
            killer = threading.Thread(target=kill_and_restart)
            killer.start()
        for when, k in runs:
            time.sleep(max(0.0, start + when - time.monotonic()))
            futures.append(pool.submit(learner_run, k))
        for future in futures:
            future.result(timeout=120)  # every event acknowledged in the end (a learner retries)
        elapsed = time.monotonic() - start
        if killer:
            killer.join()
        stream.wait_for(lambda s: len({d["event_id"] for _, d in s.runs}) >= len(acked), seconds=30)
        top = max((d["seq"] for _, d in stream.runs), default=0)
        stream.wait_for(lambda s: s.view_times and s.view_times[-1][1] >= top, seconds=10)
        arrived = {}
        for moment, data in stream.runs:
            arrived.setdefault(data["event_id"], moment)
        with sqlite3.connect(Path(folder) / "class-live.sqlite") as db:
            in_db = [row[0] for row in db.execute("SELECT event_id FROM live_events")]
        seq_of = {data["event_id"]: data["seq"] for _, data in stream.runs}
        shown = {e: next((t for t, last in stream.view_times if last >= seq_of[e]), None) for e in seq_of}
        on_page = [shown[e] - acked[e] for e in acked if shown.get(e) is not None]
        delays = [arrived[e] - acked[e] for e in acked if e in arrived]
        steady = [arrived[e] - acked[e] for e in acked if e in arrived and
                  (restarted_at is None or not restarted_at <= acked[e] <= restarted_at + RESTART_GRACE)]
        return {
            "learners": learners, "sent": len(runs), "acknowledged": len(acked), "seconds": round(elapsed, 1),
            "events_per_s": round(len(acked) / elapsed, 1),
            "lost_db": len(set(acked) - set(in_db)), "stored_twice": len(in_db) - len(set(in_db)),
            "lost_stream": len(set(acked) - set(arrived)), "stream_reconnects": stream.connects - 1,
            "p50": percentile(delays, 0.50), "p99": percentile(delays, 0.99), "max": max(delays, default=0.0),
            "steady_p50": percentile(steady, 0.50), "steady_p99": percentile(steady, 0.99),
            "page_p50": percentile(on_page, 0.50), "page_p99": percentile(on_page, 0.99),
            "not_on_page": len(set(acked) - {e for e in shown if shown[e] is not None}),
        }
    finally:
        if pool:
            pool.shutdown(wait=False, cancel_futures=True)
        stream.stop()
        service.kill()
        hub.close()


def report(figures):
    return (f"{figures['acknowledged']}/{figures['sent']} events from {figures['learners']} learners in "
            f"{figures['seconds']} s ({figures['events_per_s']} events/s), restart included; "
            f"lost: {figures['lost_db']} in the database, {figures['lost_stream']} on the stream "
            f"({figures['stream_reconnects']} reconnect(s)); delay from acknowledgement to the stream: "
            f"p50 {figures['p50'] * 1000:.0f} ms, p99 {figures['p99'] * 1000:.0f} ms, max {figures['max'] * 1000:.0f} ms; "
            f"outside the restart's {RESTART_GRACE:.0f} s: p50 {figures['steady_p50'] * 1000:.0f} ms, "
            f"p99 {figures['steady_p99'] * 1000:.0f} ms; in the page's view (sent at most every 0.25 s): "
            f"p50 {figures['page_p50'] * 1000:.0f} ms, p99 {figures['page_p99'] * 1000:.0f} ms")


@pytest.mark.skipif(not HUB_PYTHON.exists(), reason="the hub's environment: make hub-tool")
def test_300_learners_and_a_restart_lose_nothing(tmp_path):
    figures = run_load(tmp_path)
    print("\nclass-live load:", report(figures))
    assert figures["sent"] > 800  # 300 learners, a run each 20 s, for 60 s
    assert figures["acknowledged"] == figures["sent"]
    assert figures["lost_db"] == figures["lost_stream"] == figures["stored_twice"] == 0
    assert figures["stream_reconnects"] >= 1
    assert figures["events_per_s"] > 12
    assert figures["not_on_page"] == 0
    assert figures["p99"] < 5.0 and figures["page_p99"] < 5.0  # generous: `make bench-live` holds the target (1 s)


if __name__ == "__main__":  # make bench-live
    with tempfile.TemporaryDirectory() as folder:
        result = run_load(folder)
    print("class-live load:", report(result))
    ok = result["lost_db"] == result["lost_stream"] == result["not_on_page"] == 0 and result["page_p99"] < 1.0
    print("target (nothing lost, the page's view under 1 s behind at p99, restart included):", "held" if ok else "MISSED")
    sys.exit(0 if ok else 1)
