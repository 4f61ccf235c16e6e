"""The experiments after step 4: changes to the learner's own Worker, run for real and judged by the checker.

`workbench` serves each variant on one reloading `wrangler dev` (the run's `experiments/` folder); `variants` runs
one experiment (burst, durable status, verdict). Not part of the race (which compares the shipped naive Worker).
May import `domain`, `runtime`, `i18n`, `errors` and `paths`; the notebook reaches it through `course.experiments`.
"""
