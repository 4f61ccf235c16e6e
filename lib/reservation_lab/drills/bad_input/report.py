"""What the bad-input drill found: each answer that broke the contract, the counts, and the state before and after."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reservation_lab.drills.bad_input.cases import SEED_WORKSHOP
from reservation_lab.drills.bad_input.digest import StateDigest
from reservation_lab.drills.bad_input.wire import Answer, Expected, RawRequest


@dataclass
class Finding:
    """A request whose answer broke the contract."""

    request: RawRequest
    expected: Expected | None
    answer: Answer
    problems: list[str]

    def describe(self) -> str:
        expected = "valid" if self.expected is None else f"{self.expected.status} {self.expected.error}"
        got = self.answer.error or f"{self.answer.status} {self.answer.body[:80]!r}"
        return f"{self.request.describe()}: expected {expected}, got {got} — {'; '.join(self.problems)}"


@dataclass
class BadInputReport:
    """What the drill sent, what came back, and whether the contract and the state held."""

    seed: int
    examples: int
    workdir: Path
    table_sent: int = 0
    generated_sent: int = 0
    kinds: dict[str, int] = field(default_factory=dict)  # generated requests per kind
    statuses: dict[int, int] = field(default_factory=dict)  # answers of table + generated requests
    errors: dict[str, int] = field(default_factory=dict)
    server_errors: int = 0  # 5xx answers from the Worker
    findings: list[Finding] = field(default_factory=list)
    port: int = 0  # of the dev server (stopped when the drill returns)
    valid_checked: int = 0
    proxy_drops: int = 0  # 500 "Network connection lost" from wrangler dev's proxy, each sent again
    drops_after: Counter[str] = field(default_factory=Counter)  # what the request before a dropped one was
    connection_retries: Counter[str] = field(default_factory=Counter)  # broken connections, by request shape
    valid_problems: list[str] = field(default_factory=list)
    runtime_probes: list[tuple[str, int, str, bytes]] = field(default_factory=list)  # method, status, type, body
    status_before: dict[str, Any] = field(default_factory=dict)
    status_after: dict[str, Any] = field(default_factory=dict)
    digest_before: StateDigest | None = None
    digest_after: StateDigest | None = None

    @property
    def sent(self) -> int:
        return self.table_sent + self.generated_sent

    @property
    def status_unchanged(self) -> bool:
        return bool(self.status_before) and self.status_before == self.status_after

    @property
    def rows_unchanged(self) -> bool:
        return self.digest_before is not None and self.digest_after is not None and \
            self.digest_before.rows == self.digest_after.rows

    @property
    def raw_unchanged(self) -> bool:
        return self.digest_before is not None and self.digest_after is not None and \
            self.digest_before.raw == self.digest_after.raw

    @property
    def raw_changed(self) -> list[str]:
        """Files whose raw bytes (.sqlite + -wal) differ, by their last path part."""
        if self.digest_before is None or self.digest_after is None:
            return []
        before, after = self.digest_before.raw, self.digest_after.raw
        names = sorted(set(before) | set(after))
        return [Path(name).name[:12] for name in names if before.get(name) != after.get(name)]

    @property
    def ok(self) -> bool:
        return (self.sent > 0 and self.server_errors == 0 and not self.findings and not self.valid_problems
                and self.status_unchanged and self.rows_unchanged)

    def summary(self) -> str:
        """A few lines for the terminal."""
        before, after = self.digest_before, self.digest_after
        files = len(before.rows) if before else 0
        lines = [
            f"bad-input drill: {self.table_sent} table cases + {self.generated_sent} generated (of {self.examples} "
            f"asked, seed {self.seed}; {_counts(self.kinds)}), sent raw over loopback",
            f"answers: {_counts({status or 'no answer': n for status, n in self.statuses.items()})}",
            f"error codes: {_counts(self.errors)}",
            f"5xx from the Worker: {self.server_errors}; answers not as documented in openapi.yaml: "
            f"{len(self.findings)}",
            f"valid answers checked against openapi.yaml: {self.valid_checked}, problems: {len(self.valid_problems)}",
            f"seeded workshop {SEED_WORKSHOP!r}: status {'unchanged' if self.status_unchanged else 'CHANGED'} "
            f"{self.status_after or self.status_before}",
            f"Durable Object SQLite ({files} files under local-state/v3/do): rows "
            f"{'identical' if self.rows_unchanged else 'CHANGED'} (sha256 {before.combined[:16] if before else '-'} "
            f"-> {after.combined[:16] if after else '-'}); raw bytes "
            f"{'identical' if self.raw_unchanged else 'differ in ' + ', '.join(self.raw_changed) + ' (not judged)'}",
        ]
        lines += self._retry_lines()
        for finding in self.findings[:15]:
            lines.append(f"  - {finding.describe()}")
        if len(self.findings) > 15:
            lines.append(f"  … and {len(self.findings) - 15} more")
        lines += [f"  - {problem}" for problem in self.valid_problems[:10]]
        lines.append("bad-input drill: " + ("PASS" if self.ok else "FAIL"))
        return "\n".join(lines)

    def _retry_lines(self) -> list[str]:
        """What was sent again, and what never reached the Worker (not judged)."""
        lines = []
        if self.proxy_drops:
            lines.append(f"wrangler dev proxy drops (500 'Network connection lost' from miniflare, not the Worker; "
                         f"sent again, then judged): {self.proxy_drops}; the request before each: "
                         f"{_counts(self.drops_after)}")
        if self.connection_retries:
            lines.append(f"connections reset or cut off before a whole answer (sent again, then judged): "
                         f"{_counts(self.connection_retries)}")
        if self.runtime_probes:
            probes = ", ".join(f"{method} -> {status} {ctype or '-'}"
                               for method, status, ctype, _ in self.runtime_probes)
            lines.append(f"runtime probes (never reach the Worker, not judged): {probes}")
        return lines


def _counts(items: dict[Any, int]) -> str:
    return ", ".join(f"{key} x{n}" for key, n in sorted(items.items(), key=lambda kv: str(kv[0]))) or "none"
