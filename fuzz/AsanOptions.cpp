//===- AsanOptions.cpp - sanitizer defaults of the npu fuzzers ------------===//
//
// Linked into every fuzzer; the variables ASAN_OPTIONS / UBSAN_OPTIONS still
// override these.
//
// allow_user_poisoning=0: llvm::BumpPtrAllocator poisons its free space when
// compiled with ASan (llvm/Support/Allocator.h). Our instrumented code
// instantiates that header and the linker keeps its copy, but the
// uninstrumented, gcc-built MLIR libraries then write into the slab through
// their own inlined Allocate, which never unpoisons: a false
// use-after-poison in mlir::Dialect::addType on the first MLIRContext. With
// user poisoning off, ASan still checks every heap block, only the
// allocator's own red zones are not checked.
//
// print_stacktrace=1: UBSan reports with the stack that led to them.
//
//===----------------------------------------------------------------------===//

extern "C" const char *__asan_default_options() {
  return "allow_user_poisoning=0";
}

extern "C" const char *__ubsan_default_options() {
  return "print_stacktrace=1";
}
