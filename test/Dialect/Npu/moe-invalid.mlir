// RUN: npu-opt %s -split-input-file -verify-diagnostics

func.func @logits_rank(%l: tensor<8xf32>) {
  // expected-error @+1 {{logits must have rank 2 ([T, E]), got 1}}
  %i, %w = npu.moe_router %l top_k(2) scoring(softmax) : tensor<8xf32> -> tensor<4x2xi32>, tensor<4x2xf32>
  return
}

// -----

func.func @bias_shape(%l: tensor<4x8xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{bias must have shape [8] (one per expert), got 'tensor<4xf32>'}}
  %i, %w = npu.moe_router %l, %b top_k(2) scoring(sigmoid) : tensor<4x8xf32>, tensor<4xf32> -> tensor<4x2xi32>, tensor<4x2xf32>
  return
}

// -----

func.func @top_k_zero(%l: tensor<4x8xf32>) {
  // expected-error @+1 {{top_k (0) must be in [1, 8], the number of experts}}
  %i, %w = npu.moe_router %l top_k(0) scoring(softmax) : tensor<4x8xf32> -> tensor<4x2xi32>, tensor<4x2xf32>
  return
}

// -----

func.func @top_k_large(%l: tensor<4x8xf32>) {
  // expected-error @+1 {{top_k (9) must be in [1, 8], the number of experts}}
  %i, %w = npu.moe_router %l top_k(9) scoring(softmax) : tensor<4x8xf32> -> tensor<4x9xi32>, tensor<4x9xf32>
  return
}

// -----

func.func @group_top_three(%l: tensor<4x8xf32>) {
  // expected-error @+1 {{group_top must be 1 (a group's best score) or 2 (the sum of its best two), got 3}}
  %i, %w = npu.moe_router %l top_k(2) scoring(softmax) groups(2, 1) group_top(3) : tensor<4x8xf32> -> tensor<4x2xi32>, tensor<4x2xf32>
  return
}

// -----

func.func @group_top_without_groups(%l: tensor<4x8xf32>) {
  // expected-error @+1 {{group_top applies to group-limited routing; give groups(n_group, topk_group)}}
  %i, %w = npu.moe_router %l top_k(2) scoring(softmax) group_top(1) : tensor<4x8xf32> -> tensor<4x2xi32>, tensor<4x2xf32>
  return
}

// -----

func.func @groups_half(%l: tensor<4x8xf32>) {
  // expected-error @+1 {{n_group and topk_group must be given together}}
  %i, %w = "npu.moe_router"(%l) <{n_group = 2 : i64, top_k = 2 : i64, scoring = #npu.scoring<softmax>, scale = 1.0 : f64}> : (tensor<4x8xf32>) -> (tensor<4x2xi32>, tensor<4x2xf32>)
  return
}

// -----

func.func @n_group_divide(%l: tensor<4x8xf32>) {
  // expected-error @+1 {{n_group (3) must be positive and divide the number of experts (8)}}
  %i, %w = npu.moe_router %l top_k(2) scoring(sigmoid) groups(3, 1) : tensor<4x8xf32> -> tensor<4x2xi32>, tensor<4x2xf32>
  return
}

// -----

func.func @n_group_zero(%l: tensor<4x8xf32>) {
  // expected-error @+1 {{n_group (0) must be positive and divide the number of experts (8)}}
  %i, %w = npu.moe_router %l top_k(2) scoring(sigmoid) groups(0, 1) : tensor<4x8xf32> -> tensor<4x2xi32>, tensor<4x2xf32>
  return
}

// -----

func.func @topk_group_large(%l: tensor<4x8xf32>) {
  // expected-error @+1 {{topk_group (5) must be in [1, n_group = 4]}}
  %i, %w = npu.moe_router %l top_k(2) scoring(sigmoid) groups(4, 5) : tensor<4x8xf32> -> tensor<4x2xi32>, tensor<4x2xf32>
  return
}

// -----

func.func @topk_group_zero(%l: tensor<4x8xf32>) {
  // expected-error @+1 {{topk_group (0) must be in [1, n_group = 4]}}
  %i, %w = npu.moe_router %l top_k(2) scoring(sigmoid) groups(4, 0) : tensor<4x8xf32> -> tensor<4x2xi32>, tensor<4x2xf32>
  return
}

// -----

func.func @top_k_kept(%l: tensor<4x8xf32>) {
  // expected-error @+1 {{top_k (3) exceeds the experts of the kept groups (topk_group * E / n_group = 2)}}
  %i, %w = npu.moe_router %l top_k(3) scoring(sigmoid) groups(4, 1) : tensor<4x8xf32> -> tensor<4x3xi32>, tensor<4x3xf32>
  return
}

// -----

func.func @scale_zero(%l: tensor<4x8xf32>) {
  // expected-error @+1 {{scale must be finite and > 0, got 0}}
  %i, %w = npu.moe_router %l top_k(2) scoring(sigmoid) scale(0.0) : tensor<4x8xf32> -> tensor<4x2xi32>, tensor<4x2xf32>
  return
}

// -----

func.func @scale_negative(%l: tensor<4x8xf32>) {
  // expected-error @+1 {{scale must be finite and > 0, got -2.5}}
  %i, %w = npu.moe_router %l top_k(2) scoring(sigmoid) scale(-2.5) : tensor<4x8xf32> -> tensor<4x2xi32>, tensor<4x2xf32>
  return
}

// -----

func.func @scale_inf(%l: tensor<4x8xf32>) {
  // expected-error @+1 {{scale must be finite and > 0, got +Inf}}
  %i, %w = "npu.moe_router"(%l) <{top_k = 2 : i64, scoring = #npu.scoring<softmax>, scale = 0x7FF0000000000000 : f64}> : (tensor<4x8xf32>) -> (tensor<4x2xi32>, tensor<4x2xf32>)
  return
}

// -----

func.func @indices_shape(%l: tensor<4x8xf32>) {
  // expected-error @+1 {{indices result must have shape [T, top_k] = [4, 2], got 'tensor<4x3xi32>'}}
  %i, %w = npu.moe_router %l top_k(2) scoring(softmax) : tensor<4x8xf32> -> tensor<4x3xi32>, tensor<4x2xf32>
  return
}

// -----

func.func @weights_shape(%l: tensor<4x8xf32>) {
  // expected-error @+1 {{weights result must have shape [T, top_k] = [4, 2], got 'tensor<3x2xf32>'}}
  %i, %w = npu.moe_router %l top_k(2) scoring(softmax) : tensor<4x8xf32> -> tensor<4x2xi32>, tensor<3x2xf32>
  return
}

// -----

func.func @weights_type(%l: tensor<4x8xf32>) {
  // expected-error @+1 {{result #1 must be statically shaped tensor of 32-bit float values}}
  %i, %w = npu.moe_router %l top_k(2) scoring(softmax) : tensor<4x8xf32> -> tensor<4x2xi32>, tensor<4x2xbf16>
  return
}

// -----

func.func @indices_type(%l: tensor<4x8xf32>) {
  // expected-error @+1 {{result #0 must be statically shaped tensor of}}
  %i, %w = npu.moe_router %l top_k(2) scoring(softmax) : tensor<4x8xf32> -> tensor<4x2xf32>, tensor<4x2xf32>
  return
}

// -----

func.func @bad_scoring(%l: tensor<4x8xf32>) {
  // expected-error @+1 {{unknown scoring function 'relu' (expected 'softmax' or 'sigmoid')}}
  %i, %w = npu.moe_router %l top_k(2) scoring(relu) : tensor<4x8xf32> -> tensor<4x2xi32>, tensor<4x2xf32>
  return
}
// -----

func.func @x_rank(%x: tensor<1x2x16xf32>, %i: tensor<2x2xi32>, %w: tensor<2x2xf32>, %g: tensor<4x8x16xf32>, %u: tensor<4x8x16xf32>, %d: tensor<4x16x8xf32>) {
  // expected-error @+1 {{x must have rank 2 ([T, D]), got 3}}
  %y = npu.moe_experts %x, %i, %w, %g, %u, %d load(#npu.expert_load<uniform>) : tensor<1x2x16xf32>, tensor<2x2xi32>, tensor<2x2xf32>, tensor<4x8x16xf32>, tensor<4x8x16xf32>, tensor<4x16x8xf32> -> tensor<1x2x16xf32>
  return
}

// -----

func.func @indices_rank(%x: tensor<2x16xf32>, %i: tensor<2xi32>, %w: tensor<2x2xf32>, %g: tensor<4x8x16xf32>, %u: tensor<4x8x16xf32>, %d: tensor<4x16x8xf32>) {
  // expected-error @+1 {{indices must have rank 2 ([T, k]), got 1}}
  %y = npu.moe_experts %x, %i, %w, %g, %u, %d load(#npu.expert_load<uniform>) : tensor<2x16xf32>, tensor<2xi32>, tensor<2x2xf32>, tensor<4x8x16xf32>, tensor<4x8x16xf32>, tensor<4x16x8xf32> -> tensor<2x16xf32>
  return
}

// -----

func.func @indices_rows(%x: tensor<2x16xf32>, %i: tensor<3x2xi32>, %w: tensor<2x2xf32>, %g: tensor<4x8x16xf32>, %u: tensor<4x8x16xf32>, %d: tensor<4x16x8xf32>) {
  // expected-error @+1 {{indices must have T = 2 rows (as x), got 3}}
  %y = npu.moe_experts %x, %i, %w, %g, %u, %d load(#npu.expert_load<uniform>) : tensor<2x16xf32>, tensor<3x2xi32>, tensor<2x2xf32>, tensor<4x8x16xf32>, tensor<4x8x16xf32>, tensor<4x16x8xf32> -> tensor<2x16xf32>
  return
}

// -----

func.func @weights_shape(%x: tensor<2x16xf32>, %i: tensor<2x2xi32>, %w: tensor<2x3xf32>, %g: tensor<4x8x16xf32>, %u: tensor<4x8x16xf32>, %d: tensor<4x16x8xf32>) {
  // expected-error @+1 {{weights must have the shape of indices [2, 2], got 'tensor<2x3xf32>'}}
  %y = npu.moe_experts %x, %i, %w, %g, %u, %d load(#npu.expert_load<uniform>) : tensor<2x16xf32>, tensor<2x2xi32>, tensor<2x3xf32>, tensor<4x8x16xf32>, tensor<4x8x16xf32>, tensor<4x16x8xf32> -> tensor<2x16xf32>
  return
}

// -----

func.func @gate_rank(%x: tensor<2x16xf32>, %i: tensor<2x2xi32>, %w: tensor<2x2xf32>, %g: tensor<8x16xf32>, %u: tensor<4x8x16xf32>, %d: tensor<4x16x8xf32>) {
  // expected-error @+1 {{w_gate must have rank 3 ([E, F, D]), got 2}}
  %y = npu.moe_experts %x, %i, %w, %g, %u, %d load(#npu.expert_load<uniform>) : tensor<2x16xf32>, tensor<2x2xi32>, tensor<2x2xf32>, tensor<8x16xf32>, tensor<4x8x16xf32>, tensor<4x16x8xf32> -> tensor<2x16xf32>
  return
}

// -----

func.func @gate_cols(%x: tensor<2x16xf32>, %i: tensor<2x2xi32>, %w: tensor<2x2xf32>, %g: tensor<4x8x8xf32>, %u: tensor<4x8x8xf32>, %d: tensor<4x16x8xf32>) {
  // expected-error @+1 {{w_gate must have D = 16 columns (as x), got 8}}
  %y = npu.moe_experts %x, %i, %w, %g, %u, %d load(#npu.expert_load<uniform>) : tensor<2x16xf32>, tensor<2x2xi32>, tensor<2x2xf32>, tensor<4x8x8xf32>, tensor<4x8x8xf32>, tensor<4x16x8xf32> -> tensor<2x16xf32>
  return
}

// -----

func.func @up_shape(%x: tensor<2x16xf32>, %i: tensor<2x2xi32>, %w: tensor<2x2xf32>, %g: tensor<4x8x16xf32>, %u: tensor<4x9x16xf32>, %d: tensor<4x16x8xf32>) {
  // expected-error @+1 {{w_up must have the shape of w_gate [4, 8, 16], got 'tensor<4x9x16xf32>'}}
  %y = npu.moe_experts %x, %i, %w, %g, %u, %d load(#npu.expert_load<uniform>) : tensor<2x16xf32>, tensor<2x2xi32>, tensor<2x2xf32>, tensor<4x8x16xf32>, tensor<4x9x16xf32>, tensor<4x16x8xf32> -> tensor<2x16xf32>
  return
}

// -----

func.func @down_shape(%x: tensor<2x16xf32>, %i: tensor<2x2xi32>, %w: tensor<2x2xf32>, %g: tensor<4x8x16xf32>, %u: tensor<4x8x16xf32>, %d: tensor<4x8x16xf32>) {
  // expected-error @+1 {{w_down must have shape [E, D, F] = [4, 16, 8], got 'tensor<4x8x16xf32>'}}
  %y = npu.moe_experts %x, %i, %w, %g, %u, %d load(#npu.expert_load<uniform>) : tensor<2x16xf32>, tensor<2x2xi32>, tensor<2x2xf32>, tensor<4x8x16xf32>, tensor<4x8x16xf32>, tensor<4x8x16xf32> -> tensor<2x16xf32>
  return
}

// -----

func.func @weight_types(%x: tensor<2x16xf32>, %i: tensor<2x2xi32>, %w: tensor<2x2xf32>, %g: tensor<4x8x16xf32>, %u: tensor<4x8x16xbf16>, %d: tensor<4x16x8xf32>) {
  // expected-error @+1 {{w_gate, w_up and w_down must have the same element type, got 'f32', 'bf16', 'f32'}}
  %y = npu.moe_experts %x, %i, %w, %g, %u, %d load(#npu.expert_load<uniform>) : tensor<2x16xf32>, tensor<2x2xi32>, tensor<2x2xf32>, tensor<4x8x16xf32>, tensor<4x8x16xbf16>, tensor<4x16x8xf32> -> tensor<2x16xf32>
  return
}

// -----

func.func @k_large(%x: tensor<2x16xf32>, %i: tensor<2x5xi32>, %w: tensor<2x5xf32>, %g: tensor<4x8x16xf32>, %u: tensor<4x8x16xf32>, %d: tensor<4x16x8xf32>) {
  // expected-error @+1 {{k (5) exceeds the number of experts (4): a token's experts are distinct}}
  %y = npu.moe_experts %x, %i, %w, %g, %u, %d load(#npu.expert_load<uniform>) : tensor<2x16xf32>, tensor<2x5xi32>, tensor<2x5xf32>, tensor<4x8x16xf32>, tensor<4x8x16xf32>, tensor<4x16x8xf32> -> tensor<2x16xf32>
  return
}

// -----

func.func @shared_rank(%x: tensor<2x16xf32>, %i: tensor<2x2xi32>, %w: tensor<2x2xf32>, %g: tensor<4x8x16xf32>, %u: tensor<4x8x16xf32>, %d: tensor<4x16x8xf32>, %sg: tensor<1x6x16xf32>, %su: tensor<6x16xf32>, %sd: tensor<16x6xf32>) {
  // expected-error @+1 {{shared gate weight must have rank 2 ([Fs, D]), got 3}}
  %y = npu.moe_experts %x, %i, %w, %g, %u, %d shared(%sg, %su, %sd) load(#npu.expert_load<uniform>) : tensor<2x16xf32>, tensor<2x2xi32>, tensor<2x2xf32>, tensor<4x8x16xf32>, tensor<4x8x16xf32>, tensor<4x16x8xf32>, tensor<1x6x16xf32>, tensor<6x16xf32>, tensor<16x6xf32> -> tensor<2x16xf32>
  return
}

// -----

func.func @shared_cols(%x: tensor<2x16xf32>, %i: tensor<2x2xi32>, %w: tensor<2x2xf32>, %g: tensor<4x8x16xf32>, %u: tensor<4x8x16xf32>, %d: tensor<4x16x8xf32>, %sg: tensor<6x8xf32>, %su: tensor<6x16xf32>, %sd: tensor<16x6xf32>) {
  // expected-error @+1 {{shared gate weight must have D = 16 columns (as x), got 8}}
  %y = npu.moe_experts %x, %i, %w, %g, %u, %d shared(%sg, %su, %sd) load(#npu.expert_load<uniform>) : tensor<2x16xf32>, tensor<2x2xi32>, tensor<2x2xf32>, tensor<4x8x16xf32>, tensor<4x8x16xf32>, tensor<4x16x8xf32>, tensor<6x8xf32>, tensor<6x16xf32>, tensor<16x6xf32> -> tensor<2x16xf32>
  return
}

// -----

func.func @shared_up(%x: tensor<2x16xf32>, %i: tensor<2x2xi32>, %w: tensor<2x2xf32>, %g: tensor<4x8x16xf32>, %u: tensor<4x8x16xf32>, %d: tensor<4x16x8xf32>, %sg: tensor<6x16xf32>, %su: tensor<7x16xf32>, %sd: tensor<16x6xf32>) {
  // expected-error @+1 {{shared up weight must have the shape of the shared gate weight [6, 16], got 'tensor<7x16xf32>'}}
  %y = npu.moe_experts %x, %i, %w, %g, %u, %d shared(%sg, %su, %sd) load(#npu.expert_load<uniform>) : tensor<2x16xf32>, tensor<2x2xi32>, tensor<2x2xf32>, tensor<4x8x16xf32>, tensor<4x8x16xf32>, tensor<4x16x8xf32>, tensor<6x16xf32>, tensor<7x16xf32>, tensor<16x6xf32> -> tensor<2x16xf32>
  return
}

// -----

func.func @shared_down(%x: tensor<2x16xf32>, %i: tensor<2x2xi32>, %w: tensor<2x2xf32>, %g: tensor<4x8x16xf32>, %u: tensor<4x8x16xf32>, %d: tensor<4x16x8xf32>, %sg: tensor<6x16xf32>, %su: tensor<6x16xf32>, %sd: tensor<6x16xf32>) {
  // expected-error @+1 {{shared down weight must have shape [D, Fs] = [16, 6], got 'tensor<6x16xf32>'}}
  %y = npu.moe_experts %x, %i, %w, %g, %u, %d shared(%sg, %su, %sd) load(#npu.expert_load<uniform>) : tensor<2x16xf32>, tensor<2x2xi32>, tensor<2x2xf32>, tensor<4x8x16xf32>, tensor<4x8x16xf32>, tensor<4x16x8xf32>, tensor<6x16xf32>, tensor<6x16xf32>, tensor<6x16xf32> -> tensor<2x16xf32>
  return
}

// -----

func.func @shared_types(%x: tensor<2x16xf32>, %i: tensor<2x2xi32>, %w: tensor<2x2xf32>, %g: tensor<4x8x16xf32>, %u: tensor<4x8x16xf32>, %d: tensor<4x16x8xf32>, %sg: tensor<6x16xf32>, %su: tensor<6x16xf32>, %sd: tensor<16x6xbf16>) {
  // expected-error @+1 {{the shared expert weights must have the same element type, got 'f32', 'f32', 'bf16'}}
  %y = npu.moe_experts %x, %i, %w, %g, %u, %d shared(%sg, %su, %sd) load(#npu.expert_load<uniform>) : tensor<2x16xf32>, tensor<2x2xi32>, tensor<2x2xf32>, tensor<4x8x16xf32>, tensor<4x8x16xf32>, tensor<4x16x8xf32>, tensor<6x16xf32>, tensor<6x16xf32>, tensor<16x6xbf16> -> tensor<2x16xf32>
  return
}

// -----

func.func @result_type(%x: tensor<2x16xf32>, %i: tensor<2x2xi32>, %w: tensor<2x2xf32>, %g: tensor<4x8x16xf32>, %u: tensor<4x8x16xf32>, %d: tensor<4x16x8xf32>) {
  // expected-error @+1 {{result must have the type of x ('tensor<2x16xf32>'), got 'tensor<2x16xbf16>'}}
  %y = npu.moe_experts %x, %i, %w, %g, %u, %d load(#npu.expert_load<uniform>) : tensor<2x16xf32>, tensor<2x2xi32>, tensor<2x2xf32>, tensor<4x8x16xf32>, tensor<4x8x16xf32>, tensor<4x16x8xf32> -> tensor<2x16xbf16>
  return
}

// -----

func.func @histogram_len(%x: tensor<2x16xf32>, %i: tensor<2x2xi32>, %w: tensor<2x2xf32>, %g: tensor<4x8x16xf32>, %u: tensor<4x8x16xf32>, %d: tensor<4x16x8xf32>) {
  // expected-error @+1 {{expert load histogram has 3 weights, expected one per expert (4)}}
  %y = npu.moe_experts %x, %i, %w, %g, %u, %d load(#npu.expert_load<histogram [1.0, 1.0, 2.0]>) : tensor<2x16xf32>, tensor<2x2xi32>, tensor<2x2xf32>, tensor<4x8x16xf32>, tensor<4x8x16xf32>, tensor<4x16x8xf32> -> tensor<2x16xf32>
  return
}

// -----

func.func @load_kind(%x: tensor<2x16xf32>, %i: tensor<2x2xi32>, %w: tensor<2x2xf32>, %g: tensor<4x8x16xf32>, %u: tensor<4x8x16xf32>, %d: tensor<4x16x8xf32>) {
  // expected-error @+1 {{expected an #npu.expert_load attribute, got 4 : i64}}
  %y = npu.moe_experts %x, %i, %w, %g, %u, %d load(4) : tensor<2x16xf32>, tensor<2x2xi32>, tensor<2x2xf32>, tensor<4x8x16xf32>, tensor<4x8x16xf32>, tensor<4x16x8xf32> -> tensor<2x16xf32>
  return
}

// -----

func.func @indices_float(%x: tensor<2x16xf32>, %i: tensor<2x2xf32>, %w: tensor<2x2xf32>, %g: tensor<4x8x16xf32>, %u: tensor<4x8x16xf32>, %d: tensor<4x16x8xf32>) {
  // expected-error @+1 {{operand #1 must be statically shaped tensor of}}
  %y = npu.moe_experts %x, %i, %w, %g, %u, %d load(#npu.expert_load<uniform>) : tensor<2x16xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<4x8x16xf32>, tensor<4x8x16xf32>, tensor<4x16x8xf32> -> tensor<2x16xf32>
  return
}

// -----

func.func @shared_partial(%x: tensor<2x16xf32>, %i: tensor<2x2xi32>, %w: tensor<2x2xf32>, %g: tensor<4x8x16xf32>, %u: tensor<4x8x16xf32>, %d: tensor<4x16x8xf32>, %sg: tensor<6x16xf32>, %su: tensor<6x16xf32>) {
  // expected-error @+1 {{shared experts need all three weights (gate, up, down)}}
  %y = "npu.moe_experts"(%x, %i, %w, %g, %u, %d, %sg, %su) <{load = #npu.expert_load<uniform>, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0>}> : (tensor<2x16xf32>, tensor<2x2xi32>, tensor<2x2xf32>, tensor<4x8x16xf32>, tensor<4x8x16xf32>, tensor<4x16x8xf32>, tensor<6x16xf32>, tensor<6x16xf32>) -> tensor<2x16xf32>
  return
}

// -----

func.func @expert_bias_shape(%x: tensor<2x16xf32>, %i: tensor<2x2xi32>, %w: tensor<2x2xf32>, %g: tensor<4x8x16xf32>, %u: tensor<4x8x16xf32>, %d: tensor<4x16x8xf32>, %bg: tensor<4x8xf32>, %bd: tensor<4x8xf32>) {
  // expected-error @+1 {{expert biases must be [E, F], [E, F], [E, D] = [4, 8], [4, 8], [4, 16]}}
  %y = npu.moe_experts %x, %i, %w, %g, %u, %d biases(%bg, %bg, %bd) load(#npu.expert_load<uniform>) : tensor<2x16xf32>, tensor<2x2xi32>, tensor<2x2xf32>, tensor<4x8x16xf32>, tensor<4x8x16xf32>, tensor<4x16x8xf32> biases tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32> -> tensor<2x16xf32>
  return
}

// -----

func.func @swiglu_limit_negative(%x: tensor<2x16xf32>, %i: tensor<2x2xi32>, %w: tensor<2x2xf32>, %g: tensor<4x8x16xf32>, %u: tensor<4x8x16xf32>, %d: tensor<4x16x8xf32>) {
  // expected-error @+1 {{swiglu_limit must be finite and > 0, got -7}}
  %y = npu.moe_experts %x, %i, %w, %g, %u, %d swiglu_limit(-7.0) load(#npu.expert_load<uniform>) : tensor<2x16xf32>, tensor<2x2xi32>, tensor<2x2xf32>, tensor<4x8x16xf32>, tensor<4x8x16xf32>, tensor<4x16x8xf32> -> tensor<2x16xf32>
  return
}
