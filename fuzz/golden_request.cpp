// Fuzz target: a `golden` request as users hand it to the CLI, with its .bin inputs:
// parse_golden_request (campaign/golden_request.cpp). The bytes up to the first kSeparator are the
// request file; what follows, split at further separators, are the files a.bin, b.bin and c.bin in
// a private temporary folder, which is the request's base_dir (unless the request sets a base_dir
// that is not a string), so read_bin reads real files. A refusal must name the request file and say
// what is wrong; an accepted request must be safe to use: every tensor's storage exactly what its
// view spans, every element of the view inside it, a tensor read from a file holding the file's
// elements in row-major order, and every attribute either converted or refused by name.
// Not covered: binding to an op and the oracle (they need the op registry and MPFR, which this
// configuration does not build; tests/campaign/test_golden.cpp covers them).
#include "campaign/golden_request.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>

namespace {
namespace fs = std::filesystem;
using namespace aclnn_conform;

constexpr const char *kSource = "fuzz-request.json";
// Between the request and each file (a raw newline cannot occur inside a JSON string). Found with
// memmem, which libFuzzer intercepts, so mutations learn it.
constexpr std::string_view kSeparator = "\n#bin#\n";

size_t find_separator(std::string_view s) {
  if (s.size() < kSeparator.size()) return std::string_view::npos;  // s.data() may be NULL
  const void *p = ::memmem(s.data(), s.size(), kSeparator.data(), kSeparator.size());
  return p ? static_cast<size_t>(static_cast<const char *>(p) - s.data()) : std::string_view::npos;
}

std::string_view after_separator(std::string_view s, size_t cut) {
  return cut == std::string_view::npos ? std::string_view() : s.substr(cut + kSeparator.size());
}
// Keeps each input fast and small; the rules checked are the same as under the CLI's 1 GiB.
constexpr int64_t kMaxStorageBytes = int64_t{1} << 20;

void require(bool ok, const char *what, const std::string &detail = "") {
  if (ok) return;
  std::fprintf(stderr, "golden_request finding: %s %s\n", what, detail.c_str());
  std::abort();
}

void require_names_source(const std::exception &e) {
  const std::string m = e.what();
  require(m.rfind(std::string("golden request ") + kSource + ": ", 0) == 0 &&
              m.size() > std::strlen(kSource) + 17,
          "a refusal that does not name the request file and the problem:", m);
}

// tmpfs when there is one: rewriting a file on ext4 flushes it to disk at close (a few ms).
fs::path scratch_dir() {
  std::error_code ec;
  return fs::is_directory("/dev/shm", ec) ? fs::path("/dev/shm") : fs::temp_directory_path();
}

fs::path work_dir_name() {
  return scratch_dir() / ("aclnn_fuzz_golden_" + std::to_string(::getpid()));
}

const fs::path &work_dir() {
  static const fs::path dir = [] {
    fs::create_directories(work_dir_name());
    std::atexit([] {  // the name again: `dir` is destroyed before this runs
      std::error_code ec;
      fs::remove_all(work_dir_name(), ec);
    });
    return work_dir_name();
  }();
  return dir;
}

void write_file(const fs::path &p, std::string_view bytes) {
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string_view all(reinterpret_cast<const char *>(data), size);
  size_t cut = find_separator(all);
  auto j = nlohmann::json::parse(all.substr(0, cut), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return 0;
  std::string_view rest = after_separator(all, cut);
  for (const char *name : {"a.bin", "b.bin", "c.bin"}) {
    cut = find_separator(rest);
    write_file(work_dir() / name, rest.substr(0, cut));
    rest = after_separator(rest, cut);
  }
  if (j.is_object() && (!j.contains("base_dir") || j["base_dir"].is_string()))
    j["base_dir"] = work_dir().string();

  GoldenRequest r;
  try {
    r = parse_golden_request(j, kSource, kMaxStorageBytes);
  } catch (const std::runtime_error &e) {
    require_names_source(e);
    return 0;
  }
  for (const auto &t : r.tensors) {
    if (!t.arg.present) continue;
    const auto &a = t.arg;
    const auto esize = static_cast<int64_t>(aclnn_ref::dtype_size(a.dtype));
    require(a.shape.size() == a.strides.size(), "rank mismatch accepted", t.name);
    require(static_cast<int64_t>(a.storage.size()) <= kMaxStorageBytes, "storage over the bound");
    const int64_t n = a.numel();
    require(n * esize <= kMaxStorageBytes, "view over the bound", t.name);
    // The storage is what the view spans: its last element is the view's last.
    int64_t last = a.offset;
    if (n > 0)
      for (size_t d = 0; d < a.shape.size(); ++d) last += (a.shape[d] - 1) * a.strides[d];
    require(static_cast<int64_t>(a.storage.size()) == (n > 0 ? last + 1 : a.offset) * esize,
            "storage size is not the view's span", t.name);
    std::string file;
    if (t.has_file) {
      std::ifstream f(
          work_dir() / j["tensors"].at(&t - r.tensors.data())["file"].get<std::string>(),
          std::ios::binary);
      file.assign(std::istreambuf_iterator<char>(f), {});
      require(static_cast<int64_t>(file.size()) == n * esize, "file size not checked", t.name);
    }
    const auto v = a.view();
    double sink = 0;
    for (int64_t i = 0; i < n && i < (1 << 16); ++i) {
      sink += v.at(i);  // ASan: inside the storage
      if (t.has_file) {
        uint64_t want = 0;
        std::memcpy(&want, file.data() + i * esize, static_cast<size_t>(esize));
        require(a.bits_at(i) == want, "an element is not the file's", t.name);
      }
    }
    volatile double keep = sink;
    (void)keep;
    const std::string h = npy_header(a.dtype, a.shape);
    require(h.size() % 64 == 0 && h.rfind("\x93NUMPY", 0) == 0, "bad .npy header");
  }
  // Each attribute against each kind the ops use.
  const AttrValue kinds[] = {std::monostate{}, 0.0, int64_t{0}, std::vector<int64_t>{},
                             std::vector<bool>{}};
  for (const auto &[name, value] : r.attrs.items())
    for (const auto &like : kinds) {
      try {
        const AttrValue got = golden_attr_from_json(kSource, name, value, like);
        require(got.index() == like.index() || (value.is_null() && got.index() == 0),
                "an attribute of another kind", name);
      } catch (const std::runtime_error &e) {
        require_names_source(e);
        require(std::string(e.what()).find("attribute " + name) != std::string::npos,
                "an attribute refusal that does not name it", e.what());
      }
    }
  return 0;
}
