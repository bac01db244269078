"""What the scripts that drive real third-party clients against `intake serve` share: running
intake commands, a throwaway server on 127.0.0.1, Intake's own API, and a form's layout read from
the XForm its ODK API serves (each question's element name and its index in the section, which
is where Intake stores its answer)."""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run(intake, env, *arguments, stdin=None, who="client"):
    answer = subprocess.run([intake, *arguments], env=env, input=stdin, capture_output=True, text=True, cwd=ROOT)
    if answer.returncode != 0:
        raise SystemExit(f"{who}: intake {' '.join(arguments)} failed: {answer.stderr}")
    return answer.stdout.strip()


class ClientRun:
    """One script's run against a throwaway `intake serve`: its arguments (`--intake`, and
    `--database`, a PostgreSQL URL, else a SQLite file in its temporary folder), that folder and
    the environment intake runs in, and the failures, each printed as it is found."""

    FORM = "refugee-health"

    def __init__(self, who):
        parser = argparse.ArgumentParser()
        parser.add_argument("--intake", default=os.path.join(ROOT, ".build/debug/intake"))
        parser.add_argument("--database", help="the server's database (a PostgreSQL URL); default: a SQLite file in a temporary folder")
        arguments = parser.parse_args()
        self.who = who
        self.intake = arguments.intake
        self.work = tempfile.mkdtemp(prefix=f"intake-{who}-")
        self.env = dict(os.environ)
        self.env["INTAKE_DATA_DIR"] = self.work
        self.env["INTAKE_SERVER_DATABASE"] = arguments.database or os.path.join(self.work, "server.sqlite")
        self.failures = []

    def check(self, condition, message):
        if not condition:
            self.failures.append(message)
            print(f"{self.who}: FAIL: " + message, file=sys.stderr)
        return condition

    def run(self, *arguments, stdin=None):
        return run(self.intake, self.env, *arguments, stdin=stdin, who=self.who)

    def bootstrap(self, researchers=()):
        """An admin, the team `clinic` with coordinator cora and field worker fatima (passwords
        NAME-password-1), researchers without a team, and the bundled questionnaire published."""
        self.run("admin", "bootstrap", "--username", "admin", "--password-stdin", stdin="admin-password-1\n")
        self.run("admin", "team", "create", "clinic")
        for name, role in [("cora", "coordinator"), ("fatima", "fieldworker")]:
            self.run("admin", "user", "create", name, "--role", role, "--team", "clinic", "--password-stdin", stdin=f"{name}-password-1\n")
        for name in researchers:
            self.run("admin", "user", "create", name, "--role", "researcher", "--password-stdin", stdin=f"{name}-password-1\n")
        self.run("admin", "publish", self.FORM)

    def serve(self):
        return serve(self.intake, self.env, who=self.who)

    def finish(self, success):
        """Exits 1 after the failures, or prints `success`."""
        if self.failures:
            print(f"{self.who}: {len(self.failures)} failures", file=sys.stderr)
            sys.exit(1)
        print(success)


def serve(intake, env, who="client"):
    """Starts `intake serve` on a free port; returns the process and its base URL."""
    server = subprocess.Popen([intake, "serve", "--port", "0"], env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.time() + 60
    while time.time() < deadline:
        line = server.stdout.readline()
        if line == "" and server.poll() is not None:
            raise SystemExit(f"{who}: intake serve stopped before listening")
        match = re.search(r"Serving on (http://127\.0\.0\.1:\d+)", line)
        if match:
            return server, match.group(1)
    server.terminate()
    raise SystemExit(f"{who}: intake serve did not say where it listens within 60 seconds")


def api(base, method, path, token, body=None):
    request = urllib.request.Request(base + path, method=method, data=None if body is None else json.dumps(body).encode())
    request.add_header("Authorization", f"Bearer {token}")
    request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=60) as response:
        text = response.read().decode()
        return json.loads(text) if response.headers.get("Content-Type", "").startswith("application/json") else text


def layout(xform):
    """The form's instance, as the XForm says it: by section, each question's element name, its
    index in the section (Intake stores answers by it), and a repeat's members or a compound's fields."""
    root = ET.fromstring(xform)
    ns = {"x": "http://www.w3.org/2002/xforms"}
    data = root.find(".//x:model/x:instance/x:data", ns)
    template = "{http://openrosa.org/javarosa}template"
    sections = []

    def walk(element, counter):
        entries = []
        children = list(element)
        for position, child in enumerate(children):
            name = child.tag.split("}")[-1]
            following = [c.tag.split("}")[-1] for c in children[position + 1:position + 2]]
            if name.endswith("_count") and following == [name[:-6]]:
                continue  # the node a repeat's count is calculated in
            counter[0] += 1
            if template in child.attrib:
                entry = {"key": name, "index": counter[0], "repeat": walk(child, counter)}
            elif len(child):
                entry = {"key": name, "index": counter[0], "fields": [c.tag.split("}")[-1] for c in child]}
            else:
                entry = {"key": name, "index": counter[0]}
            entries.append(entry)
        return entries

    for child in data:
        name = child.tag.split("}")[-1]
        if name not in ("patient", "meta"):
            sections.append((name, walk(child, [0])))
    return sections
