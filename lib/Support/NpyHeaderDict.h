//===- NpyHeaderDict.h - The dictionary of a .npy header --------*- C++ -*-===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#ifndef DLBRIDGE_LIB_SUPPORT_NPYHEADERDICT_H
#define DLBRIDGE_LIB_SUPPORT_NPYHEADERDICT_H

#include "dlbridge/Support/Npy.h"

#include <string>
#include <string_view>

namespace dlbridge::npy {

/// The longest header NumPy reads (np.load's default max_header_size), in
/// characters after decoding.
constexpr size_t kMaxHeaderChars = 10000;

/// The most dimensions a NumPy array has (NPY_MAXDIMS).
constexpr size_t kMaxDims = 64;

/// Reads the dictionary of a format `major`.0 header into `header`'s descr,
/// fortranOrder and shape, accepting exactly what NumPy accepts: it decodes
/// the header (latin-1, UTF-8 for format 3), evaluates it with
/// ast.literal_eval and checks the keys and value types. So ints may carry
/// a sign and '_' separators (and, in formats 1 and 2, Python 2's 'L'),
/// strings r/u/b prefixes and implicit concatenation, tuples extra
/// parentheses; whitespace includes form feeds, comments and line
/// continuations; a repeated key keeps its last value. Values of the wrong
/// kind (lists, bytes, bools for dims) and literals no header holds
/// (floats, None, ...) are errors, as they are for NumPy; so are more than
/// kMaxDims dimensions and more than kMaxHeaderChars characters. On
/// failure returns false with "bad header: ..." in `error`.
bool parseHeaderDict(std::string_view text, int major, NpyHeader &header,
                     std::string &error);

/// `text` for an error message: bytes other than printable ASCII as \xNN,
/// so a corrupt header never puts raw bytes into a terminal or a log.
std::string printable(std::string_view text);

} // namespace dlbridge::npy

#endif // DLBRIDGE_LIB_SUPPORT_NPYHEADERDICT_H
