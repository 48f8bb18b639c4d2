#!/usr/bin/env python3
"""Checks the in-repo GCS test server (server.py) against fake-gcs-server.

Every case runs the same requests against both servers and asserts the same
behaviour, on the requests where the two overlap (JSON bucket creation and
media upload, XML reads, ranges, listing, deletes, JSON metadata). Cases that
only our server supports (XML writes and multipart, If-None-Match, retention
and holds) are checked against what Google documents for GCS.

Endpoints come from KRABKA_GCS_ENDPOINT (ours) and KRABKA_FAKE_GCS_ENDPOINT.
Without them the cases are skipped, unless KRABKA_REQUIRE_SERVERS=1.
"""

import base64
import email.utils
import hashlib
import json
import os
import time
import unittest
import uuid
import urllib.error
import urllib.request
from xml.etree import ElementTree

REQUIRED = os.environ.get("KRABKA_REQUIRE_SERVERS") == "1"


def endpoint(name):
    value = os.environ.get(name)
    if not value:
        if REQUIRED:
            raise AssertionError("%s is required (KRABKA_REQUIRE_SERVERS=1) but not set" % name)
        raise unittest.SkipTest("%s is not set (run scripts/test.d/50-object-store.sh)" % name)
    return value.rstrip("/")


def call(base, method, target, body=b"", headers=None):
    request = urllib.request.Request(base + target, data=body if method in ("POST", "PUT", "PATCH") else None,
                                     method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, {k.lower(): v for k, v in response.headers.items()}, response.read()
    except urllib.error.HTTPError as error:
        return error.code, {k.lower(): v for k, v in error.headers.items()}, error.read()


def local_names(element):
    return element.tag.split("}")[-1]


class Overlap:
    """Cases run against both servers (see the subclasses)."""

    ENV = None

    def setUp(self):
        self.base = endpoint(self.ENV)
        self.bucket = "cmp-" + uuid.uuid4().hex[:12]
        status, _, body = call(self.base, "POST", "/storage/v1/b?project=test",
                               json.dumps({"name": self.bucket}).encode(), {"content-type": "application/json"})
        self.assertEqual(status, 200, body)
        self.assertEqual(json.loads(body)["name"], self.bucket)

    def upload(self, name, data):
        status, _, body = call(self.base, "POST", "/upload/storage/v1/b/%s/o?uploadType=media&name=%s"
                               % (self.bucket, urllib.request.quote(name, safe="")), data,
                               {"content-type": "application/octet-stream"})
        self.assertEqual(status, 200, body)
        return json.loads(body)

    def test_bucket_create_twice_conflicts_and_reads_back(self):
        status, _, _ = call(self.base, "POST", "/storage/v1/b?project=test",
                            json.dumps({"name": self.bucket}).encode(), {"content-type": "application/json"})
        self.assertEqual(status, 409)
        status, _, body = call(self.base, "GET", "/storage/v1/b/%s" % self.bucket)
        self.assertEqual((status, json.loads(body)["name"]), (200, self.bucket))
        status, _, _ = call(self.base, "GET", "/storage/v1/b/no-such-bucket-%s" % uuid.uuid4().hex[:8])
        self.assertEqual(status, 404)

    def test_media_upload_reports_size_md5_and_generation(self):
        data = b"hello world"
        resource = self.upload("a/b.txt", data)
        self.assertEqual(resource["name"], "a/b.txt")
        self.assertEqual(resource["size"], "11")
        self.assertEqual(base64.b64decode(resource["md5Hash"]), hashlib.md5(data).digest())
        self.assertTrue(resource["generation"].isdigit())
        status, _, body = call(self.base, "GET", "/storage/v1/b/%s/o/%s" % (self.bucket, "a%2Fb.txt"))
        self.assertEqual(status, 200)
        self.assertEqual(json.loads(body)["generation"], resource["generation"])

    def test_xml_get_and_head_carry_the_headers_object_store_needs(self):
        data = bytes(range(256)) * 40
        resource = self.upload("dir/obj", data)
        for method in ("GET", "HEAD"):
            status, headers, body = call(self.base, method, "/%s/dir%%2Fobj" % self.bucket)
            self.assertEqual(status, 200)
            self.assertEqual(headers["content-length"], str(len(data)))
            self.assertEqual(headers["x-goog-generation"], resource["generation"])
            self.assertTrue(headers["etag"].startswith('"') and headers["etag"].endswith('"'))
            self.assertIsNotNone(email.utils.parsedate_to_datetime(headers["last-modified"]))
            self.assertEqual(body, data if method == "GET" else b"")
        # Unencoded slashes address the same object.
        status, _, body = call(self.base, "GET", "/%s/dir/obj" % self.bucket)
        self.assertEqual((status, body), (200, data))

    def test_ranges(self):
        data = b"0123456789abcdef"
        self.upload("r", data)
        for header, status, content_range, expected in (
                ("bytes=2-4", 206, "bytes 2-4/16", data[2:5]),
                ("bytes=10-", 206, "bytes 10-15/16", data[10:]),
                ("bytes=-3", 206, "bytes 13-15/16", data[13:]),
                ("bytes=14-99", 206, "bytes 14-15/16", data[14:])):
            got_status, headers, body = call(self.base, "GET", "/%s/r" % self.bucket, headers={"Range": header})
            self.assertEqual((got_status, headers.get("content-range"), body), (status, content_range, expected), header)
        status, _, _ = call(self.base, "GET", "/%s/r" % self.bucket, headers={"Range": "bytes=16-"})
        self.assertEqual(status, 416)

    def test_xml_list_with_prefix_and_delimiter(self):
        for name in ("d/x/1", "d/x/2", "d/y", "d/z", "e"):
            self.upload(name, name.encode())
        status, _, body = call(self.base, "GET", "/%s?list-type=2&prefix=d/&delimiter=/" % self.bucket)
        self.assertEqual(status, 200)
        root = ElementTree.fromstring(body)
        keys = sorted(e.text for e in root.iter() if local_names(e) == "Key")
        prefixes = sorted(p.text for c in root.iter() if local_names(c) == "CommonPrefixes"
                          for p in c if local_names(p) == "Prefix")
        sizes = sorted(e.text for e in root.iter() if local_names(e) == "Size")
        self.assertEqual((keys, prefixes, sizes), (["d/y", "d/z"], ["d/x/"], ["3", "3"]))
        status, _, body = call(self.base, "GET", "/%s?list-type=2&prefix=d/x/" % self.bucket)
        keys = sorted(e.text for e in ElementTree.fromstring(body).iter() if local_names(e) == "Key")
        self.assertEqual(keys, ["d/x/1", "d/x/2"])

    def test_missing_objects_and_deletes(self):
        status, _, _ = call(self.base, "GET", "/%s/nope" % self.bucket)
        self.assertEqual(status, 404)
        status, _, _ = call(self.base, "HEAD", "/%s/nope" % self.bucket)
        self.assertEqual(status, 404)
        self.upload("gone", b"x")
        status, _, _ = call(self.base, "DELETE", "/%s/gone" % self.bucket)
        self.assertIn(status, (200, 204))
        status, _, _ = call(self.base, "GET", "/%s/gone" % self.bucket)
        self.assertEqual(status, 404)
        status, _, _ = call(self.base, "DELETE", "/%s/gone" % self.bucket)
        self.assertEqual(status, 404)


class FakeGcsServer(Overlap, unittest.TestCase):
    ENV = "KRABKA_FAKE_GCS_ENDPOINT"


class KrabkaGcsServer(Overlap, unittest.TestCase):
    ENV = "KRABKA_GCS_ENDPOINT"

    def test_xml_put_generation_preconditions(self):
        status, headers, _ = call(self.base, "PUT", "/%s/c" % self.bucket, b"one", {"x-goog-if-generation-match": "0"})
        self.assertEqual(status, 200)
        generation = headers["x-goog-generation"]
        self.assertEqual(headers["etag"], '"%s"' % hashlib.md5(b"one").hexdigest())
        status, _, body = call(self.base, "PUT", "/%s/c" % self.bucket, b"two", {"x-goog-if-generation-match": "0"})
        self.assertEqual(status, 412, body)
        status, _, _ = call(self.base, "PUT", "/%s/c" % self.bucket, b"two", {"x-goog-if-generation-match": generation})
        self.assertEqual(status, 200)
        status, _, body = call(self.base, "GET", "/%s/c" % self.bucket)
        self.assertEqual(body, b"two")

    def test_if_none_match_and_generation_pinning(self):
        _, headers, _ = call(self.base, "PUT", "/%s/n" % self.bucket, b"abc")
        status, _, _ = call(self.base, "GET", "/%s/n" % self.bucket, headers={"If-None-Match": headers["etag"]})
        self.assertEqual(status, 304)
        status, _, _ = call(self.base, "GET", "/%s/n?generation=%s" % (self.bucket, headers["x-goog-generation"]))
        self.assertEqual(status, 200)
        status, _, _ = call(self.base, "GET", "/%s/n?generation=1" % self.bucket)
        self.assertEqual(status, 404)

    def test_xml_multipart_upload_complete_and_abort(self):
        status, _, body = call(self.base, "POST", "/%s/m?uploads" % self.bucket)
        self.assertEqual(status, 200)
        upload = next(e.text for e in ElementTree.fromstring(body).iter() if local_names(e) == "UploadId")
        etags = []
        first = b"a" * (5 * 1024 * 1024)
        for number, part in enumerate((first, b"b" * 5), start=1):
            status, headers, _ = call(self.base, "PUT", "/%s/m?partNumber=%d&uploadId=%s" % (self.bucket, number, upload), part)
            self.assertEqual(status, 200)
            etags.append(headers["etag"])
        complete = "<CompleteMultipartUpload>%s</CompleteMultipartUpload>" % "".join(
            "<Part><PartNumber>%d</PartNumber><ETag>%s</ETag></Part>" % (n, e) for n, e in enumerate(etags, start=1))
        status, headers, body = call(self.base, "POST", "/%s/m?uploadId=%s" % (self.bucket, upload), complete.encode())
        self.assertEqual(status, 200, body)
        self.assertIn("x-goog-generation", headers)
        self.assertEqual(call(self.base, "GET", "/%s/m" % self.bucket)[2], first + b"b" * 5)
        status, _, body = call(self.base, "POST", "/%s/m2?uploads" % self.bucket)
        upload = next(e.text for e in ElementTree.fromstring(body).iter() if local_names(e) == "UploadId")
        call(self.base, "PUT", "/%s/m2?partNumber=1&uploadId=%s" % (self.bucket, upload), b"x")
        status, _, _ = call(self.base, "DELETE", "/%s/m2?uploadId=%s" % (self.bucket, upload))
        self.assertEqual(status, 204)
        status, _, _ = call(self.base, "POST", "/%s/m2?uploadId=%s" % (self.bucket, upload), complete.encode())
        self.assertEqual(status, 404)
        self.assertEqual(call(self.base, "GET", "/%s/m2" % self.bucket)[0], 404)

    def test_parts_below_five_mebibytes_but_the_last_are_refused(self):
        status, _, body = call(self.base, "POST", "/%s/small?uploads" % self.bucket)
        upload = next(e.text for e in ElementTree.fromstring(body).iter() if local_names(e) == "UploadId")
        etags = [call(self.base, "PUT", "/%s/small?partNumber=%d&uploadId=%s" % (self.bucket, n, upload), b"x")[1]["etag"]
                 for n in (1, 2)]
        complete = "<CompleteMultipartUpload>%s</CompleteMultipartUpload>" % "".join(
            "<Part><PartNumber>%d</PartNumber><ETag>%s</ETag></Part>" % (n, e) for n, e in enumerate(etags, start=1))
        status, _, body = call(self.base, "POST", "/%s/small?uploadId=%s" % (self.bucket, upload), complete.encode())
        self.assertEqual(status, 400)
        self.assertIn(b"EntityTooSmall", body)

    def test_copy(self):
        call(self.base, "PUT", "/%s/src" % self.bucket, b"copied")
        status, _, _ = call(self.base, "PUT", "/%s/dst" % self.bucket, b"",
                            {"x-goog-copy-source": "%s/src" % self.bucket})
        self.assertEqual(status, 200)
        self.assertEqual(call(self.base, "GET", "/%s/dst" % self.bucket)[2], b"copied")

    def test_retention_policy_lock_and_holds(self):
        status, _, body = call(self.base, "PATCH", "/storage/v1/b/%s" % self.bucket,
                               json.dumps({"retentionPolicy": {"retentionPeriod": "2"}}).encode())
        self.assertEqual(status, 200, body)
        bucket = json.loads(body)
        self.assertEqual(bucket["retentionPolicy"]["retentionPeriod"], "2")
        self.assertFalse(bucket["retentionPolicy"]["isLocked"])
        self.assertFalse(bucket["versioning"]["enabled"])
        status, _, _ = call(self.base, "POST", "/storage/v1/b/%s/lockRetentionPolicy?ifMetagenerationMatch=1" % self.bucket)
        self.assertEqual(status, 412)
        status, _, body = call(self.base, "POST", "/storage/v1/b/%s/lockRetentionPolicy?ifMetagenerationMatch=%s"
                               % (self.bucket, bucket["metageneration"]))
        self.assertEqual(status, 200, body)
        self.assertTrue(json.loads(body)["retentionPolicy"]["isLocked"])
        status, _, _ = call(self.base, "PATCH", "/storage/v1/b/%s" % self.bucket,
                            json.dumps({"retentionPolicy": {"retentionPeriod": "1"}}).encode())
        self.assertEqual(status, 403)
        call(self.base, "PUT", "/%s/kept" % self.bucket, b"v1")
        status, _, body = call(self.base, "GET", "/storage/v1/b/%s/o/kept" % self.bucket)
        self.assertIn("retentionExpirationTime", json.loads(body))
        self.assertEqual(call(self.base, "DELETE", "/%s/kept" % self.bucket)[0], 403)
        self.assertEqual(call(self.base, "PUT", "/%s/kept" % self.bucket, b"v2")[0], 403)
        time.sleep(2.1)
        status, _, _ = call(self.base, "PATCH", "/storage/v1/b/%s/o/kept" % self.bucket,
                            json.dumps({"temporaryHold": True}).encode())
        self.assertEqual(status, 200)
        self.assertEqual(call(self.base, "DELETE", "/%s/kept" % self.bucket)[0], 403)
        call(self.base, "PATCH", "/storage/v1/b/%s/o/kept" % self.bucket, json.dumps({"temporaryHold": False}).encode())
        self.assertEqual(call(self.base, "DELETE", "/%s/kept" % self.bucket)[0], 204)

    # ---- the rules Google documents (see server.py's docstring) ----------

    def new_bucket(self, resource, query=""):
        name = "rule-" + uuid.uuid4().hex[:12]
        resource = dict(resource, name=name)
        status, _, body = call(self.base, "POST", "/storage/v1/b?project=test" + query,
                               json.dumps(resource).encode(), {"content-type": "application/json"})
        return name, status, body

    def patch_bucket(self, name, resource):
        return call(self.base, "PATCH", "/storage/v1/b/%s" % name, json.dumps(resource).encode())

    def patch_object(self, bucket, name, resource, query=""):
        return call(self.base, "PATCH", "/storage/v1/b/%s/o/%s%s" % (bucket, name, query), json.dumps(resource).encode())

    def complete_multipart(self, bucket, name, data):
        status, _, body = call(self.base, "POST", "/%s/%s?uploads" % (bucket, name))
        self.assertEqual(status, 200, body)
        upload = next(e.text for e in ElementTree.fromstring(body).iter() if local_names(e) == "UploadId")
        _, headers, _ = call(self.base, "PUT", "/%s/%s?partNumber=1&uploadId=%s" % (bucket, name, upload), data)
        complete = "<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>%s</ETag></Part></CompleteMultipartUpload>" % headers["etag"]
        return call(self.base, "POST", "/%s/%s?uploadId=%s" % (bucket, name, upload), complete.encode())

    def reason(self, body):
        return json.loads(body)["error"]["errors"][0]["reason"]

    def test_versioning_and_a_retention_policy_are_mutually_exclusive(self):
        _, status, body = self.new_bucket({"versioning": {"enabled": True},
                                           "retentionPolicy": {"retentionPeriod": "60"}})
        self.assertEqual((status, self.reason(body)), (400, "invalid"), body)
        versioned, status, _ = self.new_bucket({"versioning": {"enabled": True}})
        self.assertEqual(status, 200)
        status, _, body = self.patch_bucket(versioned, {"retentionPolicy": {"retentionPeriod": "60"}})
        self.assertEqual((status, self.reason(body)), (400, "invalid"), body)
        retained, status, _ = self.new_bucket({"retentionPolicy": {"retentionPeriod": "60"}})
        self.assertEqual(status, 200)
        status, _, body = self.patch_bucket(retained, {"versioning": {"enabled": True}})
        self.assertEqual((status, self.reason(body)), (400, "invalid"), body)
        bucket = json.loads(call(self.base, "GET", "/storage/v1/b/%s" % retained)[2])
        self.assertFalse(bucket["versioning"]["enabled"])
        # Turning versioning off and adding the policy in one request is fine.
        status, _, body = self.patch_bucket(versioned, {"versioning": {"enabled": False},
                                                        "retentionPolicy": {"retentionPeriod": "60"}})
        self.assertEqual(status, 200, body)
        self.assertEqual(json.loads(body)["retentionPolicy"]["retentionPeriod"], "60")

    def test_a_retention_policy_refuses_every_delete_and_replacement(self):
        name, status, _ = self.new_bucket({})
        self.assertEqual(status, 200)
        call(self.base, "PUT", "/%s/older" % name, b"written before the policy")
        status, _, _ = self.patch_bucket(name, {"retentionPolicy": {"retentionPeriod": "2"}})
        self.assertEqual(status, 200)
        call(self.base, "PUT", "/%s/src" % name, b"copy source")
        status, _, _ = call(self.base, "PUT", "/%s/kept" % name, b"original", {"x-goog-if-generation-match": "0"})
        self.assertEqual(status, 200)
        # Retroactive: the object written before the policy is retained too.
        self.assertEqual(call(self.base, "DELETE", "/%s/older" % name)[0], 403)
        status, _, body = call(self.base, "DELETE", "/storage/v1/b/%s/o/kept" % name)
        self.assertEqual((status, self.reason(body)), (403, "retentionPolicyNotMet"), body)
        self.assertEqual(call(self.base, "DELETE", "/%s/kept" % name)[0], 403)
        self.assertEqual(call(self.base, "PUT", "/%s/kept" % name, b"replaced")[0], 403)
        status, _, body = call(self.base, "POST", "/upload/storage/v1/b/%s/o?uploadType=media&name=kept" % name,
                               b"replaced", {"content-type": "application/octet-stream"})
        self.assertEqual((status, self.reason(body)), (403, "retentionPolicyNotMet"), body)
        status, _, _ = call(self.base, "PUT", "/%s/kept" % name, b"", {"x-goog-copy-source": "%s/src" % name})
        self.assertEqual(status, 403)
        status, _, body = self.complete_multipart(name, "kept", b"replaced by a multipart completion")
        self.assertEqual(status, 403, body)
        self.assertEqual(call(self.base, "GET", "/%s/kept" % name)[2], b"original")
        # A fresh key is still created by a multipart completion.
        status, headers, body = self.complete_multipart(name, "fresh", b"new")
        self.assertEqual(status, 200, body)
        self.assertTrue(headers["x-goog-generation"].isdigit())
        time.sleep(2.1)
        self.assertEqual(call(self.base, "PUT", "/%s/kept" % name, b"replaced")[0], 200)
        self.assertEqual(call(self.base, "DELETE", "/%s/older" % name)[0], 204)
        # The replacement is a new object, retained from its own creation.
        self.assertEqual(call(self.base, "DELETE", "/%s/kept" % name)[0], 403)

    def test_a_locked_policy_cannot_be_removed_or_shortened(self):
        name, status, body = self.new_bucket({"retentionPolicy": {"retentionPeriod": "60"}})
        self.assertEqual(status, 200, body)
        status, _, body = call(self.base, "POST", "/storage/v1/b/%s/lockRetentionPolicy" % name)
        self.assertEqual(status, 400, body)
        metageneration = json.loads(body and call(self.base, "GET", "/storage/v1/b/%s" % name)[2])["metageneration"]
        status, _, body = call(self.base, "POST", "/storage/v1/b/%s/lockRetentionPolicy?ifMetagenerationMatch=%s"
                               % (name, metageneration))
        self.assertEqual(status, 200, body)
        for change in ({"retentionPolicy": None}, {"retentionPolicy": {"retentionPeriod": "59"}}):
            status, _, body = self.patch_bucket(name, change)
            self.assertEqual(status, 403, (change, body))
        status, _, body = self.patch_bucket(name, {"retentionPolicy": {"retentionPeriod": "120"}})
        self.assertEqual(status, 200, body)
        policy = json.loads(body)["retentionPolicy"]
        self.assertEqual((policy["retentionPeriod"], policy["isLocked"]), ("120", True))

    def test_if_generation_match_zero_refuses_an_existing_object(self):
        name, _, _ = self.new_bucket({})
        target = "/upload/storage/v1/b/%s/o?uploadType=media&name=g&ifGenerationMatch=0" % name
        headers = {"content-type": "application/octet-stream"}
        self.assertEqual(call(self.base, "POST", target, b"one", headers)[0], 200)
        status, _, body = call(self.base, "POST", target, b"two", headers)
        self.assertEqual((status, self.reason(body)), (412, "conditionNotMet"), body)
        call(self.base, "PUT", "/%s/src" % name, b"copy source")
        status, _, _ = call(self.base, "PUT", "/%s/g" % name, b"",
                            {"x-goog-copy-source": "%s/src" % name, "x-goog-if-generation-match": "0"})
        self.assertEqual(status, 412)
        self.assertEqual(call(self.base, "GET", "/%s/g" % name)[2], b"one")

    def test_object_retention_lock(self):
        name, status, body = self.new_bucket({"versioning": {"enabled": True}}, "&enableObjectRetention=true")
        self.assertEqual(status, 200, body)
        self.assertEqual(json.loads(body)["objectRetention"], {"mode": "Enabled"})
        _, headers, _ = call(self.base, "PUT", "/%s/o" % name, b"first")
        first = headers["x-goog-generation"]
        until = time.time() + 60

        def retention(mode, at):
            return {"retention": {"mode": mode, "retainUntilTime": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(at))}}

        status, _, body = self.patch_object(name, "o", retention("Locked", until))
        self.assertEqual(status, 200, body)
        self.assertEqual(json.loads(body)["retention"]["mode"], "Locked")
        for change in (retention("Locked", until - 30), retention("Unlocked", until), {"retention": None}):
            status, _, body = self.patch_object(name, "o", change, "?overrideUnlockedRetention=true")
            self.assertEqual(status, 403, (change, body))
        self.assertEqual(self.patch_object(name, "o", retention("Locked", until + 30))[0], 200)
        self.assertEqual(call(self.base, "DELETE", "/%s/o?generation=%s" % (name, first))[0], 403)
        # Retained, it can still be made noncurrent by a replacing write...
        self.assertEqual(call(self.base, "PUT", "/%s/o" % name, b"second")[0], 200)
        self.assertEqual(call(self.base, "GET", "/%s/o?generation=%s" % (name, first))[2], b"first")
        self.assertEqual(call(self.base, "GET", "/%s/o" % name)[2], b"second")
        # ... but the noncurrent generation cannot be deleted.
        self.assertEqual(call(self.base, "DELETE", "/%s/o?generation=%s" % (name, first))[0], 403)
        self.assertEqual(call(self.base, "GET", "/%s/o?generation=%s" % (name, first))[0], 200)
        # Unlocked: shortening needs overrideUnlockedRetention.
        call(self.base, "PUT", "/%s/u" % name, b"u")
        self.assertEqual(self.patch_object(name, "u", retention("Unlocked", until))[0], 200)
        self.assertEqual(self.patch_object(name, "u", {"retention": None})[0], 403)
        self.assertEqual(self.patch_object(name, "u", {"retention": None}, "?overrideUnlockedRetention=true")[0], 200)
        # Without versioning a retained object cannot be replaced at all.
        plain, status, _ = self.new_bucket({}, "&enableObjectRetention=true")
        call(self.base, "PUT", "/%s/o" % plain, b"first")
        self.assertEqual(self.patch_object(plain, "o", retention("Locked", until))[0], 200)
        self.assertEqual(call(self.base, "PUT", "/%s/o" % plain, b"second")[0], 403)
        self.assertEqual(call(self.base, "DELETE", "/%s/o" % plain)[0], 403)
        # A bucket without Object Retention Lock refuses a per-object retention.
        status, _, body = self.patch_object(self.bucket, "nothing-here", retention("Locked", until))
        self.assertEqual(status, 404, body)
        call(self.base, "PUT", "/%s/x" % self.bucket, b"x")
        self.assertEqual(self.patch_object(self.bucket, "x", retention("Locked", until))[0], 400)

    def test_missing_bucket_is_no_such_bucket(self):
        status, _, body = call(self.base, "GET", "/no-such-bucket-x/obj")
        self.assertEqual(status, 404)
        self.assertIn(b"NoSuchBucket", body)


if __name__ == "__main__":
    unittest.main(verbosity=2)
