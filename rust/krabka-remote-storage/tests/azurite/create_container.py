#!/usr/bin/env python3
"""Creates a blob container on an Azure Storage endpoint (Azurite) with a SharedKey-signed
Create Container request; an existing container is fine. Standard library only.

    create_container.py --endpoint http://127.0.0.1:PORT/devstoreaccount1 --account devstoreaccount1 \
        --key BASE64 --container test
"""
import argparse
import base64
import hashlib
import hmac
import sys
import urllib.error
import urllib.parse
import urllib.request
from email.utils import formatdate

VERSION = "2021-12-02"
CONTENT_TYPE = "application/octet-stream"


def create(endpoint: str, account: str, key: str, container: str) -> int:
    url = f"{endpoint.rstrip('/')}/{container}?restype=container"
    date = formatdate(usegmt=True)
    path = urllib.parse.urlparse(url).path
    # VERB, then 11 standard headers: Content-Encoding, -Language, -Length (empty for an empty
    # body), -MD5, -Type (urllib sends one with any body), Date, If-Modified-Since, If-Match,
    # If-None-Match, If-Unmodified-Since, Range; then the canonical x-ms-* headers and the
    # resource with its query parameters.
    standard = ["", "", "", "", CONTENT_TYPE, "", "", "", "", "", ""]
    to_sign = "PUT\n" + "".join(f"{value}\n" for value in standard) + \
        f"x-ms-date:{date}\nx-ms-version:{VERSION}\n/{account}{path}\nrestype:container"
    signature = base64.b64encode(
        hmac.new(base64.b64decode(key), to_sign.encode(), hashlib.sha256).digest()).decode()
    request = urllib.request.Request(url, method="PUT", data=b"", headers={
        "Content-Type": CONTENT_TYPE,
        "x-ms-date": date,
        "x-ms-version": VERSION,
        "Authorization": f"SharedKey {account}:{signature}",
    })
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status
    except urllib.error.HTTPError as err:
        if err.code == 409:  # ContainerAlreadyExists
            return err.code
        sys.exit(f"creating container {container} failed: {err.code} {err.read()[:400]!r}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--endpoint", required=True)
    parser.add_argument("--account", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--container", required=True)
    args = parser.parse_args()
    status = create(args.endpoint, args.account, args.key, args.container)
    print(f"container {args.container}: {status}")


if __name__ == "__main__":
    main()
