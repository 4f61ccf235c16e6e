"""Tests of reservation_lab.i18n."""
