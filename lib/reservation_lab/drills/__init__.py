"""Drills: failure experiments against a real `wrangler dev` that check the lab invariants still hold."""
