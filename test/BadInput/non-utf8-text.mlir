// Class: text that is not UTF-8. MLIR strings may hold any bytes ("\FF"):
// a function name, a location's file and an npu.model string here. The
// input is valid, so it is compiled; every JSON report stays valid JSON
// (invalid sequences become U+FFFD) instead of carrying the raw bytes (and,
// in a build with assertions, as the fuzz smoke run's, aborting in
// llvm::json: the fuzzer found it; a release build replaces them silently).
// RUN: npu-opt %s --npu-report-bill="format=json target=tpu-v7" -o /dev/null > %t.bill.json
// RUN: %python %S/check_json.py %t.bill.json | FileCheck %s --check-prefix=BILL
// RUN: npu-opt %s --npu-report-work=format=json -o /dev/null > %t.work.json
// RUN: %python %S/check_json.py %t.work.json | FileCheck %s --check-prefix=WORK
// RUN: npu-opt %s --npu-tpu-pipeline=target=tpu-v7 --npu-report-cost=format=json -o /dev/null > %t.cost.json
// RUN: %python %S/check_json.py %t.cost.json | FileCheck %s --check-prefix=COST
// RUN: npu-compare %s --format=json -o %t.cmp.json
// RUN: %python %S/check_json.py %t.cmp.json | FileCheck %s --check-prefix=CMP
// BILL: valid JSON
// BILL-SAME: mo\ufffddel
// BILL-SAME: dec\ufffdode
// WORK: valid JSON
// WORK-SAME: mo\ufffddel
// WORK-SAME: f\ufffd.py
// COST: valid JSON
// COST-SAME: mo\ufffddel
// CMP: valid JSON
// CMP-SAME: mo\ufffddel
module attributes {npu.model = {phase = "dec\FFode"}} {
  func.func @"mo\FFdel"(%a: tensor<256x512xbf16>, %b: tensor<512x256xbf16>) -> tensor<256x256xbf16> {
    %0 = npu.matmul %a, %b : tensor<256x512xbf16>, tensor<512x256xbf16> -> tensor<256x256xbf16> loc("f\FF.py":3:4)
    return %0 : tensor<256x256xbf16>
  }
}
