#!/usr/bin/env python3
"""A small Google Cloud Storage protocol server for tests (standard library only).

It implements exactly the subset that `object_store` 0.14 speaks to GCS (the XML
API) plus the JSON bucket endpoints a write-once archive needs, because no
public emulator serves both (see docs/object-store.md):

XML API
  PUT    /{bucket}/{object}                    upload; x-goog-if-generation-match; x-goog-copy-source (copy)
  GET    /{bucket}/{object}                    Range, If-None-Match, If-Match, ?generation=
  HEAD   /{bucket}/{object}
  DELETE /{bucket}/{object}
  GET    /{bucket}?list-type=2                 prefix, delimiter, start-after, continuation-token, max-keys
  POST   /{bucket}/{object}?uploads            start a multipart upload
  PUT    /{bucket}/{object}?partNumber&uploadId
  POST   /{bucket}/{object}?uploadId           complete
  DELETE /{bucket}/{object}?uploadId           abort
JSON API
  POST   /storage/v1/b?project=[&enableObjectRetention=true]   create a bucket (versioning, retentionPolicy)
  GET    /storage/v1/b/{bucket}                bucket resource
  PATCH  /storage/v1/b/{bucket}                versioning, retentionPolicy (refused once locked)
  POST   /storage/v1/b/{bucket}/lockRetentionPolicy?ifMetagenerationMatch=
  POST   /upload/storage/v1/b/{bucket}/o?uploadType=media&name=   (ifGenerationMatch)
  GET    /storage/v1/b/{bucket}/o/{object}     object resource (retentionExpirationTime, holds, retention), ?generation=
  PATCH  /storage/v1/b/{bucket}/o/{object}     temporaryHold, eventBasedHold, retention (?overrideUnlockedRetention=true)
  DELETE /storage/v1/b/{bucket}/o/{object}     ?generation=
The rules Google documents and this server enforces:
- Bucket Lock (https://cloud.google.com/storage/docs/bucket-lock): a retention
  policy applies to every object by its creation time, retroactively; an
  object younger than the period cannot be deleted or replaced (403
  retentionPolicyNotMet) — by a PUT, a copy onto its key, a JSON upload or an
  XML multipart completion; a locked policy cannot be removed or shortened
  (403); locking needs ifMetagenerationMatch.
- A retention policy and Object Versioning are mutually exclusive: creating a
  bucket with both, adding a policy to a versioned bucket or enabling
  versioning beside a policy is refused (400 invalid).
- Object Retention Lock (https://cloud.google.com/storage/docs/object-lock):
  only on a bucket created with enableObjectRetention=true; an object's
  retention {mode Unlocked|Locked, retainUntilTime}; a Locked retention cannot
  be removed, shortened or unlocked (403), an Unlocked one only with
  overrideUnlockedRetention=true; a retained or held object cannot be deleted
  or replaced, but on a versioned bucket it can be made noncurrent (a
  replacing write or a delete without generation keeps it as a noncurrent
  generation, and deleting that generation is refused while it is retained).
- Preconditions (https://cloud.google.com/storage/docs/request-preconditions):
  x-goog-if-generation-match / ifGenerationMatch must equal the live
  generation, 0 meaning "no live object" (412 otherwise); checked before
  retention.

Objects live in files under --data; metadata in memory. Usage:
  server.py --port 4444 --data DIR [--bucket test ...]
"""

import argparse
import base64
import hashlib
import json
import os
import re
import sys
import threading
import time
import uuid
from datetime import datetime, timezone
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, quote, unquote, urlsplit
from xml.etree import ElementTree

CHUNK = 1 << 20
MIN_PART = 5 * 1024 * 1024  # every part but the last, as GCS and S3 require
LOCK = threading.Lock()


class State:
    def __init__(self, data):
        self.data = data
        self.buckets = {}  # name -> bucket dict
        self.objects = {}  # (bucket, name) -> live object dict
        self.noncurrent = {}  # (bucket, name) -> [noncurrent object dicts], versioned buckets only
        self.uploads = {}  # upload id -> {bucket, name, parts: {n: (path, md5hex, size)}}
        self.last_generation = 0

    def next_generation(self):
        self.last_generation = max(self.last_generation + 1, time.time_ns() // 1000)
        return self.last_generation

    def new_file(self):
        return os.path.join(self.data, uuid.uuid4().hex)

    def create_bucket(self, name, versioning=False, retention_seconds=None, object_retention=False):
        bucket = {
            "name": name,
            "versioning": bool(versioning),
            "object_retention": bool(object_retention),
            "retention": retention_seconds,
            "retention_locked": False,
            "retention_effective": now_rfc3339(),
            "metageneration": 1,
            "created": now_rfc3339(),
        }
        self.buckets[name] = bucket
        return bucket


STATE = None

VERSIONING_AND_RETENTION = ("Object Versioning and a bucket retention policy cannot both be enabled on a bucket: "
                            "retention policies and Object Versioning are mutually exclusive.")


def now_rfc3339(ts=None):
    ts = time.time() if ts is None else ts
    return datetime.fromtimestamp(ts, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def xml_escape(text):
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;").replace("'", "&apos;"))


def bucket_json(bucket):
    out = {
        "kind": "storage#bucket",
        "id": bucket["name"],
        "name": bucket["name"],
        "versioning": {"enabled": bucket["versioning"]},
        "metageneration": str(bucket["metageneration"]),
        "timeCreated": bucket["created"],
    }
    if bucket["object_retention"]:
        out["objectRetention"] = {"mode": "Enabled"}
    if bucket["retention"] is not None:
        out["retentionPolicy"] = {
            "retentionPeriod": str(bucket["retention"]),
            "effectiveTime": bucket["retention_effective"],
            "isLocked": bucket["retention_locked"],
        }
    return out


def object_json(obj):
    out = {
        "kind": "storage#object",
        "name": obj["name"],
        "bucket": obj["bucket"],
        "size": str(obj["size"]),
        "md5Hash": base64.b64encode(bytes.fromhex(obj["md5"])).decode(),
        "generation": str(obj["generation"]),
        "metageneration": str(obj["metageneration"]),
        "timeCreated": now_rfc3339(obj["created"]),
        "updated": now_rfc3339(obj["created"]),
        "temporaryHold": obj["temporary_hold"],
        "eventBasedHold": obj["event_based_hold"],
    }
    policy_until = policy_retain_until(obj)
    if policy_until is not None:
        out["retentionExpirationTime"] = now_rfc3339(policy_until)
    if obj["retention"] is not None:
        out["retention"] = {"mode": obj["retention"]["mode"],
                            "retainUntilTime": now_rfc3339(obj["retention"]["until"])}
    if obj.get("noncurrent") is not None:
        out["timeDeleted"] = now_rfc3339(obj["noncurrent"])
    return out


def policy_retain_until(obj):
    """The end of the bucket retention policy's hold on `obj` (by its creation
    time, whatever the policy was when it was written), or None."""
    bucket = STATE.buckets[obj["bucket"]]
    if bucket["retention"] is None:
        return None
    return obj["created"] + bucket["retention"]


def protection(obj):
    """Why `obj` may not be deleted or replaced, as (JSON reason, message), or None."""
    if obj["temporary_hold"]:
        return "forbidden", "Object '%s' is under active Temporary hold and cannot be deleted, overwritten or archived until hold is removed." % obj["name"]
    if obj["event_based_hold"]:
        return "forbidden", "Object '%s' is under active Event-Based hold and cannot be deleted, overwritten or archived until hold is removed." % obj["name"]
    until = policy_retain_until(obj)
    if until is not None and time.time() < until:
        return "retentionPolicyNotMet", "Object '%s/%s' is subject to bucket's retention policy and cannot be deleted, overwritten or archived until %s" % (
            obj["bucket"], obj["name"], now_rfc3339(until))
    if obj["retention"] is not None and time.time() < obj["retention"]["until"]:
        return "forbidden", "Object '%s/%s' is subject to object retention (%s) and cannot be deleted or overwritten until %s" % (
            obj["bucket"], obj["name"], obj["retention"]["mode"], now_rfc3339(obj["retention"]["until"]))
    return None


def make_noncurrent(obj):
    """Keeps the live `obj` as a noncurrent generation (versioned buckets)."""
    obj["noncurrent"] = time.time()
    STATE.noncurrent.setdefault((obj["bucket"], obj["name"]), []).append(obj)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "krabka-gcs-test-server"

    def log_message(self, fmt, *args):  # quiet unless asked
        if os.environ.get("KRABKA_GCS_SERVER_LOG"):
            sys.stderr.write("%s - %s\n" % (self.address_string(), fmt % args))

    # ---- plumbing -------------------------------------------------------

    def parse(self):
        split = urlsplit(self.path)
        self.query = {k: v[-1] for k, v in parse_qs(split.query, keep_blank_values=True).items()}
        self.raw_path = split.path
        return split.path

    def read_body_to_file(self):
        """Streams the request body into a new file; returns (path, md5hex, size)."""
        length = int(self.headers.get("Content-Length", "0") or "0")
        path = STATE.new_file()
        digest = hashlib.md5()
        remaining = length
        with open(path, "wb") as out:
            while remaining > 0:
                chunk = self.rfile.read(min(CHUNK, remaining))
                if not chunk:
                    break
                digest.update(chunk)
                out.write(chunk)
                remaining -= len(chunk)
        if remaining:
            os.unlink(path)
            raise ConnectionError("request body ended early")
        return path, digest.hexdigest(), length

    def read_body(self):
        length = int(self.headers.get("Content-Length", "0") or "0")
        return self.rfile.read(length) if length else b""

    def send(self, status, body=b"", headers=None, content_type=None):
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        if content_type:
            self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if body and self.command != "HEAD":
            self.wfile.write(body)

    def xml_error(self, status, code, message, extra=None):
        body = "<?xml version='1.0' encoding='UTF-8'?><Error><Code>%s</Code><Message>%s</Message>%s</Error>" % (
            code, xml_escape(message), extra or "")
        self.send(status, body.encode(), content_type="application/xml; charset=UTF-8")

    def json_send(self, status, value):
        self.send(status, json.dumps(value).encode(), content_type="application/json; charset=UTF-8")

    def json_error(self, status, message, reason="invalid"):
        self.json_send(status, {"error": {"code": status, "message": message,
                                          "errors": [{"message": message, "reason": reason}]}})

    def object_headers(self, obj):
        return {
            "ETag": '"%s"' % obj["md5"],
            "Last-Modified": formatdate(obj["created"], usegmt=True),
            "x-goog-generation": str(obj["generation"]),
            "x-goog-metageneration": str(obj["metageneration"]),
            "x-goog-stored-content-length": str(obj["size"]),
            "x-goog-hash": "md5=" + base64.b64encode(bytes.fromhex(obj["md5"])).decode(),
            "Accept-Ranges": "bytes",
        }

    # ---- dispatch -------------------------------------------------------

    def do_GET(self):
        self.dispatch()

    def do_HEAD(self):
        self.dispatch()

    def do_PUT(self):
        self.dispatch()

    def do_POST(self):
        self.dispatch()

    def do_DELETE(self):
        self.dispatch()

    def do_PATCH(self):
        self.dispatch()

    def dispatch(self):
        path = self.parse()
        try:
            if path in ("/healthz", "/_internal/healthcheck"):
                return self.send(200, b"ok")
            if path.startswith("/upload/storage/v1/b/"):
                return self.json_upload(path)
            if path.startswith("/storage/v1/b"):
                return self.json_api(path)
            parts = path.lstrip("/").split("/", 1)
            bucket = unquote(parts[0])
            if not bucket:
                return self.xml_error(400, "InvalidURI", "missing bucket")
            if len(parts) == 1 or parts[1] == "":
                if self.command == "GET":
                    return self.list_objects(bucket)
                return self.xml_error(405, "MethodNotAllowed", "bucket-level %s is not implemented" % self.command)
            return self.xml_object(bucket, unquote(parts[1]))
        except ConnectionError:
            self.close_connection = True

    # ---- XML object API -------------------------------------------------

    def xml_object(self, bucket, name):
        if bucket not in STATE.buckets:
            # Drain an upload body so the connection stays usable.
            if self.command in ("PUT", "POST"):
                self.read_body()
            return self.xml_error(404, "NoSuchBucket", "The specified bucket does not exist.")
        if self.command == "POST" and "uploads" in self.query:
            return self.multipart_start(bucket, name)
        if self.command == "POST" and "uploadId" in self.query:
            return self.multipart_complete(bucket, name)
        if self.command == "PUT" and "uploadId" in self.query:
            return self.multipart_part()
        if self.command == "DELETE" and "uploadId" in self.query:
            return self.multipart_abort()
        if self.command in ("GET", "HEAD"):
            return self.get_object(bucket, name)
        if self.command == "PUT":
            source = self.headers.get("x-goog-copy-source")
            if source is not None:
                self.read_body()
                return self.copy_object(bucket, name, unquote(source))
            staged = self.read_body_to_file()
            return self.store(bucket, name, staged, self.headers.get("x-goog-if-generation-match"))
        if self.command == "DELETE":
            return self.delete_object(bucket, name)
        return self.xml_error(405, "MethodNotAllowed", "%s is not implemented" % self.command)

    def publish(self, bucket, name, staged, if_generation):
        """Makes a staged file the live object. Returns (object, None) or
        (None, (status, xml code, json reason, message)) and then removes the file."""
        path, md5hex, size = staged
        with LOCK:
            current = STATE.objects.get((bucket, name))
            refusal = None
            if if_generation is not None:
                have = current["generation"] if current else 0
                if str(have) != str(if_generation).strip():
                    refusal = (412, "PreconditionFailed", "conditionNotMet",
                               "At least one of the pre-conditions you specified did not hold.")
            info = STATE.buckets[bucket]
            # On a versioned bucket the live object becomes noncurrent and
            # keeps its bytes: a retained object may be made noncurrent.
            if refusal is None and current is not None and not info["versioning"] and protection(current):
                reason, message = protection(current)
                refusal = (403, "AccessDenied", reason, message)
            if refusal is not None:
                os.unlink(path)
                return None, refusal
            obj = {
                "bucket": bucket, "name": name, "file": path, "md5": md5hex, "size": size,
                "generation": STATE.next_generation(), "metageneration": 1, "created": time.time(),
                "temporary_hold": False, "event_based_hold": False, "retention": None,
            }
            STATE.objects[(bucket, name)] = obj
            if current is not None:
                if info["versioning"]:
                    make_noncurrent(current)
                else:
                    os.unlink(current["file"])
        return obj, None

    def store(self, bucket, name, staged, if_generation, xml=True):
        obj, refusal = self.publish(bucket, name, staged, if_generation)
        if refusal is not None:
            status, code, reason, message = refusal
            if xml:
                return self.xml_error(status, code, message)
            return self.json_error(status, message, reason)
        if xml:
            return self.send(200, headers=self.object_headers(obj))
        return self.json_send(200, object_json(obj))

    def copy_object(self, bucket, name, source):
        source = source.lstrip("/")
        src_bucket, _, src_name = source.partition("/")
        with LOCK:
            src = STATE.objects.get((src_bucket, src_name))
            if src is None:
                return self.xml_error(404, "NoSuchKey", "The specified key does not exist.")
            path = STATE.new_file()
            with open(src["file"], "rb") as inp, open(path, "wb") as out:
                while True:
                    chunk = inp.read(CHUNK)
                    if not chunk:
                        break
                    out.write(chunk)
        return self.store(bucket, name, (path, src["md5"], src["size"]),
                          self.headers.get("x-goog-if-generation-match"))

    def lookup(self, bucket, name):
        """The live object, or with ?generation= that generation, live or noncurrent."""
        obj = STATE.objects.get((bucket, name))
        generation = self.query.get("generation")
        if generation is None:
            return obj
        for candidate in [obj] + STATE.noncurrent.get((bucket, name), []):
            if candidate is not None and str(candidate["generation"]) == generation:
                return candidate
        return None

    def get_object(self, bucket, name):
        obj = self.lookup(bucket, name)
        if obj is None:
            return self.xml_error(404, "NoSuchKey", "The specified key does not exist.")
        etag = '"%s"' % obj["md5"]
        if_match = self.headers.get("If-Match")
        if if_match is not None and if_match not in (etag, obj["md5"], "*"):
            return self.xml_error(412, "PreconditionFailed", "At least one of the pre-conditions you specified did not hold.")
        if_none_match = self.headers.get("If-None-Match")
        if if_none_match is not None and if_none_match in (etag, obj["md5"], "*"):
            return self.send(304, headers=self.object_headers(obj))
        size = obj["size"]
        start, end, status = 0, size, 200
        header = self.headers.get("Range")
        if header:
            match = re.fullmatch(r"bytes=(\d*)-(\d*)", header.strip())
            if not match or (match.group(1) == "" and match.group(2) == ""):
                return self.xml_error(400, "InvalidArgument", "malformed Range header")
            first, last = match.group(1), match.group(2)
            if first == "":
                start, end = max(0, size - int(last)), size
            else:
                start = int(first)
                end = size if last == "" else min(size, int(last) + 1)
            if start >= size or start >= end:
                return self.xml_error(416, "InvalidRange", "The requested range cannot be satisfied.")
            status = 206
        headers = self.object_headers(obj)
        if status == 206:
            headers["Content-Range"] = "bytes %d-%d/%d" % (start, end - 1, size)
        self.send_response(status)
        for key, value in headers.items():
            self.send_header(key, value)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(end - start))
        self.end_headers()
        if self.command == "HEAD":
            return
        with open(obj["file"], "rb") as inp:
            inp.seek(start)
            remaining = end - start
            while remaining > 0:
                chunk = inp.read(min(CHUNK, remaining))
                if not chunk:
                    break
                self.wfile.write(chunk)
                remaining -= len(chunk)

    def delete_object(self, bucket, name, xml=True):
        with LOCK:
            obj = self.lookup(bucket, name)
            if obj is None:
                if xml:
                    return self.xml_error(404, "NoSuchKey", "The specified key does not exist.")
                return self.json_error(404, "No such object: %s/%s" % (bucket, name), "notFound")
            live = STATE.objects.get((bucket, name)) is obj
            if live and self.query.get("generation") is None and STATE.buckets[bucket]["versioning"]:
                # A delete without generation on a versioned bucket only makes
                # the live object noncurrent, retained or not.
                del STATE.objects[(bucket, name)]
                make_noncurrent(obj)
                return self.send(204)
            refused = protection(obj)
            if refused:
                reason, message = refused
                if xml:
                    return self.xml_error(403, "AccessDenied", message)
                return self.json_error(403, message, reason)
            if live:
                del STATE.objects[(bucket, name)]
            else:
                STATE.noncurrent[(bucket, name)].remove(obj)
            os.unlink(obj["file"])
        return self.send(204)

    def list_objects(self, bucket):
        if bucket not in STATE.buckets:
            return self.xml_error(404, "NoSuchBucket", "The specified bucket does not exist.")
        if self.query.get("list-type") != "2":
            return self.xml_error(400, "InvalidArgument", "only list-type=2 is implemented")
        prefix = self.query.get("prefix", "")
        delimiter = self.query.get("delimiter", "")
        after = self.query.get("continuation-token") or self.query.get("start-after") or ""
        max_keys = int(self.query.get("max-keys", "1000") or "1000")
        with LOCK:
            names = sorted(n for (b, n) in STATE.objects if b == bucket and n.startswith(prefix) and n > after)
            entries, prefixes, seen, last, truncated = [], [], set(), None, False
            for name in names:
                if len(entries) + len(prefixes) >= max_keys:
                    truncated = True
                    break
                rest = name[len(prefix):]
                if delimiter and delimiter in rest:
                    common = prefix + rest.split(delimiter, 1)[0] + delimiter
                    if common not in seen:
                        seen.add(common)
                        prefixes.append(common)
                    last = name
                    continue
                entries.append(STATE.objects[(bucket, name)])
                last = name
        body = ["<?xml version='1.0' encoding='UTF-8'?><ListBucketResult xmlns='http://doc.s3.amazonaws.com/2006-03-01'>"]
        body.append("<Name>%s</Name><Prefix>%s</Prefix><KeyCount>%d</KeyCount><MaxKeys>%d</MaxKeys><IsTruncated>%s</IsTruncated>" % (
            xml_escape(bucket), xml_escape(prefix), len(entries) + len(prefixes), max_keys, "true" if truncated else "false"))
        if delimiter:
            body.append("<Delimiter>%s</Delimiter>" % xml_escape(delimiter))
        for obj in entries:
            body.append("<Contents><Key>%s</Key><Generation>%d</Generation><LastModified>%s</LastModified><ETag>\"%s\"</ETag><Size>%d</Size></Contents>" % (
                xml_escape(obj["name"]), obj["generation"], now_rfc3339(obj["created"]), obj["md5"], obj["size"]))
        for common in prefixes:
            body.append("<CommonPrefixes><Prefix>%s</Prefix></CommonPrefixes>" % xml_escape(common))
        if truncated and last is not None:
            body.append("<NextContinuationToken>%s</NextContinuationToken>" % xml_escape(last))
        body.append("</ListBucketResult>")
        self.send(200, "".join(body).encode(), content_type="application/xml; charset=UTF-8")

    # ---- XML multipart --------------------------------------------------

    def multipart_start(self, bucket, name):
        self.read_body()
        upload = uuid.uuid4().hex
        with LOCK:
            STATE.uploads[upload] = {"bucket": bucket, "name": name, "parts": {}}
        body = "<?xml version='1.0' encoding='UTF-8'?><InitiateMultipartUploadResult xmlns='http://s3.amazonaws.com/doc/2006-03-01/'><Bucket>%s</Bucket><Key>%s</Key><UploadId>%s</UploadId></InitiateMultipartUploadResult>" % (
            xml_escape(bucket), xml_escape(name), upload)
        self.send(200, body.encode(), content_type="application/xml; charset=UTF-8")

    def multipart_part(self):
        upload_id = self.query.get("uploadId", "")
        try:
            number = int(self.query.get("partNumber", ""))
        except ValueError:
            self.read_body()
            return self.xml_error(400, "InvalidArgument", "partNumber must be an integer")
        staged = self.read_body_to_file()
        with LOCK:
            upload = STATE.uploads.get(upload_id)
            if upload is None or not 1 <= number <= 10000:
                os.unlink(staged[0])
                return self.xml_error(404, "NoSuchUpload", "The specified multipart upload does not exist.")
            old = upload["parts"].get(number)
            upload["parts"][number] = staged
            if old:
                os.unlink(old[0])
        self.send(200, headers={"ETag": '"%s"' % staged[1]})

    def multipart_complete(self, bucket, name):
        upload_id = self.query.get("uploadId", "")
        try:
            root = ElementTree.fromstring(self.read_body() or b"<x/>")
        except ElementTree.ParseError:
            return self.xml_error(400, "MalformedXML", "The XML you provided was not well-formed.")
        listed = []
        for part in root.iter():
            if part.tag.split("}")[-1] != "Part":
                continue
            fields = {child.tag.split("}")[-1]: (child.text or "").strip() for child in part}
            listed.append((int(fields.get("PartNumber", "0")), fields.get("ETag", "").strip('"')))
        with LOCK:
            upload = STATE.uploads.get(upload_id)
            if upload is None or upload["bucket"] != bucket or upload["name"] != name:
                return self.xml_error(404, "NoSuchUpload", "The specified multipart upload does not exist.")
            if not listed or [n for n, _ in listed] != sorted(n for n, _ in listed):
                return self.xml_error(400, "InvalidPartOrder", "The list of parts was not in ascending order.")
            for index, (number, etag) in enumerate(listed):
                part = upload["parts"].get(number)
                if part is None or part[1] != etag:
                    return self.xml_error(400, "InvalidPart", "One or more of the specified parts could not be found.")
                if index + 1 < len(listed) and part[2] < MIN_PART:
                    return self.xml_error(400, "EntityTooSmall", "Your proposed upload is smaller than the minimum allowed object size.")
            del STATE.uploads[upload_id]
        path = STATE.new_file()
        digest, size, md5s = hashlib.md5(), 0, hashlib.md5()
        with open(path, "wb") as out:
            for number, _ in listed:
                part_path, part_md5, _ = upload["parts"][number]
                md5s.update(bytes.fromhex(part_md5))
                with open(part_path, "rb") as inp:
                    while True:
                        chunk = inp.read(CHUNK)
                        if not chunk:
                            break
                        digest.update(chunk)
                        out.write(chunk)
                        size += len(chunk)
        for part_path, _, _ in upload["parts"].values():
            os.unlink(part_path)
        # GET/HEAD/list report the content MD5; the completion answer carries a
        # composite ETag as GCS does, which `object_store` treats as opaque.
        response_etag = '"%s-%d"' % (md5s.hexdigest(), len(listed))
        obj, refusal = self.publish(bucket, name, (path, digest.hexdigest(), size), None)
        if refusal is not None:
            status, code, _, message = refusal
            return self.xml_error(status, code, message)
        body = "<?xml version='1.0' encoding='UTF-8'?><CompleteMultipartUploadResult xmlns='http://s3.amazonaws.com/doc/2006-03-01/'><Location>/%s/%s</Location><Bucket>%s</Bucket><Key>%s</Key><ETag>%s</ETag></CompleteMultipartUploadResult>" % (
            quote(bucket), quote(name), xml_escape(bucket), xml_escape(name), xml_escape(response_etag))
        self.send(200, body.encode(), headers={"x-goog-generation": str(obj["generation"])},
                  content_type="application/xml; charset=UTF-8")

    def multipart_abort(self):
        self.read_body()
        with LOCK:
            upload = STATE.uploads.pop(self.query.get("uploadId", ""), None)
        if upload is None:
            return self.xml_error(404, "NoSuchUpload", "The specified multipart upload does not exist.")
        for part_path, _, _ in upload["parts"].values():
            os.unlink(part_path)
        self.send(204)

    # ---- JSON API -------------------------------------------------------

    def json_api(self, path):
        rest = path[len("/storage/v1/b"):]
        if rest in ("", "/"):
            if self.command == "POST":
                return self.json_create_bucket()
            if self.command == "GET":
                with LOCK:
                    items = [bucket_json(b) for b in STATE.buckets.values()]
                return self.json_send(200, {"kind": "storage#buckets", "items": items})
            return self.json_error(405, "method not allowed")
        segments = rest.lstrip("/").split("/")
        bucket = unquote(segments[0])
        with LOCK:
            info = STATE.buckets.get(bucket)
        if info is None:
            self.read_body()
            return self.json_error(404, "The specified bucket does not exist.", "notFound")
        if len(segments) == 1:
            if self.command == "GET":
                return self.json_send(200, bucket_json(info))
            if self.command == "PATCH":
                return self.json_patch_bucket(info)
        if len(segments) == 2 and segments[1] == "lockRetentionPolicy" and self.command == "POST":
            return self.json_lock(info)
        if len(segments) >= 3 and segments[1] == "o":
            name = unquote("/".join(segments[2:]))
            if self.command == "GET":
                obj = self.lookup(bucket, name)
                if obj is None:
                    return self.json_error(404, "No such object: %s/%s" % (bucket, name), "notFound")
                return self.json_send(200, object_json(obj))
            if self.command == "PATCH":
                return self.json_patch_object(bucket, name)
            if self.command == "DELETE":
                return self.delete_object(bucket, name, xml=False)
        self.read_body()
        return self.json_error(405, "not implemented by the test server")

    def json_body(self):
        raw = self.read_body()
        try:
            value = json.loads(raw or b"{}")
        except ValueError:
            return None
        return value if isinstance(value, dict) else None

    def json_create_bucket(self):
        body = self.json_body()
        if body is None or not body.get("name"):
            return self.json_error(400, "a bucket needs a name")
        retention = (body.get("retentionPolicy") or {}).get("retentionPeriod")
        versioning = bool((body.get("versioning") or {}).get("enabled", False))
        if retention is not None and versioning:
            return self.json_error(400, VERSIONING_AND_RETENTION, "invalid")
        with LOCK:
            if body["name"] in STATE.buckets:
                return self.json_error(409, "The bucket already exists.", "conflict")
            bucket = STATE.create_bucket(body["name"], versioning,
                                         int(retention) if retention is not None else None,
                                         self.query.get("enableObjectRetention") == "true")
        return self.json_send(200, bucket_json(bucket))

    def json_patch_bucket(self, info):
        body = self.json_body()
        if body is None:
            return self.json_error(400, "malformed JSON body")
        with LOCK:
            retention = info["retention"]
            if "retentionPolicy" in body:
                policy = body["retentionPolicy"]
                retention = None if policy is None else int(policy.get("retentionPeriod", 0))
                if info["retention_locked"] and (retention is None or retention < info["retention"]):
                    return self.json_error(403, "Cannot reduce retention period of a locked retention policy.", "forbidden")
            versioning = info["versioning"]
            if "versioning" in body:
                versioning = bool((body["versioning"] or {}).get("enabled", False))
            if retention is not None and versioning:
                return self.json_error(400, VERSIONING_AND_RETENTION, "invalid")
            if "retentionPolicy" in body:
                info["retention"] = retention
                info["retention_effective"] = now_rfc3339()
            info["versioning"] = versioning
            info["metageneration"] += 1
        return self.json_send(200, bucket_json(info))

    def json_lock(self, info):
        self.read_body()
        wanted = self.query.get("ifMetagenerationMatch")
        with LOCK:
            if wanted is None:
                return self.json_error(400, "Required parameter: ifMetagenerationMatch", "required")
            if str(info["metageneration"]) != wanted:
                return self.json_error(412, "Precondition Failed", "conditionNotMet")
            if info["retention"] is None:
                return self.json_error(400, "The bucket has no retention policy to lock.")
            info["retention_locked"] = True
            info["metageneration"] += 1
        return self.json_send(200, bucket_json(info))

    def json_patch_object(self, bucket, name):
        body = self.json_body()
        if body is None:
            return self.json_error(400, "malformed JSON body")
        with LOCK:
            obj = self.lookup(bucket, name)
            if obj is None:
                return self.json_error(404, "No such object: %s/%s" % (bucket, name), "notFound")
            if "temporaryHold" in body:
                obj["temporary_hold"] = bool(body["temporaryHold"])
            if "eventBasedHold" in body:
                obj["event_based_hold"] = bool(body["eventBasedHold"])
            if "retention" in body:
                refused = self.retention_change(STATE.buckets[bucket], obj, body["retention"])
                if refused is not None:
                    status, reason, message = refused
                    return self.json_error(status, message, reason)
            obj["metageneration"] += 1
        return self.json_send(200, object_json(obj))

    def retention_change(self, bucket, obj, wanted):
        """Applies an object retention change (Object Retention Lock) or
        returns (status, reason, message) refusing it."""
        if not bucket["object_retention"]:
            return 400, "invalid", "Object Retention Lock is not enabled on bucket %s." % bucket["name"]
        new = None
        if wanted is not None:
            mode = wanted.get("mode")
            if mode not in ("Locked", "Unlocked"):
                return 400, "invalid", "retention mode must be Locked or Unlocked, not %r" % mode
            try:
                until = datetime.fromisoformat(str(wanted.get("retainUntilTime", "")).replace("Z", "+00:00")).timestamp()
            except ValueError:
                return 400, "invalid", "retainUntilTime must be an RFC 3339 time"
            new = {"mode": mode, "until": until}
        old = obj["retention"]
        if old is not None and old["mode"] == "Locked":
            if new is None or new["mode"] != "Locked" or new["until"] < old["until"]:
                return 403, "forbidden", "Object retention of %s is Locked: it can only be extended." % obj["name"]
        elif old is not None and (new is None or new["until"] < old["until"]):
            if self.query.get("overrideUnlockedRetention") != "true":
                return 403, "forbidden", "Reducing or removing an Unlocked object retention needs overrideUnlockedRetention=true."
        obj["retention"] = new
        return None

    def json_upload(self, path):
        match = re.fullmatch(r"/upload/storage/v1/b/([^/]+)/o", path)
        if self.command != "POST" or not match:
            self.read_body()
            return self.json_error(405, "not implemented by the test server")
        bucket = unquote(match.group(1))
        if self.query.get("uploadType") != "media" or not self.query.get("name"):
            self.read_body()
            return self.json_error(400, "only uploadType=media with a name is implemented")
        if bucket not in STATE.buckets:
            self.read_body()
            return self.json_error(404, "The specified bucket does not exist.", "notFound")
        staged = self.read_body_to_file()
        return self.store(bucket, self.query["name"], staged, self.query.get("ifGenerationMatch"), xml=False)


def main():
    global STATE
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=4444)
    parser.add_argument("--data", required=True, help="folder for object bytes")
    parser.add_argument("--bucket", action="append", default=[], help="bucket to create at start")
    args = parser.parse_args()
    os.makedirs(args.data, exist_ok=True)
    STATE = State(args.data)
    for name in args.bucket:
        STATE.create_bucket(name)
    server = ThreadingHTTPServer((args.host, args.port), Handler)
    server.daemon_threads = True
    print("gcs test server on http://%s:%d" % (args.host, args.port), flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
