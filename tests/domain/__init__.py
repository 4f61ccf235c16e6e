"""Tests of reservation_lab.domain."""
