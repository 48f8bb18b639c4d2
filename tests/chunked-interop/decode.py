#!/usr/bin/env python3
"""An independent reader of the chunked segment format (docs/chunked-format.md).

Written from the specification with Python's `cryptography` (RSA-OAEP, AES-256-GCM,
ChaCha20-Poly1305) and `zstandard`, sharing no code with the Rust implementation.

  decode.py vectors DOC            checks the test vectors of docs/chunked-format.md
  decode.py tier TIER_DIR KEY_DIR  decodes every chunked segment of a filesystem tier with the
                                   private keys KEY_DIR/<id>-private.pem, checks every object
                                   decodes and that each log is Kafka record batches (v2, CRC-32C
                                   right, offsets contiguous from the segment's base offset), and
                                   prints one line per topic
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


def check_tier(tier, key_dir):
    keys = {}
    for name in os.listdir(key_dir):
        if name.endswith("-private.pem"):
            with open(os.path.join(key_dir, name), "rb") as f:
                keys[name[:-len("-private.pem")]] = serialization.load_pem_private_key(f.read(), None)
    oaep = padding.OAEP(mgf=padding.MGF1(hashes.SHA256()), algorithm=hashes.SHA256(), label=None)
    per_topic = {}
    for root, _, files in os.walk(tier):
        for name in sorted(files):
            if not name.endswith(".envelope"):
                continue
            stem = name[:-len(".envelope")]
            base_offset = int(stem.split("-", 1)[0])
            raw = open(os.path.join(root, name), "rb").read()
            envelope = Envelope(raw)
            data_key = keys[envelope.key_id].decrypt(envelope.wrapped, oaep) if envelope.cipher else None
            aead = envelope.aead(data_key) if data_key else None
            for kind, suffix in KINDS.items():
                if kind not in envelope.objects:
                    continue
                stored = open(os.path.join(root, stem + suffix), "rb").read()
                plain = envelope.decode(kind, stored, aead)
                if kind == 0:
                    batches = check_batches(plain, base_offset)
                    topic = os.path.basename(root).rsplit("-", 2)[0]
                    seen = per_topic.setdefault(topic, [0, 0, set()])
                    seen[0] += 1
                    seen[1] += batches
                    seen[2].add(envelope.key_id)
    assert per_topic, f"no chunked segment under {tier}"
    for topic, (segments, batches, key_ids) in sorted(per_topic.items()):
        print(f"independent decoder: {topic}: {segments} segments, {batches} record batches, "
              f"keys {','.join(sorted(key_ids))}: every chunk opens, every batch CRC holds")


if __name__ == "__main__":
    if sys.argv[1:2] == ["vectors"]:
        check_vectors(sys.argv[2])
    elif sys.argv[1:2] == ["tier"]:
        check_tier(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
