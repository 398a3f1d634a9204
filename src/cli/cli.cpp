// Command-line parsing (CLI11) and the --list-* printers.
#include <fmt/format.h>
#include <fmt/ranges.h>  // fmt::join

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "src/cli/options.hpp"

namespace opbench {
namespace {

std::string join(const std::vector<std::string>& v, const char* sep = ", ") {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + v[i];
  return s;
}

std::vector<std::string> size_choices() {
  std::vector<std::string> v;
  for (SizeClass c : all_size_classes()) v.push_back(size_class_name(c));
  v.push_back("all");
  return v;
}

// A usage error: the message, the fix, and exit code 2.
ParseOutcome usage_error(const std::string& msg) {
  std::cerr << "bench_ops: " << msg << "\n(bench_ops --help lists every option)\n";
  return {true, kExitUsage};
}

const char* kExamples = R"(Examples:
  bench_ops --category element --fast          quick pass over the element-wise ops
  bench_ops --op add                           one op, every size class and dtype
  bench_ops --op add,mul --dtype bf16 --size large
  bench_ops --op softmax --shape 4096x151936   any shape you name
  bench_ops --category all --dtype fp32,bf16   what scripts/run.sh runs
  bench_ops --op add --timing both --l2 warm   device and host timings, hot cache
  bench_ops --op add --benchmark_filter=bf16/4096  Google Benchmark's flags (names: category/op/dtype/shape)
  bench_ops --category model                   Qwen2-0.5B prefill, train_step, decode: batch 1,2,4 x seq 128,256,512
  bench_ops --category model --batch 4 --seq 512 --fast
  bench_ops --devices all                      the suite split over every GPU, one merged report
  bench_ops --devices all --replicate --fast   every GPU runs every problem: the per-GPU consistency table
  torchrun --nproc-per-node 8 --no-python bench_ops --output-dir runs/1; bench_ops merge runs/1

Several GPUs and nodes: README.md, section "Several GPUs and nodes"; `bench_ops merge --help`.

Exit codes:
  0 every result correct   1 an incorrect result or a failed op (reports still written)
  2 bad command line       3 no usable CUDA GPU   4 reports could not be written
  5 built against a LibTorch without CUDA)";

}  // namespace

const char* timing_mode_name(TimingMode m) {
  switch (m) {
    case TimingMode::pure: return "pure";
    case TimingMode::graph: return "graph";
    case TimingMode::real: return "real";
    case TimingMode::both: return "both";
  }
  return "?";
}

static std::vector<std::string> model_names() {
  std::vector<std::string> v;
  for (const ModelConfig& m : known_models()) v.push_back(m.name);
  return v;
}

SweepParse parse_sweep(const std::vector<std::string>& specs) {
  SweepParse out;
  std::vector<std::string> seen;
  for (const std::string& spec : specs) {
    if (spec.empty()) continue;  // --sweep alone
    const auto eq = spec.find('=');
    const std::string key = spec.substr(0, eq);
    std::vector<int64_t>* axis = key == "batch" ? &out.grid.batch : key == "seq" ? &out.grid.seq
                                 : key == "dim" ? &out.grid.dim : nullptr;
    if (!axis || eq == std::string::npos) {
      out.error = fmt::format("--sweep '{}': write batch=LIST, seq=LIST or dim=LIST, e.g. --sweep batch=16,32 seq=512", spec);
      return out;
    }
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) {
      out.error = fmt::format("--sweep: {} is given twice", key);
      return out;
    }
    seen.push_back(key);
    axis->clear();
    std::stringstream ss(spec.substr(eq + 1));
    for (std::string item; std::getline(ss, item, ',');) {
      std::size_t used = 0;
      long long v = 0;
      try {
        v = std::stoll(item, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (item.empty() || used != item.size() || v <= 0) {
        out.error = fmt::format("--sweep {}: '{}' is not a positive integer", key, item);
        return out;
      }
      if (std::find(axis->begin(), axis->end(), v) == axis->end()) axis->push_back(v);
    }
    if (axis->empty()) {
      out.error = fmt::format("--sweep {}= has no values", key);
      return out;
    }
  }
  return out;
}

ParseOutcome parse_options(int argc, char** argv, const Registry& reg, Options& opt) {
  // Google Benchmark's flags go to Google Benchmark; everything else to CLI11.
  std::vector<std::string> ours;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--benchmark_", 0) == 0 || a.rfind("--v=", 0) == 0)
      opt.benchmark_args.push_back(a);
    else
      ours.push_back(a);
  }
  opt.command_line = "bench_ops";
  for (int i = 1; i < argc; ++i) opt.command_line += std::string(" ") + argv[i];
  opt.args.assign(argv + 1, argv + argc);

  CLI::App app{
      "bench_ops: the framework's CUDA kernels against LibTorch (and cuDNN/cuBLAS) on the same inputs.\n"
      "Each problem (op x shape x dtype) is checked for correctness, then timed; reports go to --output-dir.",
      "bench_ops"};
  app.footer(kExamples);
  std::vector<std::string> categories, ops, sizes, shapes, dtypes, formats;
  bool fast = false, no_outlier_filter = false;
  app.add_option("--category,-c", categories, "Categories to run: " + join(category_words(reg)))->delimiter(',');
  app.add_option("--op,-o", ops, "Ops to run (comma-separated; see --list-ops)")->delimiter(',');
  app.add_option("--size,-s", sizes, "Size classes: " + join(size_choices()) + " (default all)")->delimiter(',');
  app.add_option("--shape", shapes, "Run these shapes instead of the size classes, e.g. 1023x1025 (repeatable)");
  app.add_option("--dtype,-d", dtypes, "Element types: fp32, fp16, bf16 (default all three)")->delimiter(',');
  app.add_flag("--fast", fast, "The first two shapes of each size class and fewer timing samples");
  std::vector<std::string> sweep_specs;
  std::optional<int64_t> vocab;
  CLI::Option* sweep_opt =
      app.add_option("--sweep", sweep_specs,
                     "The transformer sweep: layer_norm, rms_norm, gelu, silu, mse_loss, cross_entropy (or --op) on "
                     "[batch*seq, dim] rows over a grid; [batch=16,32,64,128] [seq=256,512,1024,2048] "
                     "[dim=768,1024,2048,4096] (those are the defaults; any key may be given alone)")
          ->expected(0, 3);
  app.add_option("--vocab", vocab, "The rows' length of cross_entropy in the sweep (default 32000)")
      ->check(CLI::PositiveNumber);
  std::optional<std::string> model_name;
  std::vector<int64_t> model_batch, model_seq;
  app.add_option("--model", model_name, "The model of --category model: " + join(model_names()) + " (default all)");
  app.add_option("--batch", model_batch, "Batch sizes of the model runs (default 1,2,4)")
      ->delimiter(',')
      ->check(CLI::PositiveNumber);
  app.add_option("--seq", model_seq, "Sequence lengths of the model runs (default 128,256,512)")
      ->delimiter(',')
      ->check(CLI::PositiveNumber);
  std::string timing_word = "pure", l2_word = "cold", timer_word = "cupti";
  app.add_option("--timing", timing_word,
                 "pure: device time of one launch, L2 cold and clean, the stream held until the sample is queued "
                 "(default); graph: N launches replayed from a CUDA graph, time per launch "
                 "(back-to-back throughput, no event floor); real: host wall clock per call, launch and sync "
                 "included; both: pure and real");
  app.add_option("--device-timer", timer_word,
                 "The clock of pure and graph samples. cupti: CUPTI's activity timestamps of the launch's kernels, "
                 "memcpys and memsets, first start to last end (default; the events when CUPTI cannot trace); "
                 "cupti-stream: the same records from the end of the flush before the launch, its start-up on the "
                 "GPU included (~1.7 us more on the H100; ncu's gpu__time_duration lies between the two); events: a "
                 "pair of CUDA events around the launch (adds their own ~2.5 us on the H100)");
  app.add_option("--l2", l2_word, "cold: flush the L2 (write, then read a 2 x L2 buffer) before each sample (default); "
                 "warm: do not");
  app.add_flag("--no-outlier-filter", no_outlier_filter, "Keep every timing sample (no IQR filter)");
  app.add_flag("--tf32", opt.settings.tf32,
               "fp32 matmuls on TF32 tensor cores in the framework (its TF32 path), LibTorch and cuBLAS alike, "
               "checked at TF32 tolerance (default: fp32 accuracy everywhere, checked at fp32 tolerance; the "
               "framework's large fp32 GEMMs run as 3xTF32 on H100, LibTorch and cuBLAS on SIMT)");
  app.add_option("--graph-launches", opt.timing.graph_launches,
                 "Launches per CUDA graph in --timing graph (default 0: about 0.5 ms of work per replay, 10 to 1000; "
                 "100 with --profile)")
      ->check(CLI::Range(0, 100000));
  app.add_flag("--profile", opt.profile,
               "Verify, then launch every implementation of each problem once inside cudaProfilerStart/Stop with "
               "an NVTX range category/op/dtype/shape/impl (for ncu --profile-from-start off; with --timing graph, "
               "one replay of a graph of --graph-launches launches, range .../impl/graph<N>, for ncu "
               "--graph-profiling graph); no reports");
  app.add_option("--output-dir", opt.output_dir, "Where the reports go (default docs/benchmark)");
  app.add_option("--format", formats, "Report formats: md, json (default both)")->delimiter(',');
  std::optional<std::string> devices, shard;
  std::optional<double> margin_pct;
  app.add_option("--devices", devices,
                 "Split the problems over these GPUs, one worker process each, into one report: all, or 0,1,...");
  app.add_option("--device", opt.dist.device, "Run on GPU N (default 0, or the launcher's LOCAL_RANK)")
      ->check(CLI::Range(0, 1023));
  app.add_option("--shard", shard,
                 "Run shard i of n (0 <= i < n) and write shard-<i>-of-<n>.json for `bench_ops merge` (default: "
                 "from torchrun, srun or mpirun: RANK/WORLD_SIZE, SLURM_PROCID/SLURM_NTASKS, OMPI_COMM_WORLD_*)");
  app.add_flag("--isolate", opt.dist.isolate,
               "Every problem in a fresh worker process: a crashing kernel costs only its own problem");
  app.add_flag("--replicate", opt.dist.replicate,
               "Every GPU runs every problem (with --devices or a launcher): the per-GPU consistency table");
  app.add_option("--balance-from", opt.dist.balance_from,
                 "Balance the shards by the times measured in this earlier report (JSON)");
  app.add_option("--slow-gpu-margin", margin_pct,
                 "Flag a GPU this many percent slower than the fleet median (default 5)")
      ->check(CLI::Range(0.0, 100.0));
  app.add_option("--worker-problems", opt.dist.worker_problems)->group("");  // set by a --devices parent
  app.add_option("--worker-journal", opt.dist.worker_journal)->group("");
  app.add_flag("--list-ops", opt.list_ops, "List the ops with their categories and exit");
  app.add_flag("--list-categories", opt.list_categories, "List the categories and exit");
  app.add_flag("--list-sizes", opt.list_sizes, "List the size classes and their shapes and exit");

  std::vector<std::string> rev(ours.rbegin(), ours.rend());
  try {
    app.parse(rev);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    std::cout << "\nGoogle Benchmark's --benchmark_* flags (e.g. --benchmark_filter=REGEX,\n"
                 "--benchmark_out=FILE --benchmark_out_format=json) are passed through.\n";
    return {true, kExitOk};
  } catch (const CLI::ParseError& e) {
    return usage_error(e.what());
  }

  for (const std::string& c : categories) {
    auto sel = parse_category(reg, c);
    if (!sel) return usage_error(fmt::format("unknown category '{}'; valid: {}", c, join(category_words(reg))));
    opt.filter.categories.push_back(*sel);
  }
  for (const std::string& o : ops) {
    if (!reg.find(o))
      return usage_error(fmt::format("unknown op '{}'; valid ops: {} (bench_ops --list-ops)", o, join(reg.names())));
    opt.filter.ops.push_back(o);
  }
  for (const std::string& s : sizes) {
    if (s == "all") {
      opt.filter.sizes = all_size_classes();
      continue;
    }
    auto c = parse_size_class(s);
    if (!c) return usage_error(fmt::format("unknown size class '{}'; valid: {}", s, join(size_choices())));
    if (std::find(opt.filter.sizes.begin(), opt.filter.sizes.end(), *c) == opt.filter.sizes.end())
      opt.filter.sizes.push_back(*c);
  }
  for (const std::string& s : shapes) {
    auto sh = parse_shape(s);
    if (!sh)
      return usage_error(fmt::format("malformed shape '{}': write positive dimensions joined by 'x', e.g. 1023x1025", s));
    opt.filter.custom_shapes.push_back(*sh);
  }
  for (const std::string& d : dtypes) {
    auto t = parse_dtype(d);
    if (!t || !(*t == DType::f32 || *t == DType::f16 || *t == DType::bf16))
      return usage_error(fmt::format("unknown dtype '{}'; valid: fp32, fp16, bf16", d));
    if (std::find(opt.filter.dtypes.begin(), opt.filter.dtypes.end(), *t) == opt.filter.dtypes.end())
      opt.filter.dtypes.push_back(*t);
  }
  if (sweep_opt->count() > 0) {
    if (!shapes.empty() || !sizes.empty())
      return usage_error("--sweep makes its own [batch*seq, dim] shapes: drop --shape and --size");
    auto grid = parse_sweep(sweep_specs);
    if (!grid) return usage_error(grid.error);
    if (vocab) grid.grid.vocab = *vocab;
    opt.filter.sweep = grid.grid;
    if (opt.filter.dtypes.empty()) opt.filter.dtypes = {DType::f32, DType::bf16};  // as the suite
  } else if (vocab) {
    return usage_error("--vocab is the sweep's vocabulary: use it with --sweep");
  }
  if (model_name || !model_batch.empty() || !model_seq.empty()) {
    bool model_ops = false;
    for (const CategorySelection& c : opt.filter.categories)
      for (const Category& cat : c.categories)
        for (const OpDef& op : reg.ops()) model_ops = model_ops || (op.category == cat && !op.model.empty());
    for (const std::string& o : opt.filter.ops) model_ops = model_ops || !reg.find(o)->model.empty();
    if (!model_ops) return usage_error("--model, --batch and --seq choose the model runs: add --category model");
    if (model_name) {
      if (!find_model(*model_name))
        return usage_error(fmt::format("unknown model '{}'; valid: {}", *model_name, join(model_names())));
      opt.filter.model = *model_name;
    }
    auto unique = [](const std::vector<int64_t>& v) {
      std::vector<int64_t> u;
      for (int64_t x : v)
        if (std::find(u.begin(), u.end(), x) == u.end()) u.push_back(x);
      return u;
    };
    if (!model_batch.empty()) opt.filter.model_grid.batch = unique(model_batch);
    if (!model_seq.empty()) opt.filter.model_grid.seq = unique(model_seq);
  }
  if (!formats.empty()) {
    opt.write_markdown = opt.write_json = false;
    for (const std::string& f : formats) {
      if (f == "md" || f == "markdown")
        opt.write_markdown = true;
      else if (f == "json")
        opt.write_json = true;
      else
        return usage_error(fmt::format("unknown --format '{}'; valid: md, json", f));
    }
  }
  if (opt.output_dir.empty()) return usage_error("--output-dir is empty");
  const std::map<std::string, TimingMode> timing_modes = {
      {"pure", TimingMode::pure}, {"graph", TimingMode::graph}, {"real", TimingMode::real}, {"both", TimingMode::both}};
  if (!timing_modes.count(timing_word))
    return usage_error(fmt::format("unknown --timing '{}'; valid: pure, graph, real, both", timing_word));
  opt.timing_mode = timing_modes.at(timing_word);
  if (l2_word != "cold" && l2_word != "warm")
    return usage_error(fmt::format("unknown --l2 '{}'; valid: cold, warm", l2_word));
  const bool l2_cold = l2_word == "cold";
  // The words are the reports' timer names (device_timer_name), which compare and merge match on.
  std::map<std::string, DeviceTimer> timers;
  std::vector<std::string> timer_words;
  for (DeviceTimer t : {DeviceTimer::cupti, DeviceTimer::cupti_stream, DeviceTimer::events}) {
    timers[device_timer_name(t)] = t;
    timer_words.push_back(device_timer_name(t));
  }
  if (!timers.count(timer_word))
    return usage_error(
        fmt::format("unknown --device-timer '{}'; valid: {}", timer_word, fmt::join(timer_words, ", ")));
  if (devices) {
    const auto list = dist::parse_device_list(*devices);
    if (!list)
      return usage_error(fmt::format("--devices '{}': write all, or GPU indices joined by commas, e.g. 0,1,3", *devices));
    opt.dist.devices = *list;
  }
  if (shard) {
    opt.dist.shard = dist::parse_shard(*shard);
    if (!opt.dist.shard) return usage_error(fmt::format("--shard '{}': write i/n with 0 <= i < n, e.g. 1/4", *shard));
  }
  if (margin_pct) opt.dist.slow_gpu_margin = *margin_pct / 100;

  opt.filter.fast = fast;
  opt.timing.pure = opt.timing_mode == TimingMode::pure || opt.timing_mode == TimingMode::both;
  opt.timing.real = opt.timing_mode == TimingMode::real || opt.timing_mode == TimingMode::both;
  opt.timing.graph = opt.timing_mode == TimingMode::graph;
  opt.timing.l2_cold = l2_cold;
  opt.timing.device_timer = timers.at(timer_word);
  opt.timing.outlier_filter = !no_outlier_filter;
  if (fast) opt.timing = fast_timing(opt.timing);
  return {};
}

void print_ops(const Registry& reg) {
  for (const Category& c : reg.categories()) {
    for (const OpDef& op : reg.ops()) {
      if (op.category != c) continue;
      std::string vendors;
      for (const Impl& i : op.impls)
        if (is_vendor(i.kind)) vendors += std::string(" +") + impl_name(i.kind);
      fmt::print("{:<11} {:<16} {}{}\n", category_name(c), op.name, op.description, vendors);
    }
  }
}

void print_categories(const Registry& reg) {
  for (const Category& c : reg.categories()) {
    int n = 0;
    for (const OpDef& op : reg.ops()) n += op.category == c;
    std::string line = fmt::format("{:<11} {:>2} ops", category_name(c), n);
    for (const CategoryDef& d : category_defs())
      if (d.category == c) {
        line += "  " + d.description;
        if (!d.aliases.empty()) line += " (also: " + join(d.aliases) + ")";
      }
    fmt::print("{}\n", line);
  }
  for (const std::string& t : reg.tags()) {
    std::vector<std::string> ops;
    for (const OpDef& op : reg.ops())
      if (std::find(op.tags.begin(), op.tags.end(), t) != op.tags.end()) ops.push_back(op.name);
    fmt::print("{:<11} tag: {}\n", t, join(ops));
  }
}

void print_sizes() {
  for (SizeClass c : all_size_classes()) {
    std::vector<std::string> s;
    for (const Shape& sh : size_class_shapes(c)) s.push_back(shape_str(sh));
    fmt::print("{:<11} {}\n", size_class_name(c), join(s));
  }
  fmt::print("Ops may add shapes of their own to a class (transformer rows, vocabularies, LLM GEMMs): "
             "see --list-ops and the reports.\n");
}

}  // namespace opbench
