//===- Passes.td - passes on npu graph IR ---------------------------------===//

#ifndef NPU_DIALECT_NPU_TRANSFORMS_PASSES_TD
#define NPU_DIALECT_NPU_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def NpuReportWork : Pass<"npu-report-work", "ModuleOp"> {
  let summary = "Print the work (FLOPs by kind, bytes, parameter bytes) of every op";
  let description = [{
    Walks every function and prints, for each op that implements
    `NpuWorkOpInterface`, its matrix, vector and transcendental FLOPs, the
    minimum bytes it reads and writes, and its parameter bytes; then the
    totals per function. The numbers are exact integers so that they can be
    checked by hand (docs/work.md gives each op's formula).

    `format=text` prints an aligned table, `format=json` one JSON object
    (schema in docs/work.md). The report goes to stdout, the IR is left
    unchanged; use `-o /dev/null` to see only the report.

    A count that does not fit in 64 bits is an error at the op, and the pass
    fails without printing a partial report.

    ```
    npu-opt examples/llama3-8b-layer.mlir --npu-report-work -o /dev/null
    ```
  }];
  let options = [
    Option<"format", "format", "std::string", /*default=*/"\"text\"",
           "Output format: 'text' (a table) or 'json'">,
  ];
}

def NpuReportBill : Pass<"npu-report-bill", "ModuleOp"> {
  let summary = "Print the bill of a model on a chip: bytes, FLOPs, roofline, fit";
  let description = [{
    For a module (typically imported by `npu-translate --import-hf-config`,
    whose `@model` calls one function per layer kind) and a target from
    `npu-target/`, prints per op, per layer and for the whole step:

    * parameter bytes (distinct `npu.weight`s), activation bytes and the peak
      of live activations, KV-cache bytes per token and in total;
    * FLOPs by kind, with the attention core (QK^T and PV) apart from the
      linear layers;
    * arithmetic intensity (FLOP per byte moved), the roofline lower bound on
      time (each op alone: max of compute time at the dtype's peak and memory
      time at HBM bandwidth) and whether the op is compute- or memory-bound;
    * whether parameters + KV cache + peak activations fit in one chip's HBM,
      and the minimum number of chips otherwise.

    The formulas are in docs/accounting.md, with a worked DeepSeek-V3
    example. `format=json` prints the same numbers (exact integers) with the
    schema `npu-bill/1` documented there. The IR is left unchanged.

    ```
    npu-translate --import-hf-config examples/configs/deepseek-v3.json \
        --phase=decode --batch=64 --context-len=4096 |
      npu-opt --npu-report-bill="target=h200" -o /dev/null
    ```
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"h100\"",
           "Target name (a file in npu-target/) or path to a target file">,
    Option<"format", "format", "std::string", /*default=*/"\"text\"",
           "Output format: 'text' (tables) or 'json'">,
  ];
}

#endif // NPU_DIALECT_NPU_TRANSFORMS_PASSES_TD
