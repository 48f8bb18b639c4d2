/*
 * Licensed under the Apache License, Version 2.0.
 */
package io.krabka.remote.storage;

import org.apache.kafka.server.log.remote.storage.RemoteStorageException;

/** Turns anything thrown inside an adapter method into a {@link RemoteStorageException}. */
final class Failures {
    private Failures() {
    }

    /**
     * {@code t} itself when it already is a {@link RemoteStorageException} (native errors arrive
     * as one, or as a subclass), otherwise a new one naming the operation with {@code t} as cause.
     * {@link Error}s are wrapped too: Kafka's {@code RLMTask.run} catches only {@code Exception},
     * and an {@code Error} escaping it makes the broker's {@code ScheduledThreadPoolExecutor}
     * suppress every later run of that partition's copy task, so copying stops silently until a
     * broker restart or leader change.
     */
    static RemoteStorageException wrap(String operation, Throwable t) {
        if (t instanceof RemoteStorageException) {
            return (RemoteStorageException) t;
        }
        if (t instanceof InterruptedException) {
            Thread.currentThread().interrupt();
        }
        return new RemoteStorageException(operation + " failed: " + t, t);
    }
}
