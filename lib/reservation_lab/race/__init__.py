"""The race prelude: the deliberately naive Worker's run folder and config (local only, never deployed), the same
burst sent to the naive and the atomic Worker at once, and the timelines that plot both. May import `domain`,
`runtime`, `i18n`, `errors` and `paths`; not `cloud` (the naive Worker can never be deployed) nor anything above.
"""
