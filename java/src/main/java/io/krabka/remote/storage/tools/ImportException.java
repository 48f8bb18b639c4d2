/*
 * Licensed under the Apache License, Version 2.0.
 */
package io.krabka.remote.storage.tools;

/**
 * Why the import of {@code __remote_log_metadata} stopped: a record that does not decode, an event
 * the durable manager refuses, a store that cannot be written, or a verification that failed. Its
 * message names the record or partition and says what was wrong.
 */
public final class ImportException extends Exception {
    private static final long serialVersionUID = 1L;

    /** A failure described by {@code message}. */
    public ImportException(String message) {
        super(message);
    }

    /** A failure described by {@code message}, caused by {@code cause}. */
    public ImportException(String message, Throwable cause) {
        super(message, cause);
    }
}
