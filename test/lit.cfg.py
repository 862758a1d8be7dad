# -*- Python -*-
# lit configuration for tfmc: dialect, passes, compiler and end-to-end suites.
import os
import shlex
import platform
import shutil

import lit.formats
from lit.llvm import llvm_config

config.name = "TFMC"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["lit.cfg.py", "lit.site.cfg.py", "Inputs", "CMakeLists.txt",
                   "corpus", "regressions"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tfmc_obj_root, "test")

llvm_config.with_system_environment(["HOME", "TMPDIR", "PATH"])
llvm_config.use_default_substitutions()
# `not`, `count` and FileCheck come from LLVM 22, also where no substitution
# applies (`RUN: not tfmc ...`).
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tool_dirs = [config.tfmc_tools_dir, config.llvm_tools_dir]
# `lit --param tfmc_compile_flags="--backend=halide" build/test/e2e` runs the
# end-to-end tests again with every `tfmc compile` given those flags (the
# numerics tests: docs/halide.md); the feature `compile-flags` marks the run.
compile_flags = lit_config.params.get("tfmc_compile_flags", "")
if compile_flags:
    from lit.llvm.subst import ToolSubst
    config.available_features.add("compile-flags")
    wrapper = "%s %s %s %s" % (
        config.python3,
        os.path.join(config.test_source_root, "e2e", "Inputs",
                     "tfmc_with_flags.py"),
        os.path.join(config.tfmc_tools_dir, "tfmc"), shlex.quote(compile_flags))
    llvm_config.add_tool_substitutions([ToolSubst("tfmc", command=wrapper)])
llvm_config.add_tool_substitutions(
    ([] if compile_flags else ["tfmc"]) + ["tfmc-opt", "tfm-tokenize", "tfmc-unittests", "tfmc-compiler-unittests",
     "tfm-cuda-unittests"],
    tool_dirs)
config.substitutions.append(("%python", config.python3))
# The C compiler of the build (cc; clang-22 in the sanitized build, whose
# runtime needs clang's sanitizer runtimes): C programs against --emit=lib.
config.substitutions.append(("%cc", config.c_compiler))
config.substitutions.append(("%tfmc_src", config.tfmc_src_root))
# `lit --param shared_models_dir=/nonexistent build/test` runs the suite as a
# clone without ../shared sees it.
config.shared_models_dir = lit_config.params.get("shared_models_dir",
                                                 config.shared_models_dir)
config.substitutions.append(("%models", config.shared_models_dir))
# The npm reference packages (gpt-3-encoder, @huggingface/tokenizers), which
# tools/install-deps.sh installs: tests read them from here and never fetch.
config.substitutions.append(("%npm_modules", config.npm_modules_dir))

# mlir-runner and its printing library, for kernels run on their own.
runner_libs = [os.path.join(config.llvm_tools_dir, "..", "lib", name)
               for name in ("libmlir_runner_utils.so", "libmlir_c_runner_utils.so")]
config.substitutions.append(("%mlir_runner_libs", ",".join(runner_libs)))
if (os.path.isfile(os.path.join(config.llvm_tools_dir, "mlir-runner"))
        and all(os.path.isfile(lib) for lib in runner_libs)):
    config.available_features.add("mlir-runner")

# The CUDA toolkit's assembler, when installed: GPU tests assemble the PTX
# they generate (no GPU needed).
cuda_bin = "/usr/local/cuda/bin"
if os.path.isfile(os.path.join(cuda_bin, "ptxas")):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", os.path.join(cuda_bin, "ptxas")))
    config.substitutions.append(("%cuda_toolkit", os.path.dirname(cuda_bin)))

# A CUDA GPU with its driver: tests that run CUDA binaries say `REQUIRES:
# cuda-device`; those that check what such a binary says without one,
# `REQUIRES: no-cuda-device`.
def has_cuda_device():
    import ctypes
    try:
        driver = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return False
    count = ctypes.c_int(0)
    return (driver.cuInit(0) == 0
            and driver.cuDeviceGetCount(ctypes.byref(count)) == 0
            and count.value > 0)
config.available_features.add(
    "cuda-device" if has_cuda_device() else "no-cuda-device")

# Real checkpoints live in ../shared/models; tests that need them say
# `REQUIRES: shared-models` and are reported UNSUPPORTED (with this note) when
# the directory is absent, e.g. on a user's fresh clone
# (tools/check-test-gating.py, run by test/tools/check-test-gating.test,
# finds a test that reads %models without saying so).
if os.path.isfile(os.path.join(config.shared_models_dir, "stories260K.bin")):
    config.available_features.add("shared-models")
else:
    lit_config.note("../shared/models not found at %s: real-weights tests are skipped"
                    % config.shared_models_dir)

# PyTorch reference tests need Debian's python3-torch.
if os.system(config.python3 + " -c 'import torch' >/dev/null 2>&1") == 0:
    config.available_features.add("torch")
else:
    lit_config.note("python3-torch not importable by %s: PyTorch comparisons are skipped"
                    % config.python3)

# tools/check-format.sh checks the sources against .clang-format.
if os.path.isfile("/usr/lib/llvm-22/bin/clang-format"):
    config.available_features.add("clang-format")

# An x86-64 machine without AMX: code compiled for a CPU with it
# (--target-cpu=graniterapids) must refuse to run here (e2e/cpu-features).
if platform.machine() == "x86_64":
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            flags = next((line.split() for line in cpuinfo
                          if line.startswith("flags")), [])
        if "amx_tile" not in flags:
            config.available_features.add("x86-without-amx")
    except OSError:
        pass

# The Halide kernel generator is built where libHalide14 is installed
# (test/halide; its PTX is assembled with the `ptxas` feature above); pocl
# runs its OpenCL schedules on the CPU.
if os.path.isfile(os.path.join(config.tfmc_tools_dir, "tfmc-halide-gen")):
    config.available_features.add("halide")
    llvm_config.add_tool_substitutions(["tfmc-halide-gen"], tool_dirs)
if os.path.isfile("/etc/OpenCL/vendors/pocl.icd") and os.path.exists(
        "/usr/lib/x86_64-linux-gnu/libOpenCL.so.1"):
    config.available_features.add("pocl")

if shutil.which("node"):
    config.available_features.add("node")

# The libFuzzer targets of test/fuzz, built with -DTFMC_FUZZ=ON (clang):
# their lit test replays the seed corpora and the regression inputs.
if getattr(config, "tfmc_fuzz", "").upper() in ("ON", "TRUE", "YES", "1"):
    config.available_features.add("fuzz")
config.substitutions.append(("%fuzz_bin", os.path.join(config.tfmc_obj_root, "fuzz")))
