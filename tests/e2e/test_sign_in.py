"""Signing in without a link: the login box refuses a wrong token with the server's message, then takes a
pasted one (a tab of its own; the story in test_story.py signs in with a link)."""

from __future__ import annotations

import pytest
from e2ehelpers import shot
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e


def test_login_box_accepts_a_pasted_token(browser, service):
    context = browser.new_context()
    try:
        pg = context.new_page()
        pg.goto(service.base_url + "/")
        box = pg.get_by_role("heading", name="Sign in to xmd")
        expect(box).to_be_visible()
        pg.get_by_label("API token").fill("xmd_not-a-token")
        pg.get_by_role("button", name="Sign in").click()
        expect(pg.get_by_role("alert")).to_contain_text("invalid or revoked token")
        pg.get_by_label("API token").fill(service.token)
        pg.get_by_role("button", name="Sign in").click()
        expect(pg.get_by_test_id("who")).to_contain_text("e2e-admin")
        shot(pg, "00-login-box")
    finally:
        context.close()
