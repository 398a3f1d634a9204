// Row-segment copy: the engine behind copy, cat (dim 0 and last), narrow (slice), expand, gather and
// permute_0213. Every one of these writes a CONTIGUOUS output that is a sequence of rows, each row one
// or two segments of contiguous source bytes:
//   copy          1 row,  1 segment (the whole tensor)
//   cat dim 0     1 row,  2 segments (a, then b)          cat last: `outer` rows, segments a[r], b[r]
//   narrow        rows of `length` elements read at src + r*n + start (source rows not 16-B aligned
//                 when start*size % 16 != 0 or n*size % 16 != 0)
//   expand        rows read from one source row (pitch 0); aligned rows of 16-byte multiples take expand_kernel
//   gather        row r read from table row idx[r]; slab-major once the rows fill 3/4 of L2 (out_byte), or
//                 window-major (gather_window_kernel) when even 256-byte slabs overfill it
//   permute_0213  output row (b,h,s) (D elements) read from source row (b,s,h)
// (A copy of a whole aligned buffer, and what reduces to one, takes copy16_kernel instead.)
//
// One version: each thread owns U = 1 (gather: 2) destination chunks of 16 bytes (aligned to 16 in the
// address space, coalesced across the block: chunk = block*256*U + u*256 + thread; a small gather takes
// blocks of 64 threads and U = 1, see Config), finds each chunk's
// source bytes, and when the chunk lies inside one source segment reads them with one 16-byte load (two
// when the source is not 16-B aligned: the two aligned 16-byte words that hold them, shifted into place
// with byte permutes — the "shifted load"; the neighbouring thread's load of the same word hits L1) and
// writes one 16-byte store. Chunks that straddle a row or segment boundary, or the ragged ends of a
// misaligned destination, are copied element by element (at most 2-3 per row). With U > 1 all chunks'
// loads are issued before the first store. Index arithmetic uses 32-bit multiply-shift division
// (FastDiv) when the output has < 2^32 elements, 64-bit division otherwise.
//
// Measured on H100 (bench in .scratch/layout, median, L2 flushed; "copy" = cudaMemcpy D2D 181.6 us for
// 256 MiB = 2.96 TB/s): copy fp32 8192^2 181.8 us (= memcpy); with the earlier 4 chunks/thread: cat
// 8192^2 fp32 363 us (2.96 TB/s), slice 8192x8190 fp32 (misaligned rows) 96.5 us (2.78 TB/s), expand
// 8192^2 fp32 86.6 us, gather 8192x8192 fp32 185 us (2.9 TB/s), permute_0213 8x1024x32x128 fp32 97.6 us.
//
// Bytes and floor on H100 (measured copy ~3.0 TB/s counting read + write): copy / cat / narrow /
// permute move 2 bytes per output byte (read + write): 8192x8192 fp32 copy = 512 MiB → ~179 us floor.
// expand reads one row and writes rows*n*size; gather reads n_idx*8 index bytes + n_idx rows and writes
// them.
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "kernels/common/check.hpp"
#include "kernels/common/device.hpp"
#include "kernels/common/types.cuh"
#include "kernels/layout/layout.hpp"

namespace fw::layout {
namespace {

// Launch shape: threads per block, 16-byte chunks per thread, and whether loads take the read-only
// (ld.global.nc) path (a template so that .scratch/layout/variants.cu can time alternatives of the same
// code). Measured on H100 next to LibTorch, interleaved in one process (median us, L2 flushed):
//   chunks/thread        4      2      1      LibTorch
//   copy fp32 256x256    4.9    4.4    4.2    4.2
//   copy fp32 1024^2     7.8    7.5    7.4    7.0
//   copy fp32 8192^2   183.1  182.8  181.8  181.7
//   gather fp32 8192^2 184.9  184.3  186.9  169.9   (index_select)
//   permute bf16 4x2048x14x64  15.5  15.3  15.1  27.0
// so one chunk per thread everywhere except gather (two: its index load is shared by more work).
//
// Spread: when the grid would leave SMs without a block, launch 64-thread blocks of one chunk each
// instead, so that the few chunks spread over as many SMs as they fill. Gather only: a small gather is
// the latency of two dependent loads (the index, then the row), which queue behind one another on the
// 8-128 blocks of its 256x2 grid; spread, gather 32^3 and 256^2 bf16 took 1.95 us against 2.53-2.56 (LibTorch's
// index_select: 2.0-2.2, 32-64-thread blocks), 512^2 fp32 2.24 against 2.46. The plain copies gain
// nothing, and expand (stores only) loses 15% at 512^2 bf16 (1.47 -> 1.70 us) to the extra blocks
// (A/B/A on H100, session of 2026-11-25, notes/performance.md).
template <int Threads_, int Unroll_, bool NC_, class Spread_ = void>
struct Config {
  static constexpr int kThreads = Threads_;
  static constexpr int kUnroll = Unroll_;
  static constexpr bool kNC = NC_;
  static constexpr int64_t kChunksPerBlock = int64_t(Threads_) * Unroll_;
  using Spread = Spread_;  // the config of a grid that would leave SMs idle (void: none)
  using Unspread = Config<Threads_, Unroll_, NC_>;
};
using PlainConfig = Config<256, 1, true>;   // copy, cat, narrow, expand, permute
using GatherConfig = Config<256, 2, true, Config<64, 1, true>>;

// n / d for any 32-bit n and 32-bit d >= 1: the round-up method with a 33-bit magic (2^32 + m):
// q = (umulhi(n, m) + n) >> s, s = ceil(log2 d), m = floor(2^32 (2^s - d) / d) + 1; exact for all n.
struct FastDiv {
  uint32_t d = 1, m = 1, s = 0;
  FastDiv() = default;
  explicit FastDiv(uint64_t div) : d(uint32_t(div)) {
    while ((uint64_t(1) << s) < d) ++s;
    m = uint32_t(((uint64_t(1) << 32) * ((uint64_t(1) << s) - d)) / d + 1);
  }
  __device__ __forceinline__ uint32_t div(uint32_t n) const {
    return uint32_t((uint64_t(__umulhi(n, m)) + n) >> s);
  }
};

// A divisor usable either way: Wide = false → 32-bit FastDiv, Wide = true → 64-bit division.
struct Div {
  int64_t d = 1;
  FastDiv f;
  Div() = default;
  explicit Div(int64_t v) : d(v), f(v <= int64_t(UINT32_MAX) ? uint64_t(v) : 1) {}
};

template <bool Wide>
__device__ __forceinline__ uint64_t divq(const Div& dv, uint64_t n) {
  if constexpr (Wide) return n / uint64_t(dv.d);
  else return dv.f.div(uint32_t(n));
}

// gather_slab: a gather walked slab-major (out_byte).
enum class Src { plain, gather, permute, gather_slab };

struct Args {
  const char* src0 = nullptr;  // segment sources
  const char* src1 = nullptr;
  int64_t ld0 = 0, ld1 = 0;    // source row pitch, bytes (0: every row reads the same source row)
  int64_t len0 = 0;            // bytes of segment 0 per output row
  int64_t row_bytes = 0;       // bytes per output row (segment 0 + segment 1)
  char* dst_al = nullptr;      // destination rounded down to 16 bytes
  int64_t dmis = 0;            // destination - dst_al
  int64_t total = 0;           // output bytes
  int64_t nchunks = 0;         // 16-byte destination chunks
  Div row_e;                   // output row length in elements
  const int64_t* idx = nullptr;  // gather: source row of each output row
  Div S, H;                    // permute: output row (b*H + h)*S + s ← source row (b*S + s)*H + h
  int slab_shift = 0;          // gather_slab: log2 of the slab (bytes) its chunks walk in
  Div rows;                    // gather_slab: output rows
};

// The source address of output byte `o` (element-aligned), and the bytes left in its segment row.
struct Loc {
  const char* p;
  int64_t room;
};

template <int ES, Src Mode, bool Wide>
__device__ __forceinline__ Loc locate(const Args& a, int64_t o) {
  const uint64_t e = uint64_t(o) / ES;
  const uint64_t r = divq<Wide>(a.row_e, e);
  int64_t col = int64_t(e - r * uint64_t(a.row_e.d)) * ES;
  const char* base;
  int64_t ld, room;
  if (col < a.len0) {
    base = a.src0;
    ld = a.ld0;
    room = a.len0 - col;
  } else {
    col -= a.len0;
    base = a.src1;
    ld = a.ld1;
    room = a.row_bytes - a.len0 - col;
  }
  int64_t sr;
  if constexpr (Mode == Src::plain) {
    sr = int64_t(r);
  } else if constexpr (Mode == Src::gather || Mode == Src::gather_slab) {
    sr = __ldg(a.idx + r);
  } else {
    const uint64_t bh = divq<Wide>(a.S, r);
    const uint64_t s = r - bh * uint64_t(a.S.d);
    const uint64_t b = divq<Wide>(a.H, bh);
    const uint64_t h = bh - b * uint64_t(a.H.d);
    sr = int64_t((b * uint64_t(a.S.d) + s) * uint64_t(a.H.d) + h);
  }
  return {base + sr * ld + col, room};
}

// The output byte where chunk c starts, or -1 for an idle chunk (past a row's end in its last slab).
// Row by row, chunk c is bytes [16c, 16c + 16) of the destination from dst_al. Slab-major (gather_slab, slab
// S) the chunks walk every row's bytes [0, S), then every row's [S, 2S), ...: chunk c is chunk k of row r's
// slab s, c = (s * rows + r) * S/16 + k. Rows are 16-byte multiples and the destination is aligned then, so
// no chunk straddles a row.
template <Src Mode, bool Wide>
__device__ __forceinline__ int64_t out_byte(const Args& a, int64_t c) {
  if constexpr (Mode == Src::gather_slab) {
    const int cs = a.slab_shift - 4;  // log2 of the chunks in a slab
    const uint64_t t = uint64_t(c) >> cs;
    const uint64_t s = divq<Wide>(a.rows, t);
    const uint64_t r = t - s * uint64_t(a.rows.d);
    const int64_t col = int64_t(s << a.slab_shift) + (int64_t(c) & ((int64_t(1) << cs) - 1)) * 16;
    return col < a.row_bytes ? int64_t(r) * a.row_bytes + col : -1;
  } else {
    return c * 16 - a.dmis;
  }
}

// The 16 bytes starting `sh` bytes into lo:hi (two consecutive aligned 16-byte words), sh in [0, 16).
__device__ __forceinline__ uint4 shift16(const uint4& lo, const uint4& hi, uint32_t sh) {
  uint32_t w[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
  if (sh & 8) {
#pragma unroll
    for (int i = 0; i < 6; ++i) w[i] = w[i + 2];
  }
  if (sh & 4) {
#pragma unroll
    for (int i = 0; i < 7; ++i) w[i] = w[i + 1];
  }
  const uint32_t sel = 0x3210u + (sh & 3u) * 0x1111u;
  return make_uint4(__byte_perm(w[0], w[1], sel), __byte_perm(w[1], w[2], sel), __byte_perm(w[2], w[3], sel),
                    __byte_perm(w[3], w[4], sel));
}

template <bool NC>
__device__ __forceinline__ uint4 load16(const uint4* p) {
  if constexpr (NC) return __ldg(p);
  else return *p;
}

template <int ES, Src Mode, bool Wide, class Cfg>
__global__ void __launch_bounds__(Cfg::kThreads) row_copy_kernel(const Args a) {
  using E = std::conditional_t<ES == 2, uint16_t, uint32_t>;
  constexpr int kThreads = Cfg::kThreads, kUnroll = Cfg::kUnroll;
  const int64_t c0 = int64_t(blockIdx.x) * Cfg::kChunksPerBlock + threadIdx.x;

  const char* sp[kUnroll];
  int64_t ob[kUnroll];  // gather_slab: each chunk's output byte
  bool fast[kUnroll];
#pragma unroll
  for (int u = 0; u < kUnroll; ++u) {
    const int64_t c = c0 + int64_t(u) * kThreads;
    const int64_t o = out_byte<Mode, Wide>(a, c);
    ob[u] = o;
    fast[u] = false;
    sp[u] = nullptr;
    if (c < a.nchunks && o >= 0 && o + 16 <= a.total) {
      const Loc l = locate<ES, Mode, Wide>(a, o);
      sp[u] = l.p;
      fast[u] = l.room >= 16;
    }
  }
  uint4 lo[kUnroll], hi[kUnroll];
#pragma unroll
  for (int u = 0; u < kUnroll; ++u) {
    lo[u] = hi[u] = make_uint4(0, 0, 0, 0);
    if (fast[u]) {
      const uintptr_t p = reinterpret_cast<uintptr_t>(sp[u]);
      const uint4* al = reinterpret_cast<const uint4*>(p & ~uintptr_t(15));
      lo[u] = load16<Cfg::kNC>(al);
      if (p & 15) hi[u] = load16<Cfg::kNC>(al + 1);
    }
  }
#pragma unroll
  for (int u = 0; u < kUnroll; ++u) {
    if (fast[u]) {
      const int64_t c = c0 + int64_t(u) * kThreads;
      const uint32_t sh = uint32_t(reinterpret_cast<uintptr_t>(sp[u]) & 15);
      char* const d = a.dst_al + (Mode == Src::gather_slab ? ob[u] : c * 16);
      *reinterpret_cast<uint4*>(d) = shift16(lo[u], hi[u], sh);
    }
  }
  // Chunks at a row/segment boundary or at the ragged ends of the destination: element by element (none
  // slab-major).
  if constexpr (Mode != Src::gather_slab) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int64_t c = c0 + int64_t(u) * kThreads;
      if (c >= a.nchunks || fast[u]) continue;
#pragma unroll 1
      for (int k = 0; k < 16 / ES; ++k) {
        const int64_t o = c * 16 - a.dmis + int64_t(k) * ES;
        if (o < 0 || o >= a.total) continue;
        const char* p = locate<ES, Mode, Wide>(a, o).p;
        *reinterpret_cast<E*>(a.dst_al + c * 16 + k * ES) = *reinterpret_cast<const E*>(p);
      }
    }
  }
}

// expand of one source row of C 16-byte chunks into `rows` rows, both ends 16-byte aligned: the output's chunks
// are walked in passes of P = C * rpp chunks (rpp rows), thread c of a pass writing chunks c, c + P, c + 2P, ...
// of the output (one per pass), all equal to source chunk c mod C. So a thread finds its source with one division
// and one load, then stores `passes` times with no index arithmetic between the stores; the stores of a warp stay
// consecutive. row_copy_kernel located the source of every 16-byte chunk (a division and 64-bit address arithmetic
// a store): ncu on the H200 (4096^2 bf16) read it ALU-bound, 72% of the ALU pipe, at 73-83% of the copy roof. H200
// GPU 282d5265 (bench_ops, A/B twice, best turns; notes/performance.md, forty-first round), us, with 8 stores a
// thread: bf16 4096^2 10.7 -> 8.35, 8192^2 39.4 -> 30.3, 512^3 77.6 -> 59.1; fp32 4096^2 20.4 -> 15.7, 8192^2
// 78.0 -> 59.6, 512^3 154.0 -> 117.4; 512^2 and 1024^2 0.03-0.12 faster. A store-only stream is not bound by the
// copy roof (reads and writes): on that board cudaMemset and a store kernel wrote 4.3-4.6 TB/s at 256-512 MB, and
// these ran at 101-110% of the copy-based roof; their roof is now the store-only sweep's (device_info.hpp), which
// they still pass by 4-7% at 8192^2 and 512^3 (that sweep's grid-stride order writes slower than one pass of a
// store or two a thread). Of 1, 2, 4 and 8 stores a thread (GPU 64a9b87b, two turns), 8 took 1-4%
// longer than 2 from 8192^2 up (its stores eight passes apart), 1 and 4 within 1% of 2.
constexpr int kExpandThreads = 256;
constexpr int kExpandMaxPasses = 2;    // stores a thread
constexpr int kExpandBlocksPerSm = 4;  // fewer passes while the grid has fewer blocks than this a SM

template <bool Wide>
__global__ void __launch_bounds__(kExpandThreads) expand_kernel(const uint4* __restrict__ src,
                                                                uint4* __restrict__ dst, Div row_chunks,
                                                                int64_t pass, int passes, int64_t nchunks) {
  const int64_t c = int64_t(blockIdx.x) * kExpandThreads + threadIdx.x;
  if (c >= pass) return;
  const uint64_t r = divq<Wide>(row_chunks, uint64_t(c));
  const uint4 v = __ldg(src + (uint64_t(c) - r * uint64_t(row_chunks.d)));
#pragma unroll
  for (int i = 0; i < kExpandMaxPasses - 1; ++i)  // every pass but the last is whole
    if (i < passes - 1) dst[c + i * pass] = v;
  const int64_t last = c + int64_t(passes - 1) * pass;
  if (last < nchunks) dst[last] = v;
}

// copy of a whole buffer, both ends 16-byte aligned and a multiple of 16 bytes: one 16-byte load and store a
// thread with no index arithmetic before the load. row_copy_kernel locates each chunk's source first, which
// the smallest copies paid in latency: H100, A/B/A, copy 512^2 fp32 2.11 -> 1.92 us, 32^3 bf16 1.66 -> 1.47
// (LibTorch's cudaMemcpyAsync: 1.88, 1.47), the same within 1% from 2048^2 up.
__global__ void __launch_bounds__(256) copy16_kernel(const uint4* __restrict__ src, uint4* __restrict__ dst,
                                                     int64_t n) {
  const int64_t i = int64_t(blockIdx.x) * 256 + threadIdx.x;
  if (i < n) dst[i] = __ldg(src + i);
}

int elem_size(DType dt) {
  if (dt != DType::f32 && dt != DType::f16 && dt != DType::bf16)
    throw std::invalid_argument(std::string("layout kernels: unsupported dtype ") + opbench::dtype_name(dt));
  return int(opbench::dtype_size(dt));
}

void require_aligned(const void* p, int es, const char* what) {
  if (reinterpret_cast<uintptr_t>(p) % uintptr_t(es) != 0)
    throw std::invalid_argument(std::string("layout kernels: ") + what + " is not aligned to its element size");
}

template <int ES, Src Mode, class Cfg>
void launch_cfg(const Args& a, bool wide, cudaStream_t stream) {
  const int64_t blocks = ceil_div(a.nchunks, Cfg::kChunksPerBlock);
  FW_REQUIRE(blocks <= int64_t(INT32_MAX), "output too large");
  if (wide) row_copy_kernel<ES, Mode, true, Cfg><<<unsigned(blocks), Cfg::kThreads, 0, stream>>>(a);
  else row_copy_kernel<ES, Mode, false, Cfg><<<unsigned(blocks), Cfg::kThreads, 0, stream>>>(a);
  FW_CHECK_LAUNCH();
}

// Cfg's launch, or its Spread config's when it has one and Cfg's grid would leave SMs without a block.
template <int ES, Src Mode, class Cfg>
void launch_es(const Args& a, bool wide, cudaStream_t stream) {
  if constexpr (!std::is_void<typename Cfg::Spread>::value) {
    if (ceil_div(a.nchunks, Cfg::kChunksPerBlock) < int64_t(sm_count()))
      return launch_cfg<ES, Mode, typename Cfg::Spread>(a, wide, stream);
  }
  launch_cfg<ES, Mode, Cfg>(a, wide, stream);
}

// How a gather walks its rows (layout.hpp, GatherWalk). A table read once per distinct index needs a repeated
// index to find its row still in L2. Row by row, the bytes between a row's two uses are the rows gathered and
// written in between, up to twice the output: once the gathered rows fill most of L2 (3/4 of it) most repeats are
// read from HBM again.
// Slab-major they are as many slabs, so the slab is the largest power of two whose pass over all rows (read and
// written, 2 * rows * slab) fills at most half of L2, but no less than 256 bytes; row by row when that is a whole
// row, or rows are not 16-byte multiples. H100, N random indices into N rows (ncu's dram__bytes_read, bench_ops's
// medians; notes/performance.md): 8192^2 fp32 read 0.95 of the table row by row, 0.633 slab-major (distinct rows:
// 0.632), 174.5 -> 152.4 us (LibTorch 163.3). 128-byte slabs read less than 256-byte ones at 512x512x512 fp32 (0.771
// against 0.846) but took 359.7 us against 347.4: HBM serves random 128-byte reads slower. Row by row, the 34 MB
// bf16 gathers read 0.69 of the table, and slab-major made some of 25-34 MB slower (bf16 16384x768 13.73 -> 13.97 us).
// Window-major, where even the 256-byte slab's pass overfills all of L2 (from 102401 rows on the H100; 65536 rows,
// 34 MB a pass, stay slab-major, which was 6% faster there) and rows are 1-4 KB: the rows whose index falls in the
// first window of table rows, then those of the next, ..., a warp a row, each pass scanning every index
// (gather_window_kernel). A window is kWindowL2Share of L2, so that its distinct rows, read whole, stay in L2 while
// the pass writes its share of the output. H100, N random indices into N rows, slab-major -> window-major, us
// (notes/performance.md, thirty-fourth and thirty-fifth rounds): 2 KB rows, 131072 164.3 -> 157.2, 196608 254.5 ->
// 235.3, 262144 346.1 -> 315.5; 1 KB rows, 131072 81.5 -> 78.5 (fp32), 81.3 -> 78.4 (bf16); 512-byte rows (bf16
// 131072x256) 39.8 -> 41.1, slower, so they stay slab-major.
constexpr int kMinSlabShift = 8;
constexpr int64_t kWindowMinRowBytes = 1024, kWindowMaxRowBytes = 4096;  // measured on 1-2 KB rows
constexpr int64_t kWindowL2Share = 4;                                   // a window: L2 / this

}  // namespace

GatherWalk gather_walk(int64_t n_idx, int64_t vocab, int64_t row_bytes, std::size_t l2_bytes) {
  GatherWalk w;
  const int64_t l2 = int64_t(l2_bytes);
  if (row_bytes % 16 != 0 || 4 * n_idx * row_bytes <= 3 * l2) return w;
  if (2 * n_idx * (int64_t(1) << kMinSlabShift) > l2 && row_bytes >= kWindowMinRowBytes &&
      row_bytes <= kWindowMaxRowBytes) {
    const int64_t per_window = l2 / kWindowL2Share / row_bytes;
    w.window_rows = std::min(per_window, vocab);
    return w;
  }
  int shift = kMinSlabShift;
  while (4 * n_idx * (int64_t(2) << shift) <= l2) ++shift;
  if ((int64_t(1) << shift) < row_bytes) w.slab_shift = shift;
  return w;
}

namespace {

// The walk of a gather from table into dst on the current device: the alignment each walk needs (slab-major a
// 16-byte aligned destination, so that no chunk straddles a row; window-major the table too), then the sizes.
// gather_rows launches by it and gather_rows_kernel names it: one decision.
GatherWalk gather_walk_of(const void* table, const void* dst, int64_t vocab, int64_t rows, int64_t row_bytes) {
  if ((reinterpret_cast<uintptr_t>(dst) & 15) != 0) return {};
  GatherWalk w = gather_walk(rows, vocab, row_bytes, device_props().l2_bytes);
  if (w.window_rows && (reinterpret_cast<uintptr_t>(table) & 15) != 0) {
    w.window_rows = 0;  // the slab-major walk's shifted loads read a misaligned table
    w.slab_shift = kMinSlabShift;
  }
  return w;
}

// Window-major gather (gather_walk): warp u takes output rows [32 g, 32 g + 32) of window w = u / groups; lane l
// loads index 32 g + l, and the warp copies, one after another, the rows whose index falls in table rows
// [w W, w W + W), 16 bytes a lane, kWindowUnroll loads in flight before the stores. The output is written with
// streaming stores (st.global.cs), so that it evicts the window's table rows from L2 less. A warp an item, in a
// grid of every item: the block scheduler starts blocks in order as others retire, which keeps the blocks in
// flight within about one window. H100, 512x512x512 (notes/performance.md, thirty-fourth round): a persistent
// grid-stride walk let its warps drift apart by several windows and read 0.95 of the table (fp32 377 us against
// slab-major's 347); in order, 0.67 and 315 us (bf16 158 against 173). Listing a block's rows in shared memory
// first, with one or two rows a warp in flight, ran within 1% of this.
constexpr int kWindowThreads = 256, kWindowUnroll = 4;
struct WindowArgs {
  const uint4* table;
  const int64_t* idx;
  uint4* dst;
  int64_t n;        // output rows (indices)
  int64_t chunks;   // 16-byte chunks a row
  int64_t window;   // table rows a window
  int64_t groups;   // 32-row groups of the output
  int64_t items;    // windows * groups
};

__global__ void __launch_bounds__(kWindowThreads) gather_window_kernel(const WindowArgs a) {
  const int lane = int(threadIdx.x) & 31;
  const int64_t nwarps = int64_t(gridDim.x) * (kWindowThreads / 32);
  for (int64_t u = (int64_t(blockIdx.x) * kWindowThreads + threadIdx.x) >> 5; u < a.items; u += nwarps) {
    const int64_t w = u / a.groups;
    const int64_t g = u - w * a.groups;
    const int64_t r = g * 32 + lane;
    const int64_t s = r < a.n ? __ldg(a.idx + r) : -1;
    uint32_t mask = __ballot_sync(~0u, r < a.n && uint64_t(s - w * a.window) < uint64_t(a.window));
    while (mask) {
      const int b = __ffs(int(mask)) - 1;
      mask &= mask - 1;
      const uint4* src = a.table + __shfl_sync(~0u, s, b) * a.chunks;
      uint4* out = a.dst + (g * 32 + b) * a.chunks;
      for (int64_t c = lane; c < a.chunks; c += 32 * kWindowUnroll) {
        uint4 v[kWindowUnroll];
#pragma unroll
        for (int i = 0; i < kWindowUnroll; ++i)
          if (c + i * 32 < a.chunks) v[i] = __ldg(src + c + i * 32);
#pragma unroll
        for (int i = 0; i < kWindowUnroll; ++i)
          if (c + i * 32 < a.chunks) __stcs(out + c + i * 32, v[i]);
      }
    }
  }
}

void gather_window(const void* table, const int64_t* idx, void* dst, int64_t vocab, int64_t rows, int64_t row_bytes,
                   int64_t window, cudaStream_t stream) {
  WindowArgs a;
  a.table = static_cast<const uint4*>(table);
  a.idx = idx;
  a.dst = static_cast<uint4*>(dst);
  a.n = rows;
  a.chunks = row_bytes / 16;
  a.window = window;
  a.groups = ceil_div(rows, 32);
  a.items = ceil_div(vocab, window) * a.groups;
  // A warp an item (the grid-stride loop only past 2^31 - 1 blocks).
  const int64_t blocks = std::min(int64_t(INT32_MAX), ceil_div(a.items, kWindowThreads / 32));
  gather_window_kernel<<<unsigned(blocks), kWindowThreads, 0, stream>>>(a);
  FW_CHECK_LAUNCH();
}

// rows output rows of (len0 + len1) elements; segment k of row r reads srck + srow(r)*ldk (elements). Mode is
// known where each op calls it, so only the kernels an op can launch are compiled. A gather passes its walk's
// slab_shift (gather_walk_of; 0: row by row).
template <Src Mode, class Cfg>
void run(const void* src0, int64_t ld0, int64_t len0, const void* src1, int64_t ld1, int64_t len1, int64_t rows,
         void* dst, DType dt, const int64_t* idx, int64_t S, int64_t H, cudaStream_t stream, int slab_shift = 0) {
  const int es = elem_size(dt);
  FW_REQUIRE(rows >= 0 && len0 >= 0 && len1 >= 0 && ld0 >= 0 && ld1 >= 0, "negative size");
  const int64_t row_e = len0 + len1;
  if (rows == 0 || row_e == 0) return;
  FW_REQUIRE(dst != nullptr && src0 != nullptr && (len1 == 0 || src1 != nullptr), "null pointer");
  require_aligned(src0, es, "source");
  if (len1) require_aligned(src1, es, "second source");
  require_aligned(dst, es, "destination");
  Args a;
  a.src0 = static_cast<const char*>(src0);
  a.src1 = len1 ? static_cast<const char*>(src1) : a.src0;
  a.ld0 = ld0 * es;
  a.ld1 = ld1 * es;
  a.len0 = len0 * es;
  a.row_bytes = row_e * es;
  a.total = rows * a.row_bytes;
  const uintptr_t d = reinterpret_cast<uintptr_t>(dst);
  a.dst_al = reinterpret_cast<char*>(d & ~uintptr_t(15));
  a.dmis = int64_t(d & 15);
  a.nchunks = ceil_div(a.dmis + a.total, 16);
  a.row_e = Div(row_e);
  a.idx = idx;
  a.S = Div(S);
  a.H = Div(H);
  if (Mode == Src::gather) {
    a.slab_shift = slab_shift;
    if (a.slab_shift) {
      a.rows = Div(rows);
      const int64_t slab = int64_t(1) << a.slab_shift;
      a.nchunks = rows * ceil_div(a.row_bytes, slab) * (slab / 16);
    }
  }
  // 32-bit index math covers every element index (and hence rows, S, H, and the slab order's chunks,
  // fewer than 2x the destination's) below 2^32.
  const bool wide = a.total / es >= int64_t(UINT32_MAX);
  auto go = [&](auto es_tag) {
    constexpr int E = decltype(es_tag)::value;
    if constexpr (Mode == Src::gather) {  // slab-major: its rows fill L2, so its grid fills every SM (no spread)
      if (a.slab_shift) return launch_es<E, Src::gather_slab, typename Cfg::Unspread>(a, wide, stream);
    }
    launch_es<E, Mode, Cfg>(a, wide, stream);
  };
  if (es == 2) go(std::integral_constant<int, 2>{});
  else go(std::integral_constant<int, 4>{});
}

}  // namespace

void copy(const void* src, void* dst, int64_t numel, DType dt, cudaStream_t stream) {
  FW_REQUIRE(numel >= 0, "negative numel");
  const int64_t bytes = numel * elem_size(dt);
  const uintptr_t ends = reinterpret_cast<uintptr_t>(src) | reinterpret_cast<uintptr_t>(dst);
  if (bytes > 0 && bytes % 16 == 0 && (ends & 15) == 0) {
    const int64_t n16 = bytes / 16;
    FW_REQUIRE(ceil_div(n16, int64_t(256)) <= int64_t(INT32_MAX), "output too large");
    copy16_kernel<<<unsigned(ceil_div(n16, int64_t(256))), 256, 0, stream>>>(static_cast<const uint4*>(src),
                                                                             static_cast<uint4*>(dst), n16);
    FW_CHECK_LAUNCH();
    return;
  }
  run<Src::plain, PlainConfig>(src, 0, numel, nullptr, 0, 0, 1, dst, dt, nullptr, 1, 1, stream);
}

void cat2(const void* a, const void* b, void* dst, int64_t outer, int64_t inner_a, int64_t inner_b, DType dt,
          cudaStream_t stream) {
  run<Src::plain, PlainConfig>(a, inner_a, inner_a, b, inner_b, inner_b, outer, dst, dt, nullptr, 1, 1, stream);
}

void narrow_last(const void* src, void* dst, int64_t rows, int64_t n, int64_t start, int64_t length, DType dt,
                 cudaStream_t stream) {
  FW_REQUIRE(start >= 0 && length >= 0 && start + length <= n, "narrow range outside the last dim");
  const int es = elem_size(dt);
  if (rows == 0 || length == 0) return;
  run<Src::plain, PlainConfig>(static_cast<const char*>(src) + start * es, n, length, nullptr, 0, 0, rows, dst, dt,
                               nullptr, 1, 1, stream);
}

void expand_rows(const void* src, void* dst, int64_t rows, int64_t n, DType dt, cudaStream_t stream) {
  const int es = elem_size(dt);
  FW_REQUIRE(rows >= 0 && n >= 0, "negative size");
  if (rows == 0 || n == 0) return;
  const int64_t row_bytes = n * es;
  const uintptr_t ends = reinterpret_cast<uintptr_t>(src) | reinterpret_cast<uintptr_t>(dst);
  if (row_bytes % 16 != 0 || (ends & 15) != 0)  // rows of ragged or misaligned chunks: located chunk by chunk
    return run<Src::plain, PlainConfig>(src, 0, n, nullptr, 0, 0, rows, dst, dt, nullptr, 1, 1, stream);
  const int64_t row_chunks = row_bytes / 16, nchunks = rows * row_chunks;
  // As many passes as keep kExpandBlocksPerSm blocks a SM busy, at most kExpandMaxPasses.
  const int64_t full = int64_t(sm_count()) * kExpandBlocksPerSm * kExpandThreads;
  const int64_t passes = std::clamp<int64_t>(nchunks / full, 1, kExpandMaxPasses);
  const int64_t pass = ceil_div(rows, passes) * row_chunks;
  const int p = int(ceil_div(nchunks, pass));  // <= passes: the last one may hold fewer rows, or none
  const int64_t blocks = ceil_div(pass, int64_t(kExpandThreads));
  FW_REQUIRE(blocks <= int64_t(INT32_MAX), "output too large");
  const Div rc(row_chunks);
  if (pass > int64_t(UINT32_MAX))
    expand_kernel<true><<<unsigned(blocks), kExpandThreads, 0, stream>>>(static_cast<const uint4*>(src),
                                                                         static_cast<uint4*>(dst), rc, pass, p, nchunks);
  else
    expand_kernel<false><<<unsigned(blocks), kExpandThreads, 0, stream>>>(static_cast<const uint4*>(src),
                                                                          static_cast<uint4*>(dst), rc, pass, p, nchunks);
  FW_CHECK_LAUNCH();
}

std::string gather_rows_kernel(const void* table, const void* dst, int64_t vocab, int64_t n_idx, int64_t dim,
                               DType dt) {
  const GatherWalk w = gather_walk_of(table, dst, vocab, n_idx, dim * elem_size(dt));
  if (w.window_rows) return "window-major, " + std::to_string(w.window_rows) + "-row windows";
  if (w.slab_shift) return "slab-major, " + std::to_string(w.slab_bytes()) + "-byte slabs";
  return "row by row";
}

void gather_rows(const void* table, const int64_t* idx, void* dst, int64_t vocab, int64_t n_idx, int64_t dim,
                 DType dt, cudaStream_t stream) {
  FW_REQUIRE(vocab > 0 || n_idx == 0, "empty table");
  FW_REQUIRE(n_idx == 0 || dim == 0 || (idx != nullptr && table != nullptr && dst != nullptr), "null pointer");
  const int64_t row_bytes = dim * elem_size(dt);
  const GatherWalk w = n_idx > 0 && dim > 0 ? gather_walk_of(table, dst, vocab, n_idx, row_bytes) : GatherWalk{};
  if (w.window_rows) return gather_window(table, idx, dst, vocab, n_idx, row_bytes, w.window_rows, stream);
  run<Src::gather, GatherConfig>(table, dim, dim, nullptr, 0, 0, n_idx, dst, dt, idx, 1, 1, stream, w.slab_shift);
}

void permute_0213(const void* src, void* dst, int64_t B, int64_t S, int64_t H, int64_t D, DType dt,
                  cudaStream_t stream) {
  FW_REQUIRE(B >= 0 && S >= 0 && H >= 0 && D >= 0, "negative size");
  if (B == 0 || S == 0 || H == 0 || D == 0) return;
  if (S == 1 || H == 1) {  // the permutation moves nothing
    copy(src, dst, B * S * H * D, dt, stream);
    return;
  }
  run<Src::permute, PlainConfig>(src, D, D, nullptr, 0, 0, B * H * S, dst, dt, nullptr, S, H, stream);
}

}  // namespace fw::layout
