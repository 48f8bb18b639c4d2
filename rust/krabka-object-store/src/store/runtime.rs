//! The tier's own Tokio runtime and the bridge from the synchronous SPI to it.
//!
//! The broker calls the SPI from plain OS threads (through JNI) and tests call
//! it from inside other Tokio runtimes. A call's future is polled once on the
//! caller's thread, inside this runtime's context: one that needs no I/O (a
//! fetch whose object the read cache knows and whose first chunk it holds, an
//! index it holds) completes there, without waking a worker and being woken
//! back, which on a busy broker costs more than the read. A future that waits
//! is *spawned* onto this runtime and the caller waits on a standard-library
//! channel, so a caller needs no runtime of its own, and one that is itself a
//! Tokio worker cannot deadlock the tier's workers.

use {
    super::error::{Result, StoreError},
    std::{
        future::Future,
        panic::{AssertUnwindSafe, catch_unwind},
        sync::mpsc,
        task::{Context, Poll, Waker},
        thread,
    },
    tokio::runtime::{Builder, Handle, Runtime},
};

/// A small multi-thread runtime owned by one tier instance (and shared with
/// the readers it returned). Dropping the last owner shuts it down without
/// blocking, so it may be dropped anywhere, even inside another runtime.
#[derive(Debug)]
pub struct StoreRuntime {
    runtime: Option<Runtime>,
}

impl StoreRuntime {
    /// A runtime with `workers` worker threads named `krabka-tier-*`.
    pub fn new(workers: usize) -> Result<Self> {
        let runtime = Builder::new_multi_thread()
            .worker_threads(workers.max(1))
            .max_blocking_threads(workers.max(1) * 4)
            .thread_name("krabka-tier")
            .enable_all()
            .build()
            .map_err(|source| StoreError::Backend {
                message: "cannot start the object-store tier's runtime".to_owned(),
                source: Some(Box::new(source)),
            })?;
        Ok(Self {
            runtime: Some(runtime),
        })
    }

    /// The runtime's handle, for spawning.
    pub fn handle(&self) -> &Handle {
        match &self.runtime {
            Some(runtime) => runtime.handle(),
            // `runtime` is only taken in `drop`.
            None => unreachable_runtime(),
        }
    }

    /// Runs `future` to completion on this runtime and blocks the calling
    /// thread (any thread) until it is done.
    ///
    /// # Errors
    /// The future's own error, or [`StoreError::Backend`] when the
    /// task died (a panic inside it) or the runtime is shutting down.
    pub fn block_on<F, T>(&self, future: F) -> Result<T>
    where
        F: Future<Output = Result<T>> + Send + 'static,
        T: Send + 'static,
    {
        self.run(future)?
    }

    /// Runs `future`, whatever it returns, to completion in this runtime and
    /// blocks the calling thread until it is done: the bridge for callers
    /// whose futures fail with an error type of their own. The future is
    /// polled once on the calling thread (in this runtime's context, so it
    /// may spawn, time and do I/O); if it is not ready, the rest runs on a
    /// worker, which polls it again at once with its own waker.
    ///
    /// # Errors
    /// [`StoreError::Backend`] when the future panicked or the runtime is
    /// shutting down; the future's output otherwise.
    pub fn run<F, R>(&self, future: F) -> Result<R>
    where
        F: Future<Output = R> + Send + 'static,
        R: Send + 'static,
    {
        let mut future = Box::pin(future);
        let first = {
            let _context = self.handle().enter();
            // A panic in the first poll is the task's failure, as it is on a
            // worker: the caller gets an error, never the unwind.
            catch_unwind(AssertUnwindSafe(|| {
                future
                    .as_mut()
                    .poll(&mut Context::from_waker(Waker::noop()))
            }))
        };
        match first {
            Ok(Poll::Ready(output)) => return Ok(output),
            Ok(Poll::Pending) => {}
            Err(_) => return Err(task_died()),
        }
        let (sender, receiver) = mpsc::sync_channel(1);
        let task = self.handle().spawn(async move {
            // The receiver is gone only when the caller thread died.
            let _ = sender.send(future.await);
        });
        receiver.recv().map_err(|mpsc::RecvError| {
            task.abort();
            task_died()
        })
    }
}

impl Drop for StoreRuntime {
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

#[cold]
fn unreachable_runtime() -> ! {
    // Invariant: `runtime` is `Some` until `Drop::drop`, and no method can run
    // after that.
    unreachable!("the tier runtime is used after drop")
}

/// The error of a call whose future panicked or whose runtime shut down.
fn task_died() -> StoreError {
    StoreError::Backend {
        message: format!(
            "an object-store task of thread {:?} ended without a result (it panicked or the runtime shut down)",
            thread::current().name().unwrap_or("<unnamed>")
        ),
        source: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_on_works_from_a_plain_thread() {
        let runtime = StoreRuntime::new(1).unwrap();
        assert_eq!(runtime.block_on(async { Ok(7) }).unwrap(), 7);
    }

    #[test]
    fn block_on_works_inside_another_runtime_and_drops_there() {
        let outer = Builder::new_current_thread().enable_all().build().unwrap();
        outer.block_on(async {
            let runtime = StoreRuntime::new(1).unwrap();
            let value = runtime
                .block_on(async {
                    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
                    Ok("done")
                })
                .unwrap();
            assert_eq!(value, "done");
            drop(runtime);
        });
    }

    #[test]
    fn a_future_ready_at_once_completes_on_the_callers_thread() {
        let runtime = StoreRuntime::new(1).unwrap();
        let caller = thread::current().id();
        let ran_on = runtime
            .block_on(async { Ok(thread::current().id()) })
            .unwrap();
        assert_eq!(ran_on, caller);
    }

    #[test]
    fn a_future_that_waits_finishes_on_a_worker() {
        let runtime = StoreRuntime::new(1).unwrap();
        let caller = thread::current().id();
        let (first, last) = runtime
            .block_on(async {
                let first = thread::current().id();
                // Registers the first poll's waker with the timer, then is
                // polled again on the worker with the worker's.
                tokio::time::sleep(std::time::Duration::from_millis(5)).await;
                tokio::task::yield_now().await;
                Ok((first, thread::current().id()))
            })
            .unwrap();
        assert_eq!(first, caller);
        assert_ne!(last, caller);
    }

    #[test]
    fn a_task_panicking_on_the_worker_is_a_typed_error() {
        let runtime = StoreRuntime::new(1).unwrap();
        let result: Result<()> = runtime.block_on(async {
            tokio::task::yield_now().await;
            let value: Option<()> = None;
            #[allow(clippy::unnecessary_literal_unwrap)]
            value.expect("deliberate panic in a test task");
            Ok(())
        });
        assert!(matches!(result, Err(StoreError::Backend { .. })));
        // The runtime still serves calls after it.
        assert_eq!(runtime.block_on(async { Ok(3) }).unwrap(), 3);
    }

    #[test]
    fn a_panicking_task_is_a_typed_error() {
        let runtime = StoreRuntime::new(1).unwrap();
        let result: Result<()> = runtime.block_on(async {
            let value: Option<()> = None;
            #[allow(clippy::unnecessary_literal_unwrap)]
            value.expect("deliberate panic in a test task");
            Ok(())
        });
        assert!(matches!(result, Err(StoreError::Backend { .. })));
    }
}
