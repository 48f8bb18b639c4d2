#!/usr/bin/env python3
"""An S3 front for tests that enforces rules Amazon S3 documents and SeaweedFS does not check
(standard library only).

SeaweedFS is the Object Lock server of our tests, but it accepts requests Amazon S3 refuses: a PUT
into an Object Lock bucket without a checksum header passed every test and failed on AWS. This
reverse proxy sits between the clients and SeaweedFS, refuses what AWS refuses with AWS's status,
code and message, and forwards everything else byte for byte (the request line, every header
including Host, the body), so SigV4 signatures made for the front's address still verify upstream.

Rules (each a documented or observed AWS behaviour; the source is named at its check below):
  Object Lock   PutObject and UploadPart into a bucket with Object Lock enabled (or carrying
                x-amz-object-lock-* headers) need Content-MD5 or an x-amz-checksum-* header
                (or an x-amz-trailer naming one): 400 InvalidRequest. The front applies it to every
                bucket whose Object Lock is Enabled; AWS documents it for uploads a retention period
                applies to (a default retention or lock headers), which every lock bucket of our
                tests has.
  checksums     an x-amz-checksum-* value must be base64 of the algorithm's length (400
                InvalidRequest) and match the payload (400 BadDigest); one such header at most;
                x-amz-sdk-checksum-algorithm must name the header that is sent. Algorithms: CRC32,
                CRC32C, CRC64NVME, SHA1, SHA256.
  Content-MD5   base64 of 16 bytes (400 InvalidDigest) matching the payload (400 BadDigest).
  payload hash  a hex x-amz-content-sha256 must match the payload (400 XAmzContentSHA256Mismatch).
  signed        every x-amz-* header but x-amz-content-sha256 must be among the signed headers of a
                SigV4 request (403 AccessDenied, HeadersNotSigned); header-signed requests need
                x-amz-content-sha256.
  required      DeleteObjects and the other operations whose model says "requestChecksumRequired"
                (PutObjectLockConfiguration, PutObjectRetention, PutObjectLegalHold, PutBucket*, ...)
                need Content-MD5 or a checksum header (400 InvalidRequest).
  multipart     an upload created with x-amz-checksum-algorithm (type COMPOSITE) needs that
                algorithm's checksum on every part, and a part of an upload created without one may
                carry none (400 InvalidRequest, "Checksum Type mismatch"); CompleteMultipartUpload
                must list every part's checksum (400 InvalidRequest) equal to the one the part was
                uploaded with (400 InvalidPart). As AWS does, an UploadPart answer carries the part's
                checksum header when the request did (added when the server behind leaves it out).

Sources (AWS documentation, and answers others captured from AWS where the documentation is silent):
  https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutObject.html (Content-MD5 under Object Lock)
  https://docs.aws.amazon.com/AmazonS3/latest/userguide/checking-object-integrity.html
  https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-header-based-auth.html
  https://docs.aws.amazon.com/AmazonS3/latest/API/API_DeleteObjects.html
  https://docs.aws.amazon.com/AmazonS3/latest/API/API_CompleteMultipartUpload.html
  botocore's S3 service-2.json ("requestChecksumRequired"), shipped with the awscli the tests install
  github.com/s3tools/s3cmd issue 1436 (the Put Part message), apache/arrow-rs-object-store issues 34
  and 190, aws/aws-sdk-php issue 2648, floci-io/floci pull request 3093 (multipart checksum answers
  captured from S3 in 2026), demarche-numerique/ds_proxy pull request 164 (HeadersNotSigned)

Only path-style requests are understood (the bucket is the first path segment). A refusal carries
the response header `x-krabka-aws-rules: refused` so a test can tell the front's answer from the
server's. Whether a bucket has Object Lock is read from the server behind (GET ?object-lock, signed
with --access-key/--secret-key); a bucket found locked stays locked (AWS cannot turn Object Lock off),
an unlocked answer is asked again after a second. A lookup that fails is an error (502), never a
silent pass.

Test faults (not an AWS rule; for crash and failure tests): the path /_krabka-faults (no bucket name
can start with "_") controls them. POST /_krabka-faults?suffix=S&count=N&mode=fail makes the next N
PUTs of a key ending in S fail with 503 SlowDown, as S3 answers when it throttles; mode=hold instead
holds each of the next N such PUTs unanswered and unforwarded until DELETE /_krabka-faults releases
them (they then fail with 503) or 600 seconds pass. GET /_krabka-faults answers JSON counters
{"failed": ..., "held": ..., "holding": ...}. DELETE also clears every pending fault and the counters.

Request counts (not an AWS rule; for benchmarks): GET /_krabka-requests answers JSON counts of the
requests the front received, by kind: "LIST" (a GET of a bucket), "GET", "HEAD", "PUT", "POST",
"DELETE" (refused ones too, the front's own lookups not); DELETE /_krabka-requests sets them to zero.

Usage:
  front.py --port 8334 --upstream http://127.0.0.1:8333 [--access-key test --secret-key testtesttest]
           [--region us-east-1]
"""

import argparse
import base64
import binascii
import hashlib
import hmac
import http.client
import json
import re
import sys
import threading
import time
import uuid
import zlib
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, quote, unquote, urlsplit
from xml.etree import ElementTree
from xml.sax.saxutils import escape

CHUNK = 1 << 16
EMPTY_SHA256 = hashlib.sha256(b"").hexdigest()
REFUSED_HEADER = "x-krabka-aws-rules"

# --- checksums -------------------------------------------------------------------------------


def _crc_table(poly, width):
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ poly if crc & 1 else crc >> 1
        table.append(crc & ((1 << width) - 1))
    return table


_CRC32C_TABLE = _crc_table(0x82F63B78, 32)
_CRC64NVME_TABLE = _crc_table(0x9A6C9329AC4BC9B5, 64)


def _reflected_crc(table, width, data):
    mask = (1 << width) - 1
    crc = mask
    for byte in data:
        crc = table[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return (crc ^ mask).to_bytes(width // 8, "big")


def crc32(data):
    return zlib.crc32(data).to_bytes(4, "big")


def crc32c(data):
    return _reflected_crc(_CRC32C_TABLE, 32, data)


def crc64nvme(data):
    return _reflected_crc(_CRC64NVME_TABLE, 64, data)


# name as in x-amz-checksum-<name> -> (digest of bytes, digest length, AWS's upper-case name)
ALGORITHMS = {
    "crc32": (crc32, 4, "CRC32"),
    "crc32c": (crc32c, 4, "CRC32C"),
    "crc64nvme": (crc64nvme, 8, "CRC64NVME"),
    "sha1": (lambda data: hashlib.sha1(data).digest(), 20, "SHA1"),
    "sha256": (lambda data: hashlib.sha256(data).digest(), 32, "SHA256"),
}

# Operations whose S3 service model says "requestChecksumRequired" (botocore's service-2.json, the
# operations our clients or test set-ups can send): (method, on an object key, sub-resource).
CHECKSUM_REQUIRED = {
    ("POST", False, "delete"),
    *(("PUT", False, sub) for sub in (
        "acl", "cors", "encryption", "lifecycle", "logging", "notification", "ownershipControls",
        "policy", "replication", "requestPayment", "tagging", "versioning", "website", "object-lock",
        "publicAccessBlock")),
    *(("PUT", True, sub) for sub in ("acl", "legal-hold", "retention", "tagging")),
}

# Sub-resources that make a PUT on a key something other than PutObject.
OBJECT_SUBRESOURCES = {"acl", "legal-hold", "retention", "tagging", "torrent", "restore", "encryption"}

# --- refusals ---------------------------------------------------------------------------------


class Refusal(Exception):
    """An answer the front gives instead of forwarding."""

    def __init__(self, status, code, message, **extra):
        super().__init__(message)
        self.status, self.code, self.message, self.extra = status, code, message, extra

    def xml(self, resource):
        extra = "".join("<%s>%s</%s>" % (k, escape(str(v)), k) for k, v in self.extra.items())
        return (
            '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>%s</Code><Message>%s</Message>%s'
            "<Resource>%s</Resource><RequestId>%s</RequestId><HostId>krabka-aws-rules-front</HostId></Error>"
            % (self.code, escape(self.message), extra, escape(resource), uuid.uuid4().hex[:16].upper())
        ).encode()


def invalid_request(message, **extra):
    return Refusal(400, "InvalidRequest", message, **extra)


# --- SigV4, for the front's own Object Lock look-ups -----------------------------------------


def sign_get(access_key, secret_key, region, host, path, query, now=None):
    """Headers of a SigV4-signed bodiless GET (`query` already canonical)."""
    now = now or datetime.now(timezone.utc)
    amz_date = now.strftime("%Y%m%dT%H%M%SZ")
    date = amz_date[:8]
    headers = [("host", host), ("x-amz-content-sha256", EMPTY_SHA256), ("x-amz-date", amz_date)]
    canonical_headers = "".join("%s:%s\n" % (k, v) for k, v in headers)
    signed = ";".join(k for k, _ in headers)
    request = "\n".join(["GET", path, query, canonical_headers, signed, EMPTY_SHA256])
    scope = "%s/%s/s3/aws4_request" % (date, region)
    to_sign = "\n".join(["AWS4-HMAC-SHA256", amz_date, scope, hashlib.sha256(request.encode()).hexdigest()])
    key = ("AWS4" + secret_key).encode()
    for part in (date, region, "s3", "aws4_request"):
        key = hmac.new(key, part.encode(), hashlib.sha256).digest()
    signature = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
    authorization = "AWS4-HMAC-SHA256 Credential=%s/%s, SignedHeaders=%s, Signature=%s" % (
        access_key, scope, signed, signature)
    return dict(headers[1:], authorization=authorization)


class LockRegistry:
    """Which buckets have Object Lock enabled, asked of the server behind and remembered."""

    RECHECK_UNLOCKED = 1.0

    def __init__(self, upstream, access_key, secret_key, region):
        self.upstream, self.access_key, self.secret_key, self.region = upstream, access_key, secret_key, region
        self.lock = threading.Lock()
        self.known = {}  # bucket -> (locked, checked at)

    def forget(self, bucket):
        with self.lock:
            self.known.pop(bucket, None)

    def locked(self, bucket):
        with self.lock:
            entry = self.known.get(bucket)
        if entry and (entry[0] or time.monotonic() - entry[1] < self.RECHECK_UNLOCKED):
            return entry[0]
        locked = self._ask(bucket)
        with self.lock:
            self.known[bucket] = (locked, time.monotonic())
        return locked

    def _ask(self, bucket):
        host = "%s:%d" % (self.upstream.hostname, self.upstream.port)
        path = "/" + quote(bucket, safe="")
        headers = sign_get(self.access_key, self.secret_key, self.region, host, path, "object-lock=")
        connection = http.client.HTTPConnection(self.upstream.hostname, self.upstream.port, timeout=30)
        try:
            connection.request("GET", path + "?object-lock=", headers=headers)
            response = connection.getresponse()
            body = response.read().decode("utf-8", "replace")
        except OSError as error:
            raise Refusal(502, "BadGateway", "the aws-rules front could not read the Object Lock "
                          "configuration of bucket %s: %s" % (bucket, error))
        finally:
            connection.close()
        if response.status == 200:
            return re.search(r"<ObjectLockEnabled>\s*Enabled\s*</ObjectLockEnabled>", body) is not None
        if response.status == 404 and re.search(
                r"<Code>(ObjectLockConfigurationNotFoundError|NoSuchBucket)</Code>", body):
            return False
        raise Refusal(502, "BadGateway", "the aws-rules front could not read the Object Lock "
                      "configuration of bucket %s: status %d, %s" % (bucket, response.status, body[:300]))


# --- the request, as the rules see it ----------------------------------------------------------


class Request:
    """One request: method, raw target, headers (in order), body; derived: bucket, key, query."""

    def __init__(self, method, target, headers, body):
        self.method, self.target, self.headers, self.body = method, target, headers, body
        parts = urlsplit(target)
        segments = parts.path.lstrip("/").split("/", 1)
        self.bucket = unquote(segments[0]) if segments[0] else None
        self.key = unquote(segments[1]) if len(segments) > 1 and segments[1] else None
        self.query = parse_qs(parts.query, keep_blank_values=True)
        self.lower = {}
        for name, value in headers:
            self.lower.setdefault(name.lower(), []).append(value)

    def header(self, name):
        values = self.lower.get(name)
        return values[0].strip() if values else None

    def subresource(self):
        keys = set(self.query) - {"x-id", "versionId"}
        return next(iter(sorted(keys)), None) if keys else None

    def operation(self):
        """The S3 operation name for the few the rules care about, else None."""
        copy = self.header("x-amz-copy-source") is not None
        if self.bucket and self.key:
            if self.method == "PUT" and not copy:
                if "partNumber" in self.query and "uploadId" in self.query:
                    return "UploadPart"
                if not set(self.query) & OBJECT_SUBRESOURCES:
                    return "PutObject"
            if self.method == "POST" and "uploads" in self.query:
                return "CreateMultipartUpload"
            if self.method == "POST" and "uploadId" in self.query:
                return "CompleteMultipartUpload"
            if self.method == "DELETE" and "uploadId" in self.query:
                return "AbortMultipartUpload"
        if self.bucket and not self.key and self.method == "PUT" and not self.query:
            return "CreateBucket"
        return None


def decode_aws_chunked(body):
    """(payload, trailers) of an aws-chunked body; the chunk signatures are not checked here."""
    payload, trailers, position = bytearray(), {}, 0
    while True:
        end = body.find(b"\r\n", position)
        if end < 0:
            raise invalid_request("the aws-chunked body is truncated")
        size_text = body[position:end].split(b";", 1)[0].strip()
        try:
            size = int(size_text, 16)
        except ValueError:
            raise invalid_request("the aws-chunked body has a bad chunk size")
        position = end + 2
        if size == 0:
            break
        payload += body[position:position + size]
        position += size + 2
    for line in body[position:].split(b"\r\n"):
        if b":" in line:
            name, value = line.split(b":", 1)
            trailers[name.decode().strip().lower()] = value.decode().strip()
    return bytes(payload), trailers


def payload_of(request):
    """The object bytes and the trailing headers of a request, aws-chunked or not."""
    encoding = (request.header("content-encoding") or "").lower()
    content_sha = request.header("x-amz-content-sha256") or ""
    if "aws-chunked" in encoding or content_sha.startswith("STREAMING-"):
        return decode_aws_chunked(request.body)
    return request.body, {}


# --- the rules ---------------------------------------------------------------------------------


def check_signed_headers(request):
    """AWS: every x-amz-* header of a SigV4 request is signed, except x-amz-content-sha256."""
    authorization = request.header("authorization") or ""
    if authorization.startswith("AWS4-HMAC-SHA256"):
        match = re.search(r"SignedHeaders=([^,\s]+)", authorization)
        signed = set(match.group(1).lower().split(";")) if match else set()
        if request.header("x-amz-content-sha256") is None:
            raise invalid_request("Missing required header for this request: x-amz-content-sha256")
    elif "X-Amz-Signature" in request.query:
        signed = set(request.query.get("X-Amz-SignedHeaders", [""])[0].lower().split(";"))
    else:
        return
    unsigned = sorted(n for n in request.lower if n.startswith("x-amz-") and n != "x-amz-content-sha256"
                      and n not in signed)
    if unsigned:
        raise Refusal(403, "AccessDenied", "There were headers present in the request which were not signed",
                      HeadersNotSigned=", ".join(unsigned))


def check_content_sha256(request):
    """AWS: a hex x-amz-content-sha256 is the SHA-256 of the body as sent."""
    claimed = request.header("x-amz-content-sha256")
    if claimed and re.fullmatch(r"[0-9a-fA-F]{64}", claimed):
        computed = hashlib.sha256(request.body).hexdigest()
        if computed != claimed.lower():
            raise Refusal(400, "XAmzContentSHA256Mismatch",
                          "The provided 'x-amz-content-sha256' header does not match what was computed.",
                          ClientComputedContentSHA256=claimed, S3ComputedContentSHA256=computed)


def checksum_claims(request, trailers):
    """{algorithm: base64 value or None (a trailer that did not come)} the request claims."""
    claims = {}
    for name in request.lower:
        if name.startswith("x-amz-checksum-") and name[len("x-amz-checksum-"):] in ALGORITHMS:
            claims[name[len("x-amz-checksum-"):]] = request.header(name)
    for name in (request.header("x-amz-trailer") or "").lower().split(","):
        name = name.strip()
        if name.startswith("x-amz-checksum-") and name[len("x-amz-checksum-"):] in ALGORITHMS:
            claims[name[len("x-amz-checksum-"):]] = trailers.get(name)
    return claims


def check_checksums(request, payload, claims):
    """AWS ("Checking object integrity"): one checksum header, well-formed, matching the payload."""
    if len(claims) > 1:
        raise invalid_request("Expecting a single x-amz-checksum- header. Multiple checksum Types are not allowed.")
    sdk = request.header("x-amz-sdk-checksum-algorithm")
    if sdk is not None:
        if sdk.lower() not in ALGORITHMS:
            raise invalid_request("Value for x-amz-sdk-checksum-algorithm header is invalid.")
        if sdk.lower() not in claims:
            raise invalid_request("x-amz-sdk-checksum-algorithm specified, but no corresponding "
                                  "x-amz-checksum-* or x-amz-trailer headers were found.")
    for algorithm, value in claims.items():
        digest, length, upper = ALGORITHMS[algorithm]
        try:
            claimed = base64.b64decode(value or "", validate=True)
        except binascii.Error:
            claimed = b""
        if len(claimed) != length:
            raise invalid_request("Value for x-amz-checksum-%s header is invalid." % algorithm)
        if digest(payload) != claimed:
            raise Refusal(400, "BadDigest", "The %s you specified did not match the calculated checksum." % upper)


def check_content_md5(request, payload):
    """AWS (PutObject, UploadPart): Content-MD5 is base64 of 16 bytes and the MD5 of the payload."""
    value = request.header("content-md5")
    if value is None:
        return
    try:
        claimed = base64.b64decode(value, validate=True)
    except binascii.Error:
        claimed = b""
    if len(claimed) != 16:
        raise Refusal(400, "InvalidDigest", "The Content-MD5 you specified was invalid.")
    if hashlib.md5(payload).digest() != claimed:
        raise Refusal(400, "BadDigest", "The Content-MD5 you specified did not match what we received.")


def has_integrity_header(request, claims):
    return request.header("content-md5") is not None or bool(claims)


def check_required_checksum(request, claims):
    """AWS (service model, requestChecksumRequired): e.g. DeleteObjects needs Content-MD5 or a checksum."""
    entry = (request.method, request.key is not None, request.subresource())
    if entry in CHECKSUM_REQUIRED and not has_integrity_header(request, claims):
        raise invalid_request("Missing required header for this request: Content-MD5")


def check_object_lock(request, claims, locks):
    """AWS (PutObject, UploadPart; s3cmd issue 1436 for parts): uploads under Object Lock need
    Content-MD5 or an x-amz-checksum-* header."""
    operation = request.operation()
    if operation not in ("PutObject", "UploadPart") or has_integrity_header(request, claims):
        return
    lock_headers = any(name.startswith("x-amz-object-lock-") for name in request.lower)
    if lock_headers or locks.locked(request.bucket):
        what = "Put Object" if operation == "PutObject" else "Put Part"
        raise invalid_request("Content-MD5 OR x-amz-checksum- HTTP header is required for %s requests "
                              "with Object Lock parameters" % what)


class Uploads:
    """Multipart uploads created through the front: their checksum algorithm and part checksums."""

    def __init__(self):
        self.lock = threading.Lock()
        self.uploads = {}  # upload id -> {"algorithm": name or None, "composite": bool, "parts": {n: b64}}

    def created(self, upload_id, algorithm, composite):
        with self.lock:
            self.uploads[upload_id] = {"algorithm": algorithm, "composite": composite, "parts": {}}

    def get(self, upload_id):
        with self.lock:
            return self.uploads.get(upload_id)

    def part(self, upload_id, number, value):
        with self.lock:
            if upload_id in self.uploads:
                self.uploads[upload_id]["parts"][number] = value

    def finished(self, upload_id):
        with self.lock:
            self.uploads.pop(upload_id, None)


def create_upload_checksum(request):
    """(algorithm, composite) a CreateMultipartUpload asks for, checking it as AWS does."""
    algorithm = request.header("x-amz-checksum-algorithm")
    kind = (request.header("x-amz-checksum-type") or "").upper()
    if algorithm is None:
        if kind:
            raise invalid_request("The x-amz-checksum-type header can only be used with the "
                                  "x-amz-checksum-algorithm header.")
        return None, False
    algorithm = algorithm.lower()
    if algorithm not in ALGORITHMS:
        raise invalid_request("Checksum algorithm provided is unsupported. Please try again with any of the "
                              "valid types: [CRC32, CRC32C, CRC64NVME, SHA1, SHA256]")
    if kind not in ("", "COMPOSITE", "FULL_OBJECT"):
        raise invalid_request("Value for x-amz-checksum-type header is invalid.")
    if kind == "FULL_OBJECT" and algorithm in ("sha1", "sha256"):
        raise invalid_request("The FULL_OBJECT checksum type cannot be used with the %s checksum algorithm."
                              % algorithm)
    composite = kind == "COMPOSITE" or (kind == "" and algorithm != "crc64nvme")
    return algorithm, composite


def check_part(request, claims, uploads):
    """AWS (floci PR 3093, captured from S3; arrow-rs issue 6793): a part's checksum type is the
    upload's."""
    upload = uploads.get(request.query["uploadId"][0])
    if upload is None:
        return
    sent = next(iter(claims), None)
    expected = upload["algorithm"]
    if (expected is None and sent is not None) or (expected is not None and upload["composite"] and sent != expected):
        raise invalid_request("Checksum Type mismatch occurred, expected checksum Type: %s, actual checksum "
                              "Type: %s" % (expected or "null", sent or "null"))


def check_complete(request, uploads):
    """AWS (CompleteMultipartUpload; floci PR 3093): every part names the checksum it was uploaded with."""
    upload = uploads.get(request.query["uploadId"][0])
    if upload is None or upload["algorithm"] is None or not upload["composite"]:
        return
    algorithm = upload["algorithm"]
    element = "Checksum" + ALGORITHMS[algorithm][2]
    try:
        root = ElementTree.fromstring(request.body)
    except ElementTree.ParseError:
        raise Refusal(400, "MalformedXML", "The XML you provided was not well-formed or did not validate "
                      "against our published schema")
    for part in (e for e in root if e.tag.split("}")[-1] == "Part"):
        fields = {child.tag.split("}")[-1]: (child.text or "").strip() for child in part}
        number = int(fields.get("PartNumber", "0") or 0)
        if element not in fields:
            raise invalid_request("The upload was created using a %s checksum. The complete request must "
                                  "include the checksum for each part. It was missing for part %d in the "
                                  "request." % (algorithm, number))
        if upload["parts"].get(number) != fields[element]:
            raise Refusal(400, "InvalidPart", "One or more of the specified parts could not be found.  The part "
                          "may not have been uploaded, or the specified entity tag may not match the part's "
                          "entity tag.", UploadId=request.query["uploadId"][0], PartNumber=number)


def check(request, locks, uploads):
    """Every rule, in the order AWS appears to apply them; raises a Refusal or returns the claims."""
    check_signed_headers(request)
    check_content_sha256(request)
    payload, trailers = payload_of(request)
    operation = request.operation()
    # A CompleteMultipartUpload's checksum headers are the whole object's, not its XML body's.
    claims = {} if operation == "CompleteMultipartUpload" else checksum_claims(request, trailers)
    check_checksums(request, payload, claims)
    check_content_md5(request, payload)
    check_required_checksum(request, claims)
    check_object_lock(request, claims, locks)
    if operation == "CreateMultipartUpload":
        create_upload_checksum(request)
    elif operation == "UploadPart":
        check_part(request, claims, uploads)
    elif operation == "CompleteMultipartUpload":
        check_complete(request, uploads)
    return claims


# --- the proxy ---------------------------------------------------------------------------------

HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "proxy-connection", "upgrade", "te", "trailer"}


FAULTS_PATH = "/_krabka-faults"


class Faults:
    """Injected failures of PUTs by key suffix (see "Test faults" above). Thread-safe."""

    HOLD_LIMIT = 600

    def __init__(self):
        self.lock = threading.Condition()
        self.suffix, self.left, self.mode = None, 0, None
        self.failed = self.held = self.holding = 0
        self.generation = 0

    def arm(self, suffix, count, mode):
        with self.lock:
            self.suffix, self.left, self.mode = suffix, count, mode

    def clear(self):
        with self.lock:
            self.suffix, self.left, self.mode = None, 0, None
            self.failed = self.held = 0
            self.generation += 1
            self.lock.notify_all()

    def counters(self):
        with self.lock:
            return {"failed": self.failed, "held": self.held, "holding": self.holding}

    def strikes(self, request):
        """Whether this request is to fail (after holding it, in mode hold)."""
        with self.lock:
            path = request.target.split("?", 1)[0]
            if request.method != "PUT" or self.left <= 0 or not path.endswith(self.suffix):
                return False
            self.left -= 1
            if self.mode == "hold":
                self.held += 1
                self.holding += 1
                generation = self.generation
                self.lock.wait_for(lambda: self.generation != generation, timeout=self.HOLD_LIMIT)
                self.holding -= 1
            self.failed += 1
            return True


def faults_control(handler, request):
    """Answers a request to FAULTS_PATH; returns the (status, body) sent."""
    faults = handler.server.state.faults
    status = 200
    if request.method == "POST":
        suffix = request.query.get("suffix", [""])[0]
        mode = request.query.get("mode", ["fail"])[0]
        try:
            count = int(request.query.get("count", ["1"])[0])
        except ValueError:
            count = -1
        if not suffix or count < 0 or mode not in ("fail", "hold"):
            status = 400
        else:
            faults.arm(suffix, count, mode)
    elif request.method == "DELETE":
        faults.clear()
    body = json.dumps(faults.counters()).encode()
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


REQUESTS_PATH = "/_krabka-requests"


class Requests:
    """Counts of the requests received, by kind (see "Request counts" above). Thread-safe."""

    def __init__(self):
        self.lock = threading.Lock()
        self.counts = {}

    @staticmethod
    def kind(request):
        if request.method == "GET" and request.bucket and not request.key:
            return "LIST"
        return request.method

    def count(self, request):
        with self.lock:
            kind = self.kind(request)
            self.counts[kind] = self.counts.get(kind, 0) + 1

    def control(self, handler, request):
        """Answers a request to REQUESTS_PATH with the counts (after clearing them, for a DELETE)."""
        with self.lock:
            if request.method == "DELETE":
                self.counts = {}
            body = json.dumps(self.counts, sort_keys=True).encode()
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)


class Front(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "krabka-aws-rules-front"

    def log_message(self, fmt, *args):  # refusals are logged by `refuse`
        pass

    def do_GET(self):
        self.handle_one()

    do_HEAD = do_PUT = do_POST = do_DELETE = do_PATCH = do_OPTIONS = do_GET

    def read_body(self):
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            body = bytearray()
            while True:
                line = self.rfile.readline()
                if not line:
                    return None
                size = int(line.split(b";", 1)[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return bytes(body)
                body += self.rfile.read(size)
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        return body if len(body) == length else None

    def handle_one(self):
        try:
            body = self.read_body()
            if body is None:  # the client hung up before sending the whole body
                self.close_connection = True
                return
            request = Request(self.command, self.path, list(self.headers.items()), body)
            if request.target.split("?", 1)[0] == FAULTS_PATH:
                return faults_control(self, request)
            if request.target.split("?", 1)[0] == REQUESTS_PATH:
                return self.server.state.requests.control(self, request)
            self.server.state.requests.count(request)
            if self.server.state.faults.strikes(request):
                return self.refuse(request, Refusal(503, "SlowDown", "Please reduce your request rate."))
            try:
                claims = check(request, self.server.state.locks, self.server.state.uploads)
            except Refusal as refusal:
                return self.refuse(request, refusal)
            self.forward(request, claims)
        except (BrokenPipeError, ConnectionResetError):
            # The client hung up mid-answer (a reader that stopped early): drop both connections.
            self.close_connection = True
            if getattr(self, "upstream", None) is not None:
                self.upstream.close()
                self.upstream = None

    def refuse(self, request, refusal):
        body = refusal.xml(request.target.split("?", 1)[0])
        log = self.server.state.log
        log.write("%s refused %s %s: %d %s %s\n" % (
            datetime.now(timezone.utc).strftime("%H:%M:%S"), request.method, request.target[:200],
            refusal.status, refusal.code, refusal.message))
        log.flush()
        self.send_response(refusal.status)
        self.send_header("Content-Type", "application/xml")
        self.send_header("Content-Length", str(len(body)))
        self.send_header(REFUSED_HEADER, "refused")
        self.end_headers()
        if request.method != "HEAD":
            self.wfile.write(body)

    def upstream_connection(self):
        upstream = self.server.state.upstream
        return http.client.HTTPConnection(upstream.hostname, upstream.port, timeout=300)

    def send_upstream(self, request):
        """Sends the request as received; retries once on a kept-alive connection the server closed."""
        for attempt in (0, 1):
            fresh = getattr(self, "upstream", None) is None
            if fresh:
                self.upstream = self.upstream_connection()
            connection = self.upstream
            # A chunked body (already read whole) goes on with a length; every other header as received.
            chunked = "chunked" in (request.header("transfer-encoding") or "").lower()
            try:
                connection.putrequest(request.method, request.target, skip_host=True, skip_accept_encoding=True)
                for name, value in request.headers:
                    if not (chunked and name.lower() in ("transfer-encoding", "content-length")):
                        connection.putheader(name, value)
                if chunked:
                    connection.putheader("Content-Length", str(len(request.body)))
                connection.endheaders(request.body or None)
                return connection.getresponse()
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
                connection.close()
                self.upstream = None
                if fresh or attempt:
                    raise

    def forward(self, request, claims):
        state = self.server.state
        try:
            response = self.send_upstream(request)
        except OSError as error:
            return self.refuse(request, Refusal(502, "BadGateway", "the server behind the aws-rules front "
                                                "did not answer: %s" % error))
        operation = request.operation()
        extra = []
        if response.status == 200 and operation == "UploadPart" and claims:
            algorithm, value = next(iter(claims.items()))
            state.uploads.part(request.query["uploadId"][0], int(request.query["partNumber"][0]), value)
            if response.getheader("x-amz-checksum-" + algorithm) is None:
                extra.append(("x-amz-checksum-" + algorithm, value))
        body = None
        if operation == "CreateMultipartUpload" and response.status == 200:
            body = response.read()
            match = re.search(rb"<UploadId>([^<]+)</UploadId>", body)
            if match:
                algorithm, composite = create_upload_checksum(request)
                state.uploads.created(match.group(1).decode(), algorithm, composite)
        if operation in ("CompleteMultipartUpload", "AbortMultipartUpload") and response.status in (200, 204):
            state.uploads.finished(request.query["uploadId"][0])
        if operation == "CreateBucket" or (request.bucket and request.subresource() == "object-lock"):
            state.locks.forget(request.bucket)
        self.relay(request, response, extra, body)

    def relay(self, request, response, extra, body):
        self.send_response_only(response.status, response.reason)
        chunked = False
        for name, value in response.getheaders():
            lower = name.lower()
            if lower == "transfer-encoding" and "chunked" in value.lower():
                chunked = body is None
            if lower in HOP_BY_HOP or (body is not None and lower == "content-length"):
                continue
            self.send_header(name, value)
        for name, value in extra:
            self.send_header(name, value)
        if body is not None:
            self.send_header("Content-Length", str(len(body)))
        elif chunked:
            self.send_header("Transfer-Encoding", "chunked")
        if response.will_close:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        if body is not None:
            self.wfile.write(body)
        elif request.method != "HEAD":
            while True:
                piece = response.read(CHUNK)
                if not piece:
                    break
                self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece) if chunked else piece)
            if chunked:
                self.wfile.write(b"0\r\n\r\n")
        else:
            response.read()
        if response.will_close:
            self.upstream.close()
            self.upstream = None

    def finish(self):
        super().finish()
        if getattr(self, "upstream", None) is not None:
            self.upstream.close()


class State:
    def __init__(self, upstream, access_key, secret_key, region):
        self.upstream = upstream
        self.locks = LockRegistry(upstream, access_key, secret_key, region)
        self.uploads = Uploads()
        self.faults = Faults()
        self.requests = Requests()
        self.log = sys.stderr  # one line per refusal


def serve(port, upstream, access_key, secret_key, region):
    """A started server (serve_forever not yet called): for tests that run it in a thread."""
    server = ThreadingHTTPServer(("127.0.0.1", port), Front)
    server.daemon_threads = True
    server.state = State(urlsplit(upstream), access_key, secret_key, region)
    return server


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--upstream", required=True, help="http://host:port of the S3 server behind")
    parser.add_argument("--access-key", default="test")
    parser.add_argument("--secret-key", default="testtesttest")
    parser.add_argument("--region", default="us-east-1")
    args = parser.parse_args()
    server = serve(args.port, args.upstream, args.access_key, args.secret_key, args.region)
    sys.stderr.write("aws-rules front on 127.0.0.1:%d in front of %s\n" % (args.port, args.upstream))
    sys.stderr.flush()
    server.serve_forever()


if __name__ == "__main__":
    main()
