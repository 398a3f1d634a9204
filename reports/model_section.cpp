#include "reports/model_section.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "reports/format.hpp"
#include "src/model/stats.hpp"

namespace opbench::reports {
namespace {

constexpr ImplKind kCompared[] = {ImplKind::framework, ImplKind::torch};
constexpr ModelRun kRuns[] = {ModelRun::prefill, ModelRun::train_step, ModelRun::decode};
// memory_mb counts 2^20 bytes (src/run/pipeline.cpp); the weights line uses the same unit.
constexpr double kMB = 1 << 20;

struct Point {
  int64_t batch = 0, seq = 0;
  bool operator<(const Point& o) const { return std::tie(batch, seq) < std::tie(o.batch, o.seq); }
};

std::string point_label(const Point& p) { return fmt::format("b{} s{}", p.batch, p.seq); }

// The results of one model: whole-model runs and layer families, each by (batch, seq).
struct ModelResults {
  std::string name;
  std::map<std::pair<ModelRun, Point>, const ProblemRow*> runs;
  std::map<std::pair<LayerFamily, Point>, const ProblemRow*> families;
  std::vector<const ProblemRow*> all;  // in report order, duplicates and odd shapes included
  std::set<int> dtypes;
  int duplicates = 0;                  // a second result of the same op and point (a replicated run)
  std::vector<std::string> odd_shapes; // results whose shape is not {batch, seq}

  const ProblemRow* run(ModelRun r, const Point& p) const {
    const auto it = runs.find({r, p});
    return it == runs.end() ? nullptr : it->second;
  }
  const ProblemRow* family(LayerFamily f, const Point& p) const {
    const auto it = families.find({f, p});
    return it == families.end() ? nullptr : it->second;
  }
  std::vector<Point> run_points(ModelRun r) const {
    std::vector<Point> v;
    for (const auto& [k, row] : runs)
      if (k.first == r) v.push_back(k.second);
    return v;  // ascending: the map's order
  }
};

std::vector<ModelResults> collect(const ReportRows& rows) {
  std::vector<ModelResults> models;
  for (const ProblemRow& r : rows.problems) {
    const ProblemResult& p = *r.problem;
    const std::optional<ModelOpName> name = parse_model_op(p.op);
    if (!name) continue;
    auto it = std::find_if(models.begin(), models.end(), [&](const ModelResults& m) { return m.name == name->model; });
    if (it == models.end()) {
      models.push_back(ModelResults{});
      models.back().name = name->model;
      it = models.end() - 1;
    }
    ModelResults& m = *it;
    m.all.push_back(&r);
    m.dtypes.insert(int(p.dtype));
    if (p.shape.size() != 2) {
      m.odd_shapes.push_back(problem_label(p));
      continue;
    }
    const Point pt{p.shape[0], p.shape[1]};
    const bool added = name->run ? m.runs.emplace(std::pair{*name->run, pt}, &r).second
                                 : m.families.emplace(std::pair{*name->family, pt}, &r).second;
    m.duplicates += !added;
  }
  return models;
}

const ImplRow* impl_of(const ProblemRow* p, ImplKind k) { return p ? p->find(k) : nullptr; }

// The time of an implementation that ran correctly and was timed; nothing otherwise.
std::optional<double> ok_ms(const ImplRow* m) {
  if (!m || m->verdict != Status::ok || !m->timed()) return std::nullopt;
  return m->time_ms;
}

// What a cell shows in place of a figure the row does not have.
std::string missing(const ProblemRow* p, const ImplRow* m) {
  if (!p) return "not measured";
  if (!m) return "no row";
  switch (m->verdict) {
    case Status::incorrect: return "incorrect";
    case Status::failed: return "failed";
    case Status::not_supported: return "not supported";
    case Status::ok: break;
  }
  return "not timed";
}

std::string ms_cell(const ProblemRow* p, ImplKind k) {
  const ImplRow* m = impl_of(p, k);
  const auto t = ok_ms(m);
  return t ? fmt_ms(*t) : missing(p, m);
}

// Whole numbers with thousands separators (tokens/s, parameters); one decimal below 100.
std::string fmt_count(double v) {
  if (std::fabs(v) < 100) return fmt::format("{:.1f}", v);
  std::string digits = fmt::format("{:.0f}", std::fabs(v)), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return (v < 0 ? "-" : "") + out;
}

std::optional<double> tokens_per_s(const ProblemRow* p, ImplKind k, int64_t tokens) {
  const auto t = ok_ms(impl_of(p, k));
  if (!t) return std::nullopt;
  return double(tokens) / (*t * 1e-3);
}

std::string rate_cell(const ProblemRow* p, ImplKind k, int64_t tokens) {
  const auto r = tokens_per_s(p, k, tokens);
  return r ? fmt_count(*r) : kDash;
}

std::optional<double> speedup_of(const ProblemRow* p) {
  const ImplRow* fw = impl_of(p, ImplKind::framework);
  return fw ? fw->speedup : std::nullopt;
}

std::string mb_cell(const ProblemRow* p, ImplKind k) {
  const ImplRow* m = impl_of(p, k);
  if (m && m->result->memory_mb > 0) return fmt::format("{:.1f}", m->result->memory_mb);
  const std::string why = missing(p, m);
  return why == "not timed" ? "not measured" : why;
}

std::optional<double> mb_of(const ProblemRow* p, ImplKind k) {
  const ImplRow* m = impl_of(p, k);
  if (!m || m->result->memory_mb <= 0) return std::nullopt;
  return m->result->memory_mb;
}

std::string dtypes_text(const std::set<int>& dtypes) {
  std::string s;
  for (int t : dtypes) s += (s.empty() ? "" : ", ") + std::string(dtype_name(DType(t)));
  return s;
}

std::string values_text(const std::set<int64_t>& v) {
  std::string s;
  for (int64_t x : v) s += (s.empty() ? "" : ", ") + std::to_string(x);
  return s;
}

void write_config(const ModelResults& m, const ModelConfig* cfg, bool from_context, std::ostream& os) {
  os << "### Model configuration\n\n";
  if (!cfg) {
    os << "The report's context names no model and bench_ops knows none called " << m.name
       << ": no configuration to show.\n\n";
    return;
  }
  if (!from_context)
    os << "The report's context names no model (or another one); this is bench_ops' configuration of " << cfg->name
       << ".\n\n";
  std::set<int64_t> batches, seqs;
  for (const auto& [k, row] : m.runs) batches.insert(k.second.batch), seqs.insert(k.second.seq);
  std::string runs_text;
  for (ModelRun r : kRuns)
    if (!m.run_points(r).empty()) runs_text += (runs_text.empty() ? "" : ", ") + std::string(model_run_name(r));
  const bool decode = !m.run_points(ModelRun::decode).empty();
  const int64_t params = cfg->parameters();
  const std::string gqa = cfg->heads_kv > 0 && cfg->heads_q % cfg->heads_kv == 0
                              ? fmt::format(" (grouped-query attention: {} query heads per key/value head)",
                                            cfg->heads_q / cfg->heads_kv)
                              : "";
  std::vector<std::vector<std::string>> rows = {
      {"Model", cfg->name},
      {"Decoder layers", std::to_string(cfg->layers)},
      {"Hidden size", std::to_string(cfg->hidden)},
      {"MLP intermediate size", std::to_string(cfg->intermediate)},
      {"Attention heads (query)", std::to_string(cfg->heads_q)},
      {"Key/value heads", std::to_string(cfg->heads_kv) + gqa},
      {"Head dimension", std::to_string(cfg->head_dim)},
      {"Vocabulary", std::to_string(cfg->vocab)},
      {"Parameters", fmt::format("{} ({:.1f} M){}", fmt_count(double(params)), double(params) / 1e6,
                                 cfg->tied_embeddings ? ", the tied embedding counted once" : "")},
      {"Embeddings", cfg->tied_embeddings ? "tied: the LM head is the embedding matrix" : "separate LM head"},
      {"q/k/v bias", cfg->qkv_bias ? "yes (o_proj and the MLP have none)" : "no"},
      {"RMSNorm eps", fmt::format("{:g}", cfg->rms_eps)},
      {"RoPE theta", fmt::format("{:g}", cfg->rope_theta)},
      {"Precision", dtypes_text(m.dtypes) + " weights and activations (the results' dtype), fp32 accumulation"},
      {"Weights", "random, the same for the framework and LibTorch"},
  };
  if (!runs_text.empty()) {
    rows.push_back({"Runs measured", runs_text});
    rows.push_back({"Batch sizes", values_text(batches)});
    rows.push_back({"Sequence lengths", values_text(seqs) + (decode ? " (decode: the KV cache length)" : "")});
  }
  write_md_table(os, {"Property", "Value"}, "ll", rows);
}

void write_performance(const ModelResults& m, std::ostream& os) {
  os << "### Performance summary\n\n";
  if (m.runs.empty()) {
    os << "No whole-model run in this report (only layer families).\n\n";
  } else {
    os << "Tokens: batch × seq for prefill and train_step, batch for decode (one new token per sequence "
          "against a KV cache of seq positions). Speedup = LibTorch time / framework time, both correct.\n\n";
    std::vector<std::vector<std::string>> table;
    for (ModelRun r : kRuns)
      for (const Point& pt : m.run_points(r)) {
        const ProblemRow* p = m.run(r, pt);
        const int64_t tokens = model_run_tokens(r, pt.batch, pt.seq);
        table.push_back({model_run_name(r), std::to_string(pt.batch), std::to_string(pt.seq), std::to_string(tokens),
                         ms_cell(p, ImplKind::framework), ms_cell(p, ImplKind::torch), fmt_speedup(speedup_of(p)),
                         rate_cell(p, ImplKind::framework, tokens), rate_cell(p, ImplKind::torch, tokens)});
      }
    write_md_table(os, {"Run", "Batch", "Seq", "Tokens", "Framework ms", "LibTorch ms", "Speedup",
                        "Framework tokens/s", "LibTorch tokens/s"},
                   "lrrrrrrrr", table);
    for (ModelRun r : kRuns) {
      const std::vector<Point> pts = m.run_points(r);
      if (pts.empty()) continue;
      std::vector<double> s;
      for (const Point& pt : pts)
        if (const auto x = speedup_of(m.run(r, pt))) s.push_back(*x);
      if (s.empty()) {
        os << "- " << model_run_name(r) << ": no point with both a correct framework and a correct LibTorch time.\n";
        continue;
      }
      const int faster = int(std::count_if(s.begin(), s.end(), [](double x) { return x > 1; }));
      os << fmt::format("- {}: geomean speedup {} over the {} of {} points compared; the framework is faster at {} "
                        "of them (range {} – {}).\n",
                        model_run_name(r), fmt_speedup(geomean(s)), s.size(), pts.size(), faster,
                        fmt_speedup(*std::min_element(s.begin(), s.end())),
                        fmt_speedup(*std::max_element(s.begin(), s.end())));
    }
    os << '\n';
  }
  // Every model result that is not a plain comparison, with what explains it.
  std::vector<std::string> notes;
  for (const ProblemRow* p : m.all)
    for (const ImplRow& i : p->impls) {
      if (i.verdict == Status::ok && i.timed()) continue;
      const std::string why = verdict_detail(*i.result);
      notes.push_back(fmt::format("{} [{}]: {}{}", problem_label(*p->problem), impl_label(i.impl),
                                  i.verdict == Status::ok ? "not timed" : status_name(i.verdict),
                                  why.empty() ? "" : ": " + why));
    }
  if (!notes.empty()) {
    os << "Model results without a correct time (no speedup is computed against them):\n\n";
    for (const std::string& n : notes) os << "- " << n << '\n';
    os << '\n';
  }
  if (m.duplicates > 0)
    os << m.duplicates << " result(s) repeat an op at a (batch, seq) already shown (a replicated run over several "
       << "GPUs); the tables of this section show the first of each.\n\n";
  if (!m.odd_shapes.empty()) {
    os << "Not in these tables (a model result's shape is {batch, seq}):";
    for (const std::string& s : m.odd_shapes) os << ' ' << s << ';';
    os << "\n\n";
  }
}

// The (batch, seq) the operation analysis shows: the most tokens among the family results, then the
// longest sequence (attention's share grows with it).
std::optional<Point> family_point(const ModelResults& m) {
  std::optional<Point> best;
  for (const auto& [k, row] : m.families) {
    const Point& p = k.second;
    if (!best || std::make_pair(p.batch * p.seq, p.seq) > std::make_pair(best->batch * best->seq, best->seq)) best = p;
  }
  return best;
}

// One implementation's family times at a point: the sum of those timed, and how many were.
struct FamilySum {
  double ms = 0;
  int timed = 0;
};

FamilySum family_sum(const ModelResults& m, const Point& pt, ImplKind k) {
  FamilySum s;
  for (LayerFamily f : layer_families())
    if (const auto t = ok_ms(impl_of(m.family(f, pt), k))) s.ms += *t, ++s.timed;
  return s;
}

void write_operations(const ModelResults& m, const ModelConfig* cfg, std::ostream& os) {
  os << "### Operation analysis\n\n";
  const std::optional<Point> pt = family_point(m);
  if (!pt) {
    os << "No layer-family results in this report: one decoder layer's time is not split by op family.\n\n";
    return;
  }
  const int n = int(layer_families().size());
  os << fmt::format("One decoder layer's forward at batch {}, seq {} ({} tokens), timed one op family at a time on "
                    "the same activations. Share: the family's part of that implementation's summed family "
                    "time.\n\n",
                    pt->batch, pt->seq, pt->batch * pt->seq);
  const FamilySum fw = family_sum(m, *pt, ImplKind::framework), th = family_sum(m, *pt, ImplKind::torch);
  auto share = [](const ImplRow* r, const FamilySum& s) -> std::string {
    const auto t = ok_ms(r);
    return t && s.ms > 0 ? fmt_pct(100 * *t / s.ms) : kDash;
  };
  std::vector<std::vector<std::string>> table;
  for (LayerFamily f : layer_families()) {
    const ProblemRow* p = m.family(f, *pt);
    table.push_back({layer_family_name(f), layer_family_description(f), ms_cell(p, ImplKind::framework),
                     share(impl_of(p, ImplKind::framework), fw), ms_cell(p, ImplKind::torch),
                     share(impl_of(p, ImplKind::torch), th), fmt_speedup(speedup_of(p))});
  }
  auto sum_cell = [n](const FamilySum& s) {
    return s.timed == 0 ? std::string(kDash)
                        : fmt_ms(s.ms) + (s.timed < n ? fmt::format(" ({} of {} timed)", s.timed, n) : "");
  };
  const bool both_whole = fw.timed == n && th.timed == n;
  table.push_back({"sum", "the layer's families", sum_cell(fw), fw.timed ? fmt_pct(100.0) : kDash, sum_cell(th),
                   th.timed ? fmt_pct(100.0) : kDash,
                   both_whole ? fmt_speedup(th.ms / fw.ms) : std::string(kDash)});
  write_md_table(os, {"Family", "Steps", "Framework ms", "Share", "LibTorch ms", "Share", "Speedup"}, "llrrrrr",
                 table);

  // How the families add up against a whole prefill at the same point, per layer. The prefill also holds
  // the embedding, the final norm and the LM head, so its per-layer figure is an upper bound.
  const ProblemRow* prefill = m.run(ModelRun::prefill, *pt);
  if (!cfg || cfg->layers <= 0) {
    os << "No layer count (no model configuration): the families are not compared with the prefill.\n\n";
  } else if (!prefill) {
    os << "No prefill at batch " << pt->batch << ", seq " << pt->seq
       << " in this report: the families are not compared with a whole forward.\n\n";
  } else {
    for (ImplKind k : kCompared) {
      const FamilySum s = k == ImplKind::framework ? fw : th;
      const auto whole = ok_ms(impl_of(prefill, k));
      os << "- " << impl_label(k) << ": ";
      if (!whole) {
        os << "no correct prefill time at this point (" << missing(prefill, impl_of(prefill, k)) << ").\n";
      } else if (s.timed < n) {
        os << fmt::format("only {} of {} families timed: their sum is no layer.\n", s.timed, n);
      } else {
        const double per_layer = *whole / double(cfg->layers);
        os << fmt::format("the families sum to {} ms; prefill {} ms / {} layers = {} ms per layer (embedding, final "
                          "norm and LM head included); the families are {} of it.\n",
                          fmt_ms(s.ms), fmt_ms(*whole), cfg->layers, fmt_ms(per_layer),
                          fmt_pct(100 * s.ms / per_layer));
      }
    }
    os << '\n';
  }
  std::set<Point> others;
  for (const auto& [k, row] : m.families)
    if (k.second < *pt || *pt < k.second) others.insert(k.second);
  if (!others.empty()) {
    os << "Family results also at:";
    for (const Point& p : others) os << ' ' << point_label(p) << (&p == &*others.rbegin() ? "" : ",");
    os << " (not shown: the table is the largest point).\n\n";
  }
}

// One run along one axis: batch at a fixed seq, or seq at a fixed batch. The fixed value is the one
// with the most points on the other axis (ties: the largest).
void write_axis(const ModelResults& m, ModelRun r, bool by_batch, std::ostream& os) {
  const char* axis = by_batch ? "batch" : "seq";
  const char* fixed_name = by_batch ? "seq" : "batch";
  std::map<int64_t, std::vector<int64_t>> along;  // fixed value -> values of the axis (ascending)
  for (const Point& p : m.run_points(r)) along[by_batch ? p.seq : p.batch].push_back(by_batch ? p.batch : p.seq);
  int64_t fixed = 0;
  std::size_t most = 0;
  for (const auto& [f, v] : along)
    if (v.size() >= most) fixed = f, most = v.size();
  if (most < 2) {
    os << "By " << axis << ": one " << axis << " value per " << fixed_name << ", nothing to scale along.\n\n";
    return;
  }
  std::vector<int64_t> values = along[fixed];
  std::sort(values.begin(), values.end());
  auto point = [&](int64_t v) { return by_batch ? Point{v, fixed} : Point{fixed, v}; };
  os << "By " << axis << " at " << fixed_name << " " << fixed << ":\n\n";
  std::vector<std::vector<std::string>> table;
  for (int64_t v : values) {
    const Point pt = point(v);
    const ProblemRow* p = m.run(r, pt);
    const int64_t tokens = model_run_tokens(r, pt.batch, pt.seq);
    table.push_back({std::to_string(v), std::to_string(tokens), ms_cell(p, ImplKind::framework),
                     rate_cell(p, ImplKind::framework, tokens), ms_cell(p, ImplKind::torch),
                     rate_cell(p, ImplKind::torch, tokens), fmt_speedup(speedup_of(p))});
  }
  write_md_table(os, {by_batch ? "Batch" : "Seq", "Tokens", "Framework ms", "Framework tokens/s", "LibTorch ms",
                      "LibTorch tokens/s", "Speedup"},
                 "rrrrrrr", table);
  // How time grows against tokens between the smallest and largest value each implementation has.
  for (ImplKind k : kCompared) {
    std::vector<int64_t> timed;
    for (int64_t v : values)
      if (ok_ms(impl_of(m.run(r, point(v)), k))) timed.push_back(v);
    if (timed.size() < 2) {
      os << "- " << impl_label(k) << ": fewer than two correct times along " << axis << ".\n";
      continue;
    }
    const Point a = point(timed.front()), b = point(timed.back());
    const double ta = *ok_ms(impl_of(m.run(r, a), k)), tb = *ok_ms(impl_of(m.run(r, b), k));
    const double na = double(model_run_tokens(r, a.batch, a.seq)), nb = double(model_run_tokens(r, b.batch, b.seq));
    os << fmt::format("- {}: {} {} → {}: {:.2f}× the tokens in {:.2f}× the time; tokens/s {} → {} ({:.2f}×).\n",
                      impl_label(k), axis, timed.front(), timed.back(), nb / na, tb / ta, fmt_count(na / (ta * 1e-3)),
                      fmt_count(nb / (tb * 1e-3)), (nb / tb) / (na / ta));
  }
  os << '\n';
}

void write_scalability(const ModelResults& m, std::ostream& os) {
  os << "### Scalability analysis\n\n";
  if (m.runs.empty()) {
    os << "No whole-model run in this report.\n\n";
    return;
  }
  for (ModelRun r : kRuns) {
    if (m.run_points(r).empty()) continue;
    os << "#### " << model_run_name(r) << "\n\n";
    write_axis(m, r, true, os);
    write_axis(m, r, false, os);
  }
}

void write_memory(const ModelResults& m, const ModelConfig* cfg, std::ostream& os) {
  os << "### Memory analysis\n\n";
  if (m.runs.empty()) {
    os << "No whole-model run in this report.\n\n";
    return;
  }
  os << "Peak device memory of one call, MB (2^20 bytes): the operands plus what the implementation allocated "
        "during the call (the framework: its activation and workspace arena; LibTorch: its caching allocator's "
        "peak).";
  if (cfg && m.dtypes.size() == 1)
    os << fmt::format(" The weights alone in {}: {} parameters × {} B = {:.1f} MB.", dtype_name(DType(*m.dtypes.begin())),
                      fmt_count(double(cfg->parameters())), dtype_size(DType(*m.dtypes.begin())),
                      double(cfg->parameters()) * double(dtype_size(DType(*m.dtypes.begin()))) / kMB);
  os << "\n\n";
  std::vector<std::vector<std::string>> table;
  std::vector<double> ratios;
  for (ModelRun r : kRuns)
    for (const Point& pt : m.run_points(r)) {
      const ProblemRow* p = m.run(r, pt);
      const auto a = mb_of(p, ImplKind::framework), b = mb_of(p, ImplKind::torch);
      if (a && b) ratios.push_back(*a / *b);
      table.push_back({model_run_name(r), std::to_string(pt.batch), std::to_string(pt.seq),
                       mb_cell(p, ImplKind::framework), mb_cell(p, ImplKind::torch),
                       a && b ? fmt::format("{:.2f}×", *a / *b) : std::string(kDash)});
    }
  write_md_table(os, {"Run", "Batch", "Seq", "Framework MB", "LibTorch MB", "Framework / LibTorch"}, "lrrrrr", table);
  if (ratios.empty()) {
    os << "No point has both peaks measured.\n\n";
    return;
  }
  const int below = int(std::count_if(ratios.begin(), ratios.end(), [](double x) { return x < 1; }));
  os << fmt::format("The framework's peak is below LibTorch's at {} of the {} points with both measured (ratio {:.2f}× "
                    "to {:.2f}×, geomean {:.2f}×).\n\n",
                    below, ratios.size(), *std::min_element(ratios.begin(), ratios.end()),
                    *std::max_element(ratios.begin(), ratios.end()), geomean(ratios));
}

void write_priorities(const ModelResults& m, const ModelConfig* cfg, std::ostream& os) {
  os << "### Optimization priorities\n\n";
  struct Item {
    std::string title, detail;
    std::vector<std::string> lines;
  };
  std::vector<Item> items;

  // 1. Correctness first: a framework result that is wrong or missing is worth more than any speed.
  Item wrong{"Framework model results that are incorrect or did not run", "Their times are in none of the comparisons below.",
             {}};
  for (const ProblemRow* p : m.all) {
    const ImplRow* fw = p->framework();
    if (fw && fw->verdict == Status::ok) continue;
    const std::string why = fw ? verdict_detail(*fw->result) : "";
    wrong.lines.push_back(fmt::format("{}: {}{}", problem_label(*p->problem),
                                      fw ? status_name(fw->verdict) : "no framework row", why.empty() ? "" : ": " + why));
  }
  if (!wrong.lines.empty()) items.push_back(std::move(wrong));

  // 2. Layer families, by the time the framework loses per layer: its time × (1 − speedup), i.e. how far
  // it trails LibTorch weighted by the family's share of the layer.
  int families_compared = 0;
  if (const std::optional<Point> pt = family_point(m)) {
    const FamilySum fw = family_sum(m, *pt, ImplKind::framework);
    struct Gap {
      LayerFamily f;
      double fw_ms, torch_ms;
    };
    std::vector<Gap> gaps;
    for (LayerFamily f : layer_families()) {
      const ProblemRow* p = m.family(f, *pt);
      const auto a = ok_ms(impl_of(p, ImplKind::framework)), b = ok_ms(impl_of(p, ImplKind::torch));
      if (!a || !b) continue;
      ++families_compared;
      if (*a > *b) gaps.push_back({f, *a, *b});
    }
    std::sort(gaps.begin(), gaps.end(),
              [](const Gap& x, const Gap& y) { return x.fw_ms - x.torch_ms > y.fw_ms - y.torch_ms; });
    double lost = 0;
    for (const Gap& g : gaps) lost += g.fw_ms - g.torch_ms;
    if (!gaps.empty()) {
      const int n = int(layer_families().size());
      Item fam{"Layer families slower than LibTorch",
               fmt::format("At batch {}, seq {}, ranked by the time the framework loses per layer (framework ms − "
                           "LibTorch ms: its time × (1 − speedup), the slowdown weighted by the family's share). "
                           "Together they lose {} ms per layer{}.",
                           pt->batch, pt->seq, fmt_ms(lost),
                           cfg && cfg->layers > 0
                               ? fmt::format(", {} ms over the {} layers of a forward", fmt_ms(lost * double(cfg->layers)),
                                             cfg->layers)
                               : ""),
               {}};
      for (const Gap& g : gaps)
        fam.lines.push_back(fmt::format(
            "{}: {} LibTorch's speed ({} ms vs {} ms), {} of the framework's summed family time{}; {} ms behind per "
            "layer, {} of the time lost",
            layer_family_name(g.f), fmt_speedup(g.torch_ms / g.fw_ms), fmt_ms(g.fw_ms), fmt_ms(g.torch_ms),
            fmt_pct(100 * g.fw_ms / fw.ms), fw.timed < n ? fmt::format(" ({} of {} families timed)", fw.timed, n) : "",
            fmt_ms(g.fw_ms - g.torch_ms), fmt_pct(100 * (g.fw_ms - g.torch_ms) / lost)));
      items.push_back(std::move(fam));
    }
  }

  // 3. Whole runs where the framework trails, the slowest relative to LibTorch first.
  struct Trail {
    ModelRun r;
    Point pt;
    double s;
  };
  std::vector<Trail> trails;
  int runs_compared = 0;
  for (const auto& [k, p] : m.runs)
    if (const auto s = speedup_of(p)) {
      ++runs_compared;
      if (*s < 1) trails.push_back({k.first, k.second, *s});
    }
  std::stable_sort(trails.begin(), trails.end(), [](const Trail& a, const Trail& b) { return a.s < b.s; });
  if (!trails.empty()) {
    Item runs{"Runs where the framework trails LibTorch", "Slowest relative to LibTorch first.", {}};
    for (const Trail& t : trails) {
      const ProblemRow* p = m.run(t.r, t.pt);
      const double a = *ok_ms(p->framework()), b = *ok_ms(p->torch());
      runs.lines.push_back(fmt::format("{} {}: {} ({} ms vs LibTorch {} ms, {} ms behind)", model_run_name(t.r),
                                       point_label(t.pt), fmt_speedup(t.s), fmt_ms(a), fmt_ms(b), fmt_ms(a - b)));
    }
    items.push_back(std::move(runs));
  }

  // 4. Runs whose peak memory exceeds LibTorch's, the largest ratio first.
  std::vector<std::pair<double, std::string>> heavy;
  for (const auto& [k, p] : m.runs) {
    const auto a = mb_of(p, ImplKind::framework), b = mb_of(p, ImplKind::torch);
    if (a && b && *a > *b)
      heavy.push_back({*a / *b, fmt::format("{} {}: {:.2f}× LibTorch's peak ({:.1f} MB vs {:.1f} MB)",
                                            model_run_name(k.first), point_label(k.second), *a / *b, *a, *b)});
  }
  std::stable_sort(heavy.begin(), heavy.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  if (!heavy.empty()) {
    Item mem{"Runs whose peak memory exceeds LibTorch's", "Largest ratio first.", {}};
    for (auto& h : heavy) mem.lines.push_back(std::move(h.second));
    items.push_back(std::move(mem));
  }

  if (items.empty()) {
    if (runs_compared == 0 && families_compared == 0)
      os << "Nothing to rank: no run or layer family has both a correct framework time and a correct LibTorch "
            "time.\n\n";
    else
      os << fmt::format("None: every framework model result is correct, and none of the {} runs and {} layer families "
                        "compared is slower than LibTorch or (runs) uses more peak memory.\n\n",
                        runs_compared, families_compared);
    return;
  }
  for (std::size_t i = 0; i < items.size(); ++i) {
    os << "#### " << i + 1 << ". " << items[i].title << "\n\n" << items[i].detail << "\n\n";
    for (const std::string& l : items[i].lines) os << "- " << l << '\n';
    os << '\n';
  }
}

}  // namespace

void write_model_markdown(const ReportRows& rows, std::ostream& os) {
  const std::vector<ModelResults> models = collect(rows);
  const std::optional<ModelConfig>& ctx_model = rows.context().model;
  for (const ModelResults& m : models) {
    const bool from_context = ctx_model && ctx_model->name == m.name;
    const ModelConfig* cfg = from_context ? &*ctx_model : find_model(m.name);
    os << "## Model benchmark: " << m.name << "\n\n"
       << fmt::format("{} results: {} whole-model runs and {} one-layer family results, the framework's kernels "
                      "and LibTorch on the same weights.\n\n",
                      m.all.size(), m.runs.size(), m.families.size());
    write_config(m, cfg, from_context, os);
    write_performance(m, os);
    write_operations(m, cfg, os);
    write_scalability(m, os);
    write_memory(m, cfg, os);
    write_priorities(m, cfg, os);
  }
}

}  // namespace opbench::reports
