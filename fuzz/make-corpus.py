#!/usr/bin/env python3
"""Builds the seed corpora and dictionaries of the npu fuzzers.

    fuzz/make-corpus.py OUT_DIR [--translate PATH/TO/npu-translate]

Writes only what cannot be read from the tree as is; scripts/fuzz.sh passes
the tree's own directories (npu-target/, test/Target/, examples/configs/,
test/Import/Inputs/) to libFuzzer directly as extra seed directories.

OUT_DIR/seeds/mlir/    one file per `// -----` split of test/**/*.mlir, with
                       the comment lines (RUN, CHECK, expected-error) removed:
                       the parser sees the pieces, not the whole file.
                       With --translate, also the tiny models below imported
                       (prefill and decode): whole npu graphs with calls.
OUT_DIR/seeds/config/  tiny versions of examples/configs/*.json (2 layers,
                       small sizes): the real configs have 12 to 61 layers,
                       more than npu-fuzz-import imports.
OUT_DIR/dict/mlir.dict    npu op and attribute mnemonics, keywords of the npu
                          assembly formats (from the .td files), MLIR tokens.
OUT_DIR/dict/target.dict  every key of npu-target/*.json, and JSON tokens.
OUT_DIR/dict/config.dict  every config.json key the importer reads.
OUT_DIR/seeds/calls/      byte-encoded call graphs for npu-fuzz-calls.
OUT_DIR/seeds/options/    option lines for npu-fuzz-compare-options.
OUT_DIR/dict/options.dict, calls.dict  their tokens.
"""

import argparse
import json
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent

# Per model family: the fields that make a tiny model (every constraint of
# HFConfigParse.cpp holds: heads divide hidden, KV heads divide heads, the
# DeepSeek-V3 groups divide the experts...).
TINY = {
    "llama": dict(hidden_size=64, intermediate_size=128, num_attention_heads=4,
                  num_key_value_heads=2, num_hidden_layers=2, vocab_size=256,
                  max_position_embeddings=512),
    "gpt2": dict(n_embd=64, n_head=4, n_layer=2, vocab_size=256,
                 n_positions=64, n_ctx=64),
    "deepseek_v3": dict(hidden_size=64, intermediate_size=128,
                        moe_intermediate_size=32, num_attention_heads=4,
                        num_key_value_heads=4, num_hidden_layers=2,
                        first_k_dense_replace=1, n_routed_experts=8,
                        n_group=2, topk_group=1, num_experts_per_tok=2,
                        kv_lora_rank=16, q_lora_rank=32, qk_rope_head_dim=8,
                        qk_nope_head_dim=16, v_head_dim=16, vocab_size=256,
                        max_position_embeddings=512),
}
# The other types, from the same small sizes.
_LLAMA = TINY["llama"]
TINY.update({
    "mistral": dict(_LLAMA, sliding_window=16),
    "mixtral": dict(_LLAMA, num_local_experts=4, num_experts_per_tok=2),
    "qwen2": dict(_LLAMA, max_window_layers=1),
    "qwen3": dict(_LLAMA, head_dim=16, max_window_layers=1),
    "qwen3_moe": dict(_LLAMA, head_dim=16, max_window_layers=1, num_experts=8,
                      num_experts_per_tok=2, moe_intermediate_size=32),
    "phi3": dict(_LLAMA, num_key_value_heads=4, sliding_window=16,
                 original_max_position_embeddings=512),
    "gpt_oss": dict(_LLAMA, intermediate_size=64, head_dim=16, sliding_window=8,
                    num_local_experts=4, num_experts_per_tok=2,
                    experts_per_token=2,
                    layer_types=["sliding_attention", "full_attention"]),
    "gemma2": dict(_LLAMA, head_dim=16, query_pre_attn_scalar=16,
                   sliding_window=8),
    "gemma3_text": dict(_LLAMA, head_dim=16, query_pre_attn_scalar=16,
                        sliding_window=8, sliding_window_pattern=2),
    # Four layers: RoPE/NoPE and dense/MoE kinds, chunks of 2 positions.
    "llama4_text": dict(_LLAMA, num_hidden_layers=4, intermediate_size=32,
                        intermediate_size_mlp=64, head_dim=16,
                        num_local_experts=4, attention_chunk_size=2,
                        floor_scale=2, moe_layers=[1, 3],
                        no_rope_layers=[1, 1, 1, 0]),
    "kimi_k2": dict(TINY["deepseek_v3"], n_group=1, topk_group=1),
    "deepseek_v2": {k: v for k, v in TINY["deepseek_v3"].items()
                    if k != "q_lora_rank"},
})

MLIR_TOKENS = [
    "func.func", "func.call", "return", "module", "private", "tensor<",
    "x", "xf32>", "xbf16>", "xf16>", "xf8E4M3FN>", "xi64>", "xi32>", "index",
    "->", ":", ",", "(", ")", "{", "}", "<", ">", "[", "]", "=", "%arg0",
    "%0", "@f", "#npu.", "dense<", "arith.constant", "true", "false",
    "attributes", "loc(", "0x7FF0000000000000", "1.0e+300", "-1",
    "1099511627776", "9223372036854775807", "18446744073709551615",
    "{npu.param}", "npu.model", "batch", "seq_len", "context_len", "phase",
    "\"decode\"", "\"prefill\"", ": i64", ": i128", ": ui64", ": si32",
]


def split_mlir(path):
    """The `// -----` pieces of a test file, without comment lines."""
    text = path.read_text()
    for piece in re.split(r"^// -----\s*$", text, flags=re.M):
        lines = [l for l in piece.splitlines()
                 if not l.lstrip().startswith("//")]
        body = "\n".join(lines).strip()
        if body:
            yield body + "\n"


def td_words():
    """Op and attribute mnemonics and assembly keywords of the npu .td files."""
    words = set()
    for td in (ROOT / "include/npu/Dialect/Npu/IR").glob("*.td"):
        text = td.read_text()
        words.update("npu." + m for m in re.findall(r'Npu_Op<"(\w+)"', text))
        words.update("#npu." + m
                     for m in re.findall(r'mnemonic = "(\w+)"', text))
        words.update(re.findall(r"`(\w+)`", text))
    return words


def write_dict(path, words):
    with open(path, "w") as f:
        for w in sorted(set(words)):
            f.write(json.dumps(w) + "\n")  # a JSON string is a valid entry


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out", type=pathlib.Path)
    ap.add_argument("--translate", help="npu-translate, to import seeds")
    args = ap.parse_args()
    mlir, config, dicts = (args.out / "seeds/mlir", args.out / "seeds/config",
                           args.out / "dict")
    for d in (mlir, config, dicts):
        d.mkdir(parents=True, exist_ok=True)

    count = 0
    for path in sorted((ROOT / "test").rglob("*.mlir")):
        stem = "-".join(path.relative_to(ROOT / "test").with_suffix("").parts)
        for i, piece in enumerate(split_mlir(path)):
            (mlir / f"{stem}.{i}.mlir").write_text(piece)
            count += 1

    config_keys = set()
    for path in sorted((ROOT / "examples/configs").glob("*.json")):
        cfg = json.loads(path.read_text())
        config_keys.update(cfg)
        if cfg["model_type"] == "llama4":  # the decoder is its text_config
            tiny = dict(cfg, text_config=dict(cfg["text_config"],
                                              **TINY["llama4_text"]))
        else:
            tiny = dict(cfg, **TINY[cfg["model_type"]])
        out = config / f"tiny-{path.name}"
        out.write_text(json.dumps(tiny, indent=2) + "\n")
        for phase in ("prefill", "decode") if args.translate else ():
            res = subprocess.run(
                [args.translate, "--import-hf-config", str(out),
                 f"--phase={phase}", "--seq-len=3", "--context-len=5"],
                capture_output=True, text=True)
            if res.returncode != 0:
                sys.exit(f"importing {out} failed:\n{res.stderr}")
            (mlir / f"import-{path.stem}-{phase}.mlir").write_text(res.stdout)
            count += 1

    for src in ("HFConfigParse.cpp", "HFConfigLlama4.cpp"):
        parse_src = (ROOT / "lib/npu/Import" / src).read_text()
        config_keys.update(re.findall(r'r\.\w+\("(\w+)"', parse_src))
    target_keys = set()
    for path in (ROOT / "npu-target").glob("*.json"):
        obj = json.loads(path.read_text())
        interconnect = obj.get("interconnect", {})
        for section in (obj, obj.get("tpu", {}), obj.get("gpu", {}),
                        obj.get("sources", {}), interconnect,
                        interconnect.get("scale_up", {})):
            target_keys.update(section)
    # System files (npu-target/systems/*.json): their keys and chip names.
    for path in (ROOT / "npu-target/systems").glob("*.json"):
        obj = json.loads(path.read_text())
        target_keys.update(obj)
        target_keys.update(k for axis in obj.get("axes", []) for k in axis)
        target_keys.update([obj["chip"], "scale_up", "scale_out", "torus",
                            "switch"])
    # Sweep specs (npu-fuzz-sweep): their keys and value forms.
    target_keys.update(["workloads", "targets", "vary", "base", "config",
                        "phase", "batch", "seq_len", "context_len",
                        "weights", "prefill", "decode", "32MiB", "1.5G"])
    json_tokens = ["{", "}", "[", "]", ":", ",", "null", "true", "false",
                   "-0", "1e308", "1e-308", "4.9e-324", "9007199254740993",
                   "9223372036854775807", "9223372036854775808",
                   "-9223372036854775808", "NaN", "\\u0000"]
    write_dict(dicts / "mlir.dict", MLIR_TOKENS + sorted(td_words()))
    write_dict(dicts / "target.dict",
               [f'"{k}"' for k in target_keys] + json_tokens +
               ['"tpu"', '"gpu"'])
    write_dict(dicts / "config.dict",
               [f'"{k}"' for k in config_keys] + json_tokens +
               ['"llama"', '"gpt2"', '"deepseek_v3"', '"sigmoid"',
                '"softmax"', '"silu"', '"gelu_new"'])
    write_dict(dicts / "options.dict",
               ["uniform", "zipf:", "hot:", "longtail:", "list:", ":", ",",
                "cost", "none", "1099511627776", "1099511627777",
                "0", "-1", "1e308", "nan", "inf", "18446744073709551615"])
    # libFuzzer's dictionary escapes are \xAB (not JSON's \u00AB).
    (dicts / "calls.dict").write_text('"\\xFF"\n"\\x00"\n"\\x04"\n')

    # npu-fuzz-calls: byte graphs (N, then per function matmuls, call
    # sites, callees): nested calls, a cycle, a self call, a diamond, and
    # chains around the depth limit.
    calls = args.out / "seeds/calls"
    calls.mkdir(parents=True, exist_ok=True)
    graphs = {
        "nested": [2, 0, 2, 1, 1, 0, 2, 2, 2, 0],
        "cycle": [2, 0, 1, 1, 0, 1, 0],
        "self": [0, 0, 1, 0],
        "diamond": [3, 0, 2, 1, 2, 0, 1, 3, 1, 3, 2, 0],
        "chain-at-limit": [0xFF, 24],
        "chain-past-limit": [0xFF, 25],
    }
    for name, data in graphs.items():
        (calls / name).write_bytes(bytes(data))

    # npu-fuzz-compare-options: module byte, --moe-load, --capacity-factor,
    # --seed, --decode-lengths, --decode-buckets, --fusion (one per line).
    options = args.out / "seeds/options"
    options.mkdir(parents=True, exist_ok=True)
    seeds = {
        "moe": "0\nuniform,zipf:1.2,hot:0.5\n1.25\n1\n\n\ncost",
        "moe-compare": "1\nzipf:1.5\n1.0\n3\n\n\nnone",
        "decode": "1\n\n\n7\nuniform:1:256,longtail:64:256\n\ncost",
        "decode-buckets": "5\n\n\n1\nlist:1:100:200:256\n16,64,256\ncost",
        "latent": "2\n\n\n1\nuniform:1:1099511627776,longtail:16:64:0.5\n\n",
        "gemm": "3\n\n\n\n\n\nnone",
    }
    for name, text in seeds.items():
        (options / name).write_text(text)
    # npu-fuzz-serve: a cost table, a line "%%", a CSV trace.
    serve = args.out / "seeds/serve"
    serve.mkdir(parents=True, exist_ok=True)
    inputs = ROOT / "test/Serve/Inputs"
    for table in sorted(inputs.glob("*.json")):
        for trace in sorted(inputs.glob("*.csv")):
            (serve / f"{table.stem}-{trace.stem}").write_text(
                table.read_text() + "\n%%\n" + trace.read_text())
    write_dict(dicts / "serve.dict",
               ['"npu-serve-costs/1"', '"prefill"', '"decode"', '"batch"',
                '"length"', '"total_ns"', '"attention_ns"', '"hbm_bytes"',
                '"weight_bytes"', '"activation_bytes"',
                '"kv_bytes_per_token"', '"link_bytes_per_s"', '"kind"',
                '"tpu"', '"gpu"', "%%", ",", "1e18", "1e19",
                "1099511627776", "0.000001"] + json_tokens)
    print(f"{count} MLIR seeds, {len(TINY)} tiny configs, dictionaries in "
          f"{dicts}")


if __name__ == "__main__":
    main()
