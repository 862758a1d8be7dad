//===- CpuFeatures.cpp - Does this CPU run the compiled code? -------------===//
#include "runtime/CpuFeatures.h"

#include "runtime/JoinList.h"
#include "runtime/PackageKeys.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#define TFM_X86_CPUID 1
#endif

namespace tfm::rt {

namespace {

#ifdef TFM_X86_CPUID
enum Register { Eax, Ebx, Ecx, Edx };

/// Register state that the OS must save (XCR0) for a feature's registers.
enum : uint64_t {
  kNoState = 0,
  kAvxState = 0x6,     ///< SSE and the upper halves of the YMM registers
  kAvx512State = 0xe6, ///< plus opmasks and ZMM 0-31
  kAmxState = 0x60006, ///< plus XTILECFG and XTILEDATA
};

/// An LLVM feature name and the CPUID bit that reports it.
struct CpuidFeature {
  const char *name;
  unsigned leaf, subleaf;
  Register reg;
  unsigned bit;
  uint64_t state;
};

// The x86 features LLVM's CPUs imply that code generation uses; names as
// LLVM's X86.td spells them (and so #tfm.cpu_target's features).
constexpr CpuidFeature kFeatures[] = {
    {"sse3", 1, 0, Ecx, 0, kNoState},
    {"ssse3", 1, 0, Ecx, 9, kNoState},
    {"fma", 1, 0, Ecx, 12, kAvxState},
    {"sse4.1", 1, 0, Ecx, 19, kNoState},
    {"sse4.2", 1, 0, Ecx, 20, kNoState},
    {"popcnt", 1, 0, Ecx, 23, kNoState},
    {"avx", 1, 0, Ecx, 28, kAvxState},
    {"f16c", 1, 0, Ecx, 29, kAvxState},
    {"bmi", 7, 0, Ebx, 3, kNoState},
    {"avx2", 7, 0, Ebx, 5, kAvxState},
    {"bmi2", 7, 0, Ebx, 8, kNoState},
    {"avx512f", 7, 0, Ebx, 16, kAvx512State},
    {"avx512dq", 7, 0, Ebx, 17, kAvx512State},
    {"avx512ifma", 7, 0, Ebx, 21, kAvx512State},
    {"avx512cd", 7, 0, Ebx, 28, kAvx512State},
    {"avx512bw", 7, 0, Ebx, 30, kAvx512State},
    {"avx512vl", 7, 0, Ebx, 31, kAvx512State},
    {"avx512vbmi", 7, 0, Ecx, 1, kAvx512State},
    {"avx512vbmi2", 7, 0, Ecx, 6, kAvx512State},
    {"gfni", 7, 0, Ecx, 8, kNoState},
    {"vaes", 7, 0, Ecx, 9, kAvxState},
    {"vpclmulqdq", 7, 0, Ecx, 10, kAvxState},
    {"avx512vnni", 7, 0, Ecx, 11, kAvx512State},
    {"avx512bitalg", 7, 0, Ecx, 12, kAvx512State},
    {"avx512vpopcntdq", 7, 0, Ecx, 14, kAvx512State},
    {"amx-bf16", 7, 0, Edx, 22, kAmxState},
    {"avx512fp16", 7, 0, Edx, 23, kAvx512State},
    {"amx-tile", 7, 0, Edx, 24, kAmxState},
    {"amx-int8", 7, 0, Edx, 25, kAmxState},
    {"avxvnni", 7, 1, Eax, 4, kAvxState},
    {"avx512bf16", 7, 1, Eax, 5, kAvx512State},
};

bool cpuidBit(unsigned leaf, unsigned subleaf, Register reg, unsigned bit) {
  unsigned regs[4] = {0, 0, 0, 0};
  unsigned maxLeaf = __get_cpuid_max(leaf & 0x80000000u, nullptr);
  if (maxLeaf < leaf ||
      !__get_cpuid_count(leaf, subleaf, &regs[0], &regs[1], &regs[2], &regs[3]))
    return false;
  return (regs[reg] >> bit) & 1;
}

/// XCR0: the register state the OS saves, 0 when XGETBV is unavailable.
uint64_t enabledState() {
  if (!cpuidBit(1, 0, Ecx, 27)) // OSXSAVE
    return 0;
  unsigned low, high;
  __asm__("xgetbv" : "=a"(low), "=d"(high) : "c"(0));
  return (uint64_t(high) << 32) | low;
}

/// Whether this CPU has `name`; true for names not in the table.
bool hasFeature(std::string_view name, uint64_t state) {
  for (const CpuidFeature &feature : kFeatures)
    if (name == feature.name)
      return cpuidBit(feature.leaf, feature.subleaf, feature.reg,
                      feature.bit) &&
             (state & feature.state) == feature.state;
  return true;
}
#endif

} // namespace

std::vector<std::string> missingCpuFeatures(std::string_view features) {
  std::vector<std::string> missing;
#ifdef TFM_X86_CPUID
  uint64_t state = enabledState();
  while (!features.empty()) {
    size_t comma = features.find(',');
    std::string_view name = features.substr(0, comma);
    features = comma == std::string_view::npos ? std::string_view()
                                               : features.substr(comma + 1);
    if (!name.empty() && name.front() == '+')
      name.remove_prefix(1);
    if (!name.empty() && !hasFeature(name, state))
      missing.emplace_back(name);
  }
#else
  (void)features;
#endif
  return missing;
}

bool checkCpuRunsModel(const Package &package, const std::string &name,
                       std::string &error) {
  std::vector<std::string> missing =
      missingCpuFeatures(package.get(keys::kTargetFeatures));
  if (missing.empty())
    return true;
  std::string cpu(package.get(keys::kTargetCpu));
  error = "'" + name + "' was compiled for the CPU '" + cpu +
          "', and this CPU lacks " + joinList(missing) +
          ": compile it with --target-cpu naming this machine's CPU (the "
          "default on it), or --target-cpu=x86-64-v3 for any AVX2 machine";
  return false;
}

} // namespace tfm::rt
