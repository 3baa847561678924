//===- ContextTest.cpp - Call context, errors and status names
//-------------===//
//
// Part of dlbridge's runtime unit tests.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/Runtime/dlrt.h"

#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <string>
#include <thread>

namespace {

TEST(ContextTest, InitResetsEverythingButDeviceAndStream) {
  dlrt_call_ctx ctx;
  std::memset(&ctx, 0xAB, sizeof(ctx));
  int stream;
  dlrt_call_ctx_init(&ctx, DLDevice{kDLCUDA, 3}, &stream);
  EXPECT_EQ(ctx.device.device_type, kDLCUDA);
  EXPECT_EQ(ctx.device.device_id, 3);
  EXPECT_EQ(ctx.stream, &stream);
  EXPECT_EQ(ctx.arg_flags, nullptr);
  EXPECT_EQ(ctx.allocator, nullptr);
  EXPECT_EQ(ctx.status, DLRT_OK);
  EXPECT_STREQ(ctx.error, "");
  EXPECT_EQ(dlrt_status(&ctx), DLRT_OK);
}

TEST(ContextTest, KeepsOnlyTheFirstFailureOfACall) {
  dlrt_call_ctx ctx;
  dlrt_call_ctx_init(&ctx, DLDevice{kDLCPU, 0}, nullptr);
  EXPECT_EQ(dlrt_set_error(&ctx, DLRT_ERR_RANK, "first %d", 1), DLRT_ERR_RANK);
  EXPECT_EQ(dlrt_set_error(&ctx, DLRT_ERR_DTYPE, "second %d", 2),
            DLRT_ERR_DTYPE);
  EXPECT_EQ(dlrt_status(&ctx), DLRT_ERR_RANK);
  EXPECT_STREQ(ctx.error, "first 1");
  // The thread's last error is the failure the call reports.
  EXPECT_STREQ(dlrt_last_error(), "first 1");
}

TEST(ContextTest, SettingOkRecordsNothing) {
  dlrt_call_ctx ctx;
  dlrt_call_ctx_init(&ctx, DLDevice{kDLCPU, 0}, nullptr);
  EXPECT_EQ(dlrt_set_error(&ctx, DLRT_OK, "not an error"), DLRT_OK);
  EXPECT_EQ(dlrt_status(&ctx), DLRT_OK);
  EXPECT_STREQ(ctx.error, "");
  EXPECT_STRNE(dlrt_last_error(), "not an error");
}

TEST(ContextTest, WithoutContextOnlyTheLastErrorIsWritten) {
  EXPECT_EQ(dlrt_set_error(nullptr, DLRT_ERR_CUDA, "no ctx %s", "here"),
            DLRT_ERR_CUDA);
  EXPECT_STREQ(dlrt_last_error(), "no ctx here");
  EXPECT_EQ(dlrt_status(nullptr), DLRT_ERR_INVALID_ARGUMENT);
}

TEST(ContextTest, LongMessagesAreTruncatedAndTerminated) {
  dlrt_call_ctx ctx;
  dlrt_call_ctx_init(&ctx, DLDevice{kDLCPU, 0}, nullptr);
  std::string longText(2 * DLRT_ERROR_CAPACITY, 'x');
  dlrt_set_error(&ctx, DLRT_ERR_SHAPE, "%s", longText.c_str());
  EXPECT_EQ(std::strlen(ctx.error), size_t(DLRT_ERROR_CAPACITY - 1));
  EXPECT_EQ(std::strlen(dlrt_last_error()), size_t(DLRT_ERROR_CAPACITY - 1));
}

TEST(ContextTest, LastErrorIsPerThread) {
  dlrt_set_error(nullptr, DLRT_ERR_SHAPE, "main thread");
  std::string seenByFirst, seenBySecond, firstInitially;
  std::thread first([&] {
    firstInitially = dlrt_last_error();
    dlrt_set_error(nullptr, DLRT_ERR_RANK, "first thread");
    seenByFirst = dlrt_last_error();
  });
  std::thread second([&] {
    dlrt_call_ctx ctx;
    dlrt_call_ctx_init(&ctx, DLDevice{kDLCPU, 0}, nullptr);
    dlrt_set_error(&ctx, DLRT_ERR_DTYPE, "second thread");
    seenBySecond = dlrt_last_error();
  });
  first.join();
  second.join();
  EXPECT_EQ(firstInitially, "");
  EXPECT_EQ(seenByFirst, "first thread");
  EXPECT_EQ(seenBySecond, "second thread");
  EXPECT_STREQ(dlrt_last_error(), "main thread");
}

TEST(ContextTest, CallStreamIsTheStreamOfTheCallInProgress) {
  EXPECT_EQ(dlrt_call_stream(), nullptr);
  int stream, other;
  dlrt_call_ctx ctx, second;
  dlrt_call_ctx_init(&ctx, DLDevice{kDLCPU, 0}, &stream);
  dlrt_call_ctx_init(&second, DLDevice{kDLCPU, 0}, &other);
  dlrt_call_begin(&ctx);
  EXPECT_EQ(dlrt_call_stream(), &stream);
  void *seen = &seen;
  std::thread([&] { seen = dlrt_call_stream(); }).join();
  EXPECT_EQ(seen, nullptr) << "calls in progress are per thread";
  dlrt_call_end(&second); // not the call in progress: no effect
  EXPECT_EQ(dlrt_call_stream(), &stream);
  dlrt_call_begin(&second);
  EXPECT_EQ(dlrt_call_stream(), &other);
  dlrt_call_end(&second);
  EXPECT_EQ(dlrt_call_stream(), nullptr);
}

TEST(ContextTest, StatusNames) {
  EXPECT_STREQ(dlrt_status_name(DLRT_OK), "ok");
  EXPECT_STREQ(dlrt_status_name(DLRT_ERR_INVALID_ARGUMENT), "invalid argument");
  EXPECT_STREQ(dlrt_status_name(DLRT_ERR_RANK), "rank mismatch");
  EXPECT_STREQ(dlrt_status_name(DLRT_ERR_DTYPE), "dtype mismatch");
  EXPECT_STREQ(dlrt_status_name(DLRT_ERR_SHAPE), "shape mismatch");
  EXPECT_STREQ(dlrt_status_name(DLRT_ERR_LAYOUT), "unsupported layout");
  EXPECT_STREQ(dlrt_status_name(DLRT_ERR_DEVICE), "device mismatch");
  EXPECT_STREQ(dlrt_status_name(DLRT_ERR_ALIGNMENT), "misaligned byte_offset");
  EXPECT_STREQ(dlrt_status_name(DLRT_ERR_NULL_DATA), "null data");
  EXPECT_STREQ(dlrt_status_name(DLRT_ERR_OVERFLOW), "extent overflows int64");
  EXPECT_STREQ(dlrt_status_name(DLRT_ERR_READ_ONLY), "read-only tensor");
  EXPECT_STREQ(dlrt_status_name(DLRT_ERR_OUT_OF_MEMORY), "out of memory");
  EXPECT_STREQ(dlrt_status_name(DLRT_ERR_NO_CUDA_DRIVER), "no CUDA driver");
  EXPECT_STREQ(dlrt_status_name(DLRT_ERR_CUDA), "CUDA error");
  EXPECT_STREQ(dlrt_status_name(DLRT_ERR_UNSUPPORTED), "unsupported");
  EXPECT_STREQ(dlrt_status_name(DLRT_ERR_STREAM), "invalid stream");
  EXPECT_STREQ(dlrt_status_name(DLRT_ERR_SHAPE_MISMATCH),
               "incompatible shapes");
  EXPECT_STREQ(dlrt_status_name(DLRT_ERR_INDEX), "index out of range");
  EXPECT_STREQ(dlrt_status_name(18), "unknown status");
  EXPECT_STREQ(dlrt_status_name(-1), "unknown status");
  std::set<std::string> distinct;
  for (int32_t status = DLRT_OK; status <= DLRT_ERR_INDEX; ++status)
    distinct.insert(dlrt_status_name(status));
  EXPECT_EQ(distinct.size(), size_t(DLRT_ERR_INDEX + 1));
}

} // namespace
