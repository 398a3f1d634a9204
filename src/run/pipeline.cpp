#include "src/run/pipeline.hpp"

#include <fmt/format.h>

#include <functional>
#include <optional>
#include <string>

#include "src/core/cuda_check.hpp"
#include "src/core/problem_setup.hpp"
#include "src/reference/reference.hpp"
#include "src/verify/gate.hpp"

namespace opbench {
namespace {

uint64_t seed_for(const Problem& p) { return std::hash<std::string>{}(p.id()) | 1; }

Tolerance tolerance_for(const Problem& p, const RunSettings& s) {
  if (s.tf32 && p.dtype == DType::f32 && p.op->tf32_tolerance) return p.op->tf32_tolerance(p.shape);
  return p.op->tolerance(p.shape, p.dtype);
}

ImplResult failed(ImplKind k, Status st, const std::string& msg) {
  ImplResult r;
  r.impl = k;
  r.status = st;
  r.message = msg;
  return r;
}

// Runs f, which fills `row`; turns what it throws into a failed (or not_supported) row.
template <class F>
void guarded(ImplResult& row, F&& f) {
  try {
    f();
  } catch (const NotSupported& e) {
    row = failed(row.impl, Status::not_supported, e.what());
  } catch (const std::exception& e) {
    (void)cudaGetLastError();
    row = failed(row.impl, Status::failed, e.what());
  }
}

std::string mismatch_message(const Verification& v) {
  return fmt::format("{} elements beyond tolerance (atol {:g}, rtol {:g}); first: {}", v.mismatches, v.tolerance.atol,
                     v.tolerance.rtol, v.first_mismatch);
}

}  // namespace

// Every implementation of the problem, in the op's order (framework, LibTorch, vendors), each with its
// row and, once prepared, what it launches.
struct ProblemPipeline::Impls {
  std::vector<ImplResult> rows;
  std::vector<std::optional<Prepared>> prepared;
  ImplResult* row(ImplKind k) {
    for (auto& r : rows)
      if (r.impl == k) return &r;
    return nullptr;
  }
  std::size_t index(ImplKind k) const {
    for (std::size_t i = 0; i < rows.size(); ++i)
      if (rows[i].impl == k) return i;
    return rows.size();
  }
};

ProblemPipeline::ProblemPipeline(PipelineConfig cfg, TimingResources& timing, cudaStream_t stream)
    : cfg_(std::move(cfg)), timing_(timing), stream_(stream) {}

ProblemResult ProblemPipeline::run(const Problem& p) { return run_stages(p, 0, cfg_.last); }

ProblemResult ProblemPipeline::verify(const Problem& p, int64_t misalign) {
  return run_stages(p, misalign, PipelineStage::verify);
}

ProblemResult ProblemPipeline::run_stages(const Problem& p, int64_t misalign, PipelineStage last) {
  const OpDef& op = *p.op;
  ProblemResult res;
  res.op = op.name;
  res.category = op.category;
  res.shape = p.shape;
  res.size_class = p.size_class;
  res.dtype = p.dtype;
  res.twin_of = op.twin_of;
  res.sweep = p.sweep;

  // Prepare: inputs (seeded, shared by all), then every implementation on its own outputs.
  std::unique_ptr<ProblemSetup> setup;
  try {
    OpIO io = op.io(p.shape, p.dtype);
    res.bytes = op.bytes(p.shape, p.dtype);
    res.flops = op.flops(p.shape, p.dtype);
    // A perfect implementation writes each output once: the bytes written are the outputs' size.
    for (const TensorSpec& o : io.outputs) res.bytes_written += double(numel(o.shape)) * double(dtype_size(o.dtype));
    setup = std::make_unique<ProblemSetup>(io, seed_for(p), stream_, misalign);
  } catch (const std::invalid_argument& e) {
    res.impls.push_back(failed(ImplKind::framework, Status::failed, std::string("bad shape: ") + e.what()));
    return res;
  } catch (const std::exception& e) {
    (void)cudaGetLastError();
    for (const Impl& i : op.impls) res.impls.push_back(failed(i.kind, Status::failed, e.what()));
    return res;
  }
  Impls impls;
  for (const Impl& impl : op.impls) {
    impls.rows.push_back(ImplResult{impl.kind});
    impls.prepared.emplace_back();
    ImplResult& row = impls.rows.back();
    guarded(row, [&] {
      if (!impl.prepare) throw std::runtime_error(impl.missing.empty() ? "not available" : impl.missing);
      Bindings b = setup->bindings(impl.kind);
      b.settings = cfg_.settings;
      impls.prepared.back() = impl.prepare(b);
      row.kernel = impls.prepared.back()->kernel;
    });
  }

  // Verify: the oracle once, then LibTorch, the framework (also against LibTorch), the vendors.
  const Tolerance tol = tolerance_for(p, cfg_.settings);
  std::optional<Gate> gate;
  try {
    const std::string name = op.name;
    std::vector<Tolerance> tols(std::max<std::size_t>(1, setup->io().outputs.size()), tol);
    if (op.output_tolerance && !(cfg_.settings.tf32 && p.dtype == DType::f32 && op.tf32_tolerance))
      for (std::size_t j = 0; j < tols.size(); ++j) tols[j] = op.output_tolerance(p.shape, p.dtype, j);
    gate.emplace(*setup, std::move(tols), [name](const Bindings& b, const std::vector<TensorView>& out) {
      reference::run_oracle(name, b, out);
    }, stream_);
  } catch (const std::exception& e) {
    (void)cudaGetLastError();
    for (auto& r : impls.rows)
      if (r.status == Status::ok) r = failed(r.impl, Status::failed, std::string("not verified: the fp64 oracle failed: ") + e.what());
  }
  auto check = [&](ImplKind k, const std::vector<TensorView>* against) {
    const std::size_t i = impls.index(k);
    if (i == impls.rows.size() || impls.rows[i].status != Status::ok || !gate) return;
    ImplResult& row = impls.rows[i];
    guarded(row, [&] {
      row.verify = gate->check(k, *impls.prepared[i], against);
      if (!row.verify.correct) {
        row.status = Status::incorrect;
        row.message = mismatch_message(row.verify);
      }
    });
  };
  check(ImplKind::torch, nullptr);
  const ImplResult* torch = impls.row(ImplKind::torch);
  const bool torch_ok = torch && torch->status == Status::ok;
  std::vector<TensorView> torch_out;
  if (torch_ok) torch_out = setup->bindings(ImplKind::torch).out;
  check(ImplKind::framework, torch_ok ? &torch_out : nullptr);
  for (const auto& r : impls.rows)
    if (is_vendor(r.impl)) check(r.impl, nullptr);

  if (last != PipelineStage::verify) measure_stage(p, *setup, impls);
  res.impls = std::move(impls.rows);
  setup.reset();
  reference::torch_empty_cache();
  return res;
}

// Every verified implementation is measured together (interleaved), then its memory is recorded.
void ProblemPipeline::measure_stage(const Problem& p, ProblemSetup& setup, Impls& impls) {
  std::vector<std::size_t> ready;
  std::vector<Launch> launches;
  for (std::size_t i = 0; i < impls.rows.size(); ++i)
    if (impls.rows[i].status == Status::ok && impls.prepared[i]) {
      ready.push_back(i);
      launches.push_back(impls.prepared[i]->launch);
    }
  if (ready.empty()) return;
  try {
    if (cfg_.last == PipelineStage::profile) {
      std::vector<std::string> names;
      for (std::size_t i : ready) names.push_back(p.id() + "/" + impl_name(impls.rows[i].impl));
      const int graph_launches = !cfg_.timing.graph              ? 0
                                 : cfg_.timing.graph_launches > 0 ? cfg_.timing.graph_launches
                                                                  : kProfileGraphLaunches;
      profile_once(launches, names, stream_, graph_launches);
      return;
    }
    std::vector<std::string> names;
    for (std::size_t i : ready) names.push_back(impl_name(impls.rows[i].impl));
    TimingConfig timing = cfg_.timing;
    timing.hold_stream = !p.op->timed_as_issued;
    // A whole model's step (milliseconds, host-bound at small batch, so noisier) gets two seconds of
    // samples before the timeout instead of the kernels' budget (H100, batch 1, seq 128: 18 samples in the
    // 0.25 s budget left LibTorch's prefill median at +-4.4%).
    if (p.op->timed_as_issued) timing.timeout_ms = std::max(timing.timeout_ms, 2000.0);
    const std::vector<Measurement> m = measure(launches, timing, timing_, stream_, names);
    const double operand_mb = double(setup.operand_bytes()) / (1 << 20);
    for (std::size_t j = 0; j < ready.size(); ++j) {
      ImplResult& row = impls.rows[ready[j]];
      const Prepared& prep = *impls.prepared[ready[j]];
      row.pure = m[j].pure;
      row.real = m[j].real;
      row.graph = m[j].graph;
      // What the timer had to say (a handshake fallback, a graph capture that failed) goes with the row.
      std::vector<std::string> said = m[j].notes;
      if (!m[j].graph_error.empty()) said.push_back("graph timing: " + m[j].graph_error);
      for (const std::string& n : said) row.message += (row.message.empty() ? "" : "; ") + n;
      guarded(row, [&] {
        double extra = double(prep.workspace_bytes);
        if (row.impl == ImplKind::framework) extra += double(setup.io().workspace_bytes);
        if (prep.uses_torch_allocator) extra += double(reference::torch_peak_extra_bytes(prep.launch, stream_));
        row.memory_mb = operand_mb + extra / (1 << 20);
      });
    }
  } catch (const std::exception& e) {
    (void)cudaGetLastError();
    for (std::size_t i : ready) impls.rows[i] = failed(impls.rows[i].impl, Status::failed, std::string("timing: ") + e.what());
  }
}

}  // namespace opbench
