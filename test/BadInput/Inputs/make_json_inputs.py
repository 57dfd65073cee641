"""Writes the hostile JSON inputs of json-input.test into a folder: target
files and configs with a repeated key, nesting past the limit, sizes at and
past the limit, and a target whose rate is tiny enough to make a time
non-finite."""
import json, os, sys

out = sys.argv[1]
src = sys.argv[2]  # the source tree
LIMIT = 4 << 20    # kMaxJsonBytes
DEPTH = 64         # kMaxJsonDepth

def text(path):
    with open(path) as f:
        return f.read()

def write(name, s):
    with open(os.path.join(out, name), "w") as f:
        f.write(s)

tpu = text(os.path.join(src, "npu-target", "tpu-v7.json"))
llama = text(os.path.join(src, "examples", "configs", "llama-3-8b.json"))

def rename(s, name):
    return s.replace('"name": "tpu-v7"', '"name": "%s"' % name)

# A key given twice: the second would silently win.
write("dup.json", rename(tpu, "dup").replace(
    '"clock_hz": 2.2e9,', '"clock_hz": 2.2e9,\n  "clock_hz": 1.1e9,'))
write("dup-config.json", llama.replace(
    '"num_hidden_layers": 32,', '"num_hidden_layers": 32,\n  "num_hidden_layers": 2,'))
# The same key in two objects is no duplicate.
write("nested-same-key.json", llama.replace(
    '"torch_dtype": "bfloat16",',
    '"torch_dtype": "bfloat16",\n  "extra": {"torch_dtype": 1},'))

# Nesting: DEPTH levels in all (the top object is one) parse; one more fails.
def nest(levels):
    return "[" * levels + "]" * levels
write("deep.json", rename(tpu, "deep").replace(
    '"description":', '"x": %s,\n  "description":' % nest(100000)))
write("deep-config.json", llama.replace(
    '"torch_dtype":', '"extra": %s,\n  "torch_dtype":' % nest(DEPTH)))
write("at-depth-config.json", llama.replace(
    '"torch_dtype":', '"extra": %s,\n  "torch_dtype":' % nest(DEPTH - 1)))

# Size: exactly the limit is read; one byte more is not.
pad = LIMIT - len(llama.encode())
write("at-size-config.json", llama + " " * pad)
write("over-size-config.json", llama + " " * (pad + 1))

# A rate of 1e-300 FLOP/s makes a time of inf seconds.
t = json.loads(tpu)
t["name"] = "tiny"
t["peak_fp32_flop_per_s"] = 1e-300
write("tiny.json", json.dumps(t, indent=1))
