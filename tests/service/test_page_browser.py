"""The /scheduler page in a real headless browser (Debian's chromium driven by Playwright):
load it, move a job with its pool select, see it move; switch a pool to fifo; sign in; the
controls each reader sees (issue 30, item 5); the advanced table's width in a 1,280-pixel
window; the chart's time axis and the pools' names beside their lines."""

from __future__ import annotations

import shutil
import time
from typing import Any

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
                # before signing in the page offers no control, and a forged form is refused
                assert page.locator(f"#priority-{job['id']}").inner_text() == "NORMAL"
                assert page.locator("#jobs select, #jobs button, #pools button").count() == 0
                refused = page.request.post(f"{live.url}/scheduler/jobs/{job['id']}/priority",
                                            form={"priority": "HIGH"}, timeout=30_000)
                assert "sign in" in refused.text()
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


def _browser(p: Any) -> Any:
    return p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)


ALLOCATIONS = """<?xml version="1.0"?>
<allocations>
  <queue name="root">
    <queue name="teams">
      <aclAdministerApps>carol</aclAdministerApps>
      <queue name="a"/>
    </queue>
    <queue name="other"/>
  </queue>
</allocations>
"""


def test_each_reader_sees_only_the_controls_they_may_use(live_service, tmp_path) -> None:
    """Issue 30, item 5: a user sees the pool and priority selects and the Kill button on their
    own jobs only, a queue's aclAdministerApps also on that queue's jobs, an admin on every job
    and the scheduling-mode switches; the switches are an admin's only."""
    from corescheduler.service.tokens import Principal

    alloc = tmp_path / "fair-scheduler.xml"
    alloc.write_text(ALLOCATIONS)
    tokens = {"tok-ops-1234567890": Principal("ops", admin=True), "tok-alice-1234567890": Principal("alice"),
              "tok-bob-12345678901": Principal("bob"), "tok-carol-1234567890": Principal("carol")}
    by_user = {p.user: {"Authorization": f"Bearer {t}"} for t, p in tokens.items()}
    live = live_service({"cluster": {"racks": 1, "nodes_per_rack": 1, "map_slots": 1, "reduce_slots": 1},
                         "scheduler": {"allocation_file": str(alloc)}, "service": {"tick": 0.2}}, tokens=tokens)
    with httpx.Client(base_url=live.url, timeout=30) as client:
        long = {"maps": [{"command": ["sleep", "60"]}] * 2}
        mine = client.post("/api/v1/jobs", json={**long, "pool": "root.teams.a"}, headers=by_user["alice"])
        assert mine.status_code == 201, mine.text
        a = mine.json()
        b = client.post("/api/v1/jobs", json={**long, "pool": "root.other"}, headers=by_user["bob"]).json()
        controls = {}
        with sync_api.sync_playwright() as p:
            browser = _browser(p)
            try:
                for token, who in tokens.items():
                    page = browser.new_page()
                    page.goto(f"{live.url}/scheduler", timeout=30_000)
                    page.fill("#login input[name='token']", token)
                    with page.expect_navigation(timeout=30_000):
                        page.locator("#login button").click()
                    assert f"Signed in as {who.user}" in page.locator("#user").inner_text()
                    controls[who.user] = {
                        job["id"]: (page.locator(f"select#pool-{job['id']}").count(),
                                    page.locator(f"select#priority-{job['id']}").count(),
                                    page.locator(f"#kill-{job['id']}").count())
                        for job in (a, b)}
                    controls[who.user]["mode"] = page.locator("#pools button[id^='mode-']").count()
                    if who.user == "carol":  # a queue's administrator kills a job of that queue
                        page.on("dialog", lambda d: d.accept())
                        with page.expect_navigation(timeout=30_000):
                            page.locator(f"#kill-{a['id']}").click()
                        assert page.locator("#message").count() == 0
                    page.close()
            finally:
                browser.close()
        everything = (1, 1, 1)
        assert controls["alice"] == {a["id"]: everything, b["id"]: (0, 0, 0), "mode": 0}
        assert controls["bob"] == {a["id"]: (0, 0, 0), b["id"]: everything, "mode": 0}
        assert controls["carol"] == {a["id"]: everything, b["id"]: (0, 0, 0), "mode": 0}
        assert controls["ops"][a["id"]] == everything and controls["ops"][b["id"]] == everything
        assert controls["ops"]["mode"] >= 2
        assert client.get(f"/api/v1/jobs/{a['id']}", headers=by_user["alice"]).json()["state"] == "killed"
        client.delete(f"/api/v1/jobs/{b['id']}", headers=by_user["bob"])


def test_the_advanced_table_fits_1280_pixels_and_the_chart_has_a_time_axis(live_service) -> None:
    """Issue 30, item 5: in a 1,280-pixel window the ``?advanced`` page does not scroll sideways
    and no header is cut; the chart has clock-time ticks along its time axis and each pool's name
    beside the end of its line, none overlapping; the header counts "1 job", not "1 jobs"."""
    import re

    from tests.service.conftest import wait_for

    live = live_service({"cluster": {"racks": 1, "nodes_per_rack": 2, "map_slots": 1, "reduce_slots": 1},
                         "service": {"tick": 0.2}})
    with httpx.Client(base_url=live.url, timeout=30) as client:
        first = client.post("/api/v1/jobs", json={"maps": [{"command": ["sleep", "60"]}], "pool": "research-batch",
                                                   "name": "nightly-feature-extraction-for-the-recommender"},
                            headers={"X-User": "a-rather-long-user-name"}).json()
        with sync_api.sync_playwright() as p:
            browser = _browser(p)
            try:
                page = browser.new_page(viewport={"width": 1280, "height": 800})
                page.goto(f"{live.url}/scheduler", timeout=30_000)
                summary = page.locator("#summary").inner_text()
                assert re.search(r"\b1 job;", summary) and "1 jobs" not in summary, summary
                others = [client.post("/api/v1/jobs", json={
                    "maps": [{"command": ["sleep", "60"]}] * 3, "reduces": [{"command": ["true"]}],
                    "pool": pool, "name": f"{pool}-job-with-a-long-descriptive-name-{i}"}).json()
                    for i, pool in enumerate(["interactive-dashboards", "etl", "etl"])]
                # the chart samples once a second: wait (bounded) until it spans a few seconds
                assert wait_for(lambda: all(len(live.service.history.samples.get(n, ())) >= 4
                                            for n in ("research-batch", "etl", "interactive-dashboards")), 30)
                page.goto(f"{live.url}/scheduler?advanced", timeout=30_000)
                assert page.locator("#summary").inner_text().startswith("2 workers, ")
                assert "4 jobs;" in page.locator("#summary").inner_text()
                widths = page.evaluate("""() => ({page: document.documentElement.scrollWidth,
                    jobs: document.querySelector('#jobs').scrollWidth,
                    pools: document.querySelector('#pools').scrollWidth,
                    cut: [...document.querySelectorAll('th')].filter(th => th.scrollWidth > th.clientWidth)
                         .map(th => th.textContent)})""")
                assert widths["page"] <= 1280 and widths["jobs"] <= 1280 and widths["pools"] <= 1280, widths
                assert widths["cut"] == [], widths
                assert page.locator("#jobs tr[data-job] td").first.is_visible()
                ticks = page.locator("#chart .xtick text").all_text_contents()
                assert len(ticks) >= 2 and all(re.fullmatch(r"\d\d:\d\d:\d\d", t) for t in ticks), ticks
                xs = [float(v) for v in page.locator("#chart .xtick line").evaluate_all(
                    "ls => ls.map(l => l.getAttribute('x1'))")]
                assert xs == sorted(xs) and len(set(xs)) == len(xs)
                assert "time" in page.locator("#chart").text_content()
                assert page.locator("#chart .ytick").count() >= 2
                labels = page.locator("#chart text.label").evaluate_all("""ts => ts.map(t => {
                    const b = t.getBBox(); return {name: t.dataset.pool, shown: t.firstChild.textContent,
                                                   x: b.x, y: b.y, w: b.width, h: b.height}})""")
                assert sorted(lab["name"] for lab in labels) == \
                    ["default", "etl", "interactive-dashboards", "research-batch"]
                for lab in labels:  # the name, or its first 19 characters and an ellipsis
                    assert lab["shown"] == lab["name"] or lab["shown"] == lab["name"][:19] + "…", lab
                ends = page.locator("#chart polyline[stroke-width='2']").evaluate_all(
                    "ps => ps.map(p => Number(p.getAttribute('points').trim().split(' ').pop().split(',')[0]))")
                for lab in labels:  # beside the end of its line, inside the chart
                    assert any(0 < lab["x"] - end < 20 for end in ends), (lab, ends)
                    assert lab["x"] + lab["w"] <= float(page.locator("#chart").get_attribute("width"))
                for i, one in enumerate(labels):
                    for two in labels[i + 1:]:
                        assert one["y"] + one["h"] <= two["y"] or two["y"] + two["h"] <= one["y"], (one, two)
            finally:
                browser.close()
        for job in (first, *others):
            client.delete(f"/api/v1/jobs/{job['id']}")
