"""Accessibility checks shared by the browser suite's pages (issue 53): axe-core's WCAG 2.1 A and AA rules, the
sizes a page is read at, whether anything scrolls the page sideways, and WCAG contrast.

axe-core comes from npm at the version tests/browser/axe/package-lock.json pins (`make browser-tool` installs it
into .venv/browser-axe) and is injected into each page from that local file: nothing is fetched when testing.
"""
import contextlib

from tests.browser.jupyter_servers import ROOT, VIEWPORT

AXE = ROOT / ".venv" / "browser-axe" / "node_modules" / "axe-core" / "axe.min.js"
WCAG_21_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
# A phone (its browser honours the page's viewport tag), and a 1280-px window at 200 % zoom.
SIZES = {"desktop": {"viewport": VIEWPORT},
         "phone": {"viewport": {"width": 375, "height": 812}, "is_mobile": True, "has_touch": True, "device_scale_factor": 2},
         "zoom-200": {"viewport": {"width": 640, "height": 400}, "device_scale_factor": 2}}


@contextlib.contextmanager
def file_pages(chromium, current_page):
    """open(path, size) -> a page of that size showing the file (also kept in ``current_page["page"]`` for
    conftest's screenshot of a failed step); every context is closed afterwards."""
    contexts = []

    def open_file(path, size):
        context = chromium.new_context(**SIZES[size])
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(30_000)
        current_page["page"] = page
        page.goto(path.as_uri(), wait_until="load")
        return page

    try:
        yield open_file
    finally:
        current_page.clear()
        for context in contexts:
            context.close()


def axe_installed():
    assert AXE.is_file(), f"axe-core is missing ({AXE}): `make browser-tool` installs it with npm"


def axe_violations(page):
    """axe-core's WCAG 2.1 A and AA violations on ``page``: one line per rule, with its first elements."""
    if not page.evaluate("() => typeof axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    result = page.evaluate("options => axe.run(document, options)",
                           {"runOnly": {"type": "tag", "values": WCAG_21_AA}, "resultTypes": ["violations"]})
    return [f"{rule['id']} ({rule['impact']}, {len(rule['nodes'])}x): "
            + "; ".join(f"{node['target']} {node['failureSummary'].splitlines()[-1].strip()}" for node in rule["nodes"][:3])
            for rule in result["violations"]]


def assert_readable(page, what, size, shoot=None):
    """axe-core finds no WCAG 2.1 A or AA violation on ``page`` and nothing scrolls it sideways; on a phone it is laid
    out at the phone's width (375 px; a page with no viewport tag is laid out 980 px wide and drawn at 38 %), after
    ``shoot(page)`` has taken its screenshots there."""
    violations = axe_violations(page)
    width = page_width(page)
    if size == "phone":
        if shoot is not None:
            page.evaluate("window.scrollTo(0, 0)")
            shoot(page)
        assert width["layout"] == 375, f"{what}: laid out {width['layout']} px wide on a 375-px phone"
    assert not violations, f"{what} at {size}: axe-core finds\n" + "\n".join(violations)
    assert width["scroll"] <= width["layout"], f"{what} at {size}: the page scrolls sideways ({width})"


def page_width(page, boxes=".scroll-box"):
    """The page's layout width, the window's, the width it scrolls to, and up to 5 elements that stick out of it
    (other than inside a box of ``boxes``, which scrolls by itself)."""
    return page.evaluate("""boxes => ({layout: document.documentElement.clientWidth, inner: window.innerWidth,
        scroll: Math.max(document.documentElement.scrollWidth, document.body.scrollWidth),
        wide: Array.from(document.querySelectorAll('body *')).filter(e => e.getBoundingClientRect().right
              > document.documentElement.clientWidth + 1 && !e.closest(boxes)).slice(0, 5)
              .map(e => e.tagName + '.' + e.className)})""", boxes)


def luminance(rgb):
    """WCAG relative luminance of an (r, g, b) colour, channels 0..255."""
    linear = [c / 255 / 12.92 if c / 255 <= 0.03928 else ((c / 255 + 0.055) / 1.055) ** 2.4 for c in rgb[:3]]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a, b):
    """WCAG contrast ratio of two (r, g, b) colours."""
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def rgb(css):
    """(r, g, b) of a computed CSS colour, "rgb(1, 2, 3)" or "rgba(1, 2, 3, 1)"."""
    return tuple(float(part) for part in css[css.index("(") + 1:css.index(")")].replace(",", " ").split()[:3])
