#!/usr/bin/env python3
"""Compares `krabka-tier export` JSON lines (base64 keys and values) with the committed records a consumer
read from the broker (`E2e verify --record-dir`: offset, timestamp, key, value, headers per line), record by
record: same offsets, timestamps, keys, values and headers, in the same order, none missing or extra.

    compare-export.py EXPORT.jsonl RECORDED.tsv
"""
import json
import sys


def b64(value):
    return "-" if value is None else value


def main(export_path, recorded_path):
    with open(recorded_path, encoding="utf-8") as f:
        want = [line.rstrip("\n") for line in f if line.strip()]
    got = 0
    with open(export_path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            record = json.loads(line)
            headers = ",".join(f"{h['key']}={b64(h['value'])}" for h in record["headers"])
            text = "\t".join([str(record["offset"]), str(record["timestamp"]), b64(record["key"]),
                              b64(record["value"]), headers])
            if got >= len(want):
                sys.exit(f"{export_path}:{number}: extra record at offset {record['offset']}")
            if text != want[got]:
                expected_offset = want[got].split("\t", 1)[0]
                sys.exit(f"{export_path}:{number}: the record at offset {record['offset']} differs from the one "
                         f"the consumer read at offset {expected_offset}")
            got += 1
    if got != len(want):
        sys.exit(f"{export_path}: {got} records, the consumer read {len(want)}")
    print(f"  {export_path.rsplit('/', 1)[-1]}: {got} records, each as the consumer read it")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
