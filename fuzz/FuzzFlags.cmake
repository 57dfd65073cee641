# Compiler flags of the fuzz build (NPU_ENABLE_FUZZERS=ON), included from the
# top-level CMakeLists.txt before any npu code is added, so that every npu
# library, tool and fuzzer is compiled the same way:
#   - coverage instrumentation for libFuzzer (-fsanitize=fuzzer-no-link; only
#     the fuzzer executables link libFuzzer itself, fuzz/CMakeLists.txt);
#   - AddressSanitizer and UndefinedBehaviorSanitizer, every report fatal so
#     that libFuzzer records it as a crash;
#   - assertions on in npu code (-UNDEBUG): LLVM's cast<> and our own asserts
#     become checks. MLIR and LLVM themselves are Debian's release libraries
#     (gcc-built, no assertions, not instrumented); they link with clang
#     objects because both use libstdc++.
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "NPU_ENABLE_FUZZERS needs clang and libFuzzer: configure "
    "with CC=clang-22 CXX=clang++-22 (scripts/fuzz.sh does)")
endif()

set(NPU_SANITIZERS "address,undefined")
add_compile_options(
  -fsanitize=fuzzer-no-link,${NPU_SANITIZERS}
  -fno-sanitize-recover=all
  -fno-omit-frame-pointer
  -UNDEBUG)
# Every executable of this build (tools and unit tests too, useful to
# reproduce a crash outside libFuzzer) needs the sanitizer runtimes.
add_link_options(-fsanitize=${NPU_SANITIZERS})
