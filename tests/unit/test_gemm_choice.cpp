// The wgmma GEMM's choice of tile configuration and split-K count (sm90_model_choice, gemm_sm90.cu) against
// a measurement: tests/data/gemm_sweep_h200.md is tools/gemm_sweep's table from an H200 (GPU c6a85c0a; 132 SMs and
// the H100's tensor rate, 4.8 TB/s of HBM) with the kernels that added the 128x224 tile for W[N, K] (bf16, every
// cluster-free configuration with 1..8 K splits, -1.00 where a configuration does not take the layout, the two
// cluster configurations unsplit; L2 cleaned, event-timed medians, the configurations of a shape timed in turns).
// The model's constants were fitted on the H100 (gemm_sm90.cu); the H100's table, which it matched the same way,
// is in git history (tests/data/gemm_sweep_h100.md before this table replaced it). The test reads the
// cluster-free columns only. The model is pure host code, so this runs without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "kernels/matmul/gemm_detail.hpp"

#ifndef OPBENCH_TEST_DATA
#error "OPBENCH_TEST_DATA must name tests/data"
#endif

namespace {

using fw::detail::GemmArgs;
using fw::detail::Sm90Choice;

constexpr int kHopperSms = 132;

std::vector<std::string> cells(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream ss(line);
  std::string c;
  std::getline(ss, c, '|');  // before the first bar
  while (std::getline(ss, c, '|')) {
    const auto b = c.find_first_not_of(' '), e = c.find_last_not_of(' ');
    out.push_back(b == std::string::npos ? "" : c.substr(b, e - b + 1));
  }
  if (!out.empty() && out.back().empty()) out.pop_back();
  return out;
}

struct Row {
  int64_t M, N, K;
  fw::GemmLayout layout;
  std::string path;                   // what fw::gemm chose in the sweep (gemm_path)
  std::map<std::string, double> us;  // "64x128/4" -> median us (splits as asked of the kernel)
};

// "<tile>/<splits>" with <tile> one of the model's tiles.
bool model_column(const std::string& name) {
  const std::string tile = name.substr(0, name.find('/'));
  for (const fw::detail::Sm90Tile& t : fw::detail::kSm90ModelTiles)
    if (tile == fw::detail::sm90_config_name(t.config)) return true;
  return false;
}

std::vector<Row> load() {
  std::ifstream f(std::string(OPBENCH_TEST_DATA) + "/gemm_sweep_h200.md");
  std::vector<Row> rows;
  std::vector<std::string> header;
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("|", 0) != 0) continue;
    const std::vector<std::string> c = cells(line);
    if (header.empty()) {
      header = c;
      continue;
    }
    Row r;
    long long m = 0, n = 0, k = 0;
    if (std::sscanf(c.at(0).c_str(), "%lldx%lldx%lld", &m, &n, &k) != 3) continue;
    r.M = m, r.N = n, r.K = k;
    r.layout = c.at(1) == "nk" ? fw::GemmLayout::nk : fw::GemmLayout::kn;
    r.path = c.at(2);
    // Only the columns of the model's tiles (kSm90ModelTiles): gemm_sweep also times the cluster
    // configurations, which the model does not choose from, and the best column must be one it could choose.
    for (std::size_t i = 7; i < c.size() && i < header.size(); ++i)
      if (model_column(header[i])) r.us[header[i]] = std::stod(c[i]);
    rows.push_back(r);
  }
  return rows;
}

std::string tile_name(fw::detail::Sm90Config c) { return fw::detail::sm90_config_name(c); }

// The table's column for a choice: the split count asked of the kernel that runs c.splits.
double measured(const Row& r, const GemmArgs& a, const Sm90Choice& c) {
  for (int asked : fw::detail::kSm90SplitCounts)
    if (fw::detail::sm90_splits_run(a, asked) == c.splits) {
      const auto it = r.us.find(tile_name(c.config) + "/" + std::to_string(asked));
      if (it != r.us.end()) return it->second;
    }
  return -1;
}

TEST(GemmChoice, FixtureIsTheSweepTable) {
  const std::vector<Row> rows = load();
  ASSERT_GE(rows.size(), 30u);
  const std::size_t columns = std::size(fw::detail::kSm90ModelTiles) * std::size(fw::detail::kSm90SplitCounts);
  for (const Row& r : rows) EXPECT_EQ(r.us.size(), columns) << r.M << "x" << r.N << "x" << r.K;
}

// Every pick within 10% of the fastest configuration measured for its shape (the sweep's own medians
// move by up to ~6% between runs).
TEST(GemmChoice, PicksWithinTenPercentOfTheMeasuredBest) {
  for (const Row& r : load()) {
    const GemmArgs a{fw::DType::bf16, r.layout, nullptr, nullptr, nullptr, nullptr, 1, r.M, r.N, r.K};
    const Sm90Choice c = fw::detail::sm90_model_choice(a, kHopperSms);
    double best = 1e30;
    for (const auto& kv : r.us)
      if (kv.second > 0) best = std::min(best, kv.second);
    const double got = measured(r, a, c);
    ASSERT_GT(got, 0) << "no measurement for " << tile_name(c.config) << " in " << c.splits << " splits";
    EXPECT_LE(got, 1.10 * best) << r.M << "x" << r.N << "x" << r.K << ": picked " << tile_name(c.config) << " in "
                                << c.splits << " splits, " << got << " us; best " << best << " us";
  }
}

// The model is the one fw::gemm ran when the table was measured (gemm_path's names).
TEST(GemmChoice, SameChoiceAsWhenMeasured) {
  for (const Row& r : load()) {
    const GemmArgs a{fw::DType::bf16, r.layout, nullptr, nullptr, nullptr, nullptr, 1, r.M, r.N, r.K};
    const Sm90Choice c = fw::detail::sm90_model_choice(a, kHopperSms);
    std::string want = "sm90_tma_wgmma " + tile_name(c.config);
    if (c.splits > 1) want += " split-K " + std::to_string(c.splits);
    EXPECT_EQ(r.path, want) << r.M << "x" << r.N << "x" << r.K;
  }
}

// Five facts the model keeps (the first four it was fitted for on the H100; the fifth came with the 128x224 tile,
// no constant changed): Qwen2's down projection at 128 tokens splits K (16.8 -> 12.4 us
// measured), the same projection at 1024 tokens takes 64x128 tiles in one round (20.8 us against 32.5
// for the former rule's 64x64 in two); its gate_up projection at 256 tokens takes 128x160 tiles, 122 of them in
// one round (14.2 us against 15.3 for 128x192's 102 and 16.8 for 128x256's 76, which leave SMs idle), and at 512
// tokens 128x160 in two full rounds of 244 tiles (20.2 us against 22.4 for 128x192, whose second round has 72).
// On B[K, N] the 160-wide tile does not run: the model keeps 128x192 there. A linear layer of N = 896 at 4096 rows
// takes 128x224 tiles, 128 of them in one round, where 128x256 computes 1024 columns for 896 (H200, bench_ops:
// 4096x896x4864 bf16 47.0 us against 51.6; cuBLAS 47.2-47.6); B[K, N] keeps 128x256. The W[N, K] half is also a row
// of the table (checked above); it stands here so that the fact outlives a re-measured table's shapes, and the B[K, N]
// half checks that the model skips a tile that does not take the layout.
TEST(GemmChoice, FittedCases) {
  const GemmArgs down4096{fw::DType::bf16, fw::GemmLayout::nk, nullptr, nullptr, nullptr, nullptr, 1, 4096, 896, 4864};
  EXPECT_EQ(fw::detail::sm90_model_choice(down4096, kHopperSms).config, fw::detail::Sm90Config::bm128_bn224);
  GemmArgs down4096_kn = down4096;
  down4096_kn.b_layout = fw::GemmLayout::kn;
  EXPECT_EQ(fw::detail::sm90_model_choice(down4096_kn, kHopperSms).config, fw::detail::Sm90Config::bm128_bn256_cl1);
  const GemmArgs gate_up256{fw::DType::bf16, fw::GemmLayout::nk, nullptr, nullptr, nullptr, nullptr, 1, 256, 9728, 896};
  EXPECT_EQ(fw::detail::sm90_model_choice(gate_up256, kHopperSms).config, fw::detail::Sm90Config::bm128_bn160);
  const GemmArgs gate_up512{fw::DType::bf16, fw::GemmLayout::nk, nullptr, nullptr, nullptr, nullptr, 1, 512, 9728, 896};
  EXPECT_EQ(fw::detail::sm90_model_choice(gate_up512, kHopperSms).config, fw::detail::Sm90Config::bm128_bn160);
  GemmArgs kn512 = gate_up512;
  kn512.b_layout = fw::GemmLayout::kn;
  EXPECT_EQ(fw::detail::sm90_model_choice(kn512, kHopperSms).config, fw::detail::Sm90Config::bm128_bn192);
  const GemmArgs down128{fw::DType::bf16, fw::GemmLayout::nk, nullptr, nullptr, nullptr, nullptr, 1, 128, 896, 4864};
  EXPECT_GT(fw::detail::sm90_model_choice(down128, kHopperSms).splits, 1);
  const GemmArgs down1024{fw::DType::bf16, fw::GemmLayout::nk, nullptr, nullptr, nullptr, nullptr, 1, 1024, 896, 4864};
  const Sm90Choice c = fw::detail::sm90_model_choice(down1024, kHopperSms);
  EXPECT_EQ(c.config, fw::detail::Sm90Config::bm64_bn128);
  EXPECT_EQ(c.splits, 1);
}

// sm90_pick's K-pair (sm90_with_k_pair): the decode shapes the H200 A/B found faster with it (64 and 16 x 4096 x 4096,
// 64 k-blocks, 64 tiles) take it; the ones it made slower (512^3: 8 k-blocks; K = 896: 14) keep 64x64, as do 64x64
// tiles that fill more than half the SMs (512x896x4864: 112 tiles), a split choice, and another tile.
TEST(GemmChoice, KPairOnlyForLongKOnHalfTheSms) {
  using fw::detail::Sm90Config;
  const auto pick = [](int64_t M, int64_t N, int64_t K, fw::GemmLayout l, Sm90Choice c) {
    const GemmArgs a{fw::DType::bf16, l, nullptr, nullptr, nullptr, nullptr, 1, M, N, K};
    return fw::detail::sm90_with_k_pair(a, c, kHopperSms);
  };
  const Sm90Choice unsplit{Sm90Config::bm64_bn64, 1};
  EXPECT_EQ(pick(64, 4096, 4096, fw::GemmLayout::kn, unsplit), Sm90Config::bm64_bn64_k2);
  EXPECT_EQ(pick(16, 4096, 4096, fw::GemmLayout::nk, unsplit), Sm90Config::bm64_bn64_k2);
  EXPECT_EQ(pick(64, 4096, 2048, fw::GemmLayout::nk, unsplit), Sm90Config::bm64_bn64_k2);  // 32 k-blocks
  EXPECT_EQ(pick(64, 4096, 1984, fw::GemmLayout::nk, unsplit), Sm90Config::bm64_bn64);     // 31
  EXPECT_EQ(pick(512, 512, 512, fw::GemmLayout::kn, unsplit), Sm90Config::bm64_bn64);
  EXPECT_EQ(pick(128, 896, 896, fw::GemmLayout::nk, unsplit), Sm90Config::bm64_bn64);
  EXPECT_EQ(pick(512, 896, 4864, fw::GemmLayout::nk, unsplit), Sm90Config::bm64_bn64);
  EXPECT_EQ(pick(64, 4096, 4096, fw::GemmLayout::nk, Sm90Choice{Sm90Config::bm64_bn64, 2}), Sm90Config::bm64_bn64);
  EXPECT_EQ(pick(64, 4096, 4096, fw::GemmLayout::nk, Sm90Choice{Sm90Config::bm64_bn128, 1}), Sm90Config::bm64_bn128);
  // and what the model itself chooses for the decode shape, on which the rule builds
  const GemmArgs decode{fw::DType::bf16, fw::GemmLayout::nk, nullptr, nullptr, nullptr, nullptr, 1, 64, 4096, 4096};
  EXPECT_EQ(fw::detail::sm90_with_k_pair(decode, fw::detail::sm90_model_choice(decode, kHopperSms), kHopperSms),
            Sm90Config::bm64_bn64_k2);
}

// TF32 (fp32 data) takes the K-pair by the same rule, with W as [N, K] only: its k-blocks hold 32 elements, so
// K = 1024 is 32 of them; B as [K, N] runs the transposed problem on cluster-free register-A kernels.
TEST(GemmChoice, Tf32KPairWithWAsNK) {
  using fw::detail::Sm90Config;
  const auto pick = [](int64_t M, int64_t N, int64_t K) {
    const GemmArgs a{fw::DType::f32, fw::GemmLayout::nk, nullptr, nullptr, nullptr, nullptr, 1, M, N, K};
    return fw::detail::sm90_with_k_pair(a, Sm90Choice{Sm90Config::bm64_bn64, 1}, kHopperSms);
  };
  EXPECT_EQ(pick(64, 4096, 4096), Sm90Config::bm64_bn64_k2);
  EXPECT_EQ(pick(16, 4096, 1024), Sm90Config::bm64_bn64_k2);  // 32 k-blocks
  EXPECT_EQ(pick(16, 4096, 992), Sm90Config::bm64_bn64);      // 31
  EXPECT_EQ(pick(128, 4096, 4096), Sm90Config::bm64_bn64);    // 128 tiles: more than half the SMs
  EXPECT_TRUE(fw::detail::sm90_config_takes(Sm90Config::bm64_bn64_k2, fw::DType::f32, fw::GemmLayout::nk));
  EXPECT_FALSE(fw::detail::sm90_config_takes(Sm90Config::bm64_bn64_k2, fw::DType::f32, fw::GemmLayout::kn));
  EXPECT_TRUE(fw::detail::sm90_config_takes(Sm90Config::bm64_bn64_k2, fw::DType::bf16, fw::GemmLayout::kn));
  EXPECT_FALSE(fw::detail::sm90_config_takes(Sm90Config::bm128_bn224, fw::DType::f32, fw::GemmLayout::nk));
}

// 3xTF32 in the kernel splits its 128x64 tiles by tf32x3_splits_by_rounds. Each expectation is the split count of the
// fastest configuration gemm_sweep --dtype fp32 measured (H200 GPU 983c8f9a, M = 16 and 64, both layouts, K = 4096;
// notes/performance.md, fifty-first round), at N = 1024 the fastest 128x64 one (64x64 in eight splits was 5-11% faster
// there); at K = 1024 three splits and one measured within 5% of each other; 512^3 (H200 GPU 58ff84fd, fifty-second
// round) four splits of 4 k-blocks, 256^3 (H200 GPU af5deb9e) eight of one.
TEST(GemmChoice, Tf32x3SplitsByRoundsAsMeasured) {
  const auto splits = [](int64_t N, int64_t K) {
    return fw::detail::tf32x3_splits_by_rounds(N / 128, K / 32, kHopperSms);
  };
  EXPECT_EQ(splits(1024, 4096), 8);
  EXPECT_EQ(splits(2048, 4096), 8);
  EXPECT_EQ(splits(3072, 4096), 4);
  EXPECT_EQ(splits(4096, 4096), 4);
  EXPECT_EQ(splits(4352, 4096), 3);
  EXPECT_EQ(splits(6144, 4096), 8);
  EXPECT_EQ(splits(8192, 4096), 2);
  EXPECT_EQ(splits(11008, 4096), 3);
  EXPECT_EQ(splits(14336, 4096), 1);
  EXPECT_EQ(splits(11008, 1024), 3);
  EXPECT_EQ(fw::detail::tf32x3_splits_by_rounds(32, 16, kHopperSms), 4);  // 512^3: 32 tiles of 16 k-blocks
  EXPECT_EQ(fw::detail::tf32x3_splits_by_rounds(8, 8, kHopperSms), 8);   // 256^3: 8 tiles of 8 k-blocks
  EXPECT_EQ(fw::detail::tf32x3_splits_by_rounds(1, 1, kHopperSms), 1);   // one k-block: nothing to split
}

// Which tile 3xTF32 in the kernel runs (tf32x3_split_a_choice): 128x64 at decode-like M and wherever 128x128 tiles of
// the transposed problem fill less than a wave, 128x128 unsplit from a wave up. The first four and 2048^3 are the
// fastest configuration gemm_sweep --dtype fp32 measured, W as [N, K] (H200 GPUs 983c8f9a, 58ff84fd and 49f0ef3c;
// notes/performance.md, fifty-first and fifty-second rounds); the other two, not swept, pin the rule's edges:
// decode-like M keeps 128x64 tiles at any N, and 128 tiles of 128x128 count as a wave (bmm 8x512^3 ran on them before
// this rule).
TEST(GemmChoice, Tf32x3SplitATileAsMeasured) {
  using fw::detail::Sm90Config;
  const auto choice = [](int64_t batch, int64_t M, int64_t N, int64_t K) {
    const GemmArgs a{fw::DType::f32, fw::GemmLayout::nk, nullptr, nullptr, nullptr, nullptr, batch, M, N, K};
    return fw::detail::tf32x3_split_a_choice(a, kHopperSms);
  };
  const auto is = [](Sm90Choice c, Sm90Config config, int splits) { return c.config == config && c.splits == splits; };
  EXPECT_TRUE(is(choice(1, 1024, 1024, 1024), Sm90Config::bm128_bn64, 1));    // 128 tiles, one round
  EXPECT_TRUE(is(choice(1, 512, 512, 512), Sm90Config::bm128_bn64, 4));       // 32 tiles x 4
  EXPECT_TRUE(is(choice(1, 128, 4096, 4096), Sm90Config::bm128_bn64, 2));     // 64 tiles x 2
  EXPECT_TRUE(is(choice(1, 64, 4096, 4096), Sm90Config::bm128_bn64, 4));      // decode-like
  EXPECT_TRUE(is(choice(1, 64, 32768, 4096), Sm90Config::bm128_bn64, 1));     // 256 tiles of 128x128: still 128x64
  EXPECT_TRUE(is(choice(1, 2048, 2048, 2048), Sm90Config::bm128_bn128_cl1, 1));  // 256 tiles of 128x128
  EXPECT_TRUE(is(choice(8, 512, 512, 512), Sm90Config::bm128_bn128_cl1, 1));     // 128: about a wave
}

// Where 3xTF32 in the kernel comes before the SIMT kernel (tf32x3_split_a_pays): each expectation the faster of the two
// as gemm_sweep --dtype fp32 measured them (H200 GPUs 49f0ef3c and af5deb9e; bench_ops for bmm 8x256^3;
// notes/performance.md, fifty-second round).
TEST(GemmChoice, Tf32x3SplitAPaysAsMeasured) {
  const auto pays = [](int64_t batch, int64_t M, int64_t N, int64_t K) {
    const GemmArgs a{fw::DType::f32, fw::GemmLayout::nk, nullptr, nullptr, nullptr, nullptr, batch, M, N, K};
    return fw::detail::tf32x3_split_a_pays(a, kHopperSms);
  };
  EXPECT_TRUE(pays(1, 512, 896, 4864));   // 60.2 us against SIMT's 140.0
  EXPECT_TRUE(pays(1, 128, 896, 896));    // 13.2 against 18.1
  EXPECT_TRUE(pays(1, 384, 384, 384));    // 11.8 against 13.6
  EXPECT_TRUE(pays(1, 512, 512, 512));    // 13.0 against 17.6
  EXPECT_TRUE(pays(1, 1024, 1024, 1024));  // 28.1 against 65.3
  EXPECT_TRUE(pays(1, 64, 1024, 4096));   // decode-like: 19.6 against 23.4 (fifty-first round)
  EXPECT_FALSE(pays(1, 256, 256, 256));   // 9.8 against 8.6
  EXPECT_FALSE(pays(1, 512, 512, 256));   // 11.8 against 11.3
  EXPECT_FALSE(pays(8, 256, 256, 256));   // bench_ops: 11.5 against 11.1
  EXPECT_FALSE(pays(1, 128, 128, 4096));  // 16 CTAs: 18.7 against 14.7
  EXPECT_TRUE(pays(448, 1024, 1024, 64));  // a wave of 128x128 tiles, as before
}

// The row-engine GEMV (gemv_nk.cu) takes decode vectors with W as [N, K] in every dtype, where the skinny kernel took
// them and was measured slower (H200, notes/performance.md, forty-ninth round for fp32, fiftieth for 16 bits); the
// skinny kernel keeps fp32 with M <= 16 only.
TEST(GemmChoice, RowEngineGemvTakesDecodeVectors) {
  const auto args = [](fw::DType dt, fw::GemmLayout l, int64_t batch, int64_t M, int64_t N, int64_t K) {
    return GemmArgs{dt, l, nullptr, nullptr, nullptr, nullptr, batch, M, N, K};
  };
  const auto takes = [&](fw::DType dt, fw::GemmLayout l, int64_t batch, int64_t M, int64_t N, int64_t K) {
    return fw::detail::gemv_nk_supported(args(dt, l, batch, M, N, K));
  };
  using fw::DType;
  using fw::GemmLayout;
  for (const DType dt : {DType::f32, DType::f16, DType::bf16}) {
    EXPECT_TRUE(takes(dt, GemmLayout::nk, 1, 1, 4096, 4096));
    EXPECT_TRUE(takes(dt, GemmLayout::nk, 1, 1, 2048, 1024));
    EXPECT_TRUE(takes(dt, GemmLayout::nk, 1, 1, 11000, 1027));  // any K: misaligned rows take scalar loads of x
    EXPECT_FALSE(takes(dt, GemmLayout::nk, 1, 1, 2047, 4096));  // below the measured N
    EXPECT_FALSE(takes(dt, GemmLayout::nk, 1, 1, 4096, 1023));  // below the measured K
    EXPECT_FALSE(takes(dt, GemmLayout::nk, 1, 2, 4096, 4096));  // M > 1
    EXPECT_FALSE(takes(dt, GemmLayout::nk, 2, 1, 4096, 4096));  // batched
    EXPECT_FALSE(takes(dt, GemmLayout::kn, 1, 1, 4096, 4096));  // B as [K, N]: gemv_sm90.cu
  }
  EXPECT_TRUE(fw::detail::skinny_supported(args(DType::f32, GemmLayout::nk, 1, 2, 4096, 4096)));
  EXPECT_FALSE(fw::detail::skinny_supported(args(DType::bf16, GemmLayout::nk, 1, 1, 4096, 4096)));
  EXPECT_FALSE(fw::detail::skinny_supported(args(DType::f16, GemmLayout::nk, 1, 1, 4096, 4096)));
}

// The fp32 SIMT kernel's split-K count (gemm_simt.cu): on the H100's 132 SMs, for every tile count that
// leaves SMs idle and K from 32 to 4096 k-blocks, the busiest SM has no more k-blocks to run than with the
// former count (two blocks an SM on average, capped by chunks of 8 k-blocks and 64 splits), and for
// {64, 4096, 4096} (64 tiles of 64x64, 256 k-blocks of 16) fewer: 8 splits (4 blocks of 32 k-blocks on the
// busiest SM) where the former 5 put 3 blocks of 52 on 56 SMs.
TEST(SimtSplits, BusiestSmNeverWorseThanTwoBlocksAnSm) {
  const auto busiest = [](int64_t tiles, int64_t nkb, int64_t s) {
    return ((tiles * s + kHopperSms - 1) / kHopperSms) * ((nkb + s - 1) / s);
  };
  for (int64_t tiles = 1; tiles < kHopperSms; ++tiles)
    for (int64_t nkb = 32; nkb <= 4096; nkb += 8) {
      const int64_t former = std::max<int64_t>(
          1, std::min<int64_t>({(2 * kHopperSms + tiles - 1) / tiles, nkb / 8, 64}));
      const int s = fw::detail::simt_split_count(tiles, nkb, kHopperSms);
      ASSERT_GE(s, 1);
      ASSERT_LE(s, 64);
      ASSERT_GE(nkb / s, 8) << tiles << " tiles, " << nkb << " k-blocks";
      EXPECT_LE(busiest(tiles, nkb, s), busiest(tiles, nkb, former)) << tiles << " tiles, " << nkb << " k-blocks";
    }
  EXPECT_EQ(fw::detail::simt_split_count(64, 256, kHopperSms), 8);
  EXPECT_LT(busiest(64, 256, 8), busiest(64, 256, 5));
  EXPECT_EQ(fw::detail::simt_split_count(kHopperSms, 4096, kHopperSms), 1);  // a full wave of tiles: no split
  EXPECT_EQ(fw::detail::simt_split_count(16, 31, kHopperSms), 1);          // too little K to split
  // The 32x32 tile's chunks of 4 k-blocks: 256^3 (64 tiles, 16 k-blocks of 16) in 4 chunks, not below 16.
  EXPECT_EQ(fw::detail::simt_split_count(64, 16, kHopperSms, 4), 4);
  EXPECT_EQ(fw::detail::simt_split_count(64, 15, kHopperSms, 4), 1);
}

}  // namespace
