//===- CudaReleaser.cpp - Release callbacks after GPU work, off-thread ----===//
//
// The releaser state is allocated once and never destroyed, so calls made
// from static destructors after the thread was joined still find it (and are
// told to finish synchronously). The thread is joined by a static object's
// destructor, registered when the thread starts, so it runs at exit and when
// libdlrt is unloaded.
//
//===----------------------------------------------------------------------===//

#include "CudaReleaser.h"

#include "CudaDriver.h"

#include <pthread.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <new>

using namespace dlrt::cuda;

namespace {

struct Entry {
  dlrt_internal_poll_fn poll;
  void *context;
  void *token;
  void (*release)(void *); // one of release/releaseWithContext
  void (*releaseWithContext)(void *, void *);
  void *arg;
};

void finish(const Entry &e) {
  if (e.release)
    e.release(e.arg);
  else
    e.releaseWithContext(e.context, e.arg);
}

class Releaser {
public:
  int32_t enqueue(const Entry &e);
  void shutdown();

private:
  static void *threadMain(void *self);
  void run();

  std::mutex mutex;
  std::condition_variable wake;
  PodVector<Entry> pending;
  pthread_t thread{};
  bool started = false;
  bool stopping = false;
};

Releaser *releaser() {
  static Releaser *instance = new (std::nothrow) Releaser();
  return instance;
}

/// Joins the thread when the process exits or libdlrt is unloaded.
struct ShutdownAtExit {
  ~ShutdownAtExit() {
    if (Releaser *r = releaser())
      r->shutdown();
  }
};

int32_t Releaser::enqueue(const Entry &e) {
  std::unique_lock<std::mutex> lock(mutex);
  if (stopping)
    return DLRT_ERR_UNSUPPORTED;
  if (!started) {
    // Register the exit hook before the thread exists, so it is destroyed
    // (and joins) before anything registered earlier.
    static ShutdownAtExit hook;
    (void)hook;
    if (pthread_create(&thread, nullptr, threadMain, this) != 0)
      return DLRT_ERR_UNSUPPORTED;
    started = true;
  }
  if (!pending.push(e))
    return DLRT_ERR_OUT_OF_MEMORY;
  lock.unlock();
  wake.notify_one();
  return DLRT_OK;
}

void Releaser::shutdown() {
  std::unique_lock<std::mutex> lock(mutex);
  if (stopping)
    return;
  stopping = true;
  bool join = started && !pthread_equal(thread, pthread_self());
  lock.unlock();
  wake.notify_one();
  if (join)
    pthread_join(thread, nullptr);
}

void *Releaser::threadMain(void *self) {
  static_cast<Releaser *>(self)->run();
  return nullptr;
}

void Releaser::run() {
  using namespace std::chrono;
  const microseconds minBackoff(20), maxBackoff(1000);
  microseconds backoff = minBackoff;
  PodVector<Entry> batch, notDone;
  std::unique_lock<std::mutex> lock(mutex);
  for (;;) {
    if (pending.empty()) {
      if (stopping)
        return;
      backoff = minBackoff;
      wake.wait(lock);
      continue;
    }
    bool wait = stopping; // At exit: block on each remaining entry.
    batch.swap(pending);
    lock.unlock();

    bool progress = false;
    notDone.clear();
    for (size_t i = 0; i < batch.size(); ++i) {
      const Entry &e = batch[i];
      if (e.poll(e.context, e.token, wait ? 1 : 0)) {
        finish(e);
        progress = true;
      } else if (!notDone.push(e)) {
        e.poll(e.context, e.token, 1); // Cannot keep it queued: wait here.
        finish(e);
      }
    }
    batch.clear();

    lock.lock();
    // Entries queued meanwhile stay in `pending`; put the unfinished back.
    for (size_t i = 0; i < notDone.size(); ++i) {
      if (!pending.push(notDone[i])) {
        lock.unlock();
        notDone[i].poll(notDone[i].context, notDone[i].token, 1);
        finish(notDone[i]);
        lock.lock();
      }
    }
    if (progress) {
      backoff = minBackoff;
      continue;
    }
    if (!pending.empty() && !stopping) {
      // Nothing finished: sleep, unless a new entry or shutdown wakes us.
      wake.wait_for(lock, backoff);
      backoff = backoff * 2 > maxBackoff ? maxBackoff : backoff * 2;
    }
  }
}

} // namespace

int32_t dlrt::cuda::deferUntil(dlrt_internal_poll_fn poll, void *context,
                               void *token,
                               void (*release)(void *context, void *arg),
                               void *arg) {
  Releaser *r = releaser();
  if (!r)
    return DLRT_ERR_OUT_OF_MEMORY;
  return r->enqueue(Entry{poll, context, token, nullptr, release, arg});
}

extern "C" int32_t dlrt_internal_defer_until(dlrt_internal_poll_fn poll,
                                             void *context, void *token,
                                             void (*release)(void *),
                                             void *arg) {
  if (!poll || !release)
    return dlrt_set_error(nullptr, DLRT_ERR_INVALID_ARGUMENT,
                          "dlrt_internal_defer_until: poll or release is NULL");
  Releaser *r = releaser();
  if (!r)
    return DLRT_ERR_OUT_OF_MEMORY;
  return r->enqueue(Entry{poll, context, token, release, nullptr, arg});
}
