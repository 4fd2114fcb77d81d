"""What `make formgrader` and the hub's instructor server add to nbgrader's formgrader (a Jupyter server extension,
enabled by autograder/grading/outputs/formgrader-config/, which the make target and hub/jupyterhub_config.py put on
JUPYTER_CONFIG_PATH; tests/browser/test_instructor_formgrader.py and test_hub_class.py check both):

- **Any formgrader link works with ?token=.** nbgrader 0.9.6's handlers give ``base_url`` without its trailing
  slash ("" at the server's root), and jupyter_server sets the login cookie with that path: an empty one, so the
  browser keeps the cookie for the link's own folder. Opened at ``/formgrader/submissions/<id>?token=...``, the
  cookie is kept for ``/formgrader/submissions/`` only; the page's grades API (``/formgrader/api/...``) then gets
  no cookie and answers 302 (to the login page), the score boxes stay empty and a typed score is dropped without
  a word. Opened at ``/formgrader?token=...``, the cookie's folder is ``/``, and all works. Here the login cookie
  is set for the server's base URL, whichever page sets it.
- **Hangul is drawn** on a machine without a Korean font: every formgrader page (its lists, a student's name, the
  submission with the learner's notebook) gets the course's Korean font for the Hangul range only
  (page_font.py: NanumGothic, the lab's), served here at ``course-formgrader/``.
"""
import asyncio

from tornado import web

from autograder.grading.outputs.page_font import font_rules, hangul_base

URL = "course-formgrader"


def style_css():
    return "/* the course's font for Hangul in formgrader: autograder/grading/outputs/formgrader_extras.py */\n" + \
        font_rules('url("hangul.ttf")')


class StyleHandler(web.RequestHandler):
    def get(self):
        self.set_header("Content-Type", "text/css; charset=utf-8")
        self.set_header("Cache-Control", "no-cache")
        self.finish(style_css())


class FontHandler(web.RequestHandler):
    async def get(self):
        data = await asyncio.to_thread(hangul_base)  # made once (seconds), then read from the cache on disk
        if not data:
            raise web.HTTPError(404)
        self.set_header("Content-Type", "font/ttf")
        self.set_header("Cache-Control", "max-age=86400")
        self.finish(data)


def style_link(base_url):
    return f'<link rel="stylesheet" href="{base_url}{URL}/style.css">'


class FormgraderStyle(web.OutputTransform):
    """Puts style_link() in the head of formgrader's HTML pages (whole pages only: one chunk, written at once)."""

    base_url = "/"

    def __init__(self, request):
        super().__init__(request)
        self.active = request.path.startswith(f"{self.base_url}formgrader")

    def transform_first_chunk(self, status_code, headers, chunk, finishing):
        if (self.active and finishing and headers.get("Content-Type", "").startswith("text/html")
                and "Content-Encoding" not in headers and b"</head>" in chunk):
            chunk = chunk.replace(b"</head>", style_link(self.base_url).encode() + b"</head>", 1)
            if "Content-Length" in headers:
                headers["Content-Length"] = str(len(chunk))
        return status_code, headers, chunk


def _jupyter_server_extension_points():
    return [{"module": "autograder.grading.outputs.formgrader_extras"}]


def _load_jupyter_server_extension(serverapp):
    base = serverapp.base_url if serverapp.base_url.endswith("/") else serverapp.base_url + "/"
    # the login cookie for the whole server, whichever page's ?token= set it (see above)
    serverapp.identity_provider.cookie_options = {**serverapp.identity_provider.cookie_options, "path": base}
    web_app = serverapp.web_app
    web_app.add_handlers(".*$", [(f"{base}{URL}/style.css", StyleHandler), (f"{base}{URL}/hangul.ttf", FontHandler)])
    FormgraderStyle.base_url = base
    web_app.transforms.insert(0, FormgraderStyle)  # before gzip, which would hide the page's text
    serverapp.log.info("formgrader: the login cookie is set for %s; the course's Korean font is at %s%s/", base, base, URL)
