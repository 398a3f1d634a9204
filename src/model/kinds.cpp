// The report vocabulary's names (kinds.hpp).
#include "opbench/kinds.hpp"

namespace opbench {

const char* impl_name(ImplKind k) {
  switch (k) {
    case ImplKind::framework: return "framework";
    case ImplKind::torch: return "torch";
    case ImplKind::cudnn: return "cudnn";
    case ImplKind::cublas: return "cublas";
  }
  return "?";
}

const char* status_name(Status s) {
  switch (s) {
    case Status::ok: return "ok";
    case Status::incorrect: return "incorrect";
    case Status::failed: return "failed";
    case Status::not_supported: return "not_supported";
  }
  return "?";
}

}  // namespace opbench
