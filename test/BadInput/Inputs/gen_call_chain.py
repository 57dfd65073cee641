import sys
n=int(sys.argv[1]); rec=len(sys.argv)>2
T="tensor<64x128xbf16>"; R="tensor<64x64xbf16>"
print(f"func.func @f{n}(%x: {T}, %w: {T}) -> {R} {{\n  %0 = npu.matmul %x, %w transpose_rhs : {T}, {T} -> {R}\n  return %0 : {R}\n}}")
for i in range(n-1,-1,-1):
    callee = i+1
    print(f"func.func @f{i}(%x: {T}, %w: {T}) -> {R} {{\n  %0 = func.call @f{callee}(%x, %w) : ({T}, {T}) -> {R}\n  return %0 : {R}\n}}")
