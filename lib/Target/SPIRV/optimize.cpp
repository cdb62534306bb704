// optimize.cpp - the SPIRV-Tools optimizer behind vtg_spirv_optimize.
//
// The performance recipe (the same passes as `spirv-opt -O`). Its messages
// are collected as diagnostics; nothing is printed. Bindings and
// specialization constants are preserved: the runtime binds by set/binding
// and sets the local size through spec constants 0..2.
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <spirv-tools/optimizer.hpp>

#include "spirv_internal.h"
#include "vulpy/target.h"

extern "C" bool vtg_spirv_optimize(const uint32_t *words, size_t nwords, unsigned vulkan,
                                   uint32_t **out, size_t *nout, vp_diags *d) {
  *out = nullptr;
  *nout = 0;
  const vp_loc at = {"<spirv>", 0, 0};
  std::string errors;
  try {
    spvtools::Optimizer opt(vtg_spirv_env(vulkan));
    opt.SetMessageConsumer([&errors](spv_message_level_t level, const char *, const spv_position_t &,
                                     const char *msg) {
      if (level <= SPV_MSG_ERROR) {
        if (!errors.empty())
          errors += "; ";
        errors += msg;
      }
    });
    opt.RegisterPerformancePasses();
    spvtools::OptimizerOptions oo;
    oo.set_run_validator(false); // the caller validates before and after
    oo.set_preserve_bindings(true);
    oo.set_preserve_spec_constants(true);
    std::vector<uint32_t> result;
    if (!opt.Run(words, nwords, &result, oo)) {
      vp_error(d, at, "internal error: the SPIR-V optimizer failed: %s",
               errors.empty() ? "(no message)" : errors.c_str());
      return false;
    }
    uint32_t *w = static_cast<uint32_t *>(std::malloc(result.size() * sizeof(uint32_t)));
    if (!w) {
      vp_error(d, at, "out of memory");
      return false;
    }
    std::memcpy(w, result.data(), result.size() * sizeof(uint32_t));
    *out = w;
    *nout = result.size();
    return true;
  } catch (...) {
    // Library code never lets an exception (bad_alloc) reach C callers.
    vp_error(d, at, "internal error: the SPIR-V optimizer threw an exception");
    return false;
  }
}
