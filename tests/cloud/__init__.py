"""Tests of reservation_lab.cloud."""
