// GroupedBiasAddGrad (V1) and GroupedBiasAddGradV2 edge cases: the seed's examples, every error
// clause (GMAX 2048 accepted / 2049 rejected, TYPE-1 and its place in the check order, each
// GBAG-IDX-1 violation), empty groups and empty gradY (GBAG-EMPTY-1), and special values.
#include <numeric>

#include "edge_cases/edge_case.hpp"

namespace aclnn_conform {
namespace {

using aclnn_ref::DType;
constexpr auto F32 = DType::kFloat32, F16 = DType::kFloat16, BF16 = DType::kBFloat16;
constexpr auto I32 = DType::kInt32, I64 = DType::kInt64;

// A contiguous index tensor (values written exactly, not through doubles).
TensorArg index_tensor(DType t, const std::vector<int64_t> &v) {
  TensorArg a = TensorArg::contiguous(t, {static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); ++i)
    a.set_bits_at(static_cast<int64_t>(i), t == I32
                                               ? static_cast<uint64_t>(static_cast<uint32_t>(v[i]))
                                               : static_cast<uint64_t>(v[i]));
  return a;
}

// V1 (type < 0) or V2 with groupIdxType = type.
Case gbag(TensorArg y, TensorArg idx, TensorArg out, int64_t type = -1,
          Product p = Product::kAtlasA2) {
  Case c;
  c.op = type < 0 && type != -100 ? "GroupedBiasAddGrad" : "GroupedBiasAddGradV2";
  c.product = p;
  c.tensors = {
      {"gradY", std::move(y)}, {"groupIdxOptional", std::move(idx)}, {"out", std::move(out)}};
  if (c.op == "GroupedBiasAddGradV2") c.attrs = {{"groupIdxType", type == -100 ? -1 : type}};
  return c;
}
constexpr int64_t kV1 = -1;
constexpr int64_t kV2TypeMinus1 = -100;  // V2 with groupIdxType = -1

TensorArg filled(DType t, std::vector<int64_t> shape, double v) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return values_tensor(t, std::move(shape), std::vector<double>(static_cast<size_t>(n), v));
}

}  // namespace

std::vector<EdgeCase> grouped_bias_add_grad_edge_cases() {
  constexpr int32_t kNull = 161001, kBad = 161002;
  std::vector<EdgeCase> rows;
  const auto add = [&](const char *clause, const char *title, Case c, int32_t status,
                       std::vector<ExpectedElement> e = {}) {
    rows.push_back({clause, title, std::move(c), status, std::move(e)});
  };
  const std::vector<ExpectedElement> seed1 = {{"out", 0, 400},  {"out", 29, 400}, {"out", 30, 200},
                                              {"out", 59, 200}, {"out", 60, 400}, {"out", 89, 400}};
  // GBAG-VALUE-1: the seed's example, with gradY all ones so out counts each group's rows.
  add("GBAG-VALUE-1", "seed: gradY (1000,30), groupIdx (400,600,1000) -> out (3,30): 400/200/400",
      gbag(filled(F32, {1000, 30}, 1), index_tensor(I64, {400, 600, 1000}),
           output_tensor(F32, {3, 30})),
      0, seed1);
  add("GBAG-VALUE-1", "the seed's example through V2 with groupIdxType 0",
      gbag(filled(F32, {1000, 30}, 1), index_tensor(I64, {400, 600, 1000}),
           output_tensor(F32, {3, 30}), 0),
      0, seed1);
  add("GBAG-VALUE-1", "V2 type 1: sizes (400,200,400) give the same groups",
      gbag(filled(F32, {1000, 30}, 1), index_tensor(I32, {400, 200, 400}),
           output_tensor(F32, {3, 30}), 1),
      0, seed1);
  add("GBAG-VALUE-1", "row-dependent values: out[j,h] sums rows groupIdx[j-1]..groupIdx[j]-1",
      gbag(values_tensor(F32, {4, 2}, {1, 10, 2, 20, 3, 30, 4, 40}), index_tensor(I32, {1, 4}),
           output_tensor(F32, {2, 2})),
      0, {{"out", 0, 1}, {"out", 1, 10}, {"out", 2, 9}, {"out", 3, 90}});
  // GBAG-VALUE-2: the seed's example without groupIdx; gradY[g,c,h] = g + 1.
  {
    std::vector<double> v(10 * 100 * 30);
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i / 3000 + 1);
    add("GBAG-VALUE-2", "seed: gradY (10,100,30) -> out (10,30), out[g,h] = 100*(g+1)",
        gbag(values_tensor(F32, {10, 100, 30}, v), TensorArg::null(), output_tensor(F32, {10, 30})),
        0, {{"out", 0, 100}, {"out", 29, 100}, {"out", 30, 200}, {"out", 299, 1000}});
  }
  add("GBAG-VALUE-3", "exact then rounded once: 2^24 + 1 - 2^24 = 1 (a float running sum gives 0)",
      gbag(values_tensor(F32, {3, 1}, {16777216.0, 1, -16777216.0}), index_tensor(I64, {3}),
           output_tensor(F32, {1, 1})),
      0, {{"out", 0, 1}});
  add("GBAG-VALUE-3", "BFLOAT16: 1 + 2^-8 + 2^-8 = 1 + 2^-7 rounded once",
      gbag(values_tensor(BF16, {1, 3, 1}, {1, 0x1p-8, 0x1p-8}), TensorArg::null(),
           output_tensor(BF16, {1, 1})),
      0, {{"out", 0, 1 + 0x1p-7}});
  add("GBAG-VALUE-3",
      "FLOAT16 at the overflow threshold: 65504 + 16 - 2^-20 = 65520 - 2^-20 rounds once to 65504",
      gbag(values_tensor(F16, {1, 3, 1}, {65504, 16, -0x1p-20}), TensorArg::null(),
           output_tensor(F16, {1, 1})),
      0, {{"out", 0, 65504}});
  // GBAG-NULL-1.
  add("GBAG-NULL-1", "gradY NULL",
      gbag(TensorArg::null(), index_tensor(I64, {2}), output_tensor(F32, {1, 2})), kNull);
  add("GBAG-NULL-1", "out NULL",
      gbag(filled(F32, {2, 2}, 1), index_tensor(I64, {2}), TensorArg::null()), kNull);
  add("GBAG-NULL-1", "out NULL on V2 with groupIdxType 5: NULL comes first",
      gbag(filled(F32, {2, 2}, 1), index_tensor(I64, {2}), TensorArg::null(), 5), kNull);
  // GBAG-DTYPE-1.
  add("GBAG-DTYPE-1", "gradY INT32",
      gbag(filled(I32, {2, 2}, 1), index_tensor(I64, {2}), output_tensor(I32, {1, 2})), kBad);
  add("GBAG-DTYPE-1", "gradY DOUBLE",
      gbag(filled(DType::kFloat64, {2, 2}, 1), index_tensor(I64, {2}),
           output_tensor(DType::kFloat64, {1, 2})),
      kBad);
  add("GBAG-DTYPE-1", "gradY COMPLEX64",
      gbag(filled(DType::kComplex64, {2, 2}, 1), index_tensor(I64, {2}),
           output_tensor(DType::kComplex64, {1, 2})),
      kBad);
  add("GBAG-DTYPE-1", "groupIdx COMPLEX128",
      gbag(filled(F32, {2, 2}, 1), values_tensor(DType::kComplex128, {1}, {2}),
           output_tensor(F32, {1, 2})),
      kBad);
  add("GBAG-DTYPE-1", "out FLOAT16 with gradY FLOAT",
      gbag(filled(F32, {2, 2}, 1), index_tensor(I64, {2}), output_tensor(F16, {1, 2})), kBad);
  add("GBAG-DTYPE-1", "groupIdx FLOAT",
      gbag(filled(F32, {2, 2}, 1), values_tensor(F32, {1}, {2}), output_tensor(F32, {1, 2})), kBad);
  add("GBAG-DTYPE-1", "groupIdx INT16",
      gbag(filled(F32, {2, 2}, 1), values_tensor(DType::kInt16, {1}, {2}),
           output_tensor(F32, {1, 2})),
      kBad);
  add("GBAG-DTYPE-1", "FLOAT16 gradY with INT32 groupIdx is legal",
      gbag(filled(F16, {3, 2}, 0.5), index_tensor(I32, {1, 3}), output_tensor(F16, {2, 2})), 0,
      {{"out", 0, 0.5}, {"out", 3, 1.0}});
  // GBAG-RANK-1.
  add("GBAG-RANK-1", "without groupIdx, gradY of rank 2",
      gbag(filled(F32, {2, 2}, 1), TensorArg::null(), output_tensor(F32, {2, 2})), kBad);
  add("GBAG-RANK-1", "with groupIdx, gradY of rank 3",
      gbag(filled(F32, {2, 2, 2}, 1), index_tensor(I64, {2}), output_tensor(F32, {1, 2})), kBad);
  add("GBAG-RANK-1", "groupIdx of rank 2",
      gbag(
          filled(F32, {2, 2}, 1),
          [] {
            TensorArg t = TensorArg::contiguous(I64, {1, 1});
            t.set_bits_at(0, 2);
            return t;
          }(),
          output_tensor(F32, {1, 2})),
      kBad);
  add("GBAG-RANK-1", "out of rank 3",
      gbag(filled(F32, {2, 2}, 1), index_tensor(I64, {2}), output_tensor(F32, {1, 1, 2})), kBad);
  add("GBAG-RANK-1", "out of rank 1",
      gbag(filled(F32, {2, 2}, 1), index_tensor(I64, {2}), output_tensor(F32, {2})), kBad);
  add("GBAG-RANK-1", "gradY of rank 3 and out of another shape: RANK before SHAPE",
      gbag(filled(F32, {2, 2, 2}, 1), index_tensor(I64, {2}), output_tensor(F32, {5, 5})), kBad);
  // GBAG-GMAX-1.
  {
    std::vector<int64_t> ends(2048);
    std::iota(ends.begin(), ends.end(), 1);
    std::vector<ExpectedElement> e = {{"out", 0, 1}, {"out", 2 * 2048 - 1, 1}};
    add("GBAG-GMAX-1", "2048 groups of one row each: accepted",
        gbag(filled(F32, {2048, 2}, 1), index_tensor(I32, ends), output_tensor(F32, {2048, 2})), 0,
        e);
    ends.push_back(2049);
    add("GBAG-GMAX-1", "2049 groups: rejected",
        gbag(filled(F32, {2049, 2}, 1), index_tensor(I32, ends), output_tensor(F32, {2049, 2})),
        kBad);
    add("GBAG-GMAX-1", "2049 groups and groupIdxType 7 (V2): GMAX before TYPE",
        gbag(filled(F32, {2049, 2}, 1), index_tensor(I32, ends), output_tensor(F32, {2049, 2}), 7),
        kBad);
    add("GBAG-GMAX-1", "no limit without groupIdx: gradY (3000,1,2) -> out (3000,2)",
        gbag(filled(F32, {3000, 1, 2}, 1), TensorArg::null(), output_tensor(F32, {3000, 2})), 0,
        {{"out", 0, 1}, {"out", 5999, 1}});
  }
  // GBAG-SHAPE-1.
  add("GBAG-SHAPE-1", "out (3,31) where (3,30) is due",
      gbag(filled(F32, {1000, 30}, 1), index_tensor(I64, {400, 600, 1000}),
           output_tensor(F32, {3, 31})),
      kBad);
  add("GBAG-SHAPE-1", "out (4,30) where (3,30) is due",
      gbag(filled(F32, {1000, 30}, 1), index_tensor(I64, {400, 600, 1000}),
           output_tensor(F32, {4, 30})),
      kBad);
  add("GBAG-SHAPE-1", "without groupIdx: out (10,100) where (10,30) is due",
      gbag(filled(F32, {10, 100, 30}, 1), TensorArg::null(), output_tensor(F32, {10, 100})), kBad);
  add("GBAG-SHAPE-1", "without groupIdx: out (11,30) where (10,30) is due",
      gbag(filled(F32, {10, 100, 30}, 1), TensorArg::null(), output_tensor(F32, {11, 30})), kBad);
  add("GBAG-SHAPE-1", "out of the wrong shape and groupIdxType 2: SHAPE before TYPE",
      gbag(filled(F32, {4, 2}, 1), index_tensor(I64, {4}), output_tensor(F32, {2, 2}), 2), kBad);
  // GBAG-TYPE-1.
  add("GBAG-TYPE-1", "V2 groupIdxType 2",
      gbag(filled(F32, {4, 2}, 1), index_tensor(I64, {4}), output_tensor(F32, {1, 2}), 2), kBad);
  add("GBAG-TYPE-1", "V2 groupIdxType -1",
      gbag(filled(F32, {4, 2}, 1), index_tensor(I64, {4}), output_tensor(F32, {1, 2}),
           kV2TypeMinus1),
      kBad);
  add("GBAG-TYPE-1", "V2 groupIdxType 2 without groupIdx",
      gbag(filled(F32, {1, 4, 2}, 1), TensorArg::null(), output_tensor(F32, {1, 2}), 2), kBad);
  add("GBAG-TYPE-1", "groupIdxType 2 with a decreasing groupIdx: TYPE before IDX",
      gbag(filled(F32, {4, 2}, 1), index_tensor(I64, {3, 1}), output_tensor(F32, {2, 2}), 2), kBad);
  // GBAG-IDX-1 (the project's implementation answers 161002; a SUT may do anything safe).
  add("GBAG-IDX-1", "type 0: decreasing (400,300,1000)",
      gbag(filled(F32, {1000, 30}, 1), index_tensor(I64, {400, 300, 1000}),
           output_tensor(F32, {3, 30})),
      kBad);
  add("GBAG-IDX-1", "type 0: negative (-1,600,1000)",
      gbag(filled(F32, {1000, 30}, 1), index_tensor(I32, {-1, 600, 1000}),
           output_tensor(F32, {3, 30})),
      kBad);
  add("GBAG-IDX-1", "type 0: above INT32_MAX (INT64 2147483648)",
      gbag(filled(F32, {4, 2}, 1), index_tensor(I64, {2147483648LL, 4}),
           output_tensor(F32, {2, 2})),
      kBad);
  add("GBAG-IDX-1", "type 0: last value 999 != dim0 1000",
      gbag(filled(F32, {1000, 30}, 1), index_tensor(I64, {400, 600, 999}),
           output_tensor(F32, {3, 30})),
      kBad);
  add("GBAG-IDX-1", "type 0: last value 1001 > dim0 1000",
      gbag(filled(F32, {1000, 30}, 1), index_tensor(I64, {400, 600, 1001}),
           output_tensor(F32, {3, 30}), 0),
      kBad);
  add("GBAG-IDX-1", "type 1: sizes (400,200,300) sum 900 != dim0 1000",
      gbag(filled(F32, {1000, 30}, 1), index_tensor(I32, {400, 200, 300}),
           output_tensor(F32, {3, 30}), 1),
      kBad);
  add("GBAG-IDX-1", "type 1: a negative size (600,-100,500)",
      gbag(filled(F32, {1000, 30}, 1), index_tensor(I64, {600, -100, 500}),
           output_tensor(F32, {3, 30}), 1),
      kBad);
  add("GBAG-IDX-1", "type 1: a size above INT32_MAX",
      gbag(filled(F32, {4, 2}, 1), index_tensor(I64, {2147483648LL, 4}), output_tensor(F32, {2, 2}),
           1),
      kBad);
  add("GBAG-IDX-1", "no groups (len 0) but gradY has rows",
      gbag(filled(F32, {2, 2}, 1), index_tensor(I64, {}), output_tensor(F32, {0, 2})), kBad);
  // GBAG-EMPTY-1.
  add("GBAG-EMPTY-1", "empty groups (0,2,2,4): rows 0 and 2 of out are zeros",
      gbag(values_tensor(F32, {4, 2}, {1, 2, 3, 4, 5, 6, 7, 8}), index_tensor(I32, {0, 2, 2, 4}),
           output_tensor(F32, {4, 2})),
      0,
      {{"out", 0, 0},
       {"out", 1, 0},
       {"out", 2, 4},
       {"out", 3, 6},
       {"out", 4, 0},
       {"out", 5, 0},
       {"out", 6, 12},
       {"out", 7, 14}});
  add("GBAG-EMPTY-1", "type 1 with zero sizes (0,2,0,2): rows 0 and 2 zeros",
      gbag(values_tensor(F32, {4, 2}, {1, 2, 3, 4, 5, 6, 7, 8}), index_tensor(I64, {0, 2, 0, 2}),
           output_tensor(F32, {4, 2}), 1),
      0, {{"out", 0, 0}, {"out", 2, 4}, {"out", 5, 0}, {"out", 7, 14}});
  add("GBAG-EMPTY-1", "empty gradY (0,3) with groupIdx (0,0): out (2,3) written with zeros",
      gbag(values_tensor(F32, {0, 3}, {}), index_tensor(I64, {0, 0}), output_tensor(F32, {2, 3})),
      0, {{"out", 0, 0}, {"out", 5, 0}});
  add("GBAG-EMPTY-1", "C = 0: gradY (2,0,3) -> out (2,3) zeros",
      gbag(values_tensor(F16, {2, 0, 3}, {}), TensorArg::null(), output_tensor(F16, {2, 3})), 0,
      {{"out", 0, 0}, {"out", 5, 0}});
  add("GBAG-EMPTY-1", "no groups and no rows: gradY (0,3), groupIdx (), out (0,3)",
      gbag(values_tensor(F32, {0, 3}, {}), index_tensor(I64, {}), output_tensor(F32, {0, 3})), 0);
  add("GBAG-EMPTY-1", "H = 0: gradY (4,0), groupIdx (4): out (1,0), nothing to write",
      gbag(values_tensor(F32, {4, 0}, {}), index_tensor(I64, {4}), output_tensor(F32, {1, 0})), 0);
  // GBAG-SPECIAL-1.
  add("GBAG-SPECIAL-1", "inf + 1 = inf, inf + -inf = NaN, NaN + 1 = NaN, -inf + 2 = -inf",
      gbag(values_tensor(F32, {4, 2}, {kInf, kInf, 1, -kInf, kNaN, -kInf, 1, 2}),
           index_tensor(I64, {2, 4}), output_tensor(F32, {2, 2})),
      0, {{"out", 0, kInf}, {"out", 1, kNaN}, {"out", 2, kNaN}, {"out", 3, -kInf}});
  add("GBAG-SPECIAL-1", "FLOAT16 65504 + 65504 overflows to inf (VAL-OVERFLOW-1)",
      gbag(values_tensor(F16, {1, 2, 2}, {65504, 1, 65504, -1}), TensorArg::null(),
           output_tensor(F16, {1, 2})),
      0, {{"out", 0, kInf}, {"out", 1, 0}});
  // ABI-SOC-1: A2/A3 only.
  add("ABI-SOC-1", "Atlas training: rejected",
      gbag(filled(F32, {2, 2}, 1), index_tensor(I64, {2}), output_tensor(F32, {1, 2}), kV1,
           Product::kAtlasTraining),
      kBad);
  add("ABI-SOC-1", "Atlas inference (V2): rejected",
      gbag(filled(F16, {2, 2}, 1), index_tensor(I64, {2}), output_tensor(F16, {1, 2}), 0,
           Product::kAtlasInference),
      kBad);
  add("ABI-SOC-1", "Atlas inference with gradY NULL: the product gate comes first",
      gbag(TensorArg::null(), index_tensor(I64, {2}), output_tensor(F16, {1, 2}), kV1,
           Product::kAtlasInference),
      kBad);
  add("ABI-SOC-1", "Atlas A3 with BFLOAT16: accepted",
      gbag(filled(BF16, {2, 2}, 1), index_tensor(I64, {2}), output_tensor(BF16, {1, 2}), kV1,
           Product::kAtlasA3),
      0, {{"out", 0, 2}, {"out", 1, 2}});
  add("ABI-SOC-1", "Atlas A3 with V2 and groupIdxType 1: accepted",
      gbag(filled(F16, {3, 2}, 1), index_tensor(I32, {1, 2}), output_tensor(F16, {2, 2}), 1,
           Product::kAtlasA3),
      0, {{"out", 0, 1}, {"out", 3, 2}});
  add("ABI-INPUT-1", "out: an output view whose rows overlap (stride 0 on dim 0) is rejected",
      gbag(values_tensor(F32, {4, 2}, {1, 10, 2, 20, 3, 30, 4, 40}), index_tensor(I32, {1, 4}),
           overlapping_output(F32, {2, 2})),
      161002, {});
  // GBAG-IDX-1 breaks a caller precondition: a SUT may answer anything but a crash or a write
  // outside out, so the campaign checks no status on these rows (CTest checks the built-in's).
  for (auto &r : rows) r.caller_precondition = r.clause == "GBAG-IDX-1";
  return rows;
}

}  // namespace aclnn_conform
