"""The runtime layer: the local toolchain and processes — Node 22 and the pinned wrangler, `wrangler` subcommands
(streamed, offline environment, dry run), `wrangler dev` as one process group with its watchdog, loopback ports,
process groups, waiting, secret redaction and the Worker's node tests. Knows nothing of reservations.
May import only `reservation_lab.errors`, `reservation_lab.paths` and `reservation_lab.i18n`.
"""
