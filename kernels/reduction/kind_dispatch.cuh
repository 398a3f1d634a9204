// Maps a ReduceKind to its reducer object and hands it to a launcher: the one switch shared by the
// last-dim (reduce_last.cu) and first-dim (reduce_first.cu) reductions, whose reducers differ in how
// they reduce but not in what they are. R names them:
//   template <class T> using Sum = ...;            // has `T* out` and `float scale` (mean: 1/count)
//   template <class T, bool IS_MIN> using Ext = ...;
//   using ArgMax = ...;                            // has `int64_t* out`
//   template <class T> using Lse = ...;            // only where static constexpr bool kHasLse = true
#pragma once
#include <cstdint>
#include <stdexcept>

#include "kernels/reduction/reduction.hpp"

namespace fw {

template <class T, class R, class Launch>
void with_reducer(ReduceKind kind, void* y, float mean_scale, Launch&& launch) {
  switch (kind) {
    case ReduceKind::sum:
    case ReduceKind::mean: {
      typename R::template Sum<T> r;
      r.out = static_cast<T*>(y);
      r.scale = kind == ReduceKind::mean ? mean_scale : 1.f;
      return launch(r);
    }
    case ReduceKind::max: {
      typename R::template Ext<T, false> r;
      r.out = static_cast<T*>(y);
      return launch(r);
    }
    case ReduceKind::min: {
      typename R::template Ext<T, true> r;
      r.out = static_cast<T*>(y);
      return launch(r);
    }
    case ReduceKind::argmax: {
      typename R::ArgMax r;
      r.out = static_cast<int64_t*>(y);
      return launch(r);
    }
    case ReduceKind::logsumexp:
      if constexpr (R::kHasLse) {
        typename R::template Lse<T> r;
        r.out = static_cast<T*>(y);
        return launch(r);
      }
      break;
  }
  throw std::invalid_argument("this reduction kind is not available for this layout");
}

}  // namespace fw
