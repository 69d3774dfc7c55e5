// The identity of a SUT file: its canonical path, SONAME, size and SHA-256, so that a report, a
// corpus entry or a repro names exactly the build it is about.
#include <elf.h>
#include <openssl/evp.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <cstdlib>
#include <stdexcept>

#include "campaign/result.hpp"
#include "campaign/worker.hpp"
#include "properties/sut.hpp"

namespace aclnn_conform {
namespace {

std::string sha256_hex(const std::string &bytes) {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1 ||
      EVP_DigestUpdate(ctx.get(), bytes.data(), bytes.size()) != 1 ||
      EVP_DigestFinal_ex(ctx.get(), digest, &length) != 1)
    throw std::runtime_error("SHA-256 failed (OpenSSL EVP)");
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned int i = 0; i < length; ++i) {
    hex += kHex[digest[i] >> 4];
    hex += kHex[digest[i] & 15];
  }
  return hex;
}

// Copies a T from bytes[offset], or returns false if it does not fit.
template <typename T>
bool read_at(const std::string &bytes, uint64_t offset, T &out) {
  if (offset > bytes.size() || bytes.size() - offset < sizeof(T)) return false;
  std::memcpy(&out, bytes.data() + offset, sizeof(T));
  return true;
}

// DT_SONAME of the dynamic section (found through the section headers), "" if there is none or
// the file is not an ELF file of this byte order. Every offset is bounds-checked.
template <typename Ehdr, typename Shdr, typename Dyn>
std::string soname_of(const std::string &bytes) {
  Ehdr eh;
  if (!read_at(bytes, 0, eh) || eh.e_shentsize != sizeof(Shdr)) return "";
  for (uint64_t i = 0; i < eh.e_shnum; ++i) {
    Shdr dyn;
    if (!read_at(bytes, eh.e_shoff + i * sizeof(Shdr), dyn)) return "";
    if (dyn.sh_type != SHT_DYNAMIC) continue;
    Shdr strtab;
    if (!read_at(bytes, eh.e_shoff + uint64_t{dyn.sh_link} * sizeof(Shdr), strtab)) return "";
    for (uint64_t k = 0; k * sizeof(Dyn) < dyn.sh_size; ++k) {
      Dyn d;
      if (!read_at(bytes, dyn.sh_offset + k * sizeof(Dyn), d) || d.d_tag == DT_NULL) break;
      if (d.d_tag != DT_SONAME) continue;
      const uint64_t at = strtab.sh_offset + d.d_un.d_val;
      if (d.d_un.d_val >= strtab.sh_size || at >= bytes.size()) return "";
      const size_t end = bytes.find('\0', at);
      return bytes.substr(at, end == std::string::npos ? std::string::npos : end - at);
    }
  }
  return "";
}

std::string elf_soname(const std::string &bytes) {
  if (bytes.size() < EI_NIDENT || std::memcmp(bytes.data(), ELFMAG, SELFMAG) != 0) return "";
  if (bytes[EI_CLASS] == ELFCLASS64) return soname_of<Elf64_Ehdr, Elf64_Shdr, Elf64_Dyn>(bytes);
  if (bytes[EI_CLASS] == ELFCLASS32) return soname_of<Elf32_Ehdr, Elf32_Shdr, Elf32_Dyn>(bytes);
  return "";
}

}  // namespace

SutIdentity identify_sut(const std::string &path) {
  namespace fs = std::filesystem;
  const std::string file = path == "builtin" ? Sut::builtin_path() : path;
  std::error_code ec;
  const fs::path canonical = fs::canonical(file, ec);
  if (ec) throw std::runtime_error("cannot identify the SUT " + file + ": " + ec.message());
  std::ifstream in(canonical, std::ios::binary);
  const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (!in && !in.eof()) throw std::runtime_error("cannot read the SUT " + canonical.string());
  SutIdentity id;
  id.path = canonical.string();
  id.size = static_cast<int64_t>(bytes.size());
  id.sha256 = sha256_hex(bytes);
  id.soname = elf_soname(bytes);
  return id;
}

}  // namespace aclnn_conform

namespace aclnn_conform {

bool is_python_sut(const std::string &spec) {
  return spec.rfind("python:", 0) == 0;
}

const std::vector<std::string> &python_sut_not_applicable() {
  // The adapter (python/sut/) answers these itself: the host runtime (aclrt*), aclCreateTensor,
  // the dtype enum's mapping, formats, executors and both phases' protocol. The module sees only
  // arrays, None for NULL tensors, attributes and the outputs it fills.
  static const std::vector<std::string> clauses = {
      "ABI-TWOPHASE-1", "ABI-TWOPHASE-2", "ABI-TWOPHASE-3", "ABI-TWOPHASE-4",
      "ABI-TENSOR-1",   "ABI-FORMAT-1",   "ABI-DTYPE-1",    "ABI-RUNTIME-1"};
  return clauses;
}

namespace {

// The adapter of python: SUTs: ACLNN_PYTHON_SUT_ADAPTER, else beside the worker (installed: both
// in <prefix>/libexec/aclnn-conform), else the build tree's (cli/ and python/ side by side).
std::string python_sut_adapter() {
  namespace fs = std::filesystem;
  if (const char *env = std::getenv("ACLNN_PYTHON_SUT_ADAPTER"); env && *env) return env;
  constexpr const char *kName = "libaclnn_python_sut.so";
  std::string looked;
  const fs::path worker = fs::path(worker_executable()).parent_path();
  for (const fs::path &p : {worker / kName, worker.parent_path() / "python" / kName}) {
    std::error_code ec;
    if (fs::is_regular_file(p, ec)) return p.string();
    looked += (looked.empty() ? "" : ", ") + p.string();
  }
  throw std::runtime_error("--sut python:...: cannot find " + std::string(kName) + " (looked in " +
                           looked + "; ACLNN_PYTHON_SUT_ADAPTER names it; is the build configured "
                           "with ACLNN_BUILD_PYTHON=ON?)");
}

}  // namespace

std::vector<std::string> sut_files(const std::string &spec) {
  namespace fs = std::filesystem;
  if (spec == "builtin") return {Sut::builtin_path()};
  if (is_python_sut(spec)) {
    // MODULE: a module name on the embedded interpreter's path, or a .py file (made absolute).
    std::string module = spec.substr(7);
    if (module.empty())
      throw std::runtime_error("--sut python:MODULE: no module named (e.g. python:my_ops)");
    if (module.size() > 3 && module.compare(module.size() - 3, 3, ".py") == 0) {
      std::error_code ec;
      if (!fs::is_regular_file(module, ec))
        throw std::runtime_error("--sut " + spec + ": " + module + " is not a file");
      module = fs::absolute(module).string();
    }
    const std::string adapter = python_sut_adapter();
    // The workers inherit it (they are exec'd from this process).
    setenv("ACLNN_PYTHON_SUT_MODULE", module.c_str(), 1);
    std::error_code ec;
    setenv("ACLNN_PYTHON_SUT_CWD", fs::current_path(ec).c_str(), 1);
    return {adapter};
  }
  std::vector<std::string> files;
  if (spec == "cann") {
    // The toolkit's own variable (set by its set_env.sh), and its library folder.
    const char *home = std::getenv("ASCEND_HOME_PATH");
    if (!home || !*home)
      throw std::runtime_error(
          "--sut cann: ASCEND_HOME_PATH is not set (source the toolkit's set_env.sh, e.g. "
          "/usr/local/Ascend/ascend-toolkit/set_env.sh)");
    for (const char *name : {"libascendcl.so", "libnnopbase.so", "libopapi.so"}) {
      const fs::path p = fs::path(home) / "lib64" / name;
      if (!fs::exists(p))
        throw std::runtime_error("--sut cann: " + p.string() +
                                 " does not exist (ASCEND_HOME_PATH=" + home + ")");
      files.push_back(p.string());
    }
    return files;
  }
  size_t start = 0;
  while (true) {
    const size_t colon = spec.find(':', start);
    const std::string file = spec.substr(start, colon == std::string::npos ? colon : colon - start);
    if (file.empty())
      throw std::runtime_error("--sut '" + spec + "': an empty library path (paths are joined "
                               "by ':', in load order)");
    files.push_back(file);
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  return files;
}

}  // namespace aclnn_conform
