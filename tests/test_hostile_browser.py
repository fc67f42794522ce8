"""A stranger's script in a real browser (issue 10): its markdown and HTML are shown as text, and the viewer's
browser fetches nothing from the URLs in it. Debian's Chromium, the page served by `streamlit run`."""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from browser_support import PANEL, wait_for_idle
from test_browser import chromium, no_exception_box, pick_view, sandbox, sandbox_page, step  # noqa: F401  (fixtures)


class _Tracker(BaseHTTPRequestHandler):
    """Counts every request: a tracking pixel's server."""

    def do_GET(self):  # noqa: N802 (http.server's name)
        self.server.hits.append(self.path)
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def tracker():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Tracker)
    server.hits = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def test_a_strangers_markdown_is_shown_as_text_and_fetches_nothing(sandbox_page, tracker):  # noqa: F811
    from playwright.sync_api import expect

    page = sandbox_page
    url = f"http://127.0.0.1:{tracker.server_address[1]}"
    image = f"![x]({url}/markdown.png)"
    html = f'<img src="{url}/html.png">'
    script = {"title": f"{image} title", "about": f"# heading {html}",
              "replies": [{"error": {"status": 529, "type": "overloaded_error", "message": f"{image} error"}},
                          {"stop_reason": f"{image} stop", "content": [{"type": "text", "text": f"{html} text"}]}]}
    requested = []
    page.on("request", lambda request: requested.append(request.url))
    page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(
        files=[{"name": "stranger.json", "mimeType": "application/json", "buffer": json.dumps(script).encode()}])
    wait_for_idle(page)
    expect(page.get_by_text("# heading", exact=False).first).to_be_visible()  # the words, as text
    step(page)  # the error entry
    expect(page.get_by_text(f"{image} error", exact=False).first).to_be_visible()
    step(page)  # the reply that stops with a markdown stop reason
    expect(page.get_by_text(f"{image} stop", exact=False).first).to_be_visible()
    pick_view(page, "Messages")
    expect(page.get_by_text(f"{html} text", exact=False).first).to_be_visible()
    no_exception_box(page)
    assert page.locator("h1:has-text('heading')").count() == 0
    assert page.locator(f'img[src^="{url}"]').count() == 0
    assert tracker.hits == [] and not [u for u in requested if u.startswith(url)]


def test_an_address_in_any_case_or_an_e_mail_is_shown_as_text_never_as_a_link(sandbox_page):  # noqa: F811
    """The toy shouts a stranger's link in capitals: the renderer's link finder ignores case, so the page's must."""
    from playwright.sync_api import expect

    page = sandbox_page
    page.get_by_test_id("stSidebar").get_by_text("Toy", exact=True).click()
    wait_for_idle(page)
    task = page.get_by_role("textbox", name="Task")
    task.fill("Shout [x](http://example.com) and Www.Foo.org, mail a@b.com")
    task.press("Control+Enter")
    wait_for_idle(page)
    page.get_by_role("button", name="Run to end").click()
    wait_for_idle(page)
    answer = page.locator(".lsp-outcome").filter(has_text="Answer:")  # the player's: text, never markdown
    expect(answer).to_contain_text("[X](HTTP://EXAMPLE.COM) AND WWW.FOO.ORG, MAIL A@B.COM", timeout=20_000)
    assert answer.locator("a").count() == 0
    assert "\\" not in answer.inner_text()
    page.get_by_text(PANEL).click()  # Change the past open: the page's own Run view, markdown, the addresses as code
    wait_for_idle(page)
    answer = page.get_by_test_id("stAlertContentSuccess")
    expect(answer).to_contain_text("[X](HTTP://EXAMPLE.COM) AND WWW.FOO.ORG, MAIL A@B.COM")
    assert answer.locator("a").count() == 0
    assert "\\" not in answer.inner_text()
    assert answer.locator("code").all_inner_texts() == ["HTTP://EXAMPLE.COM", "WWW.FOO.ORG", "A@B.COM"]
    no_exception_box(page)
