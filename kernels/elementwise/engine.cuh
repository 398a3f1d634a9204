// The vectorized element-wise engine every element-wise and activation op runs on.
//
// Work split: the output is cut into a scalar head (until every dense pointer is 16-byte aligned), a
// body of V-element packets (V = 16 / sizeof(T): one 128-bit load or store each), and a scalar tail.
// Each thread of the body loads kUnroll packets of every input before it computes anything, so
// kUnroll x 16 bytes per input are in flight per thread. When the dense pointers disagree on their
// alignment, the same kernel runs with V = 1 (still coalesced, just narrower accesses).
// Broadcast operands (a row vector b[j] or a column b[i]) are indexed with a fast 32-bit divmod per
// packet; when a packet cannot straddle a row (cols % V == 0, aligned body) a row vector is loaded as a
// packet and a column value once per packet.
//
// Floor on H100: bytes / ~3.0 TB/s (measured copy). fp32 add of 4096x4096: 3 x 64 MiB = 201 MB -> 67 µs.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdlib>
#include <cstdint>
#include <initializer_list>
#include <type_traits>

#include "kernels/common/types.cuh"

namespace fw::engine {

// 128 threads a block (as LibTorch's vectorized kernel): against 256, the same packets per thread in twice
// the blocks balance better over the SMs (H100, element + activation, medium and large, fp32 and bf16:
// 508 of 540 results green against 493; notes/performance.md).
constexpr int kThreads = 128;

// n / d and n % d for 32-bit n by a divisor fixed at launch (Granlund–Montgomery round-up method).
struct FastDivmod {
  uint32_t d = 1, mul = 0, shift = 0;
  FastDivmod() = default;
  explicit FastDivmod(uint32_t divisor) : d(divisor) {
    while ((uint64_t(1) << shift) < d) ++shift;
    mul = uint32_t(((uint64_t(1) << 32) * ((uint64_t(1) << shift) - d)) / d + 1);
  }
  __device__ __forceinline__ void divmod(uint32_t n, uint32_t& q, uint32_t& r) const {
    q = uint32_t((uint64_t(__umulhi(n, mul)) + n) >> shift);
    r = n - q * d;
  }
};

// Packets per thread a functor asks for above the small sizes (F::kPackets for fp32, F::kPackets16 for the
// 16-bit types), 2 and 1 when it says nothing (pick_unroll).
template <class F, class = void>
struct packets_of {
  static constexpr int value = 2;
};
template <class F>
struct packets_of<F, std::void_t<decltype(F::kPackets)>> {
  static constexpr int value = F::kPackets;
};
template <class F, class = void>
struct packets16_of {
  static constexpr int value = 1;
};
template <class F>
struct packets16_of<F, std::void_t<decltype(F::kPackets16)>> {
  static constexpr int value = F::kPackets16;
};

// A functor may have a short evaluation that holds on part of its inputs (F::kGuarded): F::fast(x) where
// F::in_fast(x), operator() on every input. The map kernel then tests a packet's elements together and evaluates
// the whole packet with operator() only when one of them is outside. A test and branch per element cost 4-7
// instructions (sm_90a SASS: BSSY, FSETP, BRA, BSYNC, and the constants the branch makes it load again), a packet's
// test one predicate operation an element and one branch. pow_scalar's half steps use it (ops.cuh, PowHalfSteps), and
// fp32 pow (PowTables32: with a branch an element, each element's chain of double operations ran after the last one's);
// bf16 sin and cos do not: measured on the H200, they ran 1-2% slower with it (notes/performance.md, fortieth round).
template <class F, class = void>
struct guarded_of {
  static constexpr bool value = false;
};
template <class F>
struct guarded_of<F, std::void_t<decltype(F::kGuarded)>> {
  static constexpr bool value = F::kGuarded;
};

// A functor may read small tables of its own from shared memory (F::kTableBytes, F::table_source(), F::bind): each
// block copies them there while its packets load, then binds them (ops.cuh, PowTables32).
template <class F, class = void>
struct tables_of {
  static constexpr int bytes = 0;
};
template <class F>
struct tables_of<F, std::void_t<decltype(F::kTableBytes)>> {
  static constexpr int bytes = F::kTableBytes;
};

// --- operand accessors: load V elements starting at output element e ------------------------------
template <class T, int V>
struct Dense {
  const T* __restrict__ p;
  using Raw = Packet<T, V>;
  __device__ __forceinline__ Raw load(int64_t e) const { return *reinterpret_cast<const Raw*>(p + e); }
  __device__ __forceinline__ float at(const Raw& r, int v) const { return to_float(r.v[v]); }
  __device__ __forceinline__ float load1(int64_t e) const { return to_float(p[e]); }
};

template <class T, int V>
struct RowBroadcast {  // b[e % cols]
  const T* __restrict__ p;
  FastDivmod cols;
  bool packed;  // cols % V == 0, p aligned, body aligned: a packet is one aligned slice of b
  using Raw = Packet<T, V>;
  __device__ __forceinline__ Raw load(int64_t e) const {
    uint32_t q, r;
    cols.divmod(uint32_t(e), q, r);
    if (packed) return *reinterpret_cast<const Raw*>(p + r);
    Raw out;
#pragma unroll
    for (int v = 0; v < V; ++v) {
      out.v[v] = p[r];
      if (++r == cols.d) r = 0;
    }
    return out;
  }
  __device__ __forceinline__ float at(const Raw& r, int v) const { return to_float(r.v[v]); }
  __device__ __forceinline__ float load1(int64_t e) const {
    uint32_t q, r;
    cols.divmod(uint32_t(e), q, r);
    return to_float(p[r]);
  }
};

template <class T, int V>
struct ColBroadcast {  // b[e / cols]
  const T* __restrict__ p;
  FastDivmod cols;
  bool packed;  // cols % V == 0 and body aligned: a packet lies in one row
  using Raw = Packet<T, V>;
  __device__ __forceinline__ Raw load(int64_t e) const {
    uint32_t q, r;
    cols.divmod(uint32_t(e), q, r);
    Raw out;
    if (packed) {
      const T x = p[q];
#pragma unroll
      for (int v = 0; v < V; ++v) out.v[v] = x;
      return out;
    }
#pragma unroll
    for (int v = 0; v < V; ++v) {
      out.v[v] = p[q];
      if (++r == cols.d) {
        r = 0;
        ++q;
      }
    }
    return out;
  }
  __device__ __forceinline__ float at(const Raw& r, int v) const { return to_float(r.v[v]); }
  __device__ __forceinline__ float load1(int64_t e) const {
    uint32_t q, r;
    cols.divmod(uint32_t(e), q, r);
    return to_float(p[q]);
  }
};

// --- the op applied to one or two operands ----------------------------------------------------------
template <class F, class A>
struct UnaryMap {
  static constexpr int kPackets = packets_of<F>::value;
  static constexpr int kPackets16 = packets16_of<F>::value;
  F f;
  A a;
  struct Regs {
    typename A::Raw a;
  };
  __device__ __forceinline__ void load(int64_t e, Regs& r) const { r.a = a.load(e); }
  __device__ __forceinline__ float apply(const Regs& r, int v) const { return f(a.at(r.a, v)); }
  __device__ __forceinline__ float scalar(int64_t e) const { return f(a.load1(e)); }
  static constexpr int kTableBytes = tables_of<F>::bytes;
  __device__ __forceinline__ static const void* table_source() { return F::table_source(); }
  __device__ __forceinline__ void bind(const void* t) { f.bind(t); }
  static constexpr bool kGuarded = guarded_of<F>::value;  // then in_fast and apply_fast (F::fast) as well
  __device__ __forceinline__ bool in_fast(const Regs& r, int v) const { return f.in_fast(a.at(r.a, v)); }
  __device__ __forceinline__ float apply_fast(const Regs& r, int v) const { return f.fast(a.at(r.a, v)); }
};

template <class F, class A, class B>
struct BinaryMap {
  static constexpr int kPackets = packets_of<F>::value;
  static constexpr int kPackets16 = packets16_of<F>::value;
  F f;
  A a;
  B b;
  struct Regs {
    typename A::Raw a;
    typename B::Raw b;
  };
  __device__ __forceinline__ void load(int64_t e, Regs& r) const {
    r.a = a.load(e);
    r.b = b.load(e);
  }
  __device__ __forceinline__ float apply(const Regs& r, int v) const { return f(a.at(r.a, v), b.at(r.b, v)); }
  __device__ __forceinline__ float scalar(int64_t e) const { return f(a.load1(e), b.load1(e)); }
  static constexpr int kTableBytes = tables_of<F>::bytes;
  __device__ __forceinline__ static const void* table_source() { return F::table_source(); }
  __device__ __forceinline__ void bind(const void* t) { f.bind(t); }
  static constexpr bool kGuarded = guarded_of<F>::value;  // then in_fast and apply_fast (F::fast) as well
  __device__ __forceinline__ bool in_fast(const Regs& r, int v) const {
    return f.in_fast(a.at(r.a, v), b.at(r.b, v));
  }
  __device__ __forceinline__ float apply_fast(const Regs& r, int v) const {
    return f.fast(a.at(r.a, v), b.at(r.b, v));
  }
};

// Body packets k in [0, nvec) cover elements [head + k V, head + (k + 1) V). Block 0 also does the
// scalar head [0, head) and tail [head + nvec V, n).
template <class T, int V, int kUnroll, class Map>
__global__ void __launch_bounds__(kThreads) map_kernel(Map m, T* __restrict__ y, int64_t n, int64_t head,
                                                       int64_t nvec) {
  using Out = Packet<T, V>;
  const int64_t k0 = int64_t(blockIdx.x) * (kThreads * kUnroll) + threadIdx.x;
  typename Map::Regs regs[kUnroll];
#pragma unroll
  for (int u = 0; u < kUnroll; ++u) {
    const int64_t k = k0 + u * kThreads;
    if (k < nvec) m.load(head + k * V, regs[u]);
  }
  if constexpr (Map::kTableBytes > 0) {
    static_assert(Map::kTableBytes % 16 == 0 && Map::kTableBytes <= 16 * kThreads, "tables of whole 16-byte pieces");
    __shared__ uint4 tables[Map::kTableBytes / 16];
    if (threadIdx.x < Map::kTableBytes / 16) {
      tables[threadIdx.x] = static_cast<const uint4*>(Map::table_source())[threadIdx.x];
    }
    __syncthreads();
    m.bind(tables);
  }
#pragma unroll
  for (int u = 0; u < kUnroll; ++u) {
    const int64_t k = k0 + u * kThreads;
    if (k < nvec) {
      Out o;
      if constexpr (guarded_of<Map>::value) {
        bool fast = true;
#pragma unroll
        for (int v = 0; v < V; ++v) {
          fast &= m.in_fast(regs[u], v);
          o.v[v] = from_float<T>(m.apply_fast(regs[u], v));
        }
        if (!fast) {
#pragma unroll
          for (int v = 0; v < V; ++v) o.v[v] = from_float<T>(m.apply(regs[u], v));
        }
      } else {
#pragma unroll
        for (int v = 0; v < V; ++v) o.v[v] = from_float<T>(m.apply(regs[u], v));
      }
      store_packet(y + head + k * V, o);
    }
  }
  if (blockIdx.x == 0) {
    const int64_t tail = head + nvec * V;
    for (int64_t e = threadIdx.x; e < head; e += kThreads) y[e] = from_float<T>(m.scalar(e));
    for (int64_t e = tail + threadIdx.x; e < n; e += kThreads) y[e] = from_float<T>(m.scalar(e));
  }
}

inline int64_t misalignment(const void* p) { return int64_t(reinterpret_cast<uintptr_t>(p) & 15); }

// Packets per thread (measured on H100, bench_ops element+activation, fp32 and bf16, unroll 1/2/4 forced
// in turn): below ~16 waves of one-packet blocks, one packet per thread wins (more threads, less serial
// math per thread: 4 packets lost up to 0.57x on small pow/sin/cos). Above it, fp32 wants 2 packets
// (8 elements, as LibTorch: against 4, fp32 geomean vs LibTorch 0.959 -> 0.978, tanh and gelu_tanh
// +7%), except ops whose functor asks for another count (F::kPackets), and 16-bit types one (8
// elements: log 0.76x -> 0.97x, gelu_tanh 0.79x -> 0.98x against 4) unless the functor asks for more
// (F::kPackets16: gelu). Division once asked for 4; with whole-packet stores (store_packet) 2 is
// faster at every size (div fp32 2048^2: 15.2 -> 14.4 us, LibTorch 14.4).
// A functor's count above the default pays only on grids of >= 64 waves of one-packet blocks (>= 8.6 Mi
// 16-bit elements on the H100): gelu bf16 with 2 packets ran 1.02-1.04x of LibTorch from 16 Mi elements
// up but 0.91-0.97x at 3-4 Mi, where one packet gave 1.00-1.02x.
// A grid of nvec packets is deep from 16 waves of one-packet blocks on: there pick_unroll gives a thread more than one
// packet (fp32), and fp32 pow evaluates in double arithmetic (binary.cu).
inline bool deep_grid(int64_t nvec) { return ceil_div(nvec, kThreads) >= 16 * sm_count(); }
inline int pick_unroll(int64_t nvec, int elem_bytes, int fp32_packets, int half_packets) {
  if (!deep_grid(nvec)) return 1;
  const int64_t blocks1 = ceil_div(nvec, kThreads), sms = sm_count();
  const int dflt = elem_bytes >= 4 ? 2 : 1;
  const int asked = elem_bytes >= 4 ? fp32_packets : half_packets;
  return asked > dflt && blocks1 < 64 * sms ? dflt : asked;
}

template <class T, int V, class Map>
void launch_unrolled(const Map& m, T* y, int64_t n, int64_t head, int64_t nvec, cudaStream_t s) {
  // One packet, the map's own count for this element size, or the default (2 for fp32) where a map asks
  // for another: only the unrolls pick_unroll can return are compiled.
  constexpr int P = sizeof(T) >= 4 ? Map::kPackets : Map::kPackets16;
  constexpr int D = sizeof(T) >= 4 ? 2 : 1;
  const int u = pick_unroll(nvec, int(sizeof(T)), Map::kPackets, Map::kPackets16);
  auto go = [&](auto uc) {
    constexpr int U = decltype(uc)::value;
    const int64_t blocks = std::max<int64_t>(1, ceil_div(nvec, kThreads * U));
    map_kernel<T, V, U><<<unsigned(blocks), kThreads, 0, s>>>(m, y, n, head, nvec);
  };
  if constexpr (P != 1) {
    if (u == P) return go(std::integral_constant<int, P>{});
  }
  if constexpr (D != 1 && D != P) {
    if (u == D) return go(std::integral_constant<int, D>{});
  }
  go(std::integral_constant<int, 1>{});
}

// Launches the map built by make(std::integral_constant<int, V>, body_aligned) over n output elements. `dense` are the pointers that are read
// or written densely (output included); they decide the vector width and the head.
template <class T, class MakeMap>
void launch_map(T* y, int64_t n, std::initializer_list<const void*> dense, MakeMap make, cudaStream_t s) {
  if (n <= 0) return;
  constexpr int V = 16 / sizeof(T);
  const int64_t mis = misalignment(y);
  bool same = mis % int64_t(sizeof(T)) == 0;
  for (const void* p : dense) same = same && misalignment(p) == mis;
  if (same) {
    const int64_t head = std::min<int64_t>(n, ((16 - mis) & 15) / int64_t(sizeof(T)));
    const int64_t nvec = (n - head) / V;
    launch_unrolled<T, V>(make(std::integral_constant<int, V>{}, head == 0), y, n, head, nvec, s);
  } else {
    launch_unrolled<T, 1>(make(std::integral_constant<int, 1>{}, false), y, n, 0, n, s);
  }
}

}  // namespace fw::engine
