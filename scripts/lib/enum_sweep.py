#!/usr/bin/env python3
"""Asks a running `intake serve` for every value of every enum-valued parameter of its GET
operations, and checks each answer against openapi.yaml.

    enum_sweep.py BASE_URL TOKEN [--spec FILE_OR_URL] [--timeout SECONDS] [--label NAME] [--verbose]

Schemathesis draws enum values at random, so a value whose answer the spec does not document
(GET /v1/exports?format=geojson once answered application/geo+json, which the spec did not list)
fails only the runs whose seed happens to draw it. This sweep sends each value once, the same
way every time. For every GET operation with a parameter whose schema is an enum (in the query,
a header or the path), it sends one request per value, with the other parameters left out when
they are optional and given their example (or default, or first enum value) when they are
required. An operation with a required parameter that has no such value to give it (a record's
id in the path, say) is skipped, and the sweep says so.

Each answer must have a status the operation documents (exactly, as 2XX and the like, or as
`default`), and its Content-Type, without parameters such as charset, must be one the spec lists
for that status; a status documented without content must come with an empty body. Every
disagreement is printed on a line of its own, and the sweep exits 1 if there was any. Otherwise
it prints one line with the number of requests and exits 0 (--verbose prints every answer as
well). It exits 2 when it could not do its job: the spec cannot be read, the server cannot be
reached or does not answer in time.

The base URL must be on the loopback interface (127.0.0.0/8, ::1 or localhost): the sweep is
for a throwaway server, and it sends a bearer token. Each request has a timeout (10 seconds by
default), and at most 4 MiB of each body is read.

The spec is the one the server serves at /openapi.yaml (the document schemathesis checks), unless
--spec names a file or a URL. It is read with PyYAML (schemathesis, in the venv, depends on it).
"""
import argparse
import http.client
import ipaddress
import re
import sys
import urllib.parse

try:
    import yaml
except ImportError:
    sys.exit("enum_sweep: PyYAML is missing; run this with the venv's python (.venv/bin/python), where schemathesis installed it")

BODY_LIMIT = 4 * 1024 * 1024
# Parameters that OpenAPI says are not described as header parameters (the client's own headers).
IGNORED_HEADERS = {"accept", "authorization", "content-type"}


class SpecLoader(yaml.SafeLoader):
    """YAML 1.2 as OpenAPI 3.1 means it: only true and false are booleans. PyYAML follows YAML
    1.1, where yes, no, on and off are booleans too, which would turn an enum value `on` into True."""


SpecLoader.yaml_implicit_resolvers = {
    first: [(tag, pattern) for tag, pattern in resolvers if tag != "tag:yaml.org,2002:bool"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
SpecLoader.add_implicit_resolver("tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF"))


class CannotRun(Exception):
    """The sweep cannot do its job (as opposed to finding a disagreement)."""


def loopback_address(url):
    """The host and port of a loopback http URL; anything else is refused."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme != "http":
        raise CannotRun(f"{url} is not an http:// URL")
    host = parts.hostname or ""
    if host != "localhost":
        try:
            if not ipaddress.ip_address(host).is_loopback:
                raise ValueError
        except ValueError:
            raise CannotRun(f"{url} is not on the loopback interface (127.0.0.1, ::1, localhost); the sweep only asks a local server") from None
    return host, parts.port or 80, parts.path.rstrip("/")


def get(host, port, target, headers, timeout):
    """One GET: its status, Content-Type (or None) and up to BODY_LIMIT bytes of its body."""
    connection = http.client.HTTPConnection(host, port, timeout=timeout)
    try:
        connection.request("GET", target, headers=headers)
        response = connection.getresponse()
        body = response.read(BODY_LIMIT)
        return response.status, response.getheader("Content-Type"), body
    except (OSError, http.client.HTTPException) as error:
        raise CannotRun(f"GET {target} got no answer: {error.__class__.__name__}: {error}") from None
    finally:
        connection.close()


def load_spec(source, host, port, prefix, timeout):
    if source is None or source.startswith("http://"):
        if source is None:
            spec_host, spec_port, target = host, port, prefix + "/openapi.yaml"
        else:
            spec_host, spec_port, path = loopback_address(source)
            target = path or "/"
        status, _, body = get(spec_host, spec_port, target, {}, timeout)
        if status != 200:
            raise CannotRun(f"GET {target} answered {status}, not the spec")
        text = body.decode("utf-8")
    else:
        try:
            with open(source, encoding="utf-8") as file:
                text = file.read()
        except OSError as error:
            raise CannotRun(f"cannot read {source}: {error}") from None
    try:
        spec = yaml.load(text, Loader=SpecLoader)
    except yaml.YAMLError as error:
        raise CannotRun(f"the spec is not YAML: {error}") from None
    if not isinstance(spec, dict) or not isinstance(spec.get("paths"), dict):
        raise CannotRun("the spec has no paths")
    return spec


def resolve(spec, node):
    """Follows local $refs (#/components/...) until a node that is not one."""
    seen = set()
    while isinstance(node, dict) and "$ref" in node:
        reference = node["$ref"]
        if not reference.startswith("#/") or reference in seen:
            raise CannotRun(f"cannot follow $ref {reference}")
        seen.add(reference)
        node = spec
        for part in reference[2:].split("/"):
            node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def enum_values(spec, schema):
    """The values an enum-valued schema allows (of its items, for an array), or None when it is not one."""
    schema = resolve(spec, schema or {})
    if not isinstance(schema, dict):
        return None
    if "enum" in schema:
        return [value for value in schema["enum"] if value is not None]
    if "const" in schema:
        return [schema["const"]] if schema["const"] is not None else None
    for combined in ("anyOf", "oneOf"):
        if combined in schema:
            values = []
            for branch in schema[combined]:
                values += [value for value in enum_values(spec, branch) or [] if value not in values]
            return values or None
    if schema.get("type") == "array" and "items" in schema:
        return enum_values(spec, schema["items"])
    return None


def fill_value(spec, parameter):
    """A value a required parameter can be given without knowing the server's data, or None."""
    schema = resolve(spec, parameter.get("schema") or {})
    for source in (parameter, schema):
        if "example" in source:
            return source["example"]
        examples = source.get("examples")
        if isinstance(examples, list) and examples:
            return examples[0]
        if isinstance(examples, dict) and examples:
            example = resolve(spec, next(iter(examples.values())))
            if isinstance(example, dict) and "value" in example:
                return example["value"]
    if "default" in schema:
        return schema["default"]
    values = enum_values(spec, schema)
    return values[0] if values else None


def text(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def media_type(content_type):
    return content_type.split(";", 1)[0].strip().lower()


def matches(media, documented):
    documented = media_type(documented)
    if documented == "*/*" or documented == media:
        return True
    kind, _, subtype = documented.partition("/")
    return subtype == "*" and media.partition("/")[0] == kind


def documented_response(spec, responses, status):
    """The response an operation documents for a status (exact, then 2XX and so on, then default), or None."""
    by_key = {str(key).upper(): value for key, value in responses.items()}
    for key in (str(status), f"{status // 100}XX", "DEFAULT"):
        if key in by_key:
            return resolve(spec, by_key[key])
    return None


def operations(spec):
    """Every GET operation with its parameters (the path's, overridden by the operation's), in the spec's order."""
    for path, item in spec["paths"].items():
        item = resolve(spec, item)
        operation = item.get("get") if isinstance(item, dict) else None
        if not isinstance(operation, dict):
            continue
        parameters = {}
        for parameter in list(item.get("parameters") or []) + list(operation.get("parameters") or []):
            parameter = resolve(spec, parameter)
            parameters[(parameter["name"], parameter["in"])] = parameter
        yield path, operation, list(parameters.values())


def main():
    parser = argparse.ArgumentParser(description="Checks the answer to every enum value of every GET parameter against openapi.yaml.")
    parser.add_argument("base_url", help="the server, on the loopback interface: http://127.0.0.1:PORT")
    parser.add_argument("token", help="a bearer token")
    parser.add_argument("--spec", help="openapi.yaml, a file or a URL; default: BASE_URL/openapi.yaml")
    parser.add_argument("--timeout", type=float, default=10, help="seconds to wait for each answer (default 10)")
    parser.add_argument("--label", help="a name for this run in what it prints (such as the role)")
    parser.add_argument("--verbose", action="store_true", help="print every request and its answer, not only disagreements")
    arguments = parser.parse_args()
    me = f"enum_sweep ({arguments.label})" if arguments.label else "enum_sweep"

    try:
        host, port, prefix = loopback_address(arguments.base_url)
        spec = load_spec(arguments.spec, host, port, prefix, arguments.timeout)
        requests = 0
        swept = 0
        disagreements = []
        for path, operation, parameters in operations(spec):
            enums = [
                (parameter, values)
                for parameter in parameters
                if parameter["in"] in ("query", "header", "path")
                and not (parameter["in"] == "header" and parameter["name"].lower() in IGNORED_HEADERS)
                and (values := enum_values(spec, parameter.get("schema"))) is not None
            ]
            if not enums:
                continue
            # The parameters every request of this operation carries: path parameters always,
            # others only when required (an enum-valued one is given its sweep value instead).
            fixed = {}
            unfillable = []
            for parameter in parameters:
                if parameter["in"] == "cookie" or (parameter["in"] == "header" and parameter["name"].lower() in IGNORED_HEADERS):
                    continue
                if parameter["in"] == "path" or parameter.get("required"):
                    value = fill_value(spec, parameter)
                    if value is None:
                        unfillable.append(f"{parameter['in']} parameter {parameter['name']}")
                    else:
                        fixed[(parameter["name"], parameter["in"])] = text(value)
            if unfillable:
                print(f"{me}: skipped GET {path}: no value to give its {', '.join(unfillable)}")
                continue
            swept += 1
            responses = operation.get("responses") or {}
            for parameter, values in enums:
                key = (parameter["name"], parameter["in"])
                for value in values:
                    given = dict(fixed)
                    given[key] = text(value)
                    target = prefix + path
                    query = []
                    headers = {"Authorization": f"Bearer {arguments.token}"}
                    for (name, place), filled in given.items():
                        if place == "path":
                            target = target.replace("{" + name + "}", urllib.parse.quote(filled, safe=""))
                        elif place == "query":
                            query.append((name, filled))
                        else:
                            headers[name] = filled
                    if query:
                        target += "?" + urllib.parse.urlencode(query)
                    status, content_type, body = get(host, port, target, headers, arguments.timeout)
                    requests += 1
                    asked = f"GET {path} {parameter['name']}={text(value)}" + ("" if parameter["in"] == "query" else f" (in the {parameter['in']})")
                    if arguments.verbose:
                        print(f"{me}: {asked}: {status} {media_type(content_type) if content_type else '(no Content-Type)'}")
                    documented = documented_response(spec, responses, status)
                    if documented is None:
                        listed = ", ".join(str(key) for key in responses) or "nothing"
                        disagreements.append(f"{asked}: answered {status}, a status the spec does not document (it documents {listed})")
                        continue
                    content = documented.get("content") or {}
                    if not content:
                        if body:
                            disagreements.append(
                                f"{asked}: answered {status} with a body ({content_type or 'no Content-Type'}), "
                                f"where the spec documents {status} without content")
                        continue
                    allowed = ", ".join(content)
                    if not content_type:
                        disagreements.append(f"{asked}: answered {status} without a Content-Type; for {status} the spec allows {allowed}")
                    elif not any(matches(media_type(content_type), listed) for listed in content):
                        disagreements.append(
                            f"{asked}: answered {status} with Content-Type {media_type(content_type)}, "
                            f"which the spec does not list for {status} (it allows {allowed})")
    except CannotRun as error:
        print(f"{me}: could not run: {error}", file=sys.stderr)
        return 2

    for disagreement in disagreements:
        print(f"{me}: {disagreement}")
    if disagreements:
        print(f"{me}: {len(disagreements)} of {requests} answers disagree with openapi.yaml")
        return 1
    print(f"{me}: {requests} requests, every enum value of {swept} GET operations, each answered as openapi.yaml documents")
    return 0


if __name__ == "__main__":
    # Exit 1 means a disagreement, and only that: a fault of this script's own (an answer it
    # cannot read, a spec it did not expect) is exit 2, "could not run", never a disagreement.
    try:
        sys.exit(main())
    except SystemExit:
        raise
    except BaseException as error:  # noqa: BLE001
        print(f"enum_sweep: could not run: {type(error).__name__}: {error}", file=sys.stderr)
        sys.exit(2)
