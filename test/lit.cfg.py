# -*- Python -*-
# lit configuration of the npu tests.

import os
import shutil

import lit.formats
from lit.llvm import llvm_config

config.name = "NPU"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.npu_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(("%npu_src", config.npu_src_root))
config.substitutions.append(("%npu_bin", config.npu_tools_dir))
# Shared libraries mlir-runner needs to print memrefs.
runner_libs = ",".join(
    os.path.join(config.mlir_lib_dir, lib)
    for lib in ["libmlir_runner_utils.so", "libmlir_c_runner_utils.so"])
config.substitutions.append(
    ("%mlir_runner",
     "mlir-runner -e main -entry-point-result=void -shared-libs=" + runner_libs))
# Compares mlir-runner output with the expected values of an execution test.
config.substitutions.append(
    ("%check_exec", config.python_executable + " " +
     os.path.join(config.npu_src_root, "test", "Execution", "check.py")))

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.npu_tools_dir, append_path=True)
tool_dirs = [config.npu_tools_dir, config.llvm_tools_dir]
llvm_config.add_tool_substitutions(
    ["npu-compare", "npu-opt", "npu-serve", "npu-sweep", "npu-system", "npu-translate", "mlir-runner"], tool_dirs)

# SVG rendering checks run where librsvg2-bin is installed.
if shutil.which("rsvg-convert"):
    config.available_features.add("rsvg-convert")
# docs/sweep.md's recipe runs where GNU parallel is installed (setup.sh
# installs it).
if shutil.which("parallel"):
    config.available_features.add("gnu-parallel")
