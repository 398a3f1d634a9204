# ref_step_probe_flush.py (x56 on the node): which part of bench_ops's sample gives LibTorch's full reductions a ~1 us step in some processes?
# ref_step_probe_module.py: a flush by another module's kernels (triton) does not. bench_ops writes its flush with cudaMemsetAsync
# (the driver's memset), reads it with its own sweep, over 2 x L2 (100 MB), and holds the stream first.
# Variants, interleaved per sample:  T = torch fill + torch sum (256 MB, x49's); MR = cudaMemsetAsync + triton
# read (100 MB, bench_ops's); SMR = torch.cuda._sleep (a held stream, ~50 us) then MR.
# Run on the GPU node (PyTorch with triton), one process per line of output, e.g.
#   for p in $(seq 12); do python3 notes/experiments/ref_step_probe_flush.py $p; done
# Results and what they mean: notes/methodology.md, "The references' step between processes, reproduced alone".
import torch, sys, statistics, ctypes, glob, os, triton, triton.language as tl
dev = torch.device('cuda')
MB = 1 << 20
libs = glob.glob(os.path.join(os.path.dirname(torch.__file__), 'lib', 'libcudart*.so*')) + \
       glob.glob(os.path.join(os.path.dirname(torch.__file__), '..', 'nvidia', 'cuda_runtime', 'lib', 'libcudart.so*'))
rt = ctypes.CDLL(libs[0]) if libs else ctypes.CDLL('libcudart.so')
rt.cudaMemsetAsync.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t, ctypes.c_void_p]
big = torch.empty((256 * MB) // 4, dtype=torch.float32, device=dev)
l2 = torch.cuda.get_device_properties(0).L2_cache_size
n2 = (2 * l2) // 4
fb = torch.empty(n2, dtype=torch.float32, device=dev)
acc = torch.zeros(1, dtype=torch.float32, device=dev)

@triton.jit
def k_read(p, out, n, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(p + o, mask=o < n, other=0.0)
    s = tl.sum(v, axis=0)
    tl.store(out + tl.program_id(0) * 0, s, mask=s != s)

B = 4096
def flush_T():
    big.zero_(); big.sum()
def flush_MR():
    s = torch.cuda.current_stream().cuda_stream
    assert rt.cudaMemsetAsync(ctypes.c_void_p(fb.data_ptr()), 0, fb.numel() * 4, ctypes.c_void_p(s)) == 0
    k_read[(triton.cdiv(n2, B),)](fb, acc, n2, BLOCK=B)
def flush_SMR():
    torch.cuda._sleep(100000); flush_MR()
flushes = [('T', flush_T), ('MR', flush_MR), ('SMR', flush_SMR)]
x512b = torch.randn(512, 512, device=dev).to(torch.bfloat16)
x1024b = torch.randn(1024, 1024, device=dev).to(torch.bfloat16)
x1024f = torch.randn(1024, 1024, device=dev)
cases = [('mean_bf16_1024', lambda: x1024b.mean()), ('sum_fp32_1024', lambda: x1024f.sum()),
         ('min_bf16_512', lambda: x512b.min()), ('argmax_bf16_1024', lambda: x1024b.argmax())]
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
