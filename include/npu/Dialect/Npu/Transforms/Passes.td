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

#endif // NPU_DIALECT_NPU_TRANSFORMS_PASSES_TD
