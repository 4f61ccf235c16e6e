"""The exercises: Workers the learner repairs, and the grader that judges them on a real `wrangler dev`.

`catalog` reads worker/exercises.yml (each exercise's stub and reference solution as edits of src/index.js);
`workloads` is the hypothesis strategy of adversarial workloads (concurrent bursts of 1-4 seats over several
workshops, replays and simultaneous twins of one requestId, invalid bodies, restarts between rounds); `judge`
runs one workload and names what went wrong (serial-order checker, durable status, HTTP answers); `lossy` is the
client exercise's unreliable network (a loopback proxy that loses, fails, delays and duplicates), `clients` its
workloads and judge, `reference_client` its reference solution; `transfers` the transfer exercise's workloads,
trial and judge across two objects, `between_steps` the loopback hook where its grade restarts the server between a
transfer's two steps; `grader` searches for the smallest failing workload
within a time budget. May import domain, runtime, errors, paths and
i18n; not the course or the other parts of this layer.
"""
