// `aclnn-conform golden`'s core: a JSON request with .bin inputs in, the oracle's outputs out as
// raw .bin and NumPy .npy files plus golden.json.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>

#include "campaign/golden.hpp"
#include "properties/op.hpp"
#include "reference/gelu_backward.hpp"
#include "reference/rounding.hpp"

namespace {
using namespace aclnn_conform;
using aclnn_ref::DType;
namespace fs = std::filesystem;
using json = nlohmann::json;

class Golden : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("aclnn_golden_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "in");
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }

  // Writes values of dtype t as a raw little-endian .bin and returns its path.
  std::string write_values(const std::string &name, DType t, const std::vector<double> &values) {
    std::vector<std::byte> bytes(values.size() * aclnn_ref::dtype_size(t));
    for (size_t i = 0; i < values.size(); ++i) {
      const uint64_t b = aclnn_ref::bits_from_double(values[i], t);
      std::memcpy(bytes.data() + i * aclnn_ref::dtype_size(t), &b, aclnn_ref::dtype_size(t));
    }
    const std::string path = (dir_ / "in" / (name + ".bin")).string();
    write_bin(path, bytes);
    return path;
  }

  std::vector<std::byte> file_bytes(const fs::path &p) {
    return read_bin(p.string(), static_cast<size_t>(fs::file_size(p)));
  }

  fs::path dir_;
};

const std::vector<double> kDy = {1.0, -2.0, 0.5, 3.0, -0.0, 1e30};
const std::vector<double> kX = {-0.75179152410535422, 0.0, 1.0, -8.0, INFINITY, -3.5};

json gelu_request(const std::string &dy, const std::string &x, DType t = DType::kFloat32) {
  const std::string dt(aclnn_ref::dtype_name(t));
  return json{{"op", "GeluBackward"},
              {"product", "ascend910b"},
              {"tensors",
               {{{"name", "gradOutput"}, {"dtype", dt}, {"shape", {2, 3}}, {"file", dy}},
                {{"name", "self"}, {"dtype", dt}, {"shape", {2, 3}}, {"file", x}},
                {{"name", "gradInput"}, {"dtype", dt}, {"shape", {2, 3}}}}}};
}

TEST_F(Golden, GeluOutputsAreTheOraclesBits) {
  const json req = gelu_request(write_values("dy", DType::kFloat32, kDy),
                                write_values("x", DType::kFloat32, kX));
  const json out = run_golden(req, (dir_ / "out").string());
  EXPECT_EQ(out["status"], 0);
  EXPECT_EQ(out["clause"], "");
  ASSERT_EQ(out["outputs"].size(), 1u);
  const json &o = out["outputs"][0];
  EXPECT_EQ(o["name"], "gradInput");
  EXPECT_EQ(o["dtype"], "fp32");
  EXPECT_EQ(o["shape"], json({2, 3}));
  EXPECT_EQ(o["bin"], "gradInput.bin");
  EXPECT_EQ(o["npy"], "gradInput.npy");
  EXPECT_EQ(o["npy_descr"], "<f4");
  // golden.json on disk is the returned summary.
  std::ifstream gj(dir_ / "out" / "golden.json");
  EXPECT_EQ(json::parse(gj), out);

  // The .bin holds each element's value of record, computed here element by element.
  const auto bin = read_bin((dir_ / "out" / "gradInput.bin").string(), 6 * 4);
  for (size_t i = 0; i < 6; ++i) {
    uint32_t got;
    std::memcpy(&got, bin.data() + i * 4, 4);
    // The inputs as the fp32 .bin holds them.
    const double dy = static_cast<float>(kDy[i]), x = static_cast<float>(kX[i]);
    const uint64_t want = aclnn_ref::gelu_backward_element(dy, x, DType::kFloat32);
    EXPECT_EQ(got, want) << "element " << i;
  }
  // The .npy is the same bytes behind a v1.0 header.
  const auto npy = file_bytes(dir_ / "out" / "gradInput.npy");
  ASSERT_GT(npy.size(), 10u);
  const std::string head(reinterpret_cast<const char *>(npy.data()), 10);
  EXPECT_EQ(head.substr(0, 6), "\x93NUMPY");
  EXPECT_EQ(head[6], '\x01');
  EXPECT_EQ(head[7], '\x00');
  const size_t hlen = static_cast<unsigned char>(head[8]) | static_cast<unsigned char>(head[9])
                                                                << 8;
  EXPECT_EQ((10 + hlen) % 64, 0u);
  ASSERT_EQ(npy.size(), 10 + hlen + bin.size());
  const std::string dict(reinterpret_cast<const char *>(npy.data()) + 10, hlen);
  EXPECT_EQ(dict.back(), '\n');
  EXPECT_TRUE(std::regex_search(
      dict, std::regex(R"(^\{'descr': '<f4', 'fortran_order': False, 'shape': \(2, 3\), \} *\n$)")))
      << dict;
  EXPECT_TRUE(std::equal(bin.begin(), bin.end(), npy.begin() + static_cast<long>(10 + hlen)));
}

TEST_F(Golden, NumpyLoadsTheNpyWhenAvailable) {
  // Debian's python3 (scripts/install-deps.sh installs python3-numpy for it), not whatever
  // python3 comes first on PATH.
  const std::string python =
      std::system("test -x /usr/bin/python3") == 0 ? "/usr/bin/python3" : "python3";
  if (std::system((python + " -c 'import numpy' >/dev/null 2>&1").c_str()) != 0)
    GTEST_SKIP() << "python3 with numpy is not installed: the .npy header is checked by "
                    "Golden.GeluOutputsAreTheOraclesBits only";
  const json req = gelu_request(write_values("dy", DType::kFloat16, kDy),
                                write_values("x", DType::kFloat16, kX), DType::kFloat16);
  run_golden(req, (dir_ / "out").string());
  const std::string cmd = python +
                          " -c \"import numpy as n,sys; a=n.load(sys.argv[1]); "
                          "b=n.fromfile(sys.argv[2], dtype='<f2').reshape(2,3); "
                          "sys.exit(0 if a.dtype==n.float16 and a.shape==(2,3) and "
                          "(a.view('<u2')==b.view('<u2')).all() else 1)\" " +
                          (dir_ / "out" / "gradInput.npy").string() + " " +
                          (dir_ / "out" / "gradInput.bin").string();
  EXPECT_EQ(std::system(cmd.c_str()), 0);
}

TEST_F(Golden, StridedInputsGiveTheSameValues) {
  // self as the transpose view [2,3] with strides [1,2]: the .bin still holds the view's
  // elements in row-major order, so the outputs equal the contiguous request's.
  json req = gelu_request(write_values("dy", DType::kFloat32, kDy),
                          write_values("x", DType::kFloat32, kX));
  const json plain = run_golden(req, (dir_ / "plain").string());
  req["tensors"][1]["strides"] = {1, 2};
  req["tensors"][1]["offset"] = 3;
  const json strided = run_golden(req, (dir_ / "strided").string());
  EXPECT_EQ(strided["status"], 0);
  EXPECT_EQ(file_bytes(dir_ / "plain" / "gradInput.bin"),
            file_bytes(dir_ / "strided" / "gradInput.bin"));
  EXPECT_NE(strided["case"].get<std::string>().find("strides [1,2] offset 3"), std::string::npos)
      << strided["case"];
}

TEST_F(Golden, Bf16IsWrittenAsRawBitsAndSaysSo) {
  json req = gelu_request(write_values("dy", DType::kBFloat16, kDy),
                          write_values("x", DType::kBFloat16, kX), DType::kBFloat16);
  req["base_dir"] = (dir_ / "in").string();
  req["tensors"][0]["file"] = "dy.bin";  // relative to base_dir
  req["tensors"][1]["file"] = "x.bin";
  const json out = run_golden(req, (dir_ / "out").string());
  ASSERT_EQ(out["outputs"].size(), 1u);
  EXPECT_EQ(out["outputs"][0]["npy_descr"], "<u2");
  EXPECT_NE(out["outputs"][0].value("note", "").find("raw bits"), std::string::npos);
  const auto npy = file_bytes(dir_ / "out" / "gradInput.npy");
  const std::string dict(reinterpret_cast<const char *>(npy.data()) + 10, 64 - 10);
  EXPECT_NE(dict.find("'descr': '<u2'"), std::string::npos) << dict;
}

TEST_F(Golden, InvalidCallReportsItsClauseAndWritesNoOutputs) {
  json req = gelu_request(write_values("dy", DType::kFloat32, kDy),
                          write_values("x", DType::kFloat32, kX));
  req["tensors"][2]["shape"] = {3, 2};
  const json out = run_golden(req, (dir_ / "out").string());
  EXPECT_EQ(out["status"], 161002);
  EXPECT_EQ(out["clause"], "GELU-BCAST-2");
  EXPECT_TRUE(out["outputs"].empty());
  EXPECT_FALSE(fs::exists(dir_ / "out" / "gradInput.bin"));
  EXPECT_TRUE(fs::exists(dir_ / "out" / "golden.json"));
  // A NULL argument: GELU-NULL-1.
  req["tensors"][1] = {{"name", "self"}, {"null", true}};
  EXPECT_EQ(run_golden(req, (dir_ / "out2").string())["clause"], "GELU-NULL-1");
}

TEST_F(Golden, MalformedRequestsAreExplained) {
  const std::string dy = write_values("dy", DType::kFloat32, kDy);
  const std::string x = write_values("x", DType::kFloat32, kX);
  auto message = [&](const json &req) {
    try {
      run_golden(req, (dir_ / "out").string());
    } catch (const std::exception &e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  json req = gelu_request(dy, x);
  req["op"] = "NoSuchOp";
  EXPECT_NE(message(req).find("unknown op NoSuchOp"), std::string::npos) << message(req);
  req = gelu_request(dy, x);
  req["tensors"][0]["shape"] = {2, 4};  // the file holds 6 elements, not 8
  EXPECT_NE(message(req).find("holds 24 bytes, expected 32"), std::string::npos) << message(req);
  req = gelu_request(dy, x);
  req["tensors"].erase(1);
  EXPECT_NE(message(req).find("tensor self is missing"), std::string::npos) << message(req);
  req = gelu_request(dy, x);
  req["tensors"][1]["file"] = (dir_ / "nope.bin").string();
  EXPECT_NE(message(req).find("cannot read"), std::string::npos) << message(req);
  req = gelu_request(dy, x);
  req["attrs"] = {{"eps", 1e-5}};
  EXPECT_NE(message(req).find("has no attribute \"eps\""), std::string::npos) << message(req);
  req = gelu_request(dy, x);
  req["tensors"][1]["strides"] = {0, 1};  // rows alias, but the file's rows differ
  EXPECT_NE(message(req).find("share a storage element but differ"), std::string::npos)
      << message(req);
}

// Every refusal names the request file (when given) and the problem; JSON of the wrong type is a
// refusal too, never nlohmann's own exception (the CLI would call that an internal error).
TEST_F(Golden, MalformedRequestsNameTheFileAndTheField) {
  const std::string dy = write_values("dy", DType::kFloat32, kDy);
  const std::string x = write_values("x", DType::kFloat32, kX);
  auto message = [&](const json &req) {
    try {
      golden_case(req, "req.json");
    } catch (const std::runtime_error &e) {
      return std::string(e.what());
    } catch (const std::exception &e) {
      return "wrong exception type: " + std::string(e.what());
    }
    return std::string("no error");
  };
  auto expect = [&](const json &req, const std::string &problem) {
    const std::string m = message(req);
    EXPECT_EQ(m.rfind("golden request req.json: ", 0), 0u) << m;
    EXPECT_NE(m.find(problem), std::string::npos) << m;
  };
  json req = gelu_request(dy, x);
  req["op"] = 7;
  expect(req, "no \"op\"");
  req = gelu_request(dy, x);
  req["product"] = 1;
  expect(req, "\"product\" must be a string");
  req = gelu_request(dy, x);
  req["variants"] = {"tanh-approx", 2};
  expect(req, "\"variants\" must be an array of strings");
  req = gelu_request(dy, x);
  req["base_dir"] = json::array();
  expect(req, "\"base_dir\" must be a string");
  req = gelu_request(dy, x);
  req["tensors"][0] = 3;
  expect(req, "every entry of \"tensors\" must be an object");
  req = gelu_request(dy, x);
  req["tensors"][0].erase("name");
  expect(req, "a tensor without \"name\"");
  req = gelu_request(dy, x);
  req["tensors"][0]["name"] = 5;
  expect(req, "\"name\" must be a string");
  req = gelu_request(dy, x);
  req["tensors"][0]["null"] = "yes";
  expect(req, "tensor gradOutput: \"null\" must be true or false");
  req = gelu_request(dy, x);
  req["tensors"][0]["dtype"] = 0;
  expect(req, "tensor gradOutput: \"dtype\" must be a string");
  req = gelu_request(dy, x);
  req["tensors"][0]["file"] = 0;
  expect(req, "tensor gradOutput: \"file\" must be a string");
  req = gelu_request(dy, x);
  req["tensors"][0]["offset"] = 1.5;
  expect(req, "tensor gradOutput: \"offset\" must be an integer");
  req = gelu_request(dy, x);
  req["tensors"][0]["shape"] = {2, 3.5};
  expect(req, "tensor gradOutput: \"shape\" must be an array of integers");
  req = gelu_request(dy, x);
  req["tensors"][0]["shape"] = {2, json(UINT64_MAX)};
  expect(req, "tensor gradOutput: \"shape\" must be an array of integers");
  req = gelu_request(dy, x);
  req["tensors"].push_back(req["tensors"][0]);
  expect(req, "tensor gradOutput is given twice");
  req = gelu_request(dy, x);
  req["tensors"][1]["file"] = "in/dy.bin";  // relative to base_dir
  req["base_dir"] = dir_.string();
  EXPECT_EQ(message(req), "no error");
  req["tensors"][1]["file"] = "in";  // a folder
  expect(req, "tensor self: " + (dir_ / "in").string() + " is not a regular file");
  req = gelu_request(dy, x);
  req["attrs"] = {{"bogus", 1}};
  expect(req, "GeluBackward has no attribute \"bogus\"");
}

// Sizes are checked before anything is allocated: an output (which needs no file) of 2^40
// elements, a stride that spans 2^62 elements, a shape whose element count overflows int64.
TEST_F(Golden, HugeTensorsAreRefusedBeforeAllocation) {
  const std::string dy = write_values("dy", DType::kFloat32, kDy);
  const std::string x = write_values("x", DType::kFloat32, kX);
  auto expect_too_large = [&](const json &req) {
    try {
      golden_case(req, "req.json");
      ADD_FAILURE() << "accepted";
    } catch (const std::runtime_error &e) {
      EXPECT_NE(std::string(e.what()).find("tensor gradInput: the view or the storage it spans "
                                           "exceeds 1073741824 bytes"),
                std::string::npos)
          << e.what();
    }
  };
  json req = gelu_request(dy, x);
  req["tensors"][2]["shape"] = {int64_t{1} << 20, int64_t{1} << 20};
  expect_too_large(req);
  req["tensors"][2]["shape"] = {int64_t{1} << 40, int64_t{1} << 40, 0};  // empty, but
  req["tensors"][2]["offset"] = int64_t{1} << 62;                        // far out
  req["tensors"][2]["strides"] = {1, 1, 1};
  expect_too_large(req);
  req = gelu_request(dy, x);
  req["tensors"][2]["strides"] = {int64_t{1} << 62, 1};
  expect_too_large(req);
  req = gelu_request(dy, x);
  req["tensors"][2]["shape"] = {int64_t{1} << 32, int64_t{1} << 32, 4};
  req["tensors"][2]["strides"] = {0, 0, 0};  // one storage element, 2^66 view elements
  expect_too_large(req);
  // The bound is a parameter: the same request parses under a larger one it fits.
  req = gelu_request(dy, x);
  EXPECT_NO_THROW(parse_golden_request(req, "req.json", 24));
  EXPECT_THROW(parse_golden_request(req, "req.json", 23), std::runtime_error);
}

TEST_F(Golden, AttributesOfOtherOps) {
  // LogitGrad's eps: a number (or hex-float text) of the signature's kind.
  const std::string x = write_values("x", DType::kFloat32, {0.25, 0.5, 0.75, 1.5});
  const std::string dy = write_values("dy", DType::kFloat32, {1.0, 1.0, 2.0, 1.0});
  json req{{"op", "LogitGrad"},
           {"attrs", {{"eps", "-0x1p+0"}}},
           {"tensors",
            {{{"name", "x"}, {"dtype", "fp32"}, {"shape", {4}}, {"file", x}},
             {{"name", "dy"}, {"dtype", "fp32"}, {"shape", {4}}, {"file", dy}},
             {{"name", "out"}, {"dtype", "fp32"}, {"shape", {4}}}}}};
  const Case c = golden_case(req);
  ASSERT_EQ(c.attrs.size(), 1u);
  EXPECT_EQ(std::get<double>(c.attrs[0].second), -1.0);
  const json out = run_golden(req, (dir_ / "out").string());
  EXPECT_EQ(out["status"], 0) << out.dump();
  // The oracle's outputs again, through the descriptor.
  const auto values = find_op("LogitGrad")->values(c, {});
  ASSERT_EQ(values.size(), 1u);
  EXPECT_EQ(file_bytes(dir_ / "out" / "out.bin"), values[0].values.bytes);
  req["attrs"] = {{"eps", "x"}};
  EXPECT_THROW(golden_case(req), std::runtime_error);
  req["attrs"] = json::object();
  EXPECT_THROW(golden_case(req), std::runtime_error);
}

TEST(Npy, HeadersForEveryRankAndDtype) {
  EXPECT_NE(npy_header(DType::kFloat32, {}).find("'shape': (), }"), std::string::npos);
  EXPECT_NE(npy_header(DType::kFloat32, {5}).find("'shape': (5,), }"), std::string::npos);
  EXPECT_NE(npy_header(DType::kInt8, {1, 2, 3}).find("'descr': '|i1'"), std::string::npos);
  EXPECT_NE(npy_header(DType::kInt32, {0}).find("'descr': '<i4'"), std::string::npos);
  EXPECT_NE(npy_header(DType::kBool, {2}).find("'descr': '|b1'"), std::string::npos);
  EXPECT_NE(npy_header(DType::kFloat16, {2}).find("'descr': '<f2'"), std::string::npos);
  for (size_t rank = 0; rank <= 8; ++rank) {
    const std::string h = npy_header(DType::kFloat64, std::vector<int64_t>(rank, 123456789));
    EXPECT_EQ(h.size() % 64, 0u) << rank;
    EXPECT_EQ(h.back(), '\n');
  }
  EXPECT_THROW(write_npy("/nonexistent-dir/x.npy", DType::kFloat32, {2}, std::vector<std::byte>(4)),
               std::runtime_error);  // 4 bytes for 2 elements
}

}  // namespace
