from __future__ import annotations

import pytest

from service.app import create_app


@pytest.fixture
def app():
    return create_app({"TESTING": False, "MAX_CONTENT_LENGTH": 64 * 1024})


@pytest.fixture
def client(app):
    return app.test_client()
