"""Tests of reservation_lab.classroom."""
