"""The test suite: one folder per layer of lib/reservation_lab (and worker/ for the Worker itself)."""
