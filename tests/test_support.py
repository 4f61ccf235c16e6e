"""The shared test helpers themselves (tests/support.py)."""

from __future__ import annotations

import pytest

from reservation_lab.errors import InvariantError, LabError, PortBusyError
from tests.support import raises_key


def test_raises_key_passes_on_the_key_and_values() -> None:
    with raises_key("errors.port_busy", PortBusyError, port=8787) as caught:
        raise PortBusyError("errors.port_busy", port=8787, host="127.0.0.1")
    assert caught.value.message.values["host"] == "127.0.0.1"
    with raises_key("invariants.not_equal", label="capacity"):  # the default: any lab error
        raise InvariantError("invariants.not_equal", label="capacity", expected=4, actual=3)


def test_raises_key_takes_a_value_named_error() -> None:
    with raises_key("drills.openapi_unreadable", LabError, error="gone"):
        raise LabError("drills.openapi_unreadable", path="x.json", error="gone")


def test_raises_key_fails_on_another_key() -> None:
    with pytest.raises(AssertionError, match="expected key 'errors.port_busy', got 'errors.config_missing'"), \
            raises_key("errors.port_busy"):
        raise LabError("errors.config_missing", path="wrangler.jsonc")


def test_raises_key_fails_on_another_value() -> None:
    with pytest.raises(AssertionError, match="expected port=8787, got 8788"), raises_key("errors.port_busy", port=8787):
        raise PortBusyError("errors.port_busy", port=8788, host="127.0.0.1")
    with pytest.raises(AssertionError, match="no value 'tries'"), raises_key("errors.port_busy", tries=3):
        raise PortBusyError("errors.port_busy", port=8788, host="127.0.0.1")


def test_raises_key_fails_when_nothing_is_raised() -> None:
    with pytest.raises(pytest.fail.Exception, match="DID NOT RAISE"), raises_key("errors.port_busy"):
        pass


def test_raises_key_lets_other_errors_through() -> None:
    with pytest.raises(ValueError, match="not a lab error"), raises_key("errors.port_busy"):
        raise ValueError("not a lab error")
    with pytest.raises(InvariantError), raises_key("errors.port_busy", LabError):
        raise InvariantError("invariants.not_equal", label="capacity", expected=4, actual=3)
