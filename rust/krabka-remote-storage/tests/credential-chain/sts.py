#!/usr/bin/env python3
"""A stand-in of AWS STS over HTTPS for tests/s3_credential_chain.rs: answers
AssumeRoleWithWebIdentity with fixed temporary credentials and appends every
request (method, query, headers) as a JSON line to --log. Prints its port on
the first line of stdout once it listens on 127.0.0.1.

    sts.py --cert LEAF.pem --key LEAF-KEY.pem --log REQUESTS.jsonl \
           --access-key KEY --secret SECRET --session-token TOKEN
"""
import argparse
import http.server
import json
import ssl
import sys
import urllib.parse

RESPONSE = """<AssumeRoleWithWebIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
  <AssumeRoleWithWebIdentityResult>
    <Credentials>
      <AccessKeyId>{access_key}</AccessKeyId>
      <SecretAccessKey>{secret}</SecretAccessKey>
      <SessionToken>{session_token}</SessionToken>
      <Expiration>2099-01-01T00:00:00Z</Expiration>
    </Credentials>
  </AssumeRoleWithWebIdentityResult>
</AssumeRoleWithWebIdentityResponse>
"""


def main():
    parser = argparse.ArgumentParser()
    for option in ("--cert", "--key", "--log", "--access-key", "--secret", "--session-token"):
        parser.add_argument(option, required=True)
    args = parser.parse_args()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length).decode("utf-8", "replace")
            url = urllib.parse.urlsplit(self.path)
            query = dict(urllib.parse.parse_qsl(url.query))
            query.update(urllib.parse.parse_qsl(body))
            with open(args.log, "a") as log:
                log.write(json.dumps({"method": "POST", "path": url.path, "query": query,
                                      "headers": dict(self.headers)}) + "\n")
            if query.get("Action") != "AssumeRoleWithWebIdentity":
                self.send_response(400)
                self.end_headers()
                return
            answer = RESPONSE.format(access_key=args.access_key, secret=args.secret,
                                     session_token=args.session_token).encode()
            self.send_response(200)
            self.send_header("content-type", "text/xml")
            self.send_header("content-length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, *_):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(args.cert, args.key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
