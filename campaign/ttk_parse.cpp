// import-ttk's reading (campaign/ttk_import.hpp): the Python literals the kit's CSV cells hold
// (None, booleans, numbers, strings, tuples, lists, dicts), RFC 4180 CSV records with the line
// each starts on, and a row's cells as text (campaign/ttk_detail.hpp).
#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "campaign/ttk_detail.hpp"
#include "campaign/ttk_import.hpp"

namespace aclnn_conform {

// ---------------------------------------------------------------------------------------------
// Python literals

double PyValue::number() const {
  switch (kind) {
    case Kind::kInt:
      return static_cast<double>(i);
    case Kind::kFloat:
      return f;
    case Kind::kBool:
      return b ? 1 : 0;
    default:
      throw std::invalid_argument("not a number");
  }
}

namespace {

class PyParser {
 public:
  explicit PyParser(std::string_view t) : t_(t) {}

  PyValue parse() {
    PyValue v = value();
    skip_ws();
    if (p_ != t_.size()) fail("unexpected text after the value");
    return v;
  }

 private:
  std::string_view t_;
  size_t p_ = 0;

  [[noreturn]] void fail(const std::string &what) const {
    throw std::invalid_argument(
        fmt::format("not a Python literal at character {} of \"{}\": {}", p_ + 1, t_, what));
  }
  void skip_ws() {
    while (p_ < t_.size() && std::isspace(static_cast<unsigned char>(t_[p_]))) ++p_;
  }
  bool eat(char c) {
    skip_ws();
    if (p_ < t_.size() && t_[p_] == c) {
      ++p_;
      return true;
    }
    return false;
  }

  PyValue value() {
    skip_ws();
    if (p_ >= t_.size()) fail("the value is missing");
    const char c = t_[p_];
    if (c == '(' || c == '[') return sequence(c == '(' ? ')' : ']');
    if (c == '{') return dict();
    if (c == '\'' || c == '"') return string();
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '+' || c == '.')
      return number();
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') return name();
    fail(fmt::format("unexpected '{}'", c));
  }

  PyValue sequence(char close) {
    ++p_;
    PyValue v;
    v.kind = PyValue::Kind::kList;
    if (eat(close)) return v;
    for (;;) {
      v.items.push_back(value());
      if (eat(close)) return v;
      if (!eat(',')) fail(fmt::format("expected ',' or '{}'", close));
      if (eat(close)) return v;  // a trailing comma: (1,)
    }
  }

  PyValue dict() {
    ++p_;
    PyValue v;
    v.kind = PyValue::Kind::kDict;
    if (eat('}')) return v;
    for (;;) {
      PyValue k = value();
      if (!eat(':')) fail("expected ':' in a dict");
      PyValue x = value();
      v.entries.emplace_back(std::move(k), std::move(x));
      if (eat('}')) return v;
      if (!eat(',')) fail("expected ',' or '}'");
      if (eat('}')) return v;
    }
  }

  PyValue string() {
    const char q = t_[p_++];
    PyValue v;
    v.kind = PyValue::Kind::kString;
    while (p_ < t_.size() && t_[p_] != q) {
      if (t_[p_] == '\\' && p_ + 1 < t_.size()) ++p_;
      v.s += t_[p_++];
    }
    if (p_ >= t_.size()) fail("unterminated string");
    ++p_;
    return v;
  }

  PyValue number() {
    const size_t start = p_;
    bool sign = false;
    if (t_[p_] == '-' || t_[p_] == '+') {
      sign = t_[p_] == '-';
      ++p_;
      skip_ws();
      // -inf, -nan
      if (p_ < t_.size() && std::isalpha(static_cast<unsigned char>(t_[p_]))) {
        PyValue n = name();
        if (n.kind != PyValue::Kind::kFloat) fail("a sign before a name that is not a number");
        if (sign) n.f = -n.f;
        return n;
      }
    }
    const size_t digits = p_;
    bool is_float = false;
    while (p_ < t_.size()) {
      const char c = t_[p_];
      if (std::isdigit(static_cast<unsigned char>(c)) || c == '_') {
        ++p_;
      } else if (c == '.' || c == 'e' || c == 'E') {
        is_float = true;
        ++p_;
        if ((c == 'e' || c == 'E') && p_ < t_.size() && (t_[p_] == '-' || t_[p_] == '+')) ++p_;
      } else {
        break;
      }
    }
    std::string text(t_.substr(digits, p_ - digits));
    std::erase(text, '_');
    if (text.empty()) fail("a number was expected");
    PyValue v;
    errno = 0;
    char *end = nullptr;
    if (!is_float) {
      const long long x = std::strtoll(text.c_str(), &end, 10);
      if (errno == ERANGE || *end) {
        p_ = start;
        fail("an integer out of range");
      }
      v.kind = PyValue::Kind::kInt;
      v.i = sign ? -x : x;
      return v;
    }
    const double x = std::strtod(text.c_str(), &end);
    if (*end) {
      p_ = start;
      fail("a malformed number");
    }
    v.kind = PyValue::Kind::kFloat;
    v.f = sign ? -x : x;
    return v;
  }

  PyValue name() {
    const size_t start = p_;
    while (p_ < t_.size() &&
           (std::isalnum(static_cast<unsigned char>(t_[p_])) || t_[p_] == '_' || t_[p_] == '.'))
      ++p_;
    const std::string n(t_.substr(start, p_ - start));
    PyValue v;
    if (n == "None") return v;
    if (n == "True" || n == "False" || n == "TRUE" || n == "FALSE" || n == "true" || n == "false") {
      v.kind = PyValue::Kind::kBool;
      v.b = n[0] == 'T' || n[0] == 't';
      return v;
    }
    if (n == "inf" || n == "Infinity" || n == "math.inf" || n == "np.inf") {
      v.kind = PyValue::Kind::kFloat;
      v.f = INFINITY;
      return v;
    }
    if (n == "nan" || n == "NaN" || n == "math.nan" || n == "np.nan") {
      v.kind = PyValue::Kind::kFloat;
      v.f = NAN;
      return v;
    }
    if (n == "float" && eat('(')) {  // float('inf'), float("-inf"), float('nan')
      const PyValue s = value();
      if (!eat(')') || s.kind != PyValue::Kind::kString) fail("float(...) of a string expected");
      v.kind = PyValue::Kind::kFloat;
      v.f = std::strtod(s.s.c_str(), nullptr);
      return v;
    }
    p_ = start;
    fail("unknown name '" + n + "'");
  }
};

}  // namespace

PyValue parse_py_literal(std::string_view text) {
  return PyParser(text).parse();
}

// ---------------------------------------------------------------------------------------------
// CSV

std::vector<CsvRecord> parse_csv(std::string_view text) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // a UTF-8 byte order mark
  std::vector<CsvRecord> out;
  int line = 1;
  size_t p = 0;
  while (p < text.size()) {
    CsvRecord rec;
    rec.line = line;
    std::string cell;
    bool in_quotes = false, record_done = false, any = false;
    int quote_line = line;
    while (p < text.size() && !record_done) {
      const char c = text[p++];
      if (in_quotes) {
        if (c == '"') {
          if (p < text.size() && text[p] == '"') {
            cell += '"';
            ++p;
          } else {
            in_quotes = false;
          }
        } else {
          if (c == '\n') ++line;
          cell += c;
        }
        continue;
      }
      if (c == '"') {
        in_quotes = true;
        quote_line = line;
        any = true;
      } else if (c == ',') {
        rec.cells.push_back(std::move(cell));
        cell.clear();
        any = true;
      } else if (c == '\n' || c == '\r') {
        if (c == '\r' && p < text.size() && text[p] == '\n') ++p;
        ++line;
        record_done = true;
      } else {
        cell += c;
        any = true;
      }
    }
    if (in_quotes)
      throw std::invalid_argument(
          fmt::format("line {}: a quoted cell is never closed", quote_line));
    if (!any) continue;  // a blank line
    rec.cells.push_back(std::move(cell));
    const bool blank = std::all_of(rec.cells.begin(), rec.cells.end(), [](const std::string &s) {
      return std::all_of(s.begin(), s.end(),
                         [](char ch) { return std::isspace(static_cast<unsigned char>(ch)); });
    });
    if (!blank) out.push_back(std::move(rec));
  }
  return out;
}

namespace ttk_detail {

std::string trim(std::string s) {
  const auto ws = [](char c) { return std::isspace(static_cast<unsigned char>(c)); };
  while (!s.empty() && ws(s.back())) s.pop_back();
  size_t i = 0;
  while (i < s.size() && ws(s[i])) ++i;
  return s.substr(i);
}

std::string text_of(const std::map<std::string, std::string> &row, const std::string &name) {
  const auto it = row.find(name);
  return it == row.end() ? "" : trim(it->second);
}

}  // namespace ttk_detail

}  // namespace aclnn_conform
