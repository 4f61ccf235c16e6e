"""How hard a grade searches: read by the grader and by `lab.grade`'s defaults, without importing the grader
(and hypothesis) into every learner's kernel."""

EXAMPLES = 30  # workloads a grade tries at most
BUDGET = 50.0  # seconds of searching and shrinking (plus starting the server once and stopping it)
