"""Prints 'valid JSON' and the document's strings (ASCII-escaped) if the file
is UTF-8 JSON; exits 1 otherwise."""
import json
import sys

with open(sys.argv[1], "rb") as f:
    raw = f.read()
try:
    doc = json.loads(raw.decode("utf-8"))
except (UnicodeDecodeError, ValueError) as e:
    print("invalid JSON: %s" % e)
    sys.exit(1)
print("valid JSON " + json.dumps(doc, ensure_ascii=True))
