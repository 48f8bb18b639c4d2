/*
 * Licensed under the Apache License, Version 2.0.
 */
package io.krabka.remote.storage;

import java.lang.ref.Cleaner;
import org.apache.kafka.server.log.remote.storage.RemoteStorageException;

/**
 * Ownership of one native handle by one Java object. {@link #close()} releases it at most once
 * (the {@link Cleaner} guarantees that); if the owner is never closed, the cleaner releases the
 * handle when the owner becomes unreachable. Releasing only forgets the handle on the native side:
 * a native call still running keeps its state alive until it returns, so closing under a running
 * call is safe. Calls after close fail with {@link IllegalStateException}.
 */
final class NativeResource implements AutoCloseable {
    private static final Cleaner CLEANER = Cleaner.create(runnable -> {
        Thread thread = new Thread(runnable, "krabka-native-cleaner");
        thread.setDaemon(true);
        return thread;
    });

    /** Releases a handle; must not capture the owner. */
    interface Release {
        void release(long handle) throws RemoteStorageException;
    }

    private final String what;
    private final State state;
    private final Cleaner.Cleanable cleanable;

    /**
     * Takes ownership of {@code handle} for {@code owner}.
     *
     * @param owner the object whose reachability keeps the handle alive
     * @param what what the handle is, for messages
     * @param handle the native handle
     * @param release the native release function (a static method reference)
     */
    NativeResource(Object owner, String what, long handle, Release release) {
        this.what = what;
        this.state = new State(handle, release);
        this.cleanable = CLEANER.register(owner, state);
    }

    /** The handle, for a native call. */
    long handle() {
        if (state.released) {
            throw new IllegalStateException(what + " is closed");
        }
        return state.handle;
    }

    boolean isClosed() {
        return state.released;
    }

    @Override
    public void close() {
        cleanable.clean();
    }

    /** The cleaning action: a static nested class so it never refers to the owner. */
    private static final class State implements Runnable {
        private final long handle;
        private final Release release;
        private volatile boolean released;

        State(long handle, Release release) {
            this.handle = handle;
            this.release = release;
        }

        @Override
        public void run() {
            released = true;
            try {
                release.release(handle);
            } catch (Throwable ignored) {
                // Releasing only removes a registry entry; nothing useful can be done here, and
                // the cleaner thread must survive.
            }
        }
    }
}
