"""Tests of reservation_lab.runtime."""
