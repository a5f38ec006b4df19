"""The built site in a real browser: Debian's headless Chromium, driven through chromedriver.

chromedriver speaks the W3C WebDriver protocol, JSON over plain HTTP, so the test needs
no selenium: ``_WebDriver`` below is the handful of calls it uses. The site is served on
127.0.0.1 by ``http.server`` (Material's search fetches its index, which ``file://``
pages cannot). ``.ci/run`` installs ``chromium`` and ``chromium-driver``.
"""

from __future__ import annotations

import functools
import json
import shutil
import socket
import subprocess
import threading
import time
import urllib.request
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest

pytestmark = pytest.mark.slow

ELEMENT = "element-6066-11e4-a52e-4f735466cecf"    # the W3C key of an element reference


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _WebDriver:
    def __init__(self, port: int) -> None:
        self.base = f"http://127.0.0.1:{port}"
        self.session = ""

    def call(self, method: str, path: str, body: dict | None = None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=60) as resp:
            return json.loads(resp.read() or b"null")["value"]

    def start(self, browser: str, profile: str) -> None:
        caps = {"capabilities": {"alwaysMatch": {"browserName": "chrome", "goog:chromeOptions": {
            "binary": browser,
            "args": ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--disable-background-networking", "--disable-component-update", "--disable-sync",
                     "--no-first-run", "--window-size=1400,1000", f"--user-data-dir={profile}"]}}}}
        self.session = self.call("POST", "/session", caps)["sessionId"]

    def s(self, path: str) -> str:
        return f"/session/{self.session}{path}"

    def get(self, url: str) -> None:
        self.call("POST", self.s("/url"), {"url": url})

    def find_all(self, css: str) -> list[str]:
        return [e[ELEMENT] for e in self.call("POST", self.s("/elements"), {"using": "css selector", "value": css})]

    def wait_for(self, css: str, seconds: float = 30.0) -> list[str]:
        """The elements *css* selects, once there are some (polls; not a timing assertion)."""
        deadline = time.monotonic() + seconds
        while True:
            found = self.find_all(css)
            if found or time.monotonic() > deadline:
                return found
            time.sleep(0.2)

    def text(self, element: str) -> str:
        return self.call("GET", self.s(f"/element/{element}/text"))

    def stop(self) -> None:
        if self.session:
            self.call("DELETE", self.s(""))


@pytest.fixture(scope="module")
def served_site(built_site):
    site, done = built_site
    assert done.returncode == 0, done.stderr[-4000:]
    handler = functools.partial(SimpleHTTPRequestHandler, directory=str(site))
    handler.log_message = lambda *args: None
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if not chromium or not driver:
        pytest.skip("chromium / chromedriver are not installed (apt-get install chromium chromium-driver)")
    port = _free_port()
    proc = subprocess.Popen([driver, f"--port={port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wd = _WebDriver(port)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if wd.call("GET", "/status").get("ready"):
                    break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail("chromedriver did not start")
            time.sleep(0.2)
        wd.start(chromium, str(tmp_path_factory.mktemp("chromium-profile")))
        yield wd
    finally:
        try:
            wd.stop()
        finally:
            proc.terminate()
            proc.wait(timeout=30)


def test_index_loads_and_navigation_reaches_a_guide(browser, served_site):
    browser.get(served_site)
    assert browser.call("GET", browser.s("/title")).startswith("parquet-core")
    links = browser.wait_for('nav.md-nav--primary a.md-nav__link[href$="guide/reading/"]')
    assert links, "the navigation has no link to the Reading guide"
    browser.call("POST", browser.s(f"/element/{links[0]}/click"), {})
    deadline = time.monotonic() + 30
    while not browser.call("GET", browser.s("/url")).endswith("/guide/reading/") and time.monotonic() < deadline:
        time.sleep(0.2)
    assert browser.call("GET", browser.s("/url")).endswith("/guide/reading/")
    heading = browser.wait_for("article h1")
    assert heading and browser.text(heading[0]) == "Reading"
    # the guide's own navigation: the link back home and to the next page
    assert browser.find_all('nav.md-nav--primary a.md-nav__link[href$="writing/"]')   # relative here


def test_search_box_returns_a_result(browser, served_site):
    browser.get(served_site + "guide/writing/")
    box = browser.wait_for("input.md-search__input")
    assert box, "no search box"
    browser.call("POST", browser.s(f"/element/{box[0]}/click"), {})
    browser.call("POST", browser.s(f"/element/{box[0]}/value"), {"text": "bloom_filter_options"})
    results = browser.wait_for("li.md-search-result__item a")
    assert results, "the search box returned nothing"
    hrefs = [browser.call("GET", browser.s(f"/element/{r}/attribute/href")) for r in results]
    assert any("guide/writing/" in h for h in hrefs), hrefs
