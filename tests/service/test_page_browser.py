"""The /scheduler page in a real headless browser (Debian's chromium driven by Playwright):
load it, move a job with its pool select, see it move; switch a pool to fifo."""

from __future__ import annotations

import shutil
import time

import pytest

pytest.importorskip("distributed")
httpx = pytest.importorskip("httpx")
sync_api = pytest.importorskip("playwright.sync_api")

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = [pytest.mark.slow, pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed "
                                                   "(.ci/run installs it: apt-get install chromium)")]
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def test_move_a_job_with_the_pool_select_and_switch_a_pool_to_fifo(live_service, tmp_path) -> None:
    live = live_service({"cluster": {"racks": 1, "nodes_per_rack": 1, "map_slots": 1, "reduce_slots": 1},
                         "service": {"tick": 0.2}, "scheduler": {"task_selector": "locality"}})
    with httpx.Client(base_url=live.url, timeout=30) as client:
        long = {"maps": [{"command": ["sleep", "60"]}] * 3}
        a = client.post("/api/v1/jobs", json={**long, "pool": "alpha", "name": "long-a"}).json()
        b = client.post("/api/v1/jobs", json={**long, "pool": "beta", "name": "long-b"}).json()
        with sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
            try:
                page = browser.new_page()
                page.goto(f"{live.url}/scheduler", timeout=30_000)
                assert page.title() == "corescheduler Job Scheduler Administration"
                assert page.locator(f"tr[data-job='{a['id']}']").count() == 1
                assert page.locator("tr[data-pool='alpha']").count() == 1
                select = page.locator(f"#pool-{a['id']}")
                assert select.input_value() == "alpha"
                with page.expect_navigation(timeout=30_000):
                    select.select_option("beta")
                assert page.locator(f"#pool-{a['id']}").input_value() == "beta"
                assert client.get(f"/api/v1/jobs/{a['id']}").json()["pool"] == "beta"
                with page.expect_navigation(timeout=30_000):
                    page.locator(f"#priority-{b['id']}").select_option("HIGH")
                assert client.get(f"/api/v1/jobs/{b['id']}").json()["priority"] == "HIGH"
                page.on("dialog", lambda d: d.accept())
                with page.expect_navigation(timeout=30_000):
                    page.locator("#mode-beta").click()
                row = page.locator("tr[data-pool='beta']").inner_text()
                assert "fifo" in row and "Switch to fair" in row
                assert page.locator("#message").count() == 0
            finally:
                browser.close()
        for job in (a, b):
            client.delete(f"/api/v1/jobs/{job['id']}")
    time.sleep(0.1)


def test_sign_in_with_the_form_then_act_and_the_cookie_is_out_of_scripts_reach(live_service, tmp_path) -> None:
    from corescheduler.service.tokens import Principal

    token = "browser-admin-token-1"
    live = live_service({"cluster": {"racks": 1, "nodes_per_rack": 1, "map_slots": 1, "reduce_slots": 1},
                         "service": {"tick": 0.2}, "scheduler": {"task_selector": "locality"}},
                        tokens={token: Principal("ops", admin=True)})
    auth = {"Authorization": f"Bearer {token}"}
    with httpx.Client(base_url=live.url, timeout=30, headers=auth) as client:
        job = client.post("/api/v1/jobs", json={"maps": [{"command": ["sleep", "60"]}] * 2, "pool": "alpha"}).json()
        client.post("/api/v1/jobs", json={"maps": [{"command": ["sleep", "60"]}], "pool": "beta"})
        with sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
            try:
                page = browser.new_page()
                page.goto(f"{live.url}/scheduler", timeout=30_000)
                with page.expect_navigation(timeout=30_000):  # acting before signing in is refused
                    page.locator(f"#priority-{job['id']}").select_option("HIGH")
                assert "sign in" in page.locator("#message").inner_text()
                assert client.get(f"/api/v1/jobs/{job['id']}").json()["priority"] == "NORMAL"
                page.fill("#login input[name='token']", token)
                with page.expect_navigation(timeout=30_000):
                    page.locator("#login button").click()
                assert "Signed in as ops" in page.locator("#user").inner_text()
                assert token not in page.url and token not in page.content()
                assert page.evaluate("document.cookie") == ""  # HttpOnly: no script reads the session
                with page.expect_navigation(timeout=30_000):
                    page.locator(f"#pool-{job['id']}").select_option("beta")
                assert client.get(f"/api/v1/jobs/{job['id']}").json()["pool"] == "beta"
                assert page.locator("#message").count() == 0
            finally:
                browser.close()
        client.delete(f"/api/v1/jobs/{job['id']}")
