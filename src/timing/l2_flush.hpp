// A cold L2 that is clean. Writing a buffer of twice the L2 size (what the flush did before) evicts the
// inputs but leaves L2 full of dirty lines: the timed kernel then pays their write-back. Measured on the
// H100 (issue 9): LibTorch's add 4096^2 fp32 took 71.9 us after a write-only flush, 63.6 us after a
// flush that also reads the buffer, 62-64 us by ncu's gpu__time_duration. So the flush writes the
// buffer, then reads all of it: L2 ends holding only clean lines of the flush buffer, and the timed
// kernel starts with nothing of its own in L2 and nothing to write back.
//
// The read is a sweep kernel with 16-byte loads and the default (evict-normal) cache policy; a
// streaming (evict-first) load would leave the old lines in place. The same sweep, over a buffer of at
// least 8x L2, is the measured read roof (device_info.cpp).
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>

#include "src/core/device_buffer.hpp"

namespace opbench {

// Reads [p, p + bytes) (bytes a multiple of 16, p 16-byte aligned) on `s`, one pass of four 16-byte loads a thread.
// Nothing is written unless the data's checksum matches a value it cannot be known not to match, so the loads stay
// and no dirty line is left behind; `sink` must hold read_sweep_sink_bytes().
void launch_read_sweep(const void* p, std::size_t bytes, void* sink, cudaStream_t s);
std::size_t read_sweep_sink_bytes();
// Copies [src, src + bytes) to dst (bytes a multiple of 16, both 16-byte aligned) on `s`, one 16-byte chunk a
// thread: the streaming copy kernel the roofs by size are timed with (device_info.hpp), where cudaMemcpyAsync changes
// its method with the size (H100: 1.5 MB in 1.79 us, 3 MB in 4.77 us).
void launch_copy_sweep(const void* src, void* dst, std::size_t bytes, cudaStream_t s);
// Writes [dst, dst + bytes) (bytes a multiple of 16, dst 16-byte aligned) on `s`, one 16-byte store a thread and
// no load: the write roof's kernel (device_info.hpp).
void launch_write_sweep(void* dst, std::size_t bytes, cudaStream_t s);

class L2Flusher {
 public:
  explicit L2Flusher(std::size_t l2_bytes);  // a buffer of 2 x l2_bytes
  void flush(cudaStream_t s);                // write, then read, the whole buffer
  std::size_t bytes() const { return buf_.bytes(); }

 private:
  DeviceBuffer buf_, sink_;
  int value_ = 0;
};

}  // namespace opbench
