"""Tests of deploy/: the class hub's configuration (z2jh values against the pinned chart schema)."""
