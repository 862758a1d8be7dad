#!/usr/bin/env bash
# Installs tfmc's build and test dependencies from Debian 12 (bookworm).
# Safe to re-run: apt-get skips what is already installed.
set -euo pipefail

packages=(
  cmake ninja-build ccache g++ python3
  libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools  # MLIR/LLVM 22, lit, FileCheck
  libomp-22-dev                                           # OpenMP runtime of the kernels
  libgtest-dev                                            # runtime unit tests
  python3-torch python3-numpy libopenblas0-pthread        # PyTorch reference numerics
)
# The GPT-2 tokenizer is checked against the npm package gpt-3-encoder.
command -v node >/dev/null 2>&1 || packages+=(nodejs npm)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "Installing: ${missing[*]}"
$SUDO apt-get update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
