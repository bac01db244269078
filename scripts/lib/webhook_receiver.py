#!/usr/bin/env python3
"""A webhook receiver for trying Intake's webhooks on one machine (and for its tests).

Listens on 127.0.0.1 (port 0: any free one, printed on the first line), answers every POST 204,
and appends each delivery to OUT as one JSON line: {"signature", "delivery", "body"}.
With --secret, it checks each signature as a real receiver must (HMAC-SHA256 of "SECONDS." + body,
compared in constant time, within 5 minutes of its clock) and answers 401 to a bad one.

    python3 scripts/lib/webhook_receiver.py OUT [--port N] [--secret whsec_...]
"""
import argparse
import hashlib
import hmac
import json
import signal
import sys
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

parser = argparse.ArgumentParser()
parser.add_argument("out")
parser.add_argument("--port", type=int, default=0)
parser.add_argument("--secret")
args = parser.parse_args()
signal.signal(signal.SIGTERM, signal.SIG_DFL)


def valid(header, body):
    parts = dict(part.split("=", 1) for part in (header or "").split(",") if "=" in part)
    try:
        seconds = int(parts["t"])
    except (KeyError, ValueError):
        return False
    expected = hmac.new(args.secret.encode(), f"{seconds}.".encode() + body, hashlib.sha256).hexdigest()
    return abs(time.time() - seconds) <= 300 and hmac.compare_digest(expected, parts.get("v1", ""))


class Hook(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        signature = self.headers.get("Intake-Signature")
        if args.secret and not valid(signature, body):
            self.send_response(401)
            self.end_headers()
            return
        with open(args.out, "a") as out:
            out.write(json.dumps({"signature": signature, "delivery": self.headers.get("Intake-Delivery"), "body": body.decode()}) + "\n")
        self.send_response(204)
        self.end_headers()

    def log_message(self, *_):
        pass


server = HTTPServer(("127.0.0.1", args.port), Hook)
print(server.server_address[1], flush=True)
server.serve_forever()
