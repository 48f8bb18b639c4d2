#!/usr/bin/env python3
"""An independent reader of the chunked segment format (docs/chunked-format.md).

Written from the specification with Python's `cryptography` (RSA-OAEP, AES-256-GCM,
ChaCha20-Poly1305) and `zstandard`, sharing no code with the Rust implementation.

  decode.py vectors DOC            checks the test vectors of docs/chunked-format.md
  decode.py tier TIER KEY_DIR      decodes every chunked segment of a tier with the private keys
                                   KEY_DIR/<id>-private.pem, checks every object decodes, that each
                                   log is Kafka record batches (v2, CRC-32C right, offsets contiguous
                                   from the segment's base offset), that every stored .log has its
                                   envelope and none holds a record key (`<topic>/`) in the clear, and
                                   prints one line per topic with the key ids that wrap its segments.
                                   TIER is a directory, or s3://BUCKET/PREFIX read with boto3 from
                                   $S3_ENDPOINT (credentials from the AWS environment variables)
"""
import os
import re
import struct
import sys
import uuid

import zstandard
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding
from cryptography.hazmat.primitives.ciphers.aead import AESGCM, ChaCha20Poly1305

ENVELOPE_MAGIC = b"KRBKENV\x01"
STORED_MAGIC = b"KRBKCHK\x01"
KINDS = {0: ".log", 1: ".index", 2: ".timeindex", 3: ".txnindex", 4: ".snapshot",
         5: ".leader_epoch_checkpoint"}


def crc32c(data):
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 & -(crc & 1))
    return crc ^ 0xFFFFFFFF


def _crc32c_table():
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ (0x82F63B78 & -(c & 1))
        table.append(c)
    return table


CRC32C_TABLE = _crc32c_table()


def crc32c_fast(data):
    """CRC-32C (Castagnoli), table-driven; checked against the bitwise crc32c() at start-up."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc = CRC32C_TABLE[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


# RFC 3720's check value of CRC-32C.
assert crc32c(b"123456789") == crc32c_fast(b"123456789") == 0xE3069283


class Envelope:
    def __init__(self, raw, expected_segment=None):
        body, crc = raw[:-4], struct.unpack(">I", raw[-4:])[0]
        assert crc32c_fast(body) == crc, "envelope checksum"
        assert body[:8] == ENVELOPE_MAGIC, "envelope magic"
        at = 8
        self.segment = uuid.UUID(bytes=body[at:at + 16]); at += 16
        if expected_segment is not None:
            assert self.segment == expected_segment, (self.segment, expected_segment)
        self.cipher = body[at]; at += 1
        self.chunk_size, = struct.unpack(">I", body[at:at + 4]); at += 4
        n, = struct.unpack(">H", body[at:at + 2]); at += 2
        self.key_id = body[at:at + n].decode(); at += n
        n, = struct.unpack(">H", body[at:at + 2]); at += 2
        self.wrapped = body[at:at + n]; at += n
        count = body[at]; at += 1
        self.objects = {}
        for _ in range(count):
            kind = body[at]; at += 1
            size, chunks = struct.unpack(">QI", body[at:at + 12]); at += 12
            assert chunks == -(-size // self.chunk_size), "chunk count"
            listed = []
            for _ in range(chunks):
                stored, flags = struct.unpack(">IB", body[at:at + 5]); at += 5
                listed.append((stored, flags & 1 == 1))
            self.objects[kind] = (size, listed)
        assert at == len(body), "trailing bytes"

    def aead(self, data_key):
        if self.cipher == 0:
            return None
        return {1: AESGCM, 2: ChaCha20Poly1305}[self.cipher](data_key)

    def decode(self, kind, stored, aead):
        size, chunks = self.objects[kind]
        assert stored[:8] == STORED_MAGIC, "stored magic"
        at, out = 8, bytearray()
        for index, (stored_len, compressed) in enumerate(chunks):
            chunk = stored[at:at + stored_len]; at += stored_len
            assert len(chunk) == stored_len, "truncated"
            original_len = min(self.chunk_size, size - index * self.chunk_size)
            last = index == len(chunks) - 1
            if aead is not None:
                nonce = bytes([kind]) + bytes(7) + struct.pack(">I", index)
                aad = (b"krabka-chunk-v1" + self.segment.bytes + bytes([kind]) + struct.pack(">I", index)
                       + bytes([1 if last else 0]) + struct.pack(">I", original_len)
                       + bytes([1 if compressed else 0]))
                chunk = aead.decrypt(nonce, chunk, aad)
            if compressed:
                chunk = zstandard.ZstdDecompressor().decompress(chunk, max_output_size=original_len)
            assert len(chunk) == original_len, "chunk length"
            out += chunk
        assert at == len(stored), "stored object longer than its chunks"
        return bytes(out)


def check_batches(log, base_offset):
    """The log is v2 record batches with right CRCs and contiguous offsets; returns the batch count."""
    at, batches, next_offset = 0, 0, base_offset
    while at < len(log):
        offset, length = struct.unpack(">qi", log[at:at + 12])
        magic = log[at + 16]
        crc, = struct.unpack(">I", log[at + 17:at + 21])
        assert magic == 2, f"batch magic {magic} at {at}"
        assert crc32c_fast(log[at + 21:at + 12 + length]) == crc, f"batch CRC at {at}"
        last_delta, = struct.unpack(">i", log[at + 23:at + 27])
        assert offset >= next_offset, f"offset {offset} after {next_offset}"
        next_offset = offset + last_delta + 1
        at += 12 + length
        batches += 1
    return batches


def check_vectors(doc):
    rows = dict(re.findall(r"^\| (.+?) \| `([^`]*)` \|$", open(doc).read(), re.M))
    get = lambda prefix: bytes.fromhex(next(v for k, v in rows.items() if k.startswith(prefix)))
    key, original = get("data key"), get("original chunk")
    nonce, aad = get("nonce"), get("associated data")
    assert AESGCM(key).decrypt(nonce, get("sealed chunk, AES"), aad) == original
    assert ChaCha20Poly1305(key).decrypt(nonce, get("sealed chunk, ChaCha"), aad) == original
    segment = uuid.UUID(next(v for k, v in rows.items() if k == "segment id"))
    envelope = Envelope(get("envelope"), segment)
    assert envelope.key_id == "k1" and envelope.wrapped == b"\xaa" * 8
    assert envelope.decode(0, get("stored log object"), envelope.aead(key)) == original
    print("chunked-format vectors: AES-256-GCM, ChaCha20-Poly1305, envelope and stored object check")


class LocalTier:
    """A filesystem tier: keys are paths relative to its root."""

    def __init__(self, root):
        self.root = root

    def keys(self):
        for directory, _, files in os.walk(self.root):
            for name in files:
                yield os.path.relpath(os.path.join(directory, name), self.root)

    def read(self, key):
        with open(os.path.join(self.root, key), "rb") as f:
            return f.read()


class S3Tier:
    """A bucket (and prefix) of an S3 server, read with boto3."""

    def __init__(self, url):
        import boto3
        bucket, _, prefix = url[len("s3://"):].partition("/")
        self.bucket, self.prefix = bucket, prefix.rstrip("/") + "/" if prefix else ""
        self.client = boto3.client("s3", endpoint_url=os.environ["S3_ENDPOINT"], region_name="us-east-1")

    def keys(self):
        for page in self.client.get_paginator("list_objects_v2").paginate(Bucket=self.bucket, Prefix=self.prefix):
            for item in page.get("Contents", []):
                yield item["Key"][len(self.prefix):]

    def read(self, key):
        return self.client.get_object(Bucket=self.bucket, Key=self.prefix + key)["Body"].read()


def check_tier(tier_location, key_dir):
    tier = S3Tier(tier_location) if tier_location.startswith("s3://") else LocalTier(tier_location)
    keys = {}
    for name in os.listdir(key_dir):
        if name.endswith("-private.pem"):
            with open(os.path.join(key_dir, name), "rb") as f:
                keys[name[:-len("-private.pem")]] = serialization.load_pem_private_key(f.read(), None)
    oaep = padding.OAEP(mgf=padding.MGF1(hashes.SHA256()), algorithm=hashes.SHA256(), label=None)
    per_topic = {}
    all_keys = sorted(tier.keys())
    envelopes = {key for key in all_keys if key.endswith(".envelope")}
    for key in all_keys:
        if not key.endswith(".log") or "/" not in key:
            continue
        directory, name = key.rsplit("/", 1)
        partition_dir = re.fullmatch(r"(.+)-(\d+)-([A-Za-z0-9_-]{22})", os.path.basename(directory))
        if partition_dir is None:
            continue
        topic = partition_dir.group(1)
        stem = key[:-len(".log")]
        if not re.fullmatch(r"\d{20}-[A-Za-z0-9_-]{22}", os.path.basename(stem)):
            continue
        assert stem + ".envelope" in envelopes, f"{key} has no envelope"
        stored_log = tier.read(key)
        assert (topic + "/").encode() not in stored_log, f"{key} holds a record key in the clear"
        envelope = Envelope(tier.read(stem + ".envelope"))
        data_key = keys[envelope.key_id].decrypt(envelope.wrapped, oaep) if envelope.cipher else None
        aead = envelope.aead(data_key) if data_key else None
        for kind, suffix in KINDS.items():
            if kind not in envelope.objects:
                continue
            stored = stored_log if kind == 0 else tier.read(stem + suffix)
            plain = envelope.decode(kind, stored, aead)
            if kind == 0:
                batches = check_batches(plain, int(os.path.basename(stem).split("-", 1)[0]))
                seen = per_topic.setdefault(topic, [0, 0, set()])
                seen[0] += 1
                seen[1] += batches
                seen[2].add(envelope.key_id)
    assert per_topic, f"no chunked segment under {tier_location}"
    for topic, (segments, batches, key_ids) in sorted(per_topic.items()):
        print(f"independent decoder: {topic}: {segments} segments, {batches} record batches, "
              f"keys {','.join(sorted(key_ids))}: every chunk opens, every batch CRC holds, no key in the clear")


if __name__ == "__main__":
    if sys.argv[1:2] == ["vectors"]:
        check_vectors(sys.argv[2])
    elif sys.argv[1:2] == ["tier"]:
        check_tier(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
