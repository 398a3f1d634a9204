// Matching two runs and judging each result: the device and settings checks, the per-implementation
// verdicts, the speedup's explanation, the re-run of flagged results and the per-category geomeans.
#include <algorithm>
#include <fmt/format.h>

#include <cmath>
#include <map>
#include <set>

#include "src/compare/comparison.hpp"

namespace opbench::compare {
namespace {

// The timing a report leads with (ImplResult::time_ms's choice): device time, else graph, else wall clock.
const TimeStats* headline(const ImplResult& r) {
  if (r.pure && r.pure->samples > 0) return &*r.pure;
  if (r.graph && r.graph->samples > 0) return &*r.graph;
  if (r.real && r.real->samples > 0) return &*r.real;
  return nullptr;
}

const TimeStats* timed(const ImplResult* r) {
  if (!r || r->status != Status::ok) return nullptr;
  const TimeStats* t = headline(*r);
  return t && t->median_ms > 0 ? t : nullptr;
}

TimingBrief brief(const TimeStats& t) {
  return {t.median_ms, t.q1_ms, t.q3_ms, t.sm_clock_mhz, t.samples, t.reliable};
}

bool runs_ok(Status s) { return s == Status::ok; }

StatusChange status_change(Status base, Status cur) {
  if (base == Status::not_supported || cur == Status::not_supported) return StatusChange::not_supported;
  if (runs_ok(base) && !runs_ok(cur)) return StatusChange::broke;
  if (!runs_ok(base) && runs_ok(cur)) return StatusChange::fixed;
  return StatusChange::none;
}

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + v[i];
  return s;
}

SpeedupDelta explain_speedup(double base, double cur, const TimingDelta& fw, const TimingDelta& th, const Rule& rule) {
  SpeedupDelta s;
  s.baseline = base, s.current = cur;
  const double r = s.ratio(), up = 1 + rule.threshold;
  std::vector<std::string> causes;
  if (r >= up || r <= 1 / up) {
    const bool better = r >= up;
    if (fw.verdict == (better ? Verdict::faster : Verdict::slower))
      causes.push_back(better ? "the framework got faster" : "the framework got slower");
    if (th.verdict == (better ? Verdict::slower : Verdict::faster))
      causes.push_back(better ? "LibTorch got slower" : "LibTorch got faster");
    if (causes.empty()) {
      s.why = fmt::format("{:+.1f}%, but neither time change is certain", (r - 1) * 100);
    } else {
      s.verdict = better ? SpeedupVerdict::better : SpeedupVerdict::worse;
      s.why = join(causes, " and ");
    }
    return s;
  }
  if (fw.verdict == Verdict::unsure || th.verdict == Verdict::unsure) {
    s.why = fmt::format("{:+.1f}%, but the {} time is unsure", (r - 1) * 100,
                        fw.verdict == Verdict::unsure ? "framework's" : "LibTorch");
    return s;
  }
  s.verdict = SpeedupVerdict::same;
  // Within the threshold, which side moved by the rule (unsure was handled above). If both did, they moved the same
  // way: each verdict takes a ratio of medians past the threshold, so opposite moves would take the speedup (their
  // quotient) past it too, and the branch above would have judged it.
  if (fw.verdict != Verdict::same && th.verdict != Verdict::same)
    s.why = fmt::format("both got {}", verdict_name(fw.verdict));
  else if (fw.verdict != Verdict::same)
    s.why = fmt::format("the framework got {}; LibTorch's time held", verdict_name(fw.verdict));
  else if (th.verdict != Verdict::same)
    s.why = fmt::format("LibTorch got {}; the framework's time held", verdict_name(th.verdict));
  return s;
}

// A framework time that got slower (or faster) by the rule while LibTorch's time on the same problem got slower
// (faster) by the rule too, in the same run, and by at least as much within the threshold (the speedup held, or
// moved in the framework's favour): both sides moved with the machine, and the machine's move covers ours. The
// framework's verdict becomes unsure (reference_moved). Seen on the H100: cross_entropy_backward fp32 16384x8192,
// framework 0.363 -> 0.408 ms and LibTorch 0.716 -> 0.829 ms in one pair of full suites, a state of the GPU that
// neither the SM clock nor nvidia-smi shows (notes/methodology.md); on the H200, the model's decode bf16 4x512,
// framework 2.05 -> 3.00 ms and LibTorch 8.16 -> 13.22 ms, a row that takes one time or the other by the machine
// (notes/performance.md, fifty-fifth round). A framework that moved more than LibTorch by the threshold (the
// speedup fell past it when slower, rose past it when faster) keeps its verdict. With both times judged the same
// way, explain_speedup's verdict is same within the threshold and better or worse past it, so it tells which.
void unsure_when_the_reference_moved(TimingDelta& fw, const TimingDelta& th, const SpeedupDelta& speedup,
                                     const Rule& rule) {
  if ((fw.verdict != Verdict::slower && fw.verdict != Verdict::faster) || th.verdict != fw.verdict) return;
  if (speedup.verdict == (fw.verdict == Verdict::slower ? SpeedupVerdict::worse : SpeedupVerdict::better)) return;
  const bool held = speedup.verdict == SpeedupVerdict::same;
  fw.reason = fmt::format("{:+.1f}%, but LibTorch's time moved the same way in this run ({:+.1f}%) and the speedup "
                          "{} ({:+.1f}%{}): the machine's state, not the code",
                          fw.change() * 100, th.change() * 100, held ? "held" : "moved in the framework's favour",
                          (speedup.ratio() - 1) * 100,
                          held ? fmt::format(", within {:.3g}%", rule.threshold * 100) : std::string());
  fw.verdict = Verdict::unsure;
  fw.cause = UnsureCause::reference_moved;
}

std::optional<double> geomean_of(const std::vector<double>& ratios) {
  if (ratios.empty()) return std::nullopt;
  double s = 0;
  for (double r : ratios) s += std::log(r);
  return std::exp(s / double(ratios.size()));
}

std::string regex_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (std::string("\\^$.|?*+()[]{}").find(c) != std::string::npos) out += '\\';
    out += c;
  }
  return out;
}

CategoryChange summarize_changes(const std::vector<const ProblemDelta*>& problems) {
  CategoryChange cc;
  std::vector<double> fw, th, sp;
  for (const ProblemDelta* p : problems) {
    ++cc.problems;
    if (p->speedup) sp.push_back(p->speedup->ratio());
    if (const ImplDelta* t = p->find(ImplKind::torch); t && t->time) th.push_back(t->time->ratio);
    const ImplDelta* f = p->find(ImplKind::framework);
    if (!f) continue;
    if (f->status_change == StatusChange::broke) ++cc.broke;
    if (f->status_change == StatusChange::fixed) ++cc.fixed;
    if (!f->time) continue;
    ++cc.framework_timed;
    fw.push_back(f->time->ratio);
    switch (f->time->verdict) {
      case Verdict::same: ++cc.same; break;
      case Verdict::faster: ++cc.faster; break;
      case Verdict::slower: ++cc.slower; break;
      case Verdict::unsure: ++cc.unsure; break;
    }
  }
  cc.framework_ratio = geomean_of(fw), cc.torch_ratio = geomean_of(th), cc.speedup_ratio = geomean_of(sp);
  return cc;
}

}  // namespace

const char* status_change_name(StatusChange s) {
  switch (s) {
    case StatusChange::none: return "none";
    case StatusChange::broke: return "broke";
    case StatusChange::fixed: return "fixed";
    case StatusChange::not_supported: return "not_supported";
  }
  return "?";
}

const char* speedup_verdict_name(SpeedupVerdict v) {
  switch (v) {
    case SpeedupVerdict::same: return "same";
    case SpeedupVerdict::better: return "better";
    case SpeedupVerdict::worse: return "worse";
    case SpeedupVerdict::unsure: return "unsure";
  }
  return "?";
}

const ImplDelta* ProblemDelta::find(ImplKind k) const {
  for (const auto& d : impls)
    if (d.impl == k) return &d;
  return nullptr;
}
ImplDelta* ProblemDelta::find(ImplKind k) {
  return const_cast<ImplDelta*>(static_cast<const ProblemDelta&>(*this).find(k));
}

namespace {
// The UUIDs of the boards whose results a report holds, sorted, comma-separated ("" when none is recorded).
std::string board_list(const RunContext& ctx) {
  std::vector<std::string> ids;
  for (const FleetGpu& g : ctx.gpus)
    if (!g.id.uuid.empty()) ids.push_back(g.id.uuid);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return join(ids, ", ");
}
}  // namespace

void check_comparable(const RunContext& b, const RunContext& c, bool ignore_device, const std::string& bname,
                      const std::string& cname) {
  const DeviceInfo &db = b.device, &dc = c.device;
  if (!ignore_device && (db.name != dc.name || db.driver_version != dc.driver_version))
    throw InputError(fmt::format(
        "{} ran on {} (driver {}), {} on {} (driver {}): timings from different GPUs or drivers are not "
        "comparable.\nCompare runs from one GPU model and driver, or pass --ignore-device to compare anyway.",
        bname, db.name, db.driver_version, cname, dc.name, dc.driver_version));
  std::vector<std::string> diffs;
  if (b.timing_mode != c.timing_mode) diffs.push_back(fmt::format("--timing {} vs {}", b.timing_mode, c.timing_mode));
  if (b.device_timer != c.device_timer)
    diffs.push_back(fmt::format("--device-timer {} vs {}", b.device_timer, c.device_timer));
  if (b.l2_mode != c.l2_mode) diffs.push_back(fmt::format("--l2 {} vs {}", b.l2_mode, c.l2_mode));
  if (b.tf32 != c.tf32) diffs.push_back(fmt::format("--tf32 {} vs {}", b.tf32 ? "on" : "off", c.tf32 ? "on" : "off"));
  if (!diffs.empty())
    throw InputError(fmt::format("{} and {} were measured with different settings ({}): they time different "
                                 "things.\nCompare runs taken with the same --timing, --device-timer, --l2 and --tf32.",
                                 bname, cname, join(diffs, ", ")));
}

Comparison compare_runs(const RunInfo& bi, const RunResults& base, const RunInfo& ci, const RunResults& cur,
                        const Rule& rule, bool ignore_device) {
  check_comparable(base.context, cur.context, ignore_device, bi.path, ci.path);
  Comparison c;
  c.baseline = bi, c.current = ci, c.rule = rule, c.ignore_device = ignore_device;
  c.baseline.context = base.context, c.current.context = cur.context;

  const DeviceInfo &db = base.context.device, &dc = cur.context.device;
  auto note_diff = [&](const char* what, const std::string& a, const std::string& b) {
    if (a != b) c.notes.push_back(fmt::format("{} differs: {} in the baseline, {} now", what, a, b));
  };
  if (ignore_device) {
    note_diff("GPU", db.name, dc.name);
    note_diff("Driver", db.driver_version, dc.driver_version);
  }
  note_diff("LibTorch", db.torch_version, dc.torch_version);
  note_diff("cuBLAS", db.cublas_version, dc.cublas_version);
  note_diff("cuDNN", db.cudnn_version, dc.cudnn_version);
  note_diff("CUDA runtime", db.runtime_version, dc.runtime_version);
  if (base.context.outlier_filter != cur.context.outlier_filter)
    c.notes.push_back("the outlier filter was on in one run only");
  // Boards of one model differ: notes/methodology.md, "Between GPUs of one kind".
  const std::string ub = board_list(base.context), uc = board_list(cur.context);
  if (!ub.empty() && !uc.empty() && ub != uc)
    c.notes.push_back(fmt::format(
        "the runs measured different boards ({} in the baseline, {} now): the same build's results move between "
        "boards of one model (measured between H100 boards: single-wave GEMMs by up to 15%, bandwidth-bound kernels "
        "by about 5%; notes/methodology.md), so a change in code that no commit touched may be the board's; compare "
        "runs of one board to judge a change",
        ub, uc));
  if (!base.context.git_commit.empty() && base.context.git_commit == cur.context.git_commit)
    c.notes.push_back("both runs are of commit " + cur.context.git_commit + " (an A/A comparison: every "
                      "change found is noise or the machine)");

  std::map<std::string, const ProblemResult*> base_by_id;
  for (const auto& p : base.problems) base_by_id.emplace(p.id(), &p);
  std::set<std::string> seen;
  for (const ProblemResult& p : cur.problems) {
    const std::string id = p.id();
    seen.insert(id);
    const auto it = base_by_id.find(id);
    if (it == base_by_id.end()) {
      c.only_current.push_back(id);
      continue;
    }
    const ProblemResult& b = *it->second;
    ProblemDelta pd;
    pd.id = id, pd.op = p.op, pd.category = p.category, pd.dtype = p.dtype, pd.shape = p.shape;
    for (const ImplResult& rc : p.impls) {
      const ImplResult* rb = b.find(rc.impl);
      if (!rb) {
        pd.only_current.push_back(rc.impl);
        continue;
      }
      ImplDelta d;
      d.impl = rc.impl, d.baseline_status = rb->status, d.current_status = rc.status;
      d.status_change = status_change(rb->status, rc.status);
      d.message = rc.message;
      const TimeStats *tb = timed(rb), *tc = timed(&rc);
      if (tb) d.baseline = brief(*tb);
      if (tc) d.current = brief(*tc);
      if (tb && tc) d.time = judge(*tb, *tc, rule);
      pd.impls.push_back(std::move(d));
    }
    for (const ImplResult& rb : b.impls)
      if (!p.find(rb.impl)) pd.only_baseline.push_back(rb.impl);

    ImplDelta* fw = pd.find(ImplKind::framework);
    const ImplDelta* th = pd.find(ImplKind::torch);
    if (fw && th && fw->time && th->time) {
      pd.speedup = explain_speedup(th->baseline->median_ms / fw->baseline->median_ms,
                                   th->current->median_ms / fw->current->median_ms, *fw->time, *th->time, rule);
      unsure_when_the_reference_moved(*fw->time, *th->time, *pd.speedup, rule);
    }
    c.problems.push_back(std::move(pd));
  }
  for (const auto& p : base.problems)
    if (!seen.count(p.id())) c.only_baseline.push_back(p.id());
  return c;
}

bool is_flagged(const ImplDelta& d) {
  if (d.impl != ImplKind::framework) return false;
  return d.status_change == StatusChange::broke || (d.time && d.time->verdict == Verdict::slower);
}

bool is_regression(const Comparison& c, const ImplDelta& d) {
  if (!is_flagged(d)) return false;
  if (!c.rerun || d.rerun_missing) return true;  // not re-run: it stands
  if (!d.rerun_status || !runs_ok(*d.rerun_status)) return true;  // still (or newly) broken
  if (d.status_change == StatusChange::broke) return false;        // works again on the re-run
  return d.rerun_time && d.rerun_time->verdict == Verdict::slower;
}

bool has_regression(const Comparison& c) {
  for (const auto& p : c.problems)
    for (const auto& d : p.impls)
      if (is_regression(c, d)) return true;
  return false;
}

std::vector<std::string> flagged_ids(const Comparison& c) {
  std::vector<std::string> ids;
  for (const auto& p : c.problems)
    if (const ImplDelta* f = p.find(ImplKind::framework); f && is_flagged(*f)) ids.push_back(p.id);
  return ids;
}

std::vector<std::string> regression_ids(const Comparison& c) {
  std::vector<std::string> ids;
  for (const auto& p : c.problems)
    if (const ImplDelta* f = p.find(ImplKind::framework); f && is_regression(c, *f)) ids.push_back(p.id);
  return ids;
}

void apply_rerun(Comparison& c, const RunResults& base, const RunInfo& ri, const RunResults& rerun) {
  check_comparable(base.context, rerun.context, c.ignore_device, c.baseline.path, ri.path);
  c.rerun = ri;
  c.rerun->context = rerun.context;
  for (ProblemDelta& p : c.problems) {
    for (ImplDelta& d : p.impls) {
      if (!is_flagged(d)) continue;
      const ProblemResult* rp = rerun.find(p.id);
      const ImplResult* rr = rp ? rp->find(d.impl) : nullptr;
      if (!rr) {
        d.rerun_missing = true;
        continue;
      }
      d.rerun_status = rr->status;
      const ProblemResult* bp = base.find(p.id);
      const TimeStats *tb = bp ? timed(bp->find(d.impl)) : nullptr, *tr = timed(rr);
      if (tb && tr) d.rerun_time = judge(*tb, *tr, c.rule);
    }
  }
}

std::string benchmark_filter(const std::vector<std::string>& ids, std::size_t max_names) {
  if (ids.empty()) return "";
  std::vector<std::string> parts;
  if (ids.size() <= max_names) {
    for (const auto& id : ids) parts.push_back(regex_escape(id));
    // Google Benchmark matches the whole run name, which carries suffixes after the problem id
    // ("/iterations:1/manual_time"): the id ends at a '/' or at the end, never inside a longer shape.
    return "^(" + join(parts, "|") + ")(/|$)";
  }
  std::set<std::string> prefixes;  // "category/op/"
  for (const auto& id : ids) {
    const auto first = id.find('/');
    const auto second = first == std::string::npos ? first : id.find('/', first + 1);
    prefixes.insert(second == std::string::npos ? id : id.substr(0, second + 1));
  }
  for (const auto& p : prefixes) parts.push_back(regex_escape(p));
  return "^(" + join(parts, "|") + ")";
}

std::vector<CategoryChange> category_changes(const Comparison& c) {
  std::vector<CategoryChange> out;
  std::vector<Category> order;  // as the comparison first meets them (problems in registry order)
  for (const auto& p : c.problems)
    if (std::find(order.begin(), order.end(), p.category) == order.end()) order.push_back(p.category);
  for (const Category& cat : order) {
    std::vector<const ProblemDelta*> in;
    for (const auto& p : c.problems)
      if (p.category == cat) in.push_back(&p);
    if (in.empty()) continue;
    CategoryChange cc = summarize_changes(in);
    cc.category = cat;
    out.push_back(cc);
  }
  return out;
}

CategoryChange overall_change(const Comparison& c) {
  std::vector<const ProblemDelta*> all;
  for (const auto& p : c.problems) all.push_back(&p);
  return summarize_changes(all);
}

}  // namespace opbench::compare
