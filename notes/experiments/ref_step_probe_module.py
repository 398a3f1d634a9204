# ref_step_probe_module.py (x55 on the node): is the references' ~1 us step between processes the cold code (or its translations) of LibTorch's module
# after a flush done by another module's kernels? bench_ops flushes with its own kernels (the framework's
# module) and only LibTorch/cuDNN step; python flushed with LibTorch's kernels and never stepped.
# Per process, interleaved per sample, three flushes of the same 256 MB buffer (write zeros, then read):
#   T  : LibTorch kernels (buf.zero_(); buf.sum())            -- as x49
#   R  : triton kernels (another module)                       -- as bench_ops, for LibTorch's point of view
#   RT : triton flush, then one LibTorch fill of a 4 KB tensor (LibTorch's module touched, not the timed kernel)
# Run on the GPU node (PyTorch with triton), one process per line of output, e.g.
#   for p in $(seq 10); do python3 notes/experiments/ref_step_probe_module.py $p; done
# Results and what they mean: notes/methodology.md, "The references' step between processes, reproduced alone".
import torch, sys, statistics, triton, triton.language as tl
dev = torch.device('cuda')
MB = 1 << 20
N = (256 * MB) // 4
buf = torch.empty(N, dtype=torch.float32, device=dev)
acc = torch.zeros(1, dtype=torch.float32, device=dev)
small = torch.empty(1024, dtype=torch.float32, device=dev)

@triton.jit
def k_zero(p, n, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(p + o, tl.zeros([BLOCK], tl.float32), mask=o < n)

@triton.jit
def k_read(p, out, n, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(p + o, mask=o < n, other=0.0)
    s = tl.sum(v, axis=0)
    tl.store(out + tl.program_id(0) * 0, s, mask=s != s)  # a store the compiler keeps, never taken (no NaN)

B = 4096
grid = (triton.cdiv(N, B),)
def flush_T():
    buf.zero_(); buf.sum()
def flush_R():
    k_zero[grid](buf, N, BLOCK=B); k_read[grid](buf, acc, N, BLOCK=B)
def flush_RT():
    flush_R(); small.fill_(1.0)
flushes = [('T', flush_T), ('R', flush_R), ('RT', flush_RT)]
x512b = torch.randn(512, 512, device=dev).to(torch.bfloat16)
x1024f = torch.randn(1024, 1024, device=dev)
x512f = torch.randn(512, 512, device=dev)
cases = [('mean_bf16_512', lambda: x512b.mean()), ('sum_fp32_1024', lambda: x1024f.sum()),
         ('min_bf16_512', lambda: x512b.min()), ('argmax_fp32_512', lambda: x512f.argmax())]
for _, fl in flushes: fl()
for _, f in cases: f()
torch.cuda.synchronize()
res = {(c, n): [] for c, _ in cases for n, _ in flushes}
for rep in range(40):
    for c, f in cases:
        for n, fl in flushes:
            fl()
            s = torch.cuda.Event(enable_timing=True); e = torch.cuda.Event(enable_timing=True)
            s.record(); f(); e.record(); e.synchronize()
            res[(c, n)].append(s.elapsed_time(e) * 1000)
print('proc %s ' % sys.argv[1] + '  '.join('%s %s' % (c, '/'.join('%.2f' % statistics.median(res[(c, n)]) for n, _ in flushes)) for c, _ in cases), flush=True)
