"""Tests of reservation_lab.race."""
