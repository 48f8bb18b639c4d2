#!/usr/bin/env python3
"""Writes the benchmark report of scripts/bench-report.sh: report.md and ratios.svg in OUT.

    bench_report.py OUT

OUT/raw/<bench>.md holds what each benchmark printed (its Markdown tables), OUT/raw/<bench>.status its
exit status and duration, and OUT/raw/context.json the machine, versions and sizes. The headline figures
are read from the benchmarks' own tables, each a ratio to a baseline measured in the same run.
"""

import html
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Headline:
    """One figure of the summary: a ratio where above 1 means better than the baseline."""

    bench: str
    what: str
    baseline: str
    value: float | None
    target: float | None
    note: str = ""


def tables(text):
    """Every Markdown table of `text`, as (header cells, rows of cells)."""
    found, current = [], []
    for line in text.splitlines() + [""]:
        if line.startswith("|"):
            current.append([cell.strip() for cell in line.strip().strip("|").split("|")])
        elif current:
            if len(current) >= 2 and set("".join(current[1])) <= set("-: "):
                found.append((current[0], current[2:]))
            current = []
    return found


def number(cell):
    """The first number in a table cell (bold and units around it are ignored), or None."""
    match = re.search(r"-?\d+(?:\.\d+)?", cell.replace(",", ""))
    return float(match.group()) if match else None


def cell(text, header_has, row_starts, column_has):
    """The number in the column whose header contains `column_has`, in the first row whose first cell starts
    with `row_starts`, of the first table with a header cell containing `header_has`; None if absent."""
    for header, rows in tables(text):
        if not any(header_has in h for h in header):
            continue
        columns = [i for i, h in enumerate(header) if column_has in h]
        for row in rows:
            if row and row[0].startswith(row_starts) and columns and columns[0] < len(row):
                return number(row[columns[0]])
    return None


def raw(out, bench):
    path = out / "raw" / f"{bench}.md"
    return path.read_text() if path.exists() else ""


def inverse(value):
    return None if not value else 1 / value


def headlines(out):
    s3, fetch, verify, rlmm = (raw(out, b) for b in ("s3", "fetch", "verify", "rlmm"))
    ratio = "baseline's time / ours"
    found = [
        Headline("s3", "Copy, store limiting each connection", "aws s3 cp, same store",
                 cell(s3, "what", "copy, S3RemoteStorage, capped", ratio), 1.5),
        Headline("s3", "Copy, straight to SeaweedFS", "aws s3 cp, same store",
                 cell(s3, "what", "copy, S3RemoteStorage, direct", ratio), None,
                 "bound by SeaweedFS's CPU on a small machine"),
        Headline("s3", "Copy, filesystem tier (fsync)", "cp, then sync of the copy",
                 cell(s3, "what", "copy, LocalTieredStorage", ratio), 0.9),
        Headline("s3", "Fetch of a whole segment", "aws s3 cp to stdout",
                 cell(s3, "what", "fetch, S3RemoteStorage", ratio), None),
        Headline("fetch", "Catch-up read, +25 ms a request", "the same proxy, +0 ms",
                 cell(fetch, "GETs per MiB", "catchup-1", "/ proxy +0 ms"), None),
        Headline("fetch", "Random 1 MiB reads, +25 ms a request", "the same proxy, +0 ms",
                 cell(fetch, "GETs per MiB", "random", "/ proxy +0 ms"), None),
        Headline("verify", "Deep archive verification", "SHA-256 on one thread x cores used",
                 cell(verify, "verify / (SHA-256 x cores)", "", "verify / (SHA-256 x cores)"), 0.8),
    ]
    for row, label in (("ours, filesystem", "filesystem"), ("ours, SeaweedFS (S3)", "SeaweedFS"),
                       ("ours, SeaweedFS +", "SeaweedFS + latency")):
        found.append(Headline("rlmm", f"Restart: all partitions ready, {label}",
                              "Kafka's TopicBasedRemoteLogMetadataManager (its time / ours)",
                              inverse(cell(rlmm, "ratio to TopicBased", row, "ratio to TopicBased")),
                              4.0 if label == "SeaweedFS" else None))
    ours, kafka = consume_ratio(raw(out, "consume-s3")), consume_ratio(raw(out, "consume-kafka-local"))
    found.append(Headline("consume", "Broker catch-up through our S3 tier, +25 ms",
                          "Kafka's LocalTieredStorage on the broker's disk (tiered/local of each)",
                          ours / kafka if ours and kafka else None, 1.0,
                          f"tiered/local: ours {ours}, Kafka's {kafka}" if ours and kafka else ""))
    return found


def consume_ratio(text):
    match = re.search(r"tiered / local fetch rate, median of \d+ rounds: ([0-9.]+)", text)
    return float(match.group(1)) if match else None


def figures(out):
    """Figures that are not ratios but have targets: requests and memory."""
    s3, fetch, rlmm = raw(out, "s3"), raw(out, "fetch"), raw(out, "rlmm")
    return [
        ("GETs per MiB served, sequential catch-up", cell(fetch, "GETs per MiB", "catchup-1", "GETs per MiB"),
         "<= 0.25"),
        ("Peak RSS of a copy, MiB", cell(s3, "what", "copy, S3RemoteStorage, capped", "peak RSS"), "<= 128"),
        ("Client CPU s per GB copied, ours", cell(s3, "what", "copy, S3RemoteStorage, direct", "client CPU"), ""),
        ("Client CPU s per GB copied, aws s3 cp", cell(s3, "what", "copy, aws s3 cp, direct", "client CPU"), ""),
        ("Restart: GETs per partition", cell(rlmm, "phase", "restart load: per partition", "GET"), "<= 2 requests"),
        ("Restart: LISTs per partition", cell(rlmm, "phase", "restart load: per partition", "LIST"), ""),
    ]


def svg(found):
    """A horizontal bar per headline: its ratio, a line at 1 (the baseline) and a tick at its target."""
    shown = [h for h in found if h.value is not None]
    width, left, right, bar, gap = 960, 360, 60, 22, 12
    top = 40
    height = top + len(shown) * (bar + gap) + 40
    scale_max = max([2.0] + [h.value for h in shown] + [h.target or 0 for h in shown]) * 1.05
    x = lambda v: left + (width - left - right) * v / scale_max  # noqa: E731
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'font-family="sans-serif" font-size="13">',
        '<rect width="100%" height="100%" fill="white"/>',
        f'<text x="{left}" y="22" font-weight="bold">Ratio to the baseline measured in the same run '
        '(above 1: better); ticks: targets, red: a target missed</text>',
    ]
    for i, h in enumerate(shown):
        y = top + i * (bar + gap)
        colour = "#2b7a3d" if h.target is None or h.value >= h.target else "#c0392b"
        parts.append(f'<text x="{left - 8}" y="{y + bar * 0.72}" text-anchor="end">{html.escape(h.what)}</text>')
        parts.append(f'<rect x="{left}" y="{y}" width="{x(h.value) - left:.1f}" height="{bar}" fill="{colour}"/>')
        parts.append(f'<text x="{x(h.value) + 6:.1f}" y="{y + bar * 0.72}">{h.value:.2f}</text>')
        if h.target is not None:
            parts.append(f'<line x1="{x(h.target):.1f}" x2="{x(h.target):.1f}" y1="{y - 3}" y2="{y + bar + 3}" '
                         'stroke="black" stroke-width="2"/>')
    base = x(1.0)
    parts.append(f'<line x1="{base:.1f}" x2="{base:.1f}" y1="{top - 6}" y2="{height - 30}" '
                 'stroke="#555" stroke-dasharray="4 3"/>')
    parts.append(f'<text x="{base:.1f}" y="{height - 14}" text-anchor="middle">1.0 = baseline</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def status_line(out, bench):
    path = out / "raw" / f"{bench}.status"
    if not path.exists():
        return "not run"
    code, seconds = path.read_text().split()
    return f"{'passed' if code == '0' else 'FAILED (exit ' + code + ')'} in {int(float(seconds))} s"


def report(out):
    context = json.loads((out / "raw" / "context.json").read_text())
    found = headlines(out)
    (out / "ratios.svg").write_text(svg(found))
    lines = [
        "# krabka-remote-storage: benchmark report",
        "",
        f"{context['date']}, `{context['size']}` size, commit `{context['commit']}`. Rerun with "
        f"`{context['command']}`; every figure below is a ratio to a baseline measured in the same run, "
        "the median of alternated rounds (each benchmark's own section says how).",
        "",
        "![ratios](ratios.svg)",
        "",
        "## Where we stand",
        "",
        "| figure | baseline (same run) | ours / baseline (above 1: better) | target | met | note |",
        "|---|---|---|---|---|---|",
    ]
    for h in found:
        value = "not measured" if h.value is None else f"**{h.value:.3f}**"
        target = "" if h.target is None else f"≥ {h.target}"
        met = "" if h.target is None or h.value is None else ("yes" if h.value >= h.target else "**no**")
        lines.append(f"| {h.what} | {h.baseline} | {value} | {target} | {met} | {h.note} |")
    lines += ["", "| other figure | value | target |", "|---|---|---|"]
    for name, value, target in figures(out):
        lines.append(f"| {name} | {'not measured' if value is None else value} | {target} |")
    lines += ["", "## Machine and versions", ""]
    for key, value in context["machine"].items():
        lines.append(f"- {key}: {value}")
    lines += ["", "## Configuration of each benchmark", ""]
    for bench, settings in context["benches"].items():
        lines.append(f"- `{bench}`: `{settings}` — {status_line(out, bench)}")
    for bench in context["benches"]:
        lines += ["", f"## {bench}", "", raw(out, bench).strip() or "(no output; see raw/ for its log)"]
    (out / "report.md").write_text("\n".join(lines) + "\n")
    return found


if __name__ == "__main__":
    for h in report(Path(sys.argv[1])):
        print(f"{h.what}: {'not measured' if h.value is None else f'{h.value:.2f}'}")
