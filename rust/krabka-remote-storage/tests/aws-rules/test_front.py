#!/usr/bin/env python3
"""Unit tests of the aws-rules front (front.py), in front of a stub S3 server in the same process.

The stub records what reaches it and answers 200 (an UploadId for CreateMultipartUpload, the
Object Lock configuration of the buckets named locked). No real server is needed; the front in front
of SeaweedFS is exercised by the Rust WORM tests (scripts/test.d/55-worm.sh).
"""

import base64
import hashlib
import http.client
import io
import json
import os
import sys
import threading
import unittest
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.dont_write_bytecode = True  # no __pycache__ in the work tree (scripts/test.sh checks it stays clean)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import front  # noqa: E402

LOCKED = "locked"
PLAIN = "plain"


def b64(data):
    return base64.b64encode(data).decode()


def sha256_b64(data):
    return b64(hashlib.sha256(data).digest())


class Stub(BaseHTTPRequestHandler):
    """A stand-in S3 server: records requests, answers like S3 minus the rules the front adds."""

    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_any(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        self.server.seen.append((self.command, self.path, dict((k.lower(), v) for k, v in self.headers.items()),
                                 body))
        status, answer = 200, b""
        if self.path.endswith("?object-lock="):
            bucket = self.path[1:].split("?")[0]
            if self.server.lookup_status != 200:
                status, answer = self.server.lookup_status, b"<Error><Code>AccessDenied</Code></Error>"
            elif bucket == LOCKED:
                answer = b"<ObjectLockConfiguration><ObjectLockEnabled>Enabled</ObjectLockEnabled>" \
                         b"</ObjectLockConfiguration>"
            else:
                status = 404
                answer = b"<Error><Code>ObjectLockConfigurationNotFoundError</Code></Error>"
        elif self.command == "POST" and "?uploads" in self.path:
            self.server.upload_counter += 1
            answer = b"<InitiateMultipartUploadResult><UploadId>up%d</UploadId></InitiateMultipartUploadResult>" \
                     % self.server.upload_counter
        self.send_response(status)
        self.send_header("Content-Length", str(len(answer)))
        self.send_header("ETag", '"etag"')
        self.end_headers()
        self.wfile.write(answer)

    do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = do_any


class FrontTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.stub = ThreadingHTTPServer(("127.0.0.1", 0), Stub)
        cls.stub.daemon_threads = True
        cls.stub.seen, cls.stub.upload_counter, cls.stub.lookup_status = [], 0, 200
        threading.Thread(target=cls.stub.serve_forever, daemon=True).start()
        cls.front = front.serve(0, "http://127.0.0.1:%d" % cls.stub.server_address[1], "test", "secret",
                                "us-east-1")
        cls.front.state.log = io.StringIO()
        threading.Thread(target=cls.front.serve_forever, daemon=True).start()
        cls.port = cls.front.server_address[1]

    @classmethod
    def tearDownClass(cls):
        cls.front.shutdown()
        cls.stub.shutdown()

    def setUp(self):
        self.stub.seen.clear()
        self.stub.lookup_status = 200
        self.front.state.locks.known.clear()

    def call(self, method, target, body=b"", headers=None):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        connection.request(method, target, body=body, headers=headers or {})
        response = connection.getresponse()
        answer = response.read()
        connection.close()
        return response.status, dict((k.lower(), v) for k, v in response.getheaders()), answer

    def forwarded(self, method=None):
        return [s for s in self.stub.seen if not s[1].endswith("?object-lock=") and (method is None or s[0] == method)]

    def assert_refused(self, answer, status, code, message=None):
        self.assertEqual(answer[0], status, answer)
        self.assertEqual(answer[1].get(front.REFUSED_HEADER), "refused")
        self.assertIn(b"<Code>%s</Code>" % code.encode(), answer[2])
        if message:
            self.assertIn(message.encode(), answer[2])

    # --- Object Lock -------------------------------------------------------------------------

    def test_a_put_without_a_checksum_into_a_lock_bucket_is_refused(self):
        answer = self.call("PUT", "/%s/key" % LOCKED, b"data")
        self.assert_refused(answer, 400, "InvalidRequest",
                            "Content-MD5 OR x-amz-checksum- HTTP header is required for Put Object requests "
                            "with Object Lock parameters")
        self.assertEqual(self.forwarded(), [], "a refused request never reaches the server")

    def test_a_part_without_a_checksum_into_a_lock_bucket_is_refused(self):
        answer = self.call("PUT", "/%s/key?partNumber=1&uploadId=unknown" % LOCKED, b"data")
        self.assert_refused(answer, 400, "InvalidRequest", "required for Put Part requests with Object Lock")

    def test_a_put_with_a_correct_checksum_passes_unchanged(self):
        body = b"archived bytes"
        headers = {"x-amz-checksum-sha256": sha256_b64(body), "x-custom": "kept"}
        answer = self.call("PUT", "/%s/dir/key%%20x?x-id=PutObject" % LOCKED, body, headers)
        self.assertEqual(answer[0], 200, answer)
        self.assertNotIn(front.REFUSED_HEADER, answer[1])
        [(method, target, seen_headers, seen_body)] = self.forwarded()
        self.assertEqual((method, target, seen_body), ("PUT", "/%s/dir/key%%20x?x-id=PutObject" % LOCKED, body))
        self.assertEqual(seen_headers["host"], "127.0.0.1:%d" % self.port, "Host is forwarded as received")
        self.assertEqual(seen_headers["x-custom"], "kept")
        self.assertEqual(seen_headers["x-amz-checksum-sha256"], sha256_b64(body))

    def test_a_chunked_request_body_is_checked_and_forwarded_whole(self):
        body = b"sent in pieces"
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        connection.request("PUT", "/%s/key" % LOCKED, body=iter([body[:4], body[4:]]), encode_chunked=True,
                           headers={"x-amz-checksum-sha256": sha256_b64(body)})
        response = connection.getresponse()
        response.read()
        connection.close()
        self.assertEqual(response.status, 200)
        [(_, _, headers, seen_body)] = self.forwarded()
        self.assertEqual((seen_body, headers.get("content-length")), (body, str(len(body))))

    def test_a_put_with_a_wrong_checksum_is_refused(self):
        answer = self.call("PUT", "/%s/key" % LOCKED, b"data", {"x-amz-checksum-sha256": sha256_b64(b"other")})
        self.assert_refused(answer, 400, "BadDigest", "The SHA256 you specified did not match")
        self.assertEqual(self.forwarded(), [])

    def test_a_malformed_checksum_is_refused(self):
        answer = self.call("PUT", "/%s/key" % PLAIN, b"data", {"x-amz-checksum-sha256": "bm90IGEgZGlnZXN0"})
        self.assert_refused(answer, 400, "InvalidRequest", "Value for x-amz-checksum-sha256 header is invalid.")

    def test_every_algorithm_is_checked(self):
        body = b"123456789"
        good = {
            "crc32": b64(zlib.crc32(body).to_bytes(4, "big")),
            "crc32c": b64(bytes.fromhex("e3069283")),
            "crc64nvme": b64(bytes.fromhex("ae8b14860a799888")),
            "sha1": b64(hashlib.sha1(body).digest()),
            "sha256": sha256_b64(body),
        }
        for algorithm, value in good.items():
            self.assertEqual(self.call("PUT", "/%s/k" % LOCKED, body, {"x-amz-checksum-" + algorithm: value})[0],
                             200, algorithm)
            wrong = self.call("PUT", "/%s/k" % LOCKED, b"12345678X", {"x-amz-checksum-" + algorithm: value})
            self.assert_refused(wrong, 400, "BadDigest")

    def test_a_put_without_a_checksum_into_a_plain_bucket_passes(self):
        self.assertEqual(self.call("PUT", "/%s/key" % PLAIN, b"data")[0], 200)
        self.assertEqual(len(self.forwarded("PUT")), 1)

    def test_lock_headers_need_a_checksum_on_any_bucket(self):
        answer = self.call("PUT", "/%s/key" % PLAIN, b"data", {"x-amz-object-lock-mode": "COMPLIANCE"})
        self.assert_refused(answer, 400, "InvalidRequest", "Put Object requests with Object Lock parameters")

    def test_content_md5_satisfies_the_lock_rule_and_is_checked(self):
        body = b"data"
        md5 = b64(hashlib.md5(body).digest())
        self.assertEqual(self.call("PUT", "/%s/key" % LOCKED, body, {"Content-MD5": md5})[0], 200)
        self.assert_refused(self.call("PUT", "/%s/key" % LOCKED, body, {"Content-MD5": "nope"}), 400,
                            "InvalidDigest")
        self.assert_refused(self.call("PUT", "/%s/key" % LOCKED, b"datb", {"Content-MD5": md5}), 400, "BadDigest")

    def test_a_failed_lock_lookup_is_an_error_not_a_pass(self):
        self.stub.lookup_status = 403
        answer = self.call("PUT", "/%s/key" % LOCKED, b"data")
        self.assert_refused(answer, 502, "BadGateway", "could not read the Object Lock configuration")

    def test_a_locked_bucket_is_looked_up_once(self):
        for _ in range(3):
            self.call("PUT", "/%s/key" % LOCKED, b"data")
        lookups = [s for s in self.stub.seen if s[1].endswith("?object-lock=")]
        self.assertEqual(len(lookups), 1)
        self.assertIn("authorization", lookups[0][2], "the look-up is signed")

    # --- checksums in general ------------------------------------------------------------------

    def test_two_checksum_headers_are_refused(self):
        body = b"data"
        answer = self.call("PUT", "/%s/key" % PLAIN, body, {
            "x-amz-checksum-sha256": sha256_b64(body), "x-amz-checksum-crc32": b64(zlib.crc32(body).to_bytes(4, "big"))})
        self.assert_refused(answer, 400, "InvalidRequest", "Expecting a single x-amz-checksum- header")

    def test_an_sdk_algorithm_without_its_header_is_refused(self):
        answer = self.call("PUT", "/%s/key" % PLAIN, b"data", {"x-amz-sdk-checksum-algorithm": "SHA256"})
        self.assert_refused(answer, 400, "InvalidRequest", "no corresponding x-amz-checksum-*")

    def test_a_trailing_checksum_in_an_aws_chunked_body_counts_and_is_checked(self):
        data = b"chunked object bytes"

        def chunked(checksum):
            return b"%x\r\n%s\r\n0\r\nx-amz-checksum-crc32:%s\r\n\r\n" % (len(data), data, checksum.encode())

        good = b64(zlib.crc32(data).to_bytes(4, "big"))
        headers = {"x-amz-content-sha256": "STREAMING-UNSIGNED-PAYLOAD-TRAILER", "Content-Encoding": "aws-chunked",
                   "x-amz-trailer": "x-amz-checksum-crc32", "x-amz-decoded-content-length": str(len(data))}
        self.assertEqual(self.call("PUT", "/%s/key" % LOCKED, chunked(good), headers)[0], 200)
        self.assert_refused(self.call("PUT", "/%s/key" % LOCKED, chunked(b64(b"\0\0\0\0")), headers), 400,
                            "BadDigest")

    def test_a_wrong_payload_hash_is_refused(self):
        answer = self.call("PUT", "/%s/key" % PLAIN, b"data", {"x-amz-content-sha256": "0" * 64})
        self.assert_refused(answer, 400, "XAmzContentSHA256Mismatch")

    def test_delete_objects_needs_a_checksum(self):
        body = b"<Delete><Object><Key>k</Key></Object></Delete>"
        self.assert_refused(self.call("POST", "/%s?delete" % PLAIN, body), 400, "InvalidRequest",
                            "Missing required header for this request: Content-MD5")
        self.assertEqual(self.call("POST", "/%s?delete" % PLAIN, body,
                                   {"Content-MD5": b64(hashlib.md5(body).digest())})[0], 200)
        self.assertEqual(self.call("POST", "/%s?delete" % PLAIN, body, {"x-amz-checksum-sha256": sha256_b64(body)})[0],
                         200)

    # --- signatures -------------------------------------------------------------------------------

    def test_unsigned_amz_headers_are_refused(self):
        authorization = ("AWS4-HMAC-SHA256 Credential=test/20260101/us-east-1/s3/aws4_request, "
                         "SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=00")
        body = b"data"
        headers = {"Authorization": authorization, "x-amz-date": "20260101T000000Z",
                   "x-amz-content-sha256": hashlib.sha256(body).hexdigest(), "x-amz-checksum-sha256": sha256_b64(body)}
        answer = self.call("PUT", "/%s/key" % LOCKED, body, headers)
        self.assert_refused(answer, 403, "AccessDenied", "<HeadersNotSigned>x-amz-checksum-sha256</HeadersNotSigned>")
        headers["Authorization"] = authorization.replace(
            "SignedHeaders=host;", "SignedHeaders=host;x-amz-checksum-sha256;")
        self.assertEqual(self.call("PUT", "/%s/key" % LOCKED, body, headers)[0], 200)
        del headers["x-amz-content-sha256"]
        self.assert_refused(self.call("PUT", "/%s/key" % LOCKED, body, headers), 400, "InvalidRequest",
                            "x-amz-content-sha256")

    # --- multipart ------------------------------------------------------------------------------------

    def create(self, bucket, headers=None):
        answer = self.call("POST", "/%s/big?uploads=" % bucket, b"", headers or {})
        self.assertEqual(answer[0], 200, answer)
        return answer[2].split(b"<UploadId>")[1].split(b"<")[0].decode()

    def test_a_sha256_upload_needs_sha256_parts_listed_at_completion(self):
        upload = self.create(PLAIN, {"x-amz-checksum-algorithm": "SHA256"})
        part = b"p" * 100
        target = "/%s/big?partNumber=1&uploadId=%s" % (PLAIN, upload)
        self.assert_refused(self.call("PUT", target, part), 400, "InvalidRequest",
                            "Checksum Type mismatch occurred, expected checksum Type: sha256, actual checksum Type: null")
        self.assert_refused(self.call("PUT", target, part, {"x-amz-checksum-crc32": b64(zlib.crc32(part).to_bytes(4, "big"))}),
                            400, "InvalidRequest", "expected checksum Type: sha256, actual checksum Type: crc32")
        answer = self.call("PUT", target, part, {"x-amz-checksum-sha256": sha256_b64(part)})
        self.assertEqual(answer[0], 200)
        self.assertEqual(answer[1].get("x-amz-checksum-sha256"), sha256_b64(part),
                         "the part's checksum is echoed, as AWS does")
        complete = "/%s/big?uploadId=%s" % (PLAIN, upload)

        def xml(extra):
            return ('<CompleteMultipartUpload xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Part><ETag>"etag"</ETag>'
                    '<PartNumber>1</PartNumber>%s</Part></CompleteMultipartUpload>' % extra).encode()

        self.assert_refused(self.call("POST", complete, xml("")), 400, "InvalidRequest",
                            "The upload was created using a sha256 checksum. The complete request must include the "
                            "checksum for each part. It was missing for part 1 in the request.")
        self.assert_refused(self.call("POST", complete, xml("<ChecksumSHA256>%s</ChecksumSHA256>" % sha256_b64(b"x"))),
                            400, "InvalidPart")
        answer = self.call("POST", complete, xml("<ChecksumSHA256>%s</ChecksumSHA256>" % sha256_b64(part)))
        self.assertEqual(answer[0], 200, answer)
        self.assertIsNone(self.front.state.uploads.get(upload), "a completed upload is forgotten")

    def test_an_upload_without_an_algorithm_takes_no_part_checksum(self):
        upload = self.create(PLAIN)
        part = b"p" * 100
        answer = self.call("PUT", "/%s/big?partNumber=1&uploadId=%s" % (PLAIN, upload), part,
                           {"x-amz-checksum-sha256": sha256_b64(part)})
        self.assert_refused(answer, 400, "InvalidRequest",
                            "expected checksum Type: null, actual checksum Type: sha256")
        self.assertEqual(self.call("PUT", "/%s/big?partNumber=1&uploadId=%s" % (PLAIN, upload), part)[0], 200)

    def test_create_refuses_unknown_algorithms_and_types(self):
        self.assert_refused(self.call("POST", "/%s/big?uploads=" % PLAIN, b"", {"x-amz-checksum-algorithm": "MD4"}),
                            400, "InvalidRequest", "Checksum algorithm provided is unsupported")
        self.assert_refused(self.call("POST", "/%s/big?uploads=" % PLAIN, b"", {
            "x-amz-checksum-algorithm": "SHA256", "x-amz-checksum-type": "FULL_OBJECT"}), 400, "InvalidRequest",
            "The FULL_OBJECT checksum type cannot be used with the sha256 checksum algorithm.")

    # --- Test faults ---------------------------------------------------------------------------

    def put_plain(self, key):
        return self.call("PUT", "/%s/%s" % (PLAIN, key), b"data")

    def test_armed_faults_fail_the_next_matching_puts_only(self):
        self.call("DELETE", front.FAULTS_PATH)
        self.assertEqual(self.call("POST", front.FAULTS_PATH + "?suffix=.manifest&count=2&mode=fail")[0], 200)
        self.assertEqual(self.put_plain("a.log")[0], 200)
        self.assert_refused(self.put_plain("a.manifest"), 503, "SlowDown")
        self.assertEqual(self.call("GET", "/%s/b.manifest" % PLAIN)[0], 200, "only PUTs fail")
        self.assert_refused(self.put_plain("b.manifest"), 503, "SlowDown")
        self.assertEqual(self.put_plain("c.manifest")[0], 200, "two failures, then through")
        counters = json.loads(self.call("GET", front.FAULTS_PATH)[2])
        self.assertEqual(counters["failed"], 2)
        self.assertEqual([s[1] for s in self.forwarded("PUT")], ["/plain/a.log", "/plain/c.manifest"])
        self.assertEqual(self.call("POST", front.FAULTS_PATH + "?suffix=&count=1")[0], 400)
        self.call("DELETE", front.FAULTS_PATH)

    def test_a_held_put_waits_unforwarded_until_released(self):
        self.call("POST", front.FAULTS_PATH + "?suffix=.manifest&count=1&mode=hold")
        answers = []
        waiter = threading.Thread(target=lambda: answers.append(self.put_plain("held.manifest")))
        waiter.start()
        for _ in range(200):
            if json.loads(self.call("GET", front.FAULTS_PATH)[2])["holding"] == 1:
                break
            threading.Event().wait(0.05)
        self.assertEqual(json.loads(self.call("GET", front.FAULTS_PATH)[2])["holding"], 1)
        self.assertEqual(self.forwarded("PUT"), [], "a held PUT never reaches the server")
        self.call("DELETE", front.FAULTS_PATH)
        waiter.join(10)
        self.assertEqual(answers[0][0], 503)
        self.assertEqual(self.put_plain("next.manifest")[0], 200)

    # --- Request counts ------------------------------------------------------------------------

    def test_requests_are_counted_by_kind_until_cleared(self):
        self.call("DELETE", front.REQUESTS_PATH)
        self.put_plain("one")
        self.put_plain("two")
        self.call("GET", "/%s/one" % PLAIN)
        self.call("HEAD", "/%s/one" % PLAIN)
        self.call("GET", "/%s?list-type=2&prefix=o" % PLAIN)
        self.call("DELETE", "/%s/one" % PLAIN)
        self.assert_refused(self.call("PUT", "/%s/key" % LOCKED, b"data"), 400, "InvalidRequest")
        counts = json.loads(self.call("GET", front.REQUESTS_PATH)[2])
        self.assertEqual(counts, {"PUT": 3, "GET": 1, "HEAD": 1, "LIST": 1, "DELETE": 1},
                         "the refused PUT counts, the front's own Object Lock lookup does not")
        self.assertEqual(json.loads(self.call("DELETE", front.REQUESTS_PATH)[2]), {})
        self.assertEqual(json.loads(self.call("GET", front.REQUESTS_PATH)[2]), {})


class ChecksumVectors(unittest.TestCase):
    def test_known_answers(self):
        # The "check" values of the CRC catalogue for the ASCII string 123456789.
        self.assertEqual(front.crc32(b"123456789").hex(), "cbf43926")
        self.assertEqual(front.crc32c(b"123456789").hex(), "e3069283")
        self.assertEqual(front.crc64nvme(b"123456789").hex(), "ae8b14860a799888")

    def test_the_signer_matches_the_aws_example(self):
        # AWS SigV4 documentation example: GET /?lifecycle on examplebucket at 20130524T000000Z.
        from datetime import datetime, timezone
        headers = front.sign_get("AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "us-east-1",
                                 "examplebucket.s3.amazonaws.com", "/", "lifecycle=",
                                 datetime(2013, 5, 24, tzinfo=timezone.utc))
        self.assertTrue(headers["authorization"].endswith(
            "Signature=fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543"), headers)


if __name__ == "__main__":
    unittest.main(verbosity=2)
