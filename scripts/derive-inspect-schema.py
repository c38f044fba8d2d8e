#!/usr/bin/env python3
"""Derive the JSON schema inspectlog's exports are validated against from inspect_ai's
published OpenAPI document (src/inspect_ai/_view/inspect-openapi.json, MIT
licence): the EvalLog component and every component it reaches, as a JSON
Schema 2020-12 document with $defs, and additionalProperties false on every
object that lists its properties (inspect ignores unknown fields; the test
refuses them, so a misspelt field name fails). EvalSampleSummary (the
summaries of an .eval log, which no EvalLog field reaches) is kept too.

  git show 499e6152e7b8:src/inspect_ai/_view/inspect-openapi.json > inspect-openapi.json
  python3 scripts/derive-inspect-schema.py inspect-openapi.json 499e6152e7b8 \
    > internal/logschema/testdata/inspect_eval_log.schema.json
"""
import json
import sys

doc = json.load(open(sys.argv[1]))
comps = doc["components"]["schemas"]
PREFIX = "#/components/schemas/"


def refs(node, out):
    if isinstance(node, dict):
        r = node.get("$ref")
        if isinstance(r, str) and r.startswith(PREFIX):
            out.add(r[len(PREFIX):])
        for v in node.values():
            refs(v, out)
    elif isinstance(node, list):
        for v in node:
            refs(v, out)


reach, todo = set(), ["EvalLog", "EvalSampleSummary"]
while todo:
    name = todo.pop()
    if name in reach:
        continue
    reach.add(name)
    found = set()
    refs(comps[name], found)
    todo.extend(found - reach)


def rewrite(node):
    if isinstance(node, dict):
        out = {}
        for k, v in node.items():
            if k == "$ref" and isinstance(v, str) and v.startswith(PREFIX):
                out[k] = "#/$defs/" + v[len(PREFIX):]
            elif k == "discriminator":
                continue  # an OpenAPI keyword: the oneOf/anyOf it annotates still decides
            else:
                out[k] = rewrite(v)
        if "properties" in out and "additionalProperties" not in out and out.get("type") == "object":
            out["additionalProperties"] = False
        return out
    if isinstance(node, list):
        return [rewrite(v) for v in node]
    return node


schema = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$comment": "Derived from inspect_ai's src/inspect_ai/_view/inspect-openapi.json (MIT) at commit "
    + sys.argv[2]
    + " by scripts/derive-inspect-schema.py",
    "$ref": "#/$defs/EvalLog",
    "$defs": {name: rewrite(comps[name]) for name in sorted(reach)},
}
json.dump(schema, sys.stdout, indent=1, sort_keys=True)
sys.stdout.write("\n")
