"""The live view's page (hub/live/) for every reader (issue 53): axe-core's WCAG 2.1 A and AA rules find no violation
on the instructor's page and the projector's, at a desktop's size and on a 375-px phone (200 % zoom of a 750-px
window), and nothing scrolls the page sideways; a keyboard's focus stays on its heatmap cell while the stream updates the page, and a
change of the stuck list is announced (politely, in a few words).

No hub: the class-live service runs as tests/hub/test_live_service.py runs it (tests/live_fixtures.py: the hub's Python,
a stand-in for the hub's API); Chromium reaches its page.sock through a TCP relay here, with the instructor's token
in every request (the hub's proxy and login are tests/browser/test_hub_live.py's). Students post to events.sock with
learner_kit.live's client. Screenshots at 375 px: build/screenshots/live-a11y-*.png.
"""
import re
import socket
import threading
from urllib.parse import quote

import pytest
from playwright.sync_api import expect

from learner_kit import live
from tests.browser.a11y import (
    SIZES,
    assert_readable,
    axe_installed,
    contrast,
    rgb,
)
from tests.browser.jupyter_servers import Screens
from tests.live_fixtures import (
    ACCESS,
    HUB_PYTHON,
    PREFIX,
    FakeHub,
    Service,
    instructor,
    new_event,
    student,
    token_of,
)

pytestmark = pytest.mark.skipif(not HUB_PYTHON.exists(), reason="the hub's environment: make hub-tool")
CURRENT_PAGE = {}  # for conftest's screenshot of a failed step
SDPA, HEADS, MERGE, MHA, NORM, EMBED = ("scaled_dot_product_attention", "split_heads", "merge_heads",
                                        "MultiHeadAttention", "LayerNorm", "Embeddings")
STUDENTS = ["ana", "ben", "cai", "dan", "eve", "fay", "gus", "hal"]
# Before the page opens: one heatmap cell of each colour step (5, 4, 3, 2, 1 students), empty cells beside them,
# eve stuck on SDPA (2 runs with [sdpa-no-scale], the page's rule set to 2 runs over 0 minutes), fay's pass.
SEEDED = ([(s, SDPA, "sdpa-no-scale") for s in ("ana", "ben", "cai", "dan", "eve")]
          + [(s, SDPA, "sdpa-softmax-dim") for s in ("ana", "ben", "cai", "dan")]
          + [(s, HEADS, "heads-split-no-transpose") for s in ("ana", "ben", "cai")]
          + [(s, MHA, "mha-no-output-proj") for s in ("ana", "ben")]
          + [("ana", NORM, "layernorm-unbiased-var"), ("eve", SDPA, "sdpa-no-scale"), ("fay", SDPA, "passed")])
# Ten updates while the keyboard's focus is on (SDPA, [sdpa-no-scale]): new columns and rows (one before others),
# its own count and label changing, and the stuck list changing four times (who joins or leaves it).
UPDATES = [("fay", HEADS, "heads-merge-no-transpose", None), ("fay", HEADS, "heads-merge-no-transpose", "fay"),
           ("eve", SDPA, "passed", "eve"), ("gus", EMBED, "embed-no-scale", None), ("gus", EMBED, "embed-no-scale", "gus"),
           ("fay", SDPA, "sdpa-no-scale", None), ("ben", NORM, "layernorm-unbiased-var", None),
           ("cai", NORM, "layernorm-unbiased-var", None), ("fay", HEADS, "passed", "fay"),
           ("dan", MERGE, "heads-merge-no-transpose", None)]
FOCUSED = (SDPA, "sdpa-no-scale")


class Relay:
    """127.0.0.1:port, each connection piped both ways to a Unix socket (the hub's proxy, reduced to that)."""

    def __init__(self, path):
        self.path = str(path)
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            upstream.connect(self.path)
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(source, target):
        try:
            while data := source.recv(65536):
                target.sendall(data)
        except OSError:
            pass
        finally:
            for end in (source, target):
                try:
                    end.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def close(self):
        self.server.close()


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    axe_installed()
    users = {name: {**student(name), "scopes": [ACCESS]} for name in STUDENTS}  # their class-live tokens
    users["teacher"] = instructor("teacher")
    hub = FakeHub(users)
    running = Service(tmp_path_factory.mktemp("live-a11y"), hub, STUDENTS)
    running.events = f"http+unix://{quote(str(running.folder / 'class-live' / 'events.sock'), safe='')}{PREFIX}"
    relay = Relay(running.folder / "class-live" / "page.sock")
    running.page = f"http://127.0.0.1:{relay.port}{PREFIX}"
    for event in SEEDED:
        send(running, *event)
    yield running
    relay.close()
    running.kill()
    hub.close()


def send(service, name, unit, outcome):
    assert live.post(service.events, token_of(name), new_event(unit, outcome)) == "stored"
    service.sent = getattr(service, "sent", 0) + 1


@pytest.fixture
def browse(chromium, service):
    """open(size, projector=False) -> the live page, as the instructor, in a browser of that size."""
    contexts = []

    def open_page(size, projector=False):
        # bypass_csp: the page's policy would keep axe-core out (it allows only the service's own scripts)
        context = chromium.new_context(**SIZES[size], bypass_csp=True,
                                       extra_http_headers={"Authorization": f"token {token_of('teacher')}"})
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(20_000)
        CURRENT_PAGE["page"] = page
        page.goto(service.page + ("?projector=1" if projector else ""))
        expect(page.locator("body")).to_have_attribute("data-state", "live")
        expect(page.locator("body")).to_have_attribute("data-events", str(service.sent))
        return page

    yield open_page
    CURRENT_PAGE.clear()
    for context in contexts:
        context.close()


def stuck_rule(page, runs=2, minutes=0):
    """The page's stuck rule set in its form (the stream reconnects with it)."""
    for name, value in (("runs", runs), ("minutes", minutes)):
        page.locator(f"#{name}").fill(str(value))
        page.locator(f"#{name}").dispatch_event("change")
    expect(page.locator("#stuck-rule")).to_contain_text(f"last {runs} or more runs of a unit failed the same way, "
                                                        f"the first of them at least {minutes} minutes ago")


def cell(page, unit, mistake):
    return page.locator(f'#heatmap td[data-unit="{unit}"][data-id="{mistake}"]')


@pytest.mark.parametrize("size", ["desktop", "phone"])  # 375 px: 200 % zoom of a 750-px window
@pytest.mark.parametrize("view", ["teacher", "projector"])  # not "instructor": conftest runs those last
def test_axe_finds_no_wcag_21_aa_violation_and_nothing_scrolls_the_page_sideways(browse, view, size):
    page = browse(size, projector=view == "projector")
    if view == "teacher":
        stuck_rule(page)
        cell(page, *FOCUSED).get_by_role("button").click()  # what learners are told for it, checked too
        expect(page.locator("#id-details")).to_be_visible()
    assert_readable(page, view, size, lambda shown: Screens(f"live-a11y-{view}").take(shown, "phone", full_page=True))


def test_heatmap_cells_name_their_students_and_every_colour_reads(browse):
    page = browse("desktop")
    button = cell(page, *FOCUSED).get_by_role("button")
    expect(button).to_have_accessible_name(re.compile(r"^5 students: scaled_dot_product_attention, \[sdpa-no-scale\]"
                                                      r"\W+ana, ben, cai, dan, eve$"))
    expect(cell(page, SDPA, "mha-no-output-proj")).to_have_accessible_name("no students")  # an empty cell
    levels = {}
    for level in range(6):
        td = page.locator(f'#heatmap td[data-level="{level}"]').first
        shown = td.locator("button") if level else td
        levels[level] = shown.evaluate("e => { e.focus(); const s = getComputedStyle(e), t = getComputedStyle(e.closest('td'));"
                                       "return [s.color, t.backgroundColor, s.outlineColor, s.outlineStyle] }")
    for level, (ink, background, ring, style) in levels.items():
        background = rgb(background) if rgb(background) != (0, 0, 0) else (255, 255, 255)  # transparent: the page
        assert contrast(rgb(ink), background) >= 4.5, (level, ink, background)
        if level:  # a focused cell's ring stands out from its cell
            assert style != "none" and contrast(rgb(ring), background) >= 3, (level, ring, background)


def test_the_focus_stays_on_its_cell_through_ten_updates_and_stuck_changes_are_announced(browse, service):
    page = browse("desktop")
    stuck_rule(page)
    expect(page.locator("#stuck [data-student]")).to_have_count(1)  # eve
    sent = service.sent
    news = page.locator("[aria-live=polite]:not(#status):not(#id-details)")  # the stuck list's
    page.locator("#projector-link").focus()
    for _ in range(40):  # the keyboard alone, from the form to the cell
        page.keyboard.press("Tab")
        at = page.evaluate("() => { const td = document.activeElement.closest('#heatmap td');"
                           " return td ? [td.dataset.unit, td.dataset.id] : null; }")
        if at == list(FOCUSED):
            break
    assert at == list(FOCUSED), f"Tab never reached the heatmap's cell {FOCUSED}"
    said = news.inner_text() if news.count() else None
    for k, (name, unit, outcome, changes) in enumerate(UPDATES, start=1):
        shown = page.locator(f'#stuck [data-student="{changes}"]').count() if changes else None
        send(service, name, unit, outcome)
        expect(page.locator("body")).to_have_attribute("data-events", str(sent + k))
        at = page.evaluate("() => { const e = document.activeElement, td = e.closest('#heatmap td');"
                           " return td ? [td.dataset.unit, td.dataset.id, e.tagName] : [e.tagName, e.id]; }")
        assert at == [*FOCUSED, "BUTTON"], f"update {k} ({name} {unit} {outcome}): the focus went to {at}"
        expect(news).to_have_count(1)
        now = news.inner_text()
        if changes:
            assert page.locator(f'#stuck [data-student="{changes}"]').count() != shown
            assert now != said and changes in now, f"update {k}: {changes}'s change of the stuck list is not announced: {now!r}"
        else:
            assert now == said, f"update {k} changed no stuck student, yet the page announces {now!r}"
        said = now
    expect(cell(page, *FOCUSED)).to_have_attribute("data-count", "6")
    assert len(said) < 200, said  # a summary, not the list
