"""Tests of reservation_lab.course."""
