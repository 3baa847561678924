//===- MgpuRuntime.cpp - The mgpu* host ABI of MLIR's gpu-to-llvm ---------===//
//
// The functions MLIR 22's gpu-to-llvm lowering calls, with the signatures it
// emits, on the dlopen'ed CUDA driver. Unlike MLIR's CudaRuntimeWrappers:
//   - kernels run on the stream passed in, usually the caller's borrowed
//     stream; streams not created by mgpuStreamCreate are never synchronised
//     or destroyed (those calls are no-ops for them);
//   - modules are cached by (device, image address, size, content hash) and
//     reference-counted, functions by (module, name), with a per-thread cache
//     in front, so a repeated launch does no driver lookup;
//   - a module handle stands for its image on every device: looking a
//     function up while another device is the thread's default loads the
//     image there too (generated code loads its modules once, in an
//     initializer, for whichever device was then the default);
//   - failures are kept per thread for dlrt_cuda_take_launch_error instead of
//     being printed; nothing aborts.
// The registries are allocated once and never destroyed: global destructors
// of JIT-compiled code may unload modules after our own statics are gone.
//
//===----------------------------------------------------------------------===//

#include "CudaDriver.h"

#include "dlbridge/Runtime/dlrt_cuda.h"

#include <atomic>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>

using namespace dlrt::cuda;

namespace {

//===----------------------------------------------------------------------===//
// Per-thread state and the error side channel
//===----------------------------------------------------------------------===//

thread_local int32_t defaultDevice = 0;
thread_local int32_t launchError = DLRT_OK;
thread_local char launchMessage[DLRT_ERROR_CAPACITY];

/// Keeps the first failure of this thread (its message was just written to
/// the last error by whoever failed); a later failure's message is replaced
/// by the kept one so that dlrt_last_error describes the status returned by
/// dlrt_cuda_take_launch_error.
void noteFailure(int32_t status) {
  if (launchError == DLRT_OK) {
    launchError = status;
    std::snprintf(launchMessage, sizeof(launchMessage), "%s",
                  dlrt_last_error());
    return;
  }
  dlrt_set_error(nullptr, launchError, "%s", launchMessage);
}

void noteError(int32_t status, const char *message) {
  dlrt_set_error(nullptr, status, "%s", message);
  noteFailure(status);
}

/// Checks the driver and activates the thread's default device.
Device *activateDefault() {
  Device *device = nullptr;
  if (int32_t status = activate(defaultDevice, &device))
    noteFailure(status);
  return device;
}

/// The driver, or NULL after noting why not.
const DriverApi *driverOrNote() {
  int32_t status = DLRT_OK;
  const DriverApi *api = getDriver(&status);
  if (!api)
    noteFailure(status);
  return api;
}

bool check(CUresult result, const char *call) {
  if (result == CUDA_SUCCESS)
    return true;
  noteFailure(fail(result, call));
  return false;
}

CUdeviceptr toDevicePtr(const void *ptr) {
  return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(ptr));
}

//===----------------------------------------------------------------------===//
// Registries
//===----------------------------------------------------------------------===//

struct ModuleEntry {
  CUmodule module;
  Device *device;
  const void *data;
  size_t size;
  uint64_t hash;
  bool jit;
  int optLevel;
  int64_t refs;
  /// The handle generated code holds: `module` itself, or the module this
  /// one copies to another device (unloaded with it).
  CUmodule primary;
};

struct FunctionEntry {
  CUmodule module;
  char *name; // malloc'ed copy
  CUfunction function;
  Device *device;
};

struct Registry {
  std::mutex mutex;
  PodVector<ModuleEntry> modules;
  PodVector<FunctionEntry> functions;
  PodVector<CUstream> streams; // created by mgpuStreamCreate
  PodVector<void *> managed;   // mgpuMemAlloc(..., isHostShared = true)
  /// Bumped whenever a module goes: invalidates the per-thread caches.
  std::atomic<uint64_t> generation{1};
};

Registry *registry() {
  static Registry *instance = new (std::nothrow) Registry();
  return instance;
}

Registry *registryOrNote() {
  Registry *r = registry();
  if (!r)
    noteError(DLRT_ERR_OUT_OF_MEMORY, "out of memory creating the mgpu "
                                      "registries");
  return r;
}

/// A per-thread cache of recent function lookups, checked before the lock.
struct CachedFunction {
  CUmodule module;
  const char *namePtr; // the caller's pointer
  const char *name;    // the registry's copy, valid while `generation` is
  CUfunction function;
  Device *device;
  uint64_t generation;
};
constexpr unsigned kThreadCacheSize = 8;
thread_local CachedFunction threadCache[kThreadCacheSize];
thread_local unsigned threadCacheNext = 0;

uint64_t hashBytes(const void *data, size_t size) {
  uint64_t h = 1469598103934665603ull; // FNV-1a
  const auto *p = static_cast<const unsigned char *>(data);
  for (size_t i = 0; i < size; ++i)
    h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

/// Loads `data` on the thread's default device; `primary`: the module this
/// one copies to that device, NULL for a module of its own.
void *loadModule(const void *data, size_t size, bool jit, int optLevel,
                 CUmodule primary) {
  const char *fn = jit ? "mgpuModuleLoadJIT" : "mgpuModuleLoad";
  if (!driverOrNote())
    return nullptr;
  if (!data) {
    dlrt_set_error(nullptr, DLRT_ERR_INVALID_ARGUMENT, "%s: data is NULL", fn);
    noteFailure(DLRT_ERR_INVALID_ARGUMENT);
    return nullptr;
  }
  Registry *reg = registryOrNote();
  Device *device = activateDefault();
  if (!reg || !device)
    return nullptr;
  // PTX for the JIT is NUL-terminated; a cubin's size is given.
  size_t hashed = jit ? std::strlen(static_cast<const char *>(data)) : size;
  uint64_t hash = hashBytes(data, hashed);
  auto find = [&]() -> ModuleEntry * {
    for (size_t i = 0; i < reg->modules.size(); ++i) {
      ModuleEntry &e = reg->modules[i];
      if (e.device == device && e.data == data && e.size == hashed &&
          e.hash == hash && e.jit == jit && e.optLevel == optLevel)
        return &e;
    }
    return nullptr;
  };
  {
    std::lock_guard<std::mutex> lock(reg->mutex);
    if (ModuleEntry *e = find()) {
      ++e->refs;
      return e->module;
    }
  }

  const DriverApi *api = peekDriver();
  CUmodule module = nullptr;
  if (!jit) {
    if (!check(api->ModuleLoadData(&module, data), "cuModuleLoadData"))
      return nullptr;
  } else {
    char log[4096] = {0};
    CUjit_option options[] = {
        static_cast<CUjit_option>(CU_JIT_ERROR_LOG_BUFFER),
        static_cast<CUjit_option>(CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES),
        static_cast<CUjit_option>(CU_JIT_OPTIMIZATION_LEVEL)};
    void *values[] = {log, reinterpret_cast<void *>(sizeof(log)),
                      reinterpret_cast<void *>(
                          static_cast<intptr_t>(optLevel < 0   ? 0
                                                : optLevel > 4 ? 4
                                                               : optLevel))};
    CUresult r = api->ModuleLoadDataEx(&module, data, 3, options, values);
    if (r != CUDA_SUCCESS) {
      log[sizeof(log) - 1] = 0;
      dlrt_set_error(nullptr, DLRT_ERR_CUDA,
                     "cuModuleLoadDataEx failed: %s (CUDA error %d): %s",
                     errorString(r), static_cast<int>(r), log);
      noteFailure(DLRT_ERR_CUDA);
      return nullptr;
    }
  }

  std::unique_lock<std::mutex> lock(reg->mutex);
  if (ModuleEntry *e = find()) { // Another thread loaded it meanwhile.
    ++e->refs;
    CUmodule kept = e->module;
    lock.unlock();
    api->ModuleUnload(module);
    return kept;
  }
  if (!reg->modules.push(ModuleEntry{module, device, data, hashed, hash, jit,
                                     optLevel, 1,
                                     primary ? primary : module})) {
    lock.unlock();
    api->ModuleUnload(module);
    noteError(DLRT_ERR_OUT_OF_MEMORY, "out of memory caching a CUDA module");
    return nullptr;
  }
  return module;
}

/// The device whose context `function` (from mgpuModuleGetFunction) lives
/// in; NULL for functions we did not hand out.
Device *functionDevice(CUfunction function) {
  uint64_t generation = registry()->generation.load(std::memory_order_acquire);
  for (const CachedFunction &c : threadCache)
    if (c.function == function && c.generation == generation)
      return c.device;
  Registry *reg = registry();
  std::lock_guard<std::mutex> lock(reg->mutex);
  for (size_t i = 0; i < reg->functions.size(); ++i)
    if (reg->functions[i].function == function)
      return reg->functions[i].device;
  return nullptr;
}

bool fitsUnsigned(intptr_t v, bool allowZero) {
  return (allowZero ? v >= 0 : v > 0) &&
         static_cast<uintmax_t>(v) <= static_cast<uintmax_t>(UINT_MAX);
}

bool isOwnedStream(Registry *reg, CUstream stream, bool remove) {
  std::lock_guard<std::mutex> lock(reg->mutex);
  for (size_t i = 0; i < reg->streams.size(); ++i)
    if (reg->streams[i] == stream) {
      if (remove)
        reg->streams.swapRemove(i);
      return true;
    }
  return false;
}

} // namespace

bool dlrt::cuda::forgetManagedAllocation(void *ptr) {
  Registry *reg = registry();
  if (!reg)
    return false;
  std::lock_guard<std::mutex> lock(reg->mutex);
  for (size_t i = 0; i < reg->managed.size(); ++i)
    if (reg->managed[i] == ptr) {
      reg->managed.swapRemove(i);
      return true;
    }
  return false;
}

int32_t dlrt::cuda::defaultDeviceId() { return defaultDevice; }

//===----------------------------------------------------------------------===//
// The exported ABI
//===----------------------------------------------------------------------===//

extern "C" {

int32_t dlrt_cuda_take_launch_error(void) {
  int32_t status = launchError;
  launchError = DLRT_OK;
  return status;
}

void mgpuSetDefaultDevice(int32_t device) { defaultDevice = device; }

void *mgpuModuleLoad(void *data, size_t size) {
  return loadModule(data, size, /*jit=*/false, 0, nullptr);
}

void *mgpuModuleLoadJIT(void *data, int optLevel) {
  return loadModule(data, 0, /*jit=*/true, optLevel, nullptr);
}

void mgpuModuleUnload(void *module) {
  const DriverApi *api = driverOrNote();
  Registry *reg = api ? registryOrNote() : nullptr;
  if (!reg || !module)
    return;
  auto *mod = static_cast<CUmodule>(module);
  struct Unload {
    CUmodule module;
    Device *device;
  };
  PodVector<Unload> unloads;
  {
    std::lock_guard<std::mutex> lock(reg->mutex);
    size_t i = 0;
    while (i < reg->modules.size() && reg->modules[i].module != mod)
      ++i;
    if (i == reg->modules.size()) {
      dlrt_set_error(nullptr, DLRT_ERR_INVALID_ARGUMENT,
                     "mgpuModuleUnload: %p is not a module loaded by "
                     "mgpuModuleLoad",
                     module);
      noteFailure(DLRT_ERR_INVALID_ARGUMENT);
      return;
    }
    if (--reg->modules[i].refs > 0)
      return;
    // The module goes, with its copies on other devices.
    for (size_t j = 0; j < reg->modules.size();) {
      ModuleEntry &e = reg->modules[j];
      if (e.module != mod && (e.primary != mod || --e.refs > 0)) {
        ++j;
        continue;
      }
      if (!unloads.push(Unload{e.module, e.device})) {
        ++j; // Kept loaded: better a module too many than a crash.
        continue;
      }
      for (size_t k = 0; k < reg->functions.size();) {
        if (reg->functions[k].module == e.module) {
          std::free(reg->functions[k].name);
          reg->functions.swapRemove(k);
        } else {
          ++k;
        }
      }
      reg->modules.swapRemove(j);
    }
    reg->generation.fetch_add(1, std::memory_order_acq_rel);
  }
  for (size_t i = 0; i < unloads.size(); ++i) {
    if (int32_t status = makeCurrent(unloads[i].device)) {
      noteFailure(status);
      continue;
    }
    check(api->ModuleUnload(unloads[i].module), "cuModuleUnload");
  }
}

void *mgpuModuleGetFunction(void *module, const char *name) {
  if (!driverOrNote())
    return nullptr;
  Registry *reg = registryOrNote();
  if (!reg)
    return nullptr;
  if (!module || !name) {
    noteError(DLRT_ERR_INVALID_ARGUMENT,
              "mgpuModuleGetFunction: module or name is NULL (did "
              "mgpuModuleLoad fail?)");
    return nullptr;
  }
  auto *mod = static_cast<CUmodule>(module);
  uint64_t generation = reg->generation.load(std::memory_order_acquire);
  for (const CachedFunction &c : threadCache)
    if (c.module == mod && c.generation == generation && c.namePtr == name &&
        deviceId(c.device) == defaultDevice && std::strcmp(c.name, name) == 0)
      return c.function;

  // The module's image on the thread's default device: `mod` itself, a copy
  // loaded earlier, or one loaded now.
  CUmodule target = nullptr;
  Device *device = nullptr;
  ModuleEntry primary{};
  {
    std::lock_guard<std::mutex> lock(reg->mutex);
    for (size_t i = 0; i < reg->modules.size(); ++i) {
      const ModuleEntry &e = reg->modules[i];
      if (e.module == mod)
        primary = e;
      if (e.primary == mod && deviceId(e.device) == defaultDevice) {
        target = e.module;
        device = e.device;
      }
    }
  }
  if (!primary.module) {
    dlrt_set_error(nullptr, DLRT_ERR_INVALID_ARGUMENT,
                   "mgpuModuleGetFunction: %p is not a module loaded by "
                   "mgpuModuleLoad",
                   module);
    noteFailure(DLRT_ERR_INVALID_ARGUMENT);
    return nullptr;
  }
  if (!target) {
    target = static_cast<CUmodule>(
        loadModule(primary.data, primary.jit ? 0 : primary.size, primary.jit,
                   primary.optLevel, mod));
    device = activateDefault();
    if (!target || !device)
      return nullptr;
  }

  FunctionEntry found{};
  {
    std::lock_guard<std::mutex> lock(reg->mutex);
    for (size_t i = 0; i < reg->functions.size() && !found.function; ++i)
      if (reg->functions[i].module == target &&
          std::strcmp(reg->functions[i].name, name) == 0)
        found = reg->functions[i];
    if (!found.function) {
      if (int32_t status = makeCurrent(device)) {
        noteFailure(status);
        return nullptr;
      }
      CUfunction function = nullptr;
      CUresult r = peekDriver()->ModuleGetFunction(&function, target, name);
      if (r != CUDA_SUCCESS) {
        dlrt_set_error(nullptr, DLRT_ERR_CUDA,
                       "cuModuleGetFunction failed for kernel '%s': %s (CUDA "
                       "error %d)",
                       name, errorString(r), static_cast<int>(r));
        noteFailure(DLRT_ERR_CUDA);
        return nullptr;
      }
      size_t length = std::strlen(name);
      char *copy = static_cast<char *>(std::malloc(length + 1));
      if (copy)
        std::memcpy(copy, name, length + 1);
      found = FunctionEntry{target, copy, function, device};
      if (!copy || !reg->functions.push(found)) {
        std::free(copy);
        // Uncached but valid: the launch still works.
        return function;
      }
    }
  }
  threadCache[threadCacheNext++ % kThreadCacheSize] = CachedFunction{
      mod, name, found.name, found.function, found.device, generation};
  return found.function;
}

void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t smem, void *stream,
                      void **params, void **extra, size_t paramsCount) {
  (void)paramsCount; // The driver reads the parameters from the kernel.
  const DriverApi *api = driverOrNote();
  if (!api || !registryOrNote())
    return;
  if (!function) {
    noteError(DLRT_ERR_INVALID_ARGUMENT,
              "mgpuLaunchKernel: function is NULL (did an earlier mgpu* "
              "call fail?)");
    return;
  }
  if (!fitsUnsigned(gridX, true) || !fitsUnsigned(gridY, true) ||
      !fitsUnsigned(gridZ, true) || !fitsUnsigned(blockX, false) ||
      !fitsUnsigned(blockY, false) || !fitsUnsigned(blockZ, false) ||
      smem < 0) {
    char message[DLRT_ERROR_CAPACITY];
    std::snprintf(message, sizeof(message),
                  "mgpuLaunchKernel: invalid launch grid (%jd, %jd, %jd) "
                  "block (%jd, %jd, %jd) shared memory %d",
                  static_cast<intmax_t>(gridX), static_cast<intmax_t>(gridY),
                  static_cast<intmax_t>(gridZ), static_cast<intmax_t>(blockX),
                  static_cast<intmax_t>(blockY), static_cast<intmax_t>(blockZ),
                  static_cast<int>(smem));
    noteError(DLRT_ERR_INVALID_ARGUMENT, message);
    return;
  }
  // Kernels over empty tensors get empty grids: there is nothing to run.
  if (gridX == 0 || gridY == 0 || gridZ == 0)
    return;
  auto *fn = static_cast<CUfunction>(function);
  Device *device = functionDevice(fn);
  if (!device) {
    device = activateDefault(); // A function from elsewhere: best effort.
    if (!device)
      return;
  } else if (int32_t status = makeCurrent(device)) {
    noteFailure(status);
    return;
  }
  // Without opting in, a block's static and dynamic shared memory together
  // stay within 48 KiB: a kernel with 32 bytes of its own that asked for
  // exactly 48 KiB failed to launch (invalid argument).
  constexpr int32_t kDefaultSharedLimit = 48 * 1024;
  int staticShared = 0;
  if (smem > 0 &&
      !check(api->FuncGetAttribute(&staticShared,
                                   static_cast<CUfunction_attribute>(
                                       CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES),
                                   fn),
             "cuFuncGetAttribute(SHARED_SIZE_BYTES)"))
    return;
  if (static_cast<int64_t>(smem) + staticShared > kDefaultSharedLimit &&
      !check(api->FuncSetAttribute(
                 fn,
                 static_cast<CUfunction_attribute>(
                     CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES),
                 smem),
             "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)"))
    return;
  check(api->LaunchKernel(
            fn, static_cast<unsigned>(gridX), static_cast<unsigned>(gridY),
            static_cast<unsigned>(gridZ), static_cast<unsigned>(blockX),
            static_cast<unsigned>(blockY), static_cast<unsigned>(blockZ),
            static_cast<unsigned>(smem), toDriverStream(stream), params, extra),
        "cuLaunchKernel");
}

void *mgpuStreamCreate(void) {
  if (!driverOrNote())
    return nullptr;
  Registry *reg = registryOrNote();
  Device *device = reg ? activateDefault() : nullptr;
  if (!device)
    return nullptr;
  const DriverApi *api = peekDriver();
  CUstream stream = nullptr;
  if (!check(api->StreamCreate(&stream, CU_STREAM_NON_BLOCKING),
             "cuStreamCreate"))
    return nullptr;
  bool kept;
  {
    std::lock_guard<std::mutex> lock(reg->mutex);
    kept = reg->streams.push(stream);
  }
  if (!kept) {
    api->StreamDestroy(stream);
    noteError(DLRT_ERR_OUT_OF_MEMORY, "out of memory recording a stream");
    return nullptr;
  }
  return stream;
}

void mgpuStreamSynchronize(void *stream) {
  const DriverApi *api = driverOrNote();
  Registry *reg = api ? registryOrNote() : nullptr;
  if (!reg || !isOwnedStream(reg, static_cast<CUstream>(stream), false))
    return; // Borrowed: the caller synchronises its own streams.
  check(api->StreamSynchronize(static_cast<CUstream>(stream)),
        "cuStreamSynchronize");
}

void dlrt_call_synchronize(void) {
  const DriverApi *api = driverOrNote();
  if (!api || !activateDefault())
    return;
  check(api->StreamSynchronize(toDriverStream(dlrt_call_stream())),
        "cuStreamSynchronize");
}

void mgpuStreamDestroy(void *stream) {
  const DriverApi *api = driverOrNote();
  Registry *reg = api ? registryOrNote() : nullptr;
  if (!reg || !isOwnedStream(reg, static_cast<CUstream>(stream), true))
    return; // Borrowed: never destroyed by us.
  check(api->StreamDestroy(static_cast<CUstream>(stream)), "cuStreamDestroy");
}

void mgpuStreamWaitEvent(void *stream, void *event) {
  const DriverApi *api = driverOrNote();
  if (!api || !activateDefault())
    return;
  check(api->StreamWaitEvent(toDriverStream(stream),
                             static_cast<CUevent>(event), 0),
        "cuStreamWaitEvent");
}

void *mgpuEventCreate(void) {
  const DriverApi *api = driverOrNote();
  if (!api || !activateDefault())
    return nullptr;
  CUevent event = nullptr;
  if (!check(api->EventCreate(&event, CU_EVENT_DISABLE_TIMING),
             "cuEventCreate"))
    return nullptr;
  return event;
}

void mgpuEventDestroy(void *event) {
  const DriverApi *api = driverOrNote();
  if (!api || !event)
    return;
  check(api->EventDestroy(static_cast<CUevent>(event)), "cuEventDestroy");
}

void mgpuEventSynchronize(void *event) {
  const DriverApi *api = driverOrNote();
  if (!api)
    return;
  check(api->EventSynchronize(static_cast<CUevent>(event)),
        "cuEventSynchronize");
}

void mgpuEventRecord(void *event, void *stream) {
  const DriverApi *api = driverOrNote();
  if (!api || !activateDefault())
    return;
  check(api->EventRecord(static_cast<CUevent>(event), toDriverStream(stream)),
        "cuEventRecord");
}

void *mgpuMemAlloc(uint64_t sizeBytes, void *stream, bool isHostShared) {
  const DriverApi *api = driverOrNote();
  Device *device = api ? activateDefault() : nullptr;
  if (!device || sizeBytes == 0)
    return nullptr;
  if (sizeBytes > SIZE_MAX) {
    noteError(DLRT_ERR_OUT_OF_MEMORY, "mgpuMemAlloc: size exceeds size_t");
    return nullptr;
  }
  if (isHostShared) {
    Registry *reg = registryOrNote();
    if (!reg)
      return nullptr;
    CUdeviceptr ptr = 0;
    if (!check(api->MemAllocManaged(&ptr, static_cast<size_t>(sizeBytes),
                                    CU_MEM_ATTACH_GLOBAL),
               "cuMemAllocManaged"))
      return nullptr;
    void *p = reinterpret_cast<void *>(static_cast<uintptr_t>(ptr));
    bool kept;
    {
      std::lock_guard<std::mutex> lock(reg->mutex);
      kept = reg->managed.push(p);
    }
    if (!kept) {
      api->MemFree(ptr);
      noteError(DLRT_ERR_OUT_OF_MEMORY, "out of memory recording managed "
                                        "memory");
      return nullptr;
    }
    return p;
  }
  void *ptr = nullptr;
  if (int32_t status =
          deviceAlloc(device, static_cast<size_t>(sizeBytes), stream, &ptr))
    noteFailure(status);
  return ptr;
}

void mgpuMemFree(void *ptr, void *stream) {
  const DriverApi *api = driverOrNote();
  if (!api || !ptr)
    return;
  Registry *reg = registryOrNote();
  Device *device = reg ? activateDefault() : nullptr;
  if (!device)
    return;
  if (forgetManagedAllocation(ptr)) {
    check(api->MemFree(toDevicePtr(ptr)), "cuMemFree");
    return;
  }
  if (int32_t status = deviceFree(device, ptr, stream))
    noteFailure(status);
}

void mgpuMemcpy(void *dst, void *src, size_t sizeBytes, void *stream) {
  const DriverApi *api = driverOrNote();
  if (!api || !activateDefault() || sizeBytes == 0)
    return;
  check(api->MemcpyAsync(toDevicePtr(dst), toDevicePtr(src), sizeBytes,
                         toDriverStream(stream)),
        "cuMemcpyAsync");
}

void mgpuMemset32(void *dst, unsigned int value, size_t count, void *stream) {
  const DriverApi *api = driverOrNote();
  if (!api || !activateDefault() || count == 0)
    return;
  check(api->MemsetD32Async(toDevicePtr(dst), value, count,
                            toDriverStream(stream)),
        "cuMemsetD32Async");
}

void mgpuMemset16(void *dst, unsigned short value, size_t count, void *stream) {
  const DriverApi *api = driverOrNote();
  if (!api || !activateDefault() || count == 0)
    return;
  check(api->MemsetD16Async(toDevicePtr(dst), value, count,
                            toDriverStream(stream)),
        "cuMemsetD16Async");
}

} // extern "C"
