//===- NpyHeaderDict.cpp - The dictionary of a .npy header ----------------===//
//
// Part of dlbridge. NumPy reads the header with ast.literal_eval; this is
// the part of Python's literal grammar a header can use, evaluated to the
// values NumPy then checks. Its differential test against NumPy itself is
// test/Tools/dl-run/npy-differential.mlir.
//
//===----------------------------------------------------------------------===//

#include "NpyHeaderDict.h"

#include <cstring>
#include <utility>
#include <vector>

using namespace dlbridge::npy;

namespace {

/// The values a header's literals evaluate to.
struct Literal {
  enum Kind { Int, Bool, Str, Bytes, Tuple, List, Dict } kind = Int;
  int64_t integer = 0;
  /// An int beyond int64 (Python's are unbounded).
  bool huge = false;
  bool truth = false;
  std::string text;
  std::vector<Literal> items;
  std::vector<std::pair<std::string, Literal>> entries;
};

/// Python's tokenizer refuses deeper nesting of brackets.
constexpr int kMaxNesting = 200;

bool isDigit(char c) { return c >= '0' && c <= '9'; }

/// Whether `c` may continue a Python name (non-ASCII bytes may: they are
/// letters of an identifier or an error, never an operator).
bool isNameChar(char c) {
  return isDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         c == '_' || static_cast<unsigned char>(c) >= 0x80;
}

/// Strict UTF-8, as Python's decoder: no overlong forms, surrogates or
/// code points past U+10FFFF. Counts the code points into `chars`.
bool decodeUTF8(std::string_view text, size_t &chars) {
  chars = 0;
  for (size_t i = 0; i < text.size(); ++chars) {
    auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
    unsigned char lead = byte(i);
    size_t length;
    uint32_t point, minimum;
    if (lead < 0x80) {
      ++i;
      continue;
    }
    if ((lead & 0xe0) == 0xc0) {
      length = 2, point = lead & 0x1f, minimum = 0x80;
    } else if ((lead & 0xf0) == 0xe0) {
      length = 3, point = lead & 0x0f, minimum = 0x800;
    } else if ((lead & 0xf8) == 0xf0) {
      length = 4, point = lead & 0x07, minimum = 0x10000;
    } else {
      return false;
    }
    if (i + length > text.size())
      return false;
    for (size_t k = 1; k < length; ++k) {
      if ((byte(i + k) & 0xc0) != 0x80)
        return false;
      point = point << 6 | (byte(i + k) & 0x3f);
    }
    if (point < minimum || point > 0x10ffff ||
        (point >= 0xd800 && point <= 0xdfff))
      return false;
    i += length;
  }
  return true;
}

class Parser {
public:
  Parser(std::string_view text, int major)
      : p(text.data()), end(text.data() + text.size()), major(major) {}

  bool parse(NpyHeader &header, std::string &error);

private:
  bool fail(std::string &error, const std::string &what) {
    error = "bad header: " + what;
    return false;
  }
  char peek(size_t ahead = 0) const { return p + ahead < end ? p[ahead] : 0; }
  bool consume(char c) {
    if (p < end && *p == c) {
      ++p;
      return true;
    }
    return false;
  }
  bool consumeWord(const char *word) {
    size_t n = std::strlen(word);
    if (static_cast<size_t>(end - p) < n || std::strncmp(p, word, n) != 0 ||
        isNameChar(peek(n)))
      return false;
    p += n;
    return true;
  }

  /// Whitespace (form feeds included), comments and line continuations.
  void skipSpace() {
    while (p < end) {
      char c = *p;
      if (c == ' ' || c == '\t' || c == '\f' || c == '\n' || c == '\r') {
        ++p;
      } else if (c == '#') {
        while (p < end && *p != '\n' && *p != '\r')
          ++p;
      } else if (c == '\\' && (peek(1) == '\n' || peek(1) == '\r')) {
        p += peek(1) == '\r' && peek(2) == '\n' ? 3 : 2;
        // A continuation must continue something.
        danglingContinuation = p == end;
      } else {
        return;
      }
    }
  }

  /// Whether a string literal starts here: up to two prefix letters, then
  /// a quote.
  bool atString() const {
    size_t n = 0;
    while (n < 2 && std::strchr("rRuUbBfF", peek(n)) && peek(n))
      ++n;
    return peek(n) == '\'' || peek(n) == '"';
  }

  /// One or more adjacent string literals, concatenated.
  bool parseString(Literal &out, std::string &error) {
    bool first = true;
    do {
      std::string prefix;
      while (*p != '\'' && *p != '"')
        prefix += static_cast<char>(*p++ | 0x20);
      if (prefix.find('f') != std::string::npos)
        return fail(error, "f-strings are not literals");
      if (prefix != "" && prefix != "r" && prefix != "u" && prefix != "b" &&
          prefix != "br" && prefix != "rb")
        return fail(error, "invalid string prefix '" + prefix + "'");
      bool bytes = prefix.find('b') != std::string::npos;
      if (!first && bytes != (out.kind == Literal::Bytes))
        return fail(error, "cannot concatenate bytes and str");
      out.kind = bytes ? Literal::Bytes : Literal::Str;
      char quote = *p++;
      while (true) {
        if (p == end || *p == '\n' || *p == '\r')
          return fail(error, "unterminated string");
        if (*p == '\\')
          return fail(error, "escape sequences are not supported");
        if (*p == quote)
          break;
        out.text += *p++;
      }
      ++p;
      first = false;
      skipSpace();
    } while (atString());
    return true;
  }

  /// A decimal integer, as Python spells them: '_' between digits, no
  /// leading zeros but in zero itself; Python 2's 'L' after it in formats
  /// 1 and 2 (NumPy retries such headers with the 'L's removed).
  bool parseInt(Literal &out, std::string &error) {
    out.kind = Literal::Int;
    bool zero = *p == '0';
    __int128 value = 0;
    while (true) {
      if (isDigit(*p)) {
        if (zero && *p != '0')
          return fail(error, "leading zeros in a decimal integer");
        value = value * 10 + (*p - '0');
        if (value > INT64_MAX)
          out.huge = true, value = INT64_MAX;
        ++p;
      } else if (*p == '_' && p + 1 < end && isDigit(p[1])) {
        ++p;
      } else {
        break;
      }
      if (p == end)
        break;
    }
    out.integer = static_cast<int64_t>(value);
    if (major <= 2) {
      const char *before = p;
      skipSpace();
      if (!(peek() == 'L' && !isNameChar(peek(1))))
        p = before;
      else
        ++p;
    }
    if (isNameChar(peek()) || peek() == '.')
      return fail(error, "expected an integer");
    return true;
  }

  bool parseValue(Literal &out, std::string &error, int depth) {
    skipSpace();
    char c = peek();
    if (c == '{' && depth >= kMaxNesting)
      return fail(error, "too many nested brackets");
    if (c == '{')
      return parseDict(out, error, depth + 1);
    if ((c == '(' || c == '[') && depth >= kMaxNesting)
      return fail(error, "too many nested brackets");
    if (c == '(')
      return parseParenthesized(out, error, depth + 1);
    if (c == '[')
      return parseList(out, error, depth + 1);
    if (c == '+' || c == '-') {
      ++p;
      skipSpace();
      if (!isDigit(peek()))
        return fail(error,
                    "expected a number after '" + std::string(1, c) + "'");
      if (!parseInt(out, error))
        return false;
      out.integer = c == '-' ? -out.integer : out.integer;
      return true;
    }
    if (isDigit(c))
      return parseInt(out, error);
    if (atString())
      return parseString(out, error);
    bool truth = consumeWord("True");
    if (truth || consumeWord("False")) {
      out.kind = Literal::Bool;
      out.truth = truth;
      return true;
    }
    return fail(error, p == end ? "unexpected end"
                                : "unexpected '" + printable({p, 1}) + "'");
  }

  /// `()`, `(x)` (just x), `(x,)`, `(x, y)`, ...
  bool parseParenthesized(Literal &out, std::string &error, int depth) {
    ++p;
    skipSpace();
    out.kind = Literal::Tuple;
    if (consume(')'))
      return true;
    Literal first;
    if (!parseValue(first, error, depth))
      return false;
    skipSpace();
    if (consume(')')) {
      out = std::move(first);
      return true;
    }
    if (!consume(','))
      return fail(error, "expected ',' or ')'");
    out.items.push_back(std::move(first));
    return parseItemsUntil(')', out, error, depth);
  }

  /// `[]`, `[x]`, `[x, y,]`, ...
  bool parseList(Literal &out, std::string &error, int depth) {
    ++p;
    out.kind = Literal::List;
    return parseItemsUntil(']', out, error, depth);
  }

  /// Comma-separated values up to `close`, a trailing comma allowed.
  bool parseItemsUntil(char close, Literal &out, std::string &error,
                       int depth) {
    while (true) {
      skipSpace();
      if (consume(close))
        return true;
      Literal item;
      if (!parseValue(item, error, depth))
        return false;
      out.items.push_back(std::move(item));
      skipSpace();
      if (consume(close))
        return true;
      if (!consume(','))
        return fail(error, std::string("expected ',' or '") + close + "'");
    }
  }

  /// A dict of string keys (other keys cannot be NumPy's); a repeated key
  /// keeps its last value, as in Python.
  bool parseDict(Literal &out, std::string &error, int depth) {
    ++p;
    out.kind = Literal::Dict;
    while (true) {
      skipSpace();
      if (consume('}'))
        return true;
      if (!atString())
        return fail(error, "expected a quoted key");
      Literal key;
      if (!parseString(key, error))
        return false;
      if (key.kind == Literal::Bytes)
        return fail(error, "unexpected key b'" + printable(key.text) + "'");
      skipSpace();
      if (!consume(':'))
        return fail(error, "expected ':' after '" + printable(key.text) + "'");
      Literal value;
      if (!parseValue(value, error, depth))
        return false;
      auto it = out.entries.begin();
      while (it != out.entries.end() && it->first != key.text)
        ++it;
      if (it == out.entries.end())
        out.entries.emplace_back(key.text, std::move(value));
      else
        it->second = std::move(value);
      skipSpace();
      if (consume(','))
        continue;
      if (consume('}'))
        return true;
      return fail(error, "expected ',' or '}'");
    }
  }

  const char *p;
  const char *end;
  int major;
  bool danglingContinuation = false;
};

bool Parser::parse(NpyHeader &header, std::string &error) {
  std::string_view text(p, end - p);
  size_t chars = text.size();
  if (major >= 3 && !decodeUTF8(text, chars))
    return fail(error, "not UTF-8, as format 3.0 requires");
  if (chars > kMaxHeaderChars)
    return fail(error, std::to_string(chars) + " characters long (more than " +
                           std::to_string(kMaxHeaderChars) +
                           ", NumPy's limit)");
  if (text.find('\0') != std::string_view::npos)
    return fail(error, "a NUL character");
  skipSpace();
  if (peek() != '{')
    return fail(error, "expected '{'");
  Literal dict;
  if (!parseValue(dict, error, 0))
    return false;
  skipSpace();
  if (p != end)
    return fail(error, "unexpected text after the dictionary");
  if (danglingContinuation)
    return fail(error, "a line continuation ends the header");

  const Literal *descr = nullptr, *order = nullptr, *shape = nullptr;
  for (const auto &[key, value] : dict.entries) {
    if (key == "descr")
      descr = &value;
    else if (key == "fortran_order")
      order = &value;
    else if (key == "shape")
      shape = &value;
    else
      return fail(error, "unexpected key '" + printable(key) + "'");
  }
  if (!descr)
    return fail(error, "missing key 'descr'");
  if (!order)
    return fail(error, "missing key 'fortran_order'");
  if (!shape)
    return fail(error, "missing key 'shape'");
  if (descr->kind == Literal::List)
    return fail(error, "unsupported descr: structured dtypes (a list) are "
                       "not supported");
  if (descr->kind == Literal::Tuple)
    return fail(error, "unsupported descr: subarray dtypes (a tuple) are not "
                       "supported");
  if (descr->kind != Literal::Str)
    return fail(error, "'descr' must be a string");
  header.descr = descr->text;
  if (order->kind != Literal::Bool)
    return fail(error, "'fortran_order' must be True or False");
  header.fortranOrder = order->truth;
  if (shape->kind != Literal::Tuple)
    return fail(error, "'shape' must be a tuple");
  if (shape->items.size() > kMaxDims)
    return fail(error, std::to_string(shape->items.size()) +
                           " dimensions (NumPy reads at most " +
                           std::to_string(kMaxDims) + ")");
  header.shape.clear();
  for (const Literal &dim : shape->items) {
    if (dim.kind == Literal::Int && dim.huge)
      return fail(error, "a dimension of 'shape' overflows int64");
    if (dim.kind != Literal::Int || dim.integer < 0)
      return fail(error, "'shape' must be a tuple of non-negative integers");
    header.shape.push_back(dim.integer);
  }
  return true;
}

} // namespace

std::string dlbridge::npy::printable(std::string_view text) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (char c : text) {
    auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte < 0x7f) {
      out += c;
    } else {
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 15];
    }
  }
  return out;
}

bool dlbridge::npy::parseHeaderDict(std::string_view text, int major,
                                    NpyHeader &header, std::string &error) {
  return Parser(text, major).parse(header, error);
}
