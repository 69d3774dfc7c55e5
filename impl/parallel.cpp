#include "impl/parallel.hpp"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace aclnn_cpu {

int num_threads() {
  if (const char *s = std::getenv("ACLNN_CPU_NUM_THREADS")) {
    const int n = std::atoi(s);
    if (n >= 1) return std::min(n, 256);
  }
  const unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : static_cast<int>(std::min(hw, 256u));
}

namespace {

// One job at a time (concurrent callers serialize). The caller publishes a Job on its stack;
// workers that wake take one of its slots, claim chunk indices from its atomic counter, and hold a
// reference until they leave it, so the caller never returns while a worker still reads it.
class Pool {
 public:
  void run(int64_t chunks, const std::function<void(int64_t)> &chunk_body, int threads) {
    std::lock_guard job_lock(job_mutex_);
    if (stopped_) threads = 1;  // after stop_at_exit the caller does every chunk itself
    ensure_workers(threads - 1);
    Job job;
    job.body = &chunk_body;
    job.chunks = chunks;
    job.slots = threads - 1;
    {
      std::lock_guard lock(mutex_);
      job_ = &job;
      ++generation_;
    }
    wake_.notify_all();
    drain(job);
    std::unique_lock lock(mutex_);
    done_.wait(lock, [&] { return job.completed == job.chunks && job.refs == 0; });
    job_ = nullptr;
    if (job.error) std::rethrow_exception(job.error);  // every chunk has finished
  }

  // After fork() only the calling thread exists in the child: forget the parent's workers.
  void forget_after_fork() {
    new (&mutex_) std::mutex;
    new (&job_mutex_) std::mutex;
    new (&wake_) std::condition_variable;
    new (&done_) std::condition_variable;
    for (auto &w : workers_) w.detach();
    workers_.clear();
    job_ = nullptr;
  }

  // Joins the workers for good (kJoinWorkersAtExit, parallel.hpp); later jobs run on the caller.
  void stop_at_exit() {
    std::lock_guard job_lock(job_mutex_);
    {
      std::lock_guard lock(mutex_);
      stopped_ = true;
      ++generation_;
    }
    wake_.notify_all();
    for (auto &w : workers_)
      if (w.get_id() != std::this_thread::get_id()) w.join();
    workers_.clear();
  }

 private:
  struct Job {
    const std::function<void(int64_t)> *body = nullptr;
    int64_t chunks = 0;
    std::atomic<int64_t> next{0};
    int64_t completed = 0;  // guarded by mutex_
    int slots = 0;          // guarded by mutex_
    int refs = 0;           // guarded by mutex_
    std::exception_ptr error;  // the first chunk's exception, guarded by mutex_
  };

  void ensure_workers(int wanted) {
    while (static_cast<int>(workers_.size()) < wanted) workers_.emplace_back([this] { worker(); });
  }

  void worker() {
    uint64_t seen = 0;
    for (;;) {
      Job *job;
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [&] { return generation_ != seen; });
        if (stopped_) return;
        seen = generation_;
        job = job_;
        if (job == nullptr || job->slots == 0) continue;
        --job->slots;
        ++job->refs;
      }
      drain(*job);
      std::lock_guard lock(mutex_);
      --job->refs;
      done_.notify_all();
    }
  }

  void drain(Job &job) {
    for (;;) {
      const int64_t c = job.next.fetch_add(1);
      if (c >= job.chunks) return;
      // An exception on a worker would terminate the process: it is kept for the caller, and the
      // chunk still counts as completed so that the caller's wait ends.
      std::exception_ptr error;
      try {
        (*job.body)(c);
      } catch (...) {
        error = std::current_exception();
      }
      std::lock_guard lock(mutex_);
      if (error && !job.error) job.error = error;
      if (++job.completed == job.chunks) done_.notify_all();
    }
  }

  std::mutex job_mutex_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  std::vector<std::thread> workers_;
  Job *job_ = nullptr;
  uint64_t generation_ = 0;
  bool stopped_ = false;  // guarded by mutex_ (and job_mutex_)
};

Pool &pool() {
  static Pool *p = [] {
    auto *q = new Pool;  // never destroyed: workers block forever on it
    pthread_atfork(nullptr, nullptr, [] { pool().forget_after_fork(); });
    // Registered after the sanitizer's own exit handler, so it runs before the leak check.
    if (kJoinWorkersAtExit) std::atexit([] { pool().stop_at_exit(); });
    return q;
  }();
  return *p;
}

}  // namespace

void parallel_for(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)> &body) {
  if (n <= 0) return;
  grain = std::max<int64_t>(grain, 1);
  const int threads = num_threads();
  const int64_t max_chunks = (n + grain - 1) / grain;
  // Several chunks per thread balance uneven work; chunk bounds are a pure function of
  // (n, chunks), and chunks only of n, grain and the thread count.
  const int64_t chunks = std::min<int64_t>(max_chunks, int64_t{threads} * 4);
  if (threads == 1 || chunks == 1) {
    body(0, n);
    return;
  }
  const auto chunk_body = [&](int64_t c) {
    const int64_t b = n * c / chunks, e = n * (c + 1) / chunks;
    if (b < e) body(b, e);
  };
  const std::function<void(int64_t)> f = chunk_body;
  pool().run(chunks, f, threads);
}

}  // namespace aclnn_cpu
