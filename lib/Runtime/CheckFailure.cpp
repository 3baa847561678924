//===- CheckFailure.cpp - Failed checks of generated code
//------------------===//
//
// Part of dlbridge's runtime (libdlrt), a plain C ABI without MLIR.
//
//===----------------------------------------------------------------------===//
//
// Generated code checks relations between arguments (shapes that must fit
// together, allocation sizes) with `dlpack.assert`; a failing one calls
// dlrt_check_failed and returns early, and the entry point returns the
// status it recorded in the call's context.
//
//===----------------------------------------------------------------------===//

#include "CallState.h"

#include "dlbridge/Runtime/dlrt.h"

#include <cinttypes>
#include <cstdio>

namespace {

/// Appends to a fixed buffer, silently truncating.
struct MessageWriter {
  char text[DLRT_ERROR_CAPACITY];
  size_t length = 0;

  void append(char c) {
    if (length + 1 < sizeof(text))
      text[length++] = c;
  }
  void append(int64_t value) {
    char digits[24];
    std::snprintf(digits, sizeof(digits), "%" PRId64, value);
    for (const char *c = digits; *c; ++c)
      append(*c);
  }
  const char *finish() {
    text[length] = '\0';
    return text;
  }
};

/// The placeholder index at `*cursor` ("12}" ...), advancing past the `}`;
/// -1 (cursor unchanged) when it is not one.
int64_t parsePlaceholder(const char **cursor) {
  const char *c = *cursor;
  int64_t index = 0;
  if (*c < '0' || *c > '9')
    return -1;
  for (; *c >= '0' && *c <= '9'; ++c)
    if ((index = index * 10 + (*c - '0')) > INT32_MAX)
      return -1;
  if (*c != '}')
    return -1;
  *cursor = c + 1;
  return index;
}

} // namespace

extern "C" {

void dlrt_check_failed(int32_t status, const char *format, int32_t count,
                       const int64_t *values) {
  MessageWriter message;
  for (const char *c = format ? format : ""; *c;) {
    if ((c[0] == '{' && c[1] == '{') || (c[0] == '}' && c[1] == '}')) {
      message.append(*c);
      c += 2;
      continue;
    }
    if (*c == '{') {
      const char *next = c + 1;
      int64_t index = parsePlaceholder(&next);
      if (index >= 0 && index < count && values) {
        message.append(values[index]);
        c = next;
        continue;
      }
    }
    message.append(*c++);
  }
  // A failed device allocation (a NULL buffer the check saw) has its cause
  // waiting in the mgpu* layer: it is the failure to report.
  dlrt_call_ctx *call = dlrt_internal_current_call();
  dlrt_internal_take_device_error(call);
  dlrt_set_error(call, status == DLRT_OK ? DLRT_ERR_SHAPE_MISMATCH : status,
                 "%s", message.finish());
}

int32_t dlrt_call_status(void) {
  dlrt_call_ctx *call = dlrt_internal_current_call();
  return call ? call->status : DLRT_OK;
}

} // extern "C"
