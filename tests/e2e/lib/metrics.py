#!/usr/bin/env python3
"""Reads the plugin's metrics from the Prometheus JMX exporter agent of a broker and checks them
against what a scenario did, as seen in the filesystem tier (docs/metrics.md).

  metrics.py copies URL TIER_DIR PLUGIN_CLASS|-
      copy_total = number of segment .log files in the tier, copy_bytes_total = their total size,
      no failed copy, fetches and fetched bytes > 0 (the scenario read back from the tier), one
      open storage manager; the series carry plugin_class=PLUGIN_CLASS (the broker's KIP-877
      metrics) or no plugin_class at all for '-' (the plugin's own JMX reporter). Our durable metadata
      manager (the scenario's) wrote at least two records per copied segment (copy started and
      finished), loaded at least one partition and lost no write to a fence.
  metrics.py deletes URL BEFORE_SEGMENTS TIER_DIR
      delete_total = BEFORE_SEGMENTS minus the .log files left in the tier; the metadata manager wrote
      at least two more records per deleted segment (delete started and finished).

Polls for up to 30 s (the plugin answers reads from a snapshot at most one second old); prints what it
saw and exits 1 on a mismatch.
"""
import os
import re
import sys
import time
import urllib.request

LINE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def scrape(url):
    """Our series: {(name, frozenset(labels)): value}. Keeps the whole answer in
    $E2E_WORK/metrics.txt (when set) for a look after a failure."""
    with urllib.request.urlopen(url, timeout=10) as response:
        text = response.read().decode('utf-8')
    if os.environ.get('E2E_WORK'):
        with open(os.path.join(os.environ['E2E_WORK'], 'metrics.txt'), 'w', encoding='utf-8') as out:
            out.write(text)
    series = {}
    for line in text.splitlines():
        match = LINE.match(line)
        if not match or not match.group(1).startswith('krabka_rsm_'):
            continue
        labels = frozenset(LABEL.findall(match.group(2) or ''))
        series[(match.group(1), labels)] = float(match.group(3))
    return series


def one(series, name):
    """The value of the one series of `name` without an error_class label."""
    found = [v for (n, labels), v in series.items()
             if n == name and not any(k == 'error_class' for k, _ in labels)]
    if len(found) != 1:
        raise AssertionError(f'{len(found)} series of {name}, expected 1')
    return found[0]


def tier_logs(tier):
    sizes = []
    for root, _, files in os.walk(tier):
        sizes += [os.path.getsize(os.path.join(root, f)) for f in files if f.endswith('.log')]
    return sizes


def check_copies(series, tier, plugin_class):
    sizes = tier_logs(tier)
    problems = []
    expect = {'krabka_rsm_copy_total': len(sizes), 'krabka_rsm_copy_bytes_total': sum(sizes),
              'krabka_rsm_copy_in_flight': 0, 'krabka_rsm_native_open_storage_managers': 1}
    for name, want in expect.items():
        got = one(series, name)
        if got != want:
            problems.append(f'{name} = {got}, the tier says {want}')
    for name in ('krabka_rsm_fetch_total', 'krabka_rsm_fetch_bytes_served_total',
                 'krabka_rsm_index_fetch_total'):
        if one(series, name) <= 0:
            problems.append(f'{name} = {one(series, name)}, expected > 0 after reading from the tier')
    copies, records = len(sizes), one(series, 'krabka_rsm_metadata_records_written_total')
    if records < 2 * copies:
        problems.append(f'metadata_records_written_total = {records}, expected >= 2 per copied segment ({copies})')
    if one(series, 'krabka_rsm_metadata_partition_loads_total') < 1:
        problems.append('metadata_partition_loads_total = 0, expected >= 1')
    if one(series, 'krabka_rsm_metadata_fenced_writes_total') != 0:
        problems.append(f"metadata_fenced_writes_total = {one(series, 'krabka_rsm_metadata_fenced_writes_total')} on one broker")
    failed = sum(v for (n, _), v in series.items() if n == 'krabka_rsm_copy_failures_total')
    if failed != 0:
        problems.append(f'{failed} failed copies')
    classes = {dict(labels).get('plugin_class', '-') for (_, labels) in series}
    if classes != {plugin_class}:
        problems.append(f'plugin_class labels {sorted(classes)}, expected only {plugin_class}')
    return problems, f'{len(sizes)} segments, {sum(sizes)} bytes in the tier'


def check_deletes(series, before, tier):
    left = len(tier_logs(tier))
    got = one(series, 'krabka_rsm_delete_total')
    problems = [] if got == before - left else [f'delete_total = {got}, the tier lost {before - left} segments']
    records = one(series, 'krabka_rsm_metadata_records_written_total')
    want = 2 * one(series, 'krabka_rsm_copy_total') + 2 * got
    if records < want:
        problems.append(f'metadata_records_written_total = {records}, expected >= {want:g} (2 per copy and per delete)')
    return problems, f'{before} segments before, {left} left'


def main():
    mode, url = sys.argv[1], sys.argv[2]
    deadline = time.monotonic() + 30
    while True:
        try:
            series = scrape(url)
            if mode == 'copies':
                problems, seen = check_copies(series, sys.argv[3], sys.argv[4])
            else:
                problems, seen = check_deletes(series, int(sys.argv[3]), sys.argv[4])
        except (OSError, AssertionError) as e:
            problems, seen = [str(e)], 'no answer'
        if not problems:
            shown = {n: v for (n, labels), v in sorted(series.items()) if not labels or
                     all(k == 'plugin_class' for k, _ in labels)}
            print(f'metrics {mode}: ok ({seen}): ' + ', '.join(f'{n[11:]}={v:g}' for n, v in shown.items()
                                                             if 'time' not in n))
            return 0
        if time.monotonic() > deadline:
            print(f'metrics {mode}: MISMATCH ({seen}):', *problems, sep='\n  ', file=sys.stderr)
            return 1
        time.sleep(1)


if __name__ == '__main__':
    sys.exit(main())
