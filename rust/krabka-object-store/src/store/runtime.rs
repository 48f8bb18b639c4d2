//! The tier's own Tokio runtime and the bridge from the synchronous SPI to it.
//!
//! The broker calls the SPI from plain OS threads (through JNI) and tests call
//! it from inside other Tokio runtimes. Both work because every call is
//! *spawned* onto this runtime and the caller waits on a standard-library
//! channel: the caller's own thread never polls a future, so it needs no
//! runtime, and a caller that is itself a Tokio worker cannot deadlock the
//! tier's workers.

use {
    super::error::{Result, StoreError},
    std::{future::Future, sync::mpsc, thread},
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

    /// Runs `future`, whatever it returns, to completion on this runtime and
    /// blocks the calling thread until it is done: the bridge for callers
    /// whose futures fail with an error type of their own.
    ///
    /// # Errors
    /// [`StoreError::Backend`] when the task died (a panic inside it) or the
    /// runtime is shutting down; the future's output otherwise.
    pub fn run<F, R>(&self, future: F) -> Result<R>
    where
        F: Future<Output = R> + Send + 'static,
        R: Send + 'static,
    {
        let (sender, receiver) = mpsc::sync_channel(1);
        let task = self.handle().spawn(async move {
            // The receiver is gone only when the caller thread died.
            let _ = sender.send(future.await);
        });
        match receiver.recv() {
            Ok(output) => Ok(output),
            Err(mpsc::RecvError) => {
                task.abort();
                Err(StoreError::Backend {
                    message: format!(
                        "an object-store task on thread {:?} ended without a result (it panicked or the runtime shut down)",
                        thread::current().name().unwrap_or("<unnamed>")
                    ),
                    source: None,
                })
            }
        }
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
