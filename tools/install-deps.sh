#!/usr/bin/env bash
# Installs tfmc's build and test dependencies: Debian 12 (bookworm) packages,
# and the npm packages the tests compare against (tools/npm/package.json,
# pinned by its package-lock.json) into .deps/npm, or $TFMC_NPM_DIR.
# Tests never fetch anything: they read the references installed here.
# Safe to re-run: it installs only what is missing.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

packages=(
  cmake ninja-build ccache g++ python3
  libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools  # MLIR/LLVM 22, lit, FileCheck
  libomp-22-dev                                           # OpenMP runtime of the kernels
  libgtest-dev                                            # runtime unit tests
  clang-format-22                                         # tools/check-format.sh
  clang-22 libclang-rt-22-dev llvm-22                     # ASan/UBSan build, libFuzzer, llvm-symbolizer
  python3-torch python3-numpy libopenblas0-pthread        # PyTorch reference numerics
  libhalide14-0-dev                                       # tfmc-halide-gen (Halide 14 + autoschedulers)
  pocl-opencl-icd ocl-icd-libopencl1                      # Halide's GPU schedules run on the CPU (OpenCL)
  xz-utils                                                # tools/cuda-check-bundle.sh's archive
)
# Tokenizers are checked against npm packages (gpt-3-encoder,
# @huggingface/tokenizers).
command -v node >/dev/null 2>&1 || packages+=(nodejs)
command -v npm >/dev/null 2>&1 || packages+=(npm)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  echo "Installing: ${missing[*]}"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# The npm references, exactly as locked. A stamp holding the lock file marks a
# complete install, so an interrupted one is redone.
npm_dir="${TFMC_NPM_DIR:-$root/.deps/npm}"
if ! cmp -s "$root/tools/npm/package-lock.json" "$npm_dir/installed.lock" 2>/dev/null; then
  echo "Installing the npm test references into $npm_dir"
  rm -rf "$npm_dir"
  mkdir -p "$npm_dir"
  cp "$root/tools/npm/package.json" "$root/tools/npm/package-lock.json" "$npm_dir/"
  (cd "$npm_dir" && npm ci --no-audit --no-fund --loglevel=error)
  cp "$root/tools/npm/package-lock.json" "$npm_dir/installed.lock"
fi
