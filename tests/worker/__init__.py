"""Tests of the Worker (worker/src) against a real wrangler dev."""
