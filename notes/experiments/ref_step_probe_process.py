# ref_step_probe_process.py (x57 on the node): the rest of bench_ops's differences from a python process, for LibTorch's ~1 us step between processes.
# argv: process number, 'cudnn' or 'plain' (cudnn: a cuDNN convolution first, so the handle and cuDNN's kernels are
# loaded as in bench_ops). Variants interleaved per sample, all with the held stream and bench_ops's memset flush:
#   H  : torch.cuda._sleep, cudaMemsetAsync 2 x L2, triton read, event, CALL, event  (ref_step_probe_flush.py's SMR)
#   HS : the same on a side stream (bench_ops times on its own stream)
#   HP : the same with a tiny kernel of another module before the flush and after the call (bench_ops's clock probe)
# Run on the GPU node (PyTorch with triton), one process per line of output, e.g.
#   for p in $(seq 14); do m=plain; [ $((p % 2)) -eq 1 ] && m=cudnn; python3 notes/experiments/ref_step_probe_process.py $p $m; done
# Results and what they mean: notes/methodology.md, "The references' step between processes, reproduced alone".
import torch, sys, statistics, ctypes, glob, os, triton, triton.language as tl
dev = torch.device('cuda')
if sys.argv[2] == 'cudnn':
    torch.backends.cudnn.enabled = True
    c = torch.nn.Conv2d(16, 16, 3).cuda(); c(torch.randn(2, 16, 32, 32, device=dev)); torch.cuda.synchronize()
    assert torch.backends.cudnn.is_available()
libs = glob.glob(os.path.join(os.path.dirname(torch.__file__), 'lib', 'libcudart*.so*')) + \
       glob.glob(os.path.join(os.path.dirname(torch.__file__), '..', 'nvidia', 'cuda_runtime', 'lib', 'libcudart.so*'))
rt = ctypes.CDLL(libs[0]) if libs else ctypes.CDLL('libcudart.so')
rt.cudaMemsetAsync.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t, ctypes.c_void_p]
l2 = torch.cuda.get_device_properties(0).L2_cache_size
n2 = (2 * l2) // 4
fb = torch.empty(n2, dtype=torch.float32, device=dev)
acc = torch.zeros(1, dtype=torch.float32, device=dev)
tiny = torch.zeros(4, dtype=torch.int64, device=dev)

@triton.jit
def k_read(p, out, n, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(p + o, mask=o < n, other=0.0)
    s = tl.sum(v, axis=0)
    tl.store(out + tl.program_id(0) * 0, s, mask=s != s)

@triton.jit
def k_tiny(p):
    v = tl.load(p)
    tl.store(p + 1, v + 1)

B = 4096
side = torch.cuda.Stream()
def sample(f, probe):
    torch.cuda._sleep(100000)
    if probe: k_tiny[(1,)](tiny)
    s = torch.cuda.current_stream().cuda_stream
    assert rt.cudaMemsetAsync(ctypes.c_void_p(fb.data_ptr()), 0, fb.numel() * 4, ctypes.c_void_p(s)) == 0
    k_read[(triton.cdiv(n2, B),)](fb, acc, n2, BLOCK=B)
    a = torch.cuda.Event(enable_timing=True); b = torch.cuda.Event(enable_timing=True)
    a.record(); f(); b.record()
    if probe: k_tiny[(1,)](tiny)
    b.synchronize()
    return a.elapsed_time(b) * 1000
def H(f): return sample(f, False)
def HS(f):
    with torch.cuda.stream(side): return sample(f, False)
def HP(f): return sample(f, True)
variants = [('H', H), ('HS', HS), ('HP', HP)]
x512b = torch.randn(512, 512, device=dev).to(torch.bfloat16)
x1024b = torch.randn(1024, 1024, device=dev).to(torch.bfloat16)
x1024f = torch.randn(1024, 1024, device=dev)
cases = [('mean_bf16_1024', lambda: x1024b.mean()), ('sum_fp32_1024', lambda: x1024f.sum()),
         ('min_bf16_512', lambda: x512b.min()), ('argmax_bf16_1024', lambda: x1024b.argmax())]
for _, v in variants:
    for _, f in cases: v(f)
torch.cuda.synchronize()
res = {(c, n): [] for c, _ in cases for n, _ in variants}
for rep in range(40):
    for c, f in cases:
        for n, v in variants:
            res[(c, n)].append(v(f))
print('proc %2s %-5s ' % (sys.argv[1], sys.argv[2]) + '  '.join('%s %s' % (c, '/'.join('%.2f' % statistics.median(res[(c, n)]) for n, _ in variants)) for c, _ in cases), flush=True)
