# Precompiled headers for every C++ target of npu (docs/building.md).
#
# Parsing MLIR's headers is most of a file's compile time, so they are parsed
# once per build and reused (REUSE_FROM): cmake/NpuPch.h (the IR core and the
# npu dialect) by the libraries, tools and tests, cmake/NpuPchCodegen.h (that
# and the upstream dialects the lowering builds: Linalg, SCF, Tensor, MemRef,
# ...) by the lowering's libraries, whose files include most of those. Two
# sizes because g++ reads a whole precompiled header into every compile: the
# larger one (about 700 MB) costs a small file more than it saves.
# All of npu is compiled with the same flags (HandleLLVMOptions sets them
# globally, llvm_update_compile_flags the per-target ones), which sharing a
# precompiled header needs; -Winvalid-pch makes a mismatch visible instead of
# silently slow.
#
# -DNPU_PCH=OFF builds without them (to check that every file includes what
# it uses).
option(NPU_PCH "Precompile the common MLIR headers (cmake/NpuPch*.h)" ON)

# Directories (under lib/npu) whose targets reuse the larger header.
set(NPU_PCH_CODEGEN_DIRS
  Conversion/NpuToLinalg
  Dialect/Npu/Transforms
  Pipelines)

function(npu_collect_targets dir out)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(sub ${subdirs})
    npu_collect_targets(${sub} subtargets)
    list(APPEND targets ${subtargets})
  endforeach()
  set(${out} ${targets} PARENT_SCOPE)
endfunction()

# An object library whose only job is to precompile `header`.
function(npu_add_pch_host name header)
  add_library(${name} OBJECT ${PROJECT_SOURCE_DIR}/cmake/NpuPch.cpp)
  # The flags add_mlir_library and add_llvm_executable give every other
  # target (-fno-exceptions, RTTI as LLVM was built).
  llvm_update_compile_flags(${name})
  add_dependencies(${name} MLIRNpuOpsIncGen MLIRNpuAttrsIncGen
    MLIRNpuInterfacesIncGen)
  target_precompile_headers(${name} PRIVATE ${header})
  target_compile_options(${name} PRIVATE -Winvalid-pch)
endfunction()

function(npu_enable_pch)
  if(NOT NPU_PCH)
    return()
  endif()
  npu_add_pch_host(npu_pch ${PROJECT_SOURCE_DIR}/cmake/NpuPch.h)
  npu_add_pch_host(npu_pch_codegen ${PROJECT_SOURCE_DIR}/cmake/NpuPchCodegen.h)
  npu_collect_targets(${PROJECT_SOURCE_DIR} targets)
  foreach(t ${targets})
    get_target_property(type ${t} TYPE)
    get_target_property(sources ${t} SOURCES)
    # Targets that compile C++ of their own: object libraries (add_mlir_library's
    # obj.X) and executables. A static library built from obj.X compiles nothing.
    if(t MATCHES "^npu_pch" OR NOT sources OR NOT
       (type STREQUAL "OBJECT_LIBRARY" OR type STREQUAL "EXECUTABLE"))
      continue()
    endif()
    list(FILTER sources INCLUDE REGEX "\\.cpp$")
    if(NOT sources)
      continue()
    endif()
    get_target_property(dir ${t} SOURCE_DIR)
    file(RELATIVE_PATH dir ${PROJECT_SOURCE_DIR}/lib/npu ${dir})
    if(dir IN_LIST NPU_PCH_CODEGEN_DIRS)
      target_precompile_headers(${t} REUSE_FROM npu_pch_codegen)
    else()
      target_precompile_headers(${t} REUSE_FROM npu_pch)
    endif()
    target_compile_options(${t} PRIVATE -Winvalid-pch)
  endforeach()
endfunction()
