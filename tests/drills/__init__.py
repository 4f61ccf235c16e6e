"""Tests of reservation_lab.drills."""
