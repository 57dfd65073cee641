// npu-bufferize (issue 29): one-shot module bufferization with the globals set
// aside and a fanned-out, read-only argument read through one buffer. It must
// give the program plain one-shot bufferization gives (diffed below, for this
// chain and for a whole model with globals and layer calls), in time linear in
// layers and kernels (docs/benchmarks.md).
//
// RUN: npu-opt %s --npu-tpu-pipeline="target=tpu-v7 fusion=none" -o %t.tiled.mlir
// RUN: npu-opt %t.tiled.mlir --npu-tile-kernels=mark-kernels=true --npu-lower-to-linalg --canonicalize --npu-bufferize | FileCheck %s
// RUN: npu-opt %t.tiled.mlir --npu-tile-kernels=mark-kernels=true --npu-lower-to-linalg --canonicalize --npu-bufferize -o %t.new.mlir
// RUN: npu-opt %t.tiled.mlir --npu-tile-kernels=mark-kernels=true --npu-lower-to-linalg --canonicalize \
// RUN:   --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" -o %t.old.mlir
// RUN: diff %t.old.mlir %t.new.mlir
// RUN: npu-translate --import-hf-config %S/../System/Inputs/tiny-llama.json --phase=prefill --seq-len=64 \
// RUN:   | npu-opt --npu-tpu-pipeline="target=tpu-v7" -o %t.model.mlir
// RUN: npu-opt %t.model.mlir --npu-weights-to-globals --npu-tile-kernels=mark-kernels=true --npu-lower-to-linalg --canonicalize --npu-bufferize -o %t.model.new.mlir
// RUN: npu-opt %t.model.mlir --npu-weights-to-globals --npu-tile-kernels=mark-kernels=true --npu-lower-to-linalg --canonicalize \
// RUN:   --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" -o %t.model.old.mlir
// RUN: diff %t.model.old.mlir %t.model.new.mlir
// RUN: FileCheck %s --check-prefix=MODEL < %t.model.new.mlir

// %b is read by every kernel: each tile reads a view of its buffer in place,
// no copy of it and no bridge op left.
// CHECK-LABEL: func.func @chain(%arg0: memref<256x2048xbf16>, %arg1: memref<256x2048xbf16>
// CHECK-NOT: bufferization.
// CHECK-COUNT-3: memref.subview %arg1[
// CHECK-NOT: memref.copy %arg1

// %c is also returned (not only read): left to the plain analysis. The
// global between the two functions stays between them.
// CHECK: memref.global "private" constant @table
// CHECK-LABEL: func.func @returned(
// CHECK-NOT: bufferization.

// The weights' globals stay first, in order of first use; the layer calls
// bufferized across the function boundary.
// MODEL: memref.global constant @model.embed_tokens.weight
// MODEL: memref.global constant @model.layers.0.input_layernorm.weight
// MODEL: func.func @model(
// MODEL: call @llama_layer({{.*}}) {{.*}}: (memref<

func.func @chain(%a: tensor<256x2048xbf16>, %b: tensor<256x2048xbf16>) -> tensor<256x2048xbf16> {
  %x0 = npu.add %a, %b : tensor<256x2048xbf16>, tensor<256x2048xbf16>
  %x1 = npu.add %x0, %b : tensor<256x2048xbf16>, tensor<256x2048xbf16>
  %x2 = npu.add %x1, %b : tensor<256x2048xbf16>, tensor<256x2048xbf16>
  return %x2 : tensor<256x2048xbf16>
}

// A global between functions stays there.
memref.global "private" constant @table : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>

func.func @returned(%a: tensor<256x2048xbf16>, %c: tensor<256x2048xbf16>) -> (tensor<256x2048xbf16>, tensor<256x2048xbf16>) {
  %x0 = npu.add %a, %c : tensor<256x2048xbf16>, tensor<256x2048xbf16>
  %x1 = npu.add %x0, %c : tensor<256x2048xbf16>, tensor<256x2048xbf16>
  return %x1, %c : tensor<256x2048xbf16>, tensor<256x2048xbf16>
}
