//===- CudaMatmul.cpp - Contractions on CUDA devices through cuBLASLt -----===//
//
// dlrt_cuda_matmul (dlrt_cuda.h), what --dlbridge-contractions-to-blas
// {target=cuda} calls. cuBLASLt rather than cuBLAS: its matmul takes the
// compute type, the layouts (batch strides included), the stream and the
// workspace with each call, so one handle per device serves every thread
// and stream with nothing set on it in between. Like libcuda it is
// dlopen'ed once and never unloaded: libdlrt links nothing of CUDA.
//
//===----------------------------------------------------------------------===//

#include "CallState.h"
#include "CudaDriver.h"

#include "dlbridge/Runtime/dlrt_cuda.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <new>
#include <optional>

#if DLRT_HAVE_CUBLASLT_H
#include <cublasLt.h>
#endif

using namespace dlrt::cuda;

namespace {

/// The cuBLASLt ABI values used here, independent of cublasLt.h.
namespace lt {
constexpr int StatusSuccess = 0;
constexpr int StatusAllocFailed = 3;
constexpr int StatusNotSupported = 15;
constexpr int OpN = 0;
constexpr int OpT = 1;
constexpr int TypeF16 = 2;
constexpr int TypeBF16 = 14;
constexpr int TypeF32 = 0;
constexpr int TypeF64 = 1;
constexpr int Compute32F = 68;
constexpr int Compute32FFastTF32 = 77;
constexpr int Compute64F = 70;
constexpr int DescTransA = 3;
constexpr int DescTransB = 4;
constexpr int LayoutBatchCount = 5;
constexpr int LayoutStridedBatchOffset = 6;
constexpr int PrefMaxWorkspaceBytes = 1;
/// Those of B, C and D follow.
constexpr int PrefMinAlignmentABytes = 5;

struct HeuristicResult {
  uint64_t algo[8];
  size_t workspaceSize;
  int state;
  float wavesCount;
  int reserved[4];
};
} // namespace lt

#if DLRT_HAVE_CUBLASLT_H
static_assert(CUBLAS_STATUS_SUCCESS == lt::StatusSuccess, "");
static_assert(CUBLAS_STATUS_ALLOC_FAILED == lt::StatusAllocFailed, "");
static_assert(CUBLAS_STATUS_NOT_SUPPORTED == lt::StatusNotSupported, "");
static_assert(CUBLAS_OP_N == lt::OpN && CUBLAS_OP_T == lt::OpT, "");
static_assert(CUDA_R_16F == lt::TypeF16 && CUDA_R_16BF == lt::TypeBF16 &&
                  CUDA_R_32F == lt::TypeF32 && CUDA_R_64F == lt::TypeF64,
              "");
static_assert(CUBLAS_COMPUTE_32F == lt::Compute32F &&
                  CUBLAS_COMPUTE_32F_FAST_TF32 == lt::Compute32FFastTF32 &&
                  CUBLAS_COMPUTE_64F == lt::Compute64F,
              "");
static_assert(CUBLASLT_MATMUL_DESC_TRANSA == lt::DescTransA &&
                  CUBLASLT_MATMUL_DESC_TRANSB == lt::DescTransB,
              "");
static_assert(CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT == lt::LayoutBatchCount &&
                  CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET ==
                      lt::LayoutStridedBatchOffset,
              "");
static_assert(CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES ==
                  lt::PrefMaxWorkspaceBytes,
              "");
static_assert(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES ==
                      lt::PrefMinAlignmentABytes &&
                  CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES ==
                      lt::PrefMinAlignmentABytes + 1 &&
                  CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES ==
                      lt::PrefMinAlignmentABytes + 2 &&
                  CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES ==
                      lt::PrefMinAlignmentABytes + 3,
              "");
static_assert(sizeof(cublasLtMatmulHeuristicResult_t) ==
                      sizeof(lt::HeuristicResult) &&
                  offsetof(cublasLtMatmulHeuristicResult_t, workspaceSize) ==
                      offsetof(lt::HeuristicResult, workspaceSize) &&
                  offsetof(cublasLtMatmulHeuristicResult_t, state) ==
                      offsetof(lt::HeuristicResult, state),
              "");
#endif

/// cuBLASLt entry points; handles and descriptors are opaque pointers.
struct LtApi {
  int (*Create)(void **handle);
  int (*MatmulDescCreate)(void **desc, int computeType, int scaleType);
  int (*MatmulDescSetAttribute)(void *desc, int attribute, const void *value,
                                size_t bytes);
  int (*MatmulDescDestroy)(void *desc);
  int (*MatrixLayoutCreate)(void **layout, int type, uint64_t rows,
                            uint64_t cols, int64_t ld);
  int (*MatrixLayoutSetAttribute)(void *layout, int attribute,
                                  const void *value, size_t bytes);
  int (*MatrixLayoutDestroy)(void *layout);
  int (*MatmulPreferenceCreate)(void **preference);
  int (*MatmulPreferenceSetAttribute)(void *preference, int attribute,
                                      const void *value, size_t bytes);
  int (*MatmulPreferenceDestroy)(void *preference);
  int (*MatmulAlgoGetHeuristic)(void *handle, void *desc, void *a, void *b,
                                void *c, void *d, void *preference,
                                int requested, lt::HeuristicResult *results,
                                int *returned);
  int (*Matmul)(void *handle, void *desc, const void *alpha, const void *a,
                void *aLayout, const void *b, void *bLayout, const void *beta,
                const void *c, void *cLayout, void *d, void *dLayout,
                const void *algo, void *workspace, size_t workspaceBytes,
                CUstream stream);
  const char *(*GetStatusString)(int status);
};

/// A device's handle, created on its first product.
struct DeviceHandle {
  std::once_flag createOnce;
  void *handle = nullptr;
  int result = lt::StatusSuccess;
};

struct LibraryState {
  LtApi api{};
  bool loaded = false;
  char message[DLRT_ERROR_CAPACITY] = {};
  std::once_flag handlesOnce;
  DeviceHandle *handles = nullptr;
};

std::once_flag loadOnce;
LibraryState *state = nullptr;

/// What dlopen tries without DLRT_CUBLASLT: CUDA 13's, CUDA 12's (what
/// PyTorch's CUDA 12 wheels load), then whatever the development symlink
/// names.
constexpr const char *kSonames[] = {"libcublasLt.so.13", "libcublasLt.so.12",
                                    "libcublasLt.so"};

template <typename Fn>
bool resolve(void *library, const char *name, Fn &fn, LibraryState &s,
             const char *path) {
  fn = reinterpret_cast<Fn>(dlsym(library, name));
  if (fn)
    return true;
  std::snprintf(s.message, sizeof(s.message),
                "no cuBLASLt: %s lacks %s (too old?)", path, name);
  return false;
}

bool resolveAll(void *lib, LibraryState &s, const char *path) {
  LtApi &a = s.api;
#define DLRT_RESOLVE(member, name)                                             \
  if (!resolve(lib, name, a.member, s, path))                                  \
    return false;
  DLRT_RESOLVE(Create, "cublasLtCreate")
  DLRT_RESOLVE(MatmulDescCreate, "cublasLtMatmulDescCreate")
  DLRT_RESOLVE(MatmulDescSetAttribute, "cublasLtMatmulDescSetAttribute")
  DLRT_RESOLVE(MatmulDescDestroy, "cublasLtMatmulDescDestroy")
  DLRT_RESOLVE(MatrixLayoutCreate, "cublasLtMatrixLayoutCreate")
  DLRT_RESOLVE(MatrixLayoutSetAttribute, "cublasLtMatrixLayoutSetAttribute")
  DLRT_RESOLVE(MatrixLayoutDestroy, "cublasLtMatrixLayoutDestroy")
  DLRT_RESOLVE(MatmulPreferenceCreate, "cublasLtMatmulPreferenceCreate")
  DLRT_RESOLVE(MatmulPreferenceSetAttribute,
               "cublasLtMatmulPreferenceSetAttribute")
  DLRT_RESOLVE(MatmulPreferenceDestroy, "cublasLtMatmulPreferenceDestroy")
  DLRT_RESOLVE(MatmulAlgoGetHeuristic, "cublasLtMatmulAlgoGetHeuristic")
  DLRT_RESOLVE(Matmul, "cublasLtMatmul")
  DLRT_RESOLVE(GetStatusString, "cublasLtGetStatusString")
#undef DLRT_RESOLVE
  return true;
}

void load() {
  auto *s = new (std::nothrow) LibraryState();
  if (!s)
    return; // state stays NULL: reported as out of memory by getLibrary.
  const char *override = std::getenv("DLRT_CUBLASLT");
  void *lib = nullptr;
  const char *path = nullptr;
  if (override && *override) {
    path = override;
    lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  } else {
    for (const char *soname : kSonames) {
      path = soname;
      if ((lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL)))
        break;
    }
  }
  if (!lib) {
    const char *why = dlerror();
    std::snprintf(
        s->message, sizeof(s->message), "no cuBLASLt: %s not found (%s)",
        override && *override ? override
                              : "libcublasLt.so.13, libcublasLt.so.12 and "
                                "libcublasLt.so",
        why ? why : "unknown dlopen error");
    state = s;
    return;
  }
  // Never dlclose'd: products may still be enqueued from static destructors.
  s->loaded = resolveAll(lib, *s, path);
  state = s;
}

/// The loaded library, or NULL after recording why not as the last error.
LibraryState *getLibrary(int32_t *status) {
  std::call_once(loadOnce, load);
  if (!state)
    *status = dlrt_set_error(nullptr, DLRT_ERR_OUT_OF_MEMORY,
                             "out of memory loading cuBLASLt");
  else if (!state->loaded)
    *status =
        dlrt_set_error(nullptr, DLRT_ERR_UNSUPPORTED, "%s", state->message);
  else
    return state;
  return nullptr;
}

/// Records DLRT_ERR_CUDA (DLRT_ERR_OUT_OF_MEMORY for an allocation failure)
/// "<call> failed: <text> (cuBLAS status <n>)" and returns it.
int32_t failLt(const LtApi &api, int status, const char *call) {
  const char *text = api.GetStatusString(status);
  int32_t code =
      status == lt::StatusAllocFailed ? DLRT_ERR_OUT_OF_MEMORY : DLRT_ERR_CUDA;
  return dlrt_set_error(nullptr, code, "%s failed: %s (cuBLAS status %d)", call,
                        text ? text : "unrecognized status", status);
}

/// `device`'s handle, created on first use with its context current.
int32_t getHandle(LibraryState &lib, Device *device, void **out) {
  std::call_once(lib.handlesOnce, [&lib] {
    lib.handles = new (std::nothrow) DeviceHandle[deviceCount()];
  });
  if (!lib.handles)
    return dlrt_set_error(nullptr, DLRT_ERR_OUT_OF_MEMORY,
                          "out of memory recording cuBLASLt handles");
  DeviceHandle &h = lib.handles[deviceId(device)];
  // Never destroyed, as the device's primary context is never released.
  std::call_once(h.createOnce,
                 [&lib, &h] { h.result = lib.api.Create(&h.handle); });
  if (h.result != lt::StatusSuccess)
    return failLt(lib.api, h.result, "cublasLtCreate");
  *out = h.handle;
  return DLRT_OK;
}

/// A rows x cols matrix of a batch, addressed through element strides.
struct Matrix {
  const void *data;
  int64_t rows, cols, rowStride, colStride, batchStride;

  Matrix transposed() const {
    return {data, cols, rows, colStride, rowStride, batchStride};
  }
};

/// The leading dimension with which cuBLASLt reads `m` column-major: unit
/// stride down columns (any for one row) and a column stride of at least the
/// number of rows (any for one column).
std::optional<int64_t> colMajorLd(const Matrix &m) {
  if (m.rows > 1 && m.rowStride != 1)
    return std::nullopt;
  int64_t ld = m.cols > 1 ? m.colStride : std::max<int64_t>(1, m.rows);
  if (ld < std::max<int64_t>(1, m.rows))
    return std::nullopt;
  return ld;
}

/// How cuBLASLt reads an operand: as stored (rows x cols, column-major) or
/// transposed.
struct Operand {
  int op;
  uint64_t rows, cols;
  int64_t ld;
};

std::optional<Operand> asOperand(const Matrix &m) {
  if (std::optional<int64_t> ld = colMajorLd(m))
    return Operand{lt::OpN, uint64_t(m.rows), uint64_t(m.cols), *ld};
  if (std::optional<int64_t> ld = colMajorLd(m.transposed()))
    return Operand{lt::OpT, uint64_t(m.cols), uint64_t(m.rows), *ld};
  return std::nullopt;
}

/// cuBLASLt's types for a pair of dlrt_cuda_matmul types, and the bytes of
/// an input and an output element.
struct Types {
  int input, output, compute, scale;
  int64_t inputBytes, outputBytes;
};

int ltType(int32_t type) {
  constexpr int kTypes[] = {lt::TypeF16, lt::TypeBF16, lt::TypeF32,
                            lt::TypeF64};
  return kTypes[type];
}

int64_t typeBytes(int32_t type) {
  constexpr int64_t kBytes[] = {2, 2, 4, 8};
  return kBytes[type];
}

/// Whether `type` names a dlrt_cuda_matmul_type.
bool isType(int32_t type) {
  return type >= DLRT_CUDA_MATMUL_F16 && type <= DLRT_CUDA_MATMUL_F64;
}

/// The types of a supported pair: the same type, or f16/bf16 into f32.
std::optional<Types> getTypes(int32_t input, int32_t output, bool tf32) {
  bool halfIntoFloat =
      (input == DLRT_CUDA_MATMUL_F16 || input == DLRT_CUDA_MATMUL_BF16) &&
      output == DLRT_CUDA_MATMUL_F32;
  if (input != output && !halfIntoFloat)
    return std::nullopt;
  Types t{ltType(input), ltType(output),   lt::Compute32F,
          lt::TypeF32,   typeBytes(input), typeBytes(output)};
  if (input == DLRT_CUDA_MATMUL_F64) {
    t.compute = lt::Compute64F;
    t.scale = lt::TypeF64;
  } else if (input == DLRT_CUDA_MATMUL_F32 && tf32) {
    t.compute = lt::Compute32FFastTF32;
  }
  return t;
}

/// The largest power of two, up to 256 (what cuBLASLt assumes by default),
/// dividing every address of a matrix's batch: cuBLASLt's preferences must
/// not promise more than that.
uint32_t alignment(const Matrix &m, int64_t batch, int64_t elementBytes) {
  uint64_t bits = reinterpret_cast<uintptr_t>(m.data) | 256;
  if (batch > 1)
    bits |= uint64_t(m.batchStride * elementBytes);
  return uint32_t(bits & -bits);
}

/// The descriptors of one product, destroyed with it.
class Descriptors {
public:
  explicit Descriptors(const LtApi &api) : api(api) {}
  Descriptors(const Descriptors &) = delete;
  Descriptors &operator=(const Descriptors &) = delete;
  ~Descriptors() {
    if (preference)
      api.MatmulPreferenceDestroy(preference);
    for (void *layout : layouts)
      if (layout)
        api.MatrixLayoutDestroy(layout);
    if (desc)
      api.MatmulDescDestroy(desc);
  }

  void *desc = nullptr;
  void *layouts[3] = {};
  void *preference = nullptr;

private:
  const LtApi &api;
};

/// The workspace cuBLASLt may use: stream-ordered from the device's pool.
/// Without memory pools an allocation would synchronise, so then only
/// algorithms that need none are chosen.
constexpr uint64_t kMaxWorkspaceBytes = uint64_t(32) << 20;

/// Chooses an algorithm and enqueues the product. Returns DLRT_OK,
/// DLRT_CUDA_MATMUL_DECLINED when cuBLASLt has no algorithm, or a recorded
/// failure.
int32_t enqueue(const LtApi &api, void *handle, Device *device, CUstream stream,
                const Types &types, bool accumulate, int64_t batch,
                const Matrix &a, const Matrix &b, const Matrix &c) {
  std::optional<Operand> opA = asOperand(a), opB = asOperand(b);
  std::optional<int64_t> ldc = colMajorLd(c);
  if (!opA || !opB || !ldc)
    return DLRT_CUDA_MATMUL_DECLINED;
  Descriptors d(api);
  int r;
#define DLRT_LT(call, ...)                                                     \
  if ((r = api.call(__VA_ARGS__)) != lt::StatusSuccess)                        \
    return failLt(api, r, "cublasLt" #call);
  DLRT_LT(MatmulDescCreate, &d.desc, types.compute, types.scale)
  DLRT_LT(MatmulDescSetAttribute, d.desc, lt::DescTransA, &opA->op, sizeof(int))
  DLRT_LT(MatmulDescSetAttribute, d.desc, lt::DescTransB, &opB->op, sizeof(int))
  const Operand operands[3] = {
      *opA, *opB, {lt::OpN, uint64_t(c.rows), uint64_t(c.cols), *ldc}};
  const Matrix *matrices[3] = {&a, &b, &c};
  for (int i = 0; i < 3; ++i) {
    DLRT_LT(MatrixLayoutCreate, &d.layouts[i],
            i < 2 ? types.input : types.output, operands[i].rows,
            operands[i].cols, operands[i].ld)
    if (batch == 1)
      continue;
    int32_t count = int32_t(batch);
    int64_t stride = matrices[i]->batchStride;
    DLRT_LT(MatrixLayoutSetAttribute, d.layouts[i], lt::LayoutBatchCount,
            &count, sizeof(count))
    DLRT_LT(MatrixLayoutSetAttribute, d.layouts[i],
            lt::LayoutStridedBatchOffset, &stride, sizeof(stride))
  }
  uint64_t maxWorkspace = supportsMemoryPools(device) ? kMaxWorkspaceBytes : 0;
  uint32_t alignments[4] = {alignment(a, batch, types.inputBytes),
                            alignment(b, batch, types.inputBytes),
                            alignment(c, batch, types.outputBytes),
                            alignment(c, batch, types.outputBytes)};
  DLRT_LT(MatmulPreferenceCreate, &d.preference)
  DLRT_LT(MatmulPreferenceSetAttribute, d.preference, lt::PrefMaxWorkspaceBytes,
          &maxWorkspace, sizeof(maxWorkspace))
  for (int i = 0; i < 4; ++i)
    DLRT_LT(MatmulPreferenceSetAttribute, d.preference,
            lt::PrefMinAlignmentABytes + i, &alignments[i],
            sizeof(alignments[i]))
  lt::HeuristicResult heuristic{};
  int found = 0;
  r = api.MatmulAlgoGetHeuristic(handle, d.desc, d.layouts[0], d.layouts[1],
                                 d.layouts[2], d.layouts[2], d.preference, 1,
                                 &heuristic, &found);
  if (r == lt::StatusNotSupported || (r == lt::StatusSuccess && found == 0))
    return DLRT_CUDA_MATMUL_DECLINED;
  if (r != lt::StatusSuccess)
    return failLt(api, r, "cublasLtMatmulAlgoGetHeuristic");
#undef DLRT_LT

  void *workspace = nullptr;
  if (heuristic.workspaceSize > 0)
    if (int32_t status =
            deviceAlloc(device, heuristic.workspaceSize, stream, &workspace))
      return status;
  // alpha = 1 and beta = 0 or 1, in the scale type.
  double alpha64 = 1, beta64 = accumulate;
  float alpha32 = 1, beta32 = accumulate;
  bool scale64 = types.scale == lt::TypeF64;
  r = api.Matmul(
      handle, d.desc,
      scale64 ? static_cast<void *>(&alpha64) : static_cast<void *>(&alpha32),
      a.data, d.layouts[0], b.data, d.layouts[1],
      scale64 ? static_cast<void *>(&beta64) : static_cast<void *>(&beta32),
      c.data, d.layouts[2], const_cast<void *>(c.data), d.layouts[2],
      heuristic.algo, workspace, heuristic.workspaceSize, stream);
  int32_t status =
      r == lt::StatusSuccess ? DLRT_OK : failLt(api, r, "cublasLtMatmul");
  if (workspace) {
    int32_t freed = deviceFree(device, workspace, stream);
    if (status == DLRT_OK)
      status = freed;
  }
  return status;
}

int32_t multiply(void *stream, int32_t inputType, int32_t outputType,
                 int32_t flags, int64_t batch, Matrix a, Matrix b, Matrix c,
                 int64_t k) {
  int64_t m = c.rows, n = c.cols;
  if (batch < 0 || m < 0 || n < 0 || k < 0)
    return dlrt_set_error(nullptr, DLRT_ERR_INVALID_ARGUMENT,
                          "dlrt_cuda_matmul: negative size (batch %lld, m "
                          "%lld, n %lld, k %lld)",
                          (long long)batch, (long long)m, (long long)n,
                          (long long)k);
  if (!isType(inputType) || !isType(outputType))
    return dlrt_set_error(nullptr, DLRT_ERR_INVALID_ARGUMENT,
                          "dlrt_cuda_matmul: unknown element type (input %d, "
                          "output %d)",
                          int(inputType), int(outputType));
  constexpr int32_t kFlags =
      DLRT_CUDA_MATMUL_ACCUMULATE | DLRT_CUDA_MATMUL_ALLOW_TF32;
  if (flags & ~kFlags)
    return dlrt_set_error(nullptr, DLRT_ERR_INVALID_ARGUMENT,
                          "dlrt_cuda_matmul: unknown flags 0x%x", flags);
  bool accumulate = flags & DLRT_CUDA_MATMUL_ACCUMULATE;
  std::optional<Types> types = getTypes(
      inputType, outputType, (flags & DLRT_CUDA_MATMUL_ALLOW_TF32) != 0);
  if (!types)
    return dlrt_set_error(nullptr, DLRT_ERR_UNSUPPORTED,
                          "dlrt_cuda_matmul: no cuBLASLt product of type %d "
                          "inputs into type %d",
                          int(inputType), int(outputType));
  if (batch == 0 || m == 0 || n == 0 || (k == 0 && accumulate))
    return DLRT_OK;
  if (!c.data || (k > 0 && (!a.data || !b.data)))
    return dlrt_set_error(nullptr, DLRT_ERR_INVALID_ARGUMENT,
                          "dlrt_cuda_matmul: NULL operand of a non-empty "
                          "product");
  if (k == 0 || batch > INT32_MAX)
    return DLRT_CUDA_MATMUL_DECLINED;
  if (batch == 1) {
    a.batchStride = b.batchStride = c.batchStride = 0;
  } else if (a.batchStride < 0 || b.batchStride < 0 || c.batchStride <= 0) {
    return DLRT_CUDA_MATMUL_DECLINED;
  }
  // cuBLASLt computes column-major C; a row-major C is computed as
  // C^T = B^T A^T.
  if (!colMajorLd(c)) {
    Matrix at = a.transposed();
    a = b.transposed();
    b = at;
    c = c.transposed();
  }
  if (!asOperand(a) || !asOperand(b) || !colMajorLd(c))
    return DLRT_CUDA_MATMUL_DECLINED;

  int32_t status = DLRT_OK;
  LibraryState *lib = getLibrary(&status);
  if (!lib)
    return status;
  Device *device = nullptr;
  if ((status = activate(defaultDeviceId(), &device)))
    return status;
  void *handle = nullptr;
  if ((status = getHandle(*lib, device, &handle)))
    return status;
  return enqueue(lib->api, handle, device, toDriverStream(stream), *types,
                 accumulate, batch, a, b, c);
}

} // namespace

extern "C" int32_t
dlrt_cuda_matmul(void *stream, int32_t input_type, int32_t output_type,
                 int32_t flags, int64_t batch, int64_t m, int64_t n, int64_t k,
                 const void *a, int64_t a_batch_stride, int64_t a_row_stride,
                 int64_t a_col_stride, const void *b, int64_t b_batch_stride,
                 int64_t b_row_stride, int64_t b_col_stride, void *c,
                 int64_t c_batch_stride, int64_t c_row_stride,
                 int64_t c_col_stride) {
  int32_t status =
      multiply(stream, input_type, output_type, flags, batch,
               {a, m, k, a_row_stride, a_col_stride, a_batch_stride},
               {b, k, n, b_row_stride, b_col_stride, b_batch_stride},
               {c, m, n, c_row_stride, c_col_stride, c_batch_stride}, k);
  if (status == DLRT_OK || status == DLRT_CUDA_MATMUL_DECLINED)
    return status;
  // Generated code goes on after a failure, as after a failed launch; the
  // entry returns the call's first failure (an earlier device error first).
  if (dlrt_call_ctx *call = dlrt_internal_current_call()) {
    char message[DLRT_ERROR_CAPACITY];
    std::snprintf(message, sizeof(message), "%s", dlrt_last_error());
    dlrt_internal_take_device_error(call);
    dlrt_set_error(call, status, "%s", message);
  }
  return status;
}
