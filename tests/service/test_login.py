"""The page's sign-in form (SPEC §8b): its CSRF token is bound to the browser's own random
cookie, so another site cannot replay it (login CSRF); one user's sign-ins evict only that
user's oldest sessions, never everyone's."""

from __future__ import annotations

import re
import secrets

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("distributed")

from corescheduler.service.api import COOKIE, LOGIN_COOKIE, MAX_SESSIONS_PER_USER  # noqa: E402
from corescheduler.service.tokens import Principal  # noqa: E402


def _form(c) -> str:
    page = c.get("/scheduler").text
    return re.search(r"name='csrf' value='([^']+)'", page).group(1)


@pytest.mark.slow
def test_the_sign_in_form_is_bound_to_its_browser_and_sessions_are_capped_per_user(live_service) -> None:
    alice, bob = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
    live = live_service({"cluster": {"racks": 1, "nodes_per_rack": 1, "map_slots": 1, "reduce_slots": 1},
                         "service": {"tick": 0.1}}, tokens={alice: Principal("alice"), bob: Principal("bob")})
    with httpx.Client(base_url=live.url, timeout=30) as attacker, httpx.Client(base_url=live.url, timeout=30) as victim:
        csrf = _form(attacker)
        assert attacker.cookies.get(LOGIN_COOKIE)
        # another browser (no cookie, or its own) cannot use the attacker's form token
        r = httpx.post(f"{live.url}/scheduler/login", data={"token": alice, "csrf": csrf})
        assert r.status_code == 303 and COOKIE not in r.cookies and "another%20site" in r.headers["location"]
        _form(victim)
        r = victim.post("/scheduler/login", data={"token": alice, "csrf": csrf})
        assert r.status_code == 303 and COOKIE not in r.cookies
        # the form's own browser signs in
        r = attacker.post("/scheduler/login", data={"token": alice, "csrf": csrf})
        assert r.status_code == 303 and r.cookies.get(COOKIE)
    # one user's many sign-ins evict that user's oldest sessions only
    with httpx.Client(base_url=live.url, timeout=30) as b:
        r = b.post("/scheduler/login", data={"token": bob, "csrf": _form(b)})
        bob_session = r.cookies.get(COOKIE)
        assert bob_session
    alice_sessions = []
    with httpx.Client(base_url=live.url, timeout=30) as a:
        csrf = _form(a)
        for _ in range(MAX_SESSIONS_PER_USER + 5):
            r = a.post("/scheduler/login", data={"token": alice, "csrf": csrf})
            alice_sessions.append(r.cookies.get(COOKIE))
    assert all(alice_sessions)

    def user_of(session: str) -> str | None:
        page = httpx.get(f"{live.url}/scheduler", cookies={COOKIE: session}).text
        m = re.search(r"Signed in as ([a-z]+)", page)
        return m.group(1) if m else None

    assert user_of(bob_session) == "bob"
    assert user_of(alice_sessions[-1]) == "alice"
    assert [user_of(s) for s in alice_sessions[:5]] == [None] * 5
    assert user_of(alice_sessions[5]) == "alice"
