"""Running the course for a class: a real JupyterHub on loopback (or an existing hub), simulated learners who run
the lab the way a browser does (REST and the kernel's websocket), what each costs (peak PSS, CPU seconds), and the
drill that puts N of them on one hub at once (`./lab class`).

Modules: `hub` (a test hub, or an existing one by its admin token), `learner` (one learner's session), `footprint`
(a process tree's memory and CPU from /proc), `drill` (the class, its report and plot). May import `course` (the
notebook's parameters), `runtime`, `i18n`, `errors` and `paths`; only `cli` imports it.
"""
