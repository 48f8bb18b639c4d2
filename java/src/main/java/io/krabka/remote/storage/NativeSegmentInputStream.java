/*
 * Licensed under the Apache License, Version 2.0.
 */
package io.krabka.remote.storage;

import java.io.IOException;
import java.io.InputStream;
import java.util.Objects;

/**
 * A remote segment streamed from the native library. Bytes cross JNI in bulk: small reads (the
 * broker reads a 12-byte batch header, then the batch) are served from a 64 KiB buffer, and
 * reads of at least that size go straight into the caller's array, up to 1 MiB per crossing.
 * {@link #close()} stops the transfer and frees the native stream; a stream never closed is freed
 * by a {@link java.lang.ref.Cleaner} once unreachable (the broker does not close a stream whose
 * first batch fails to parse).
 */
final class NativeSegmentInputStream extends InputStream {
    /** Buffer for small reads, and the least a native read asks for. */
    static final int BUFFER_SIZE = 64 * 1024;

    private final NativeResource stream;
    private byte[] buffer;
    private int position;
    private int limit;
    private boolean eof;

    NativeSegmentInputStream(long handle) {
        this.stream = new NativeResource(this, "segment stream", handle, NativeBridge::streamClose);
    }

    @Override
    public int read() throws IOException {
        if (position == limit && !fill()) {
            return -1;
        }
        return buffer[position++] & 0xff;
    }

    @Override
    public int read(byte[] dst, int off, int len) throws IOException {
        Objects.checkFromIndexSize(off, len, dst.length);
        if (len == 0) {
            return 0;
        }
        if (position < limit) {
            int n = Math.min(len, limit - position);
            System.arraycopy(buffer, position, dst, off, n);
            position += n;
            return n;
        }
        if (len >= BUFFER_SIZE) {
            return nativeRead(dst, off, len);
        }
        if (!fill()) {
            return -1;
        }
        int n = Math.min(len, limit);
        System.arraycopy(buffer, 0, dst, off, n);
        position = n;
        return n;
    }

    @Override
    public int available() {
        return limit - position;
    }

    @Override
    public void close() {
        stream.close();
        buffer = null;
        position = 0;
        limit = 0;
    }

    /** Refills the buffer; false at the end of the stream. */
    private boolean fill() throws IOException {
        if (buffer == null) {
            buffer = new byte[BUFFER_SIZE];
        }
        int n = nativeRead(buffer, 0, BUFFER_SIZE);
        position = 0;
        limit = Math.max(n, 0);
        return n > 0;
    }

    private int nativeRead(byte[] dst, int off, int len) throws IOException {
        if (stream.isClosed()) {
            throw new IOException("segment stream is closed");
        }
        if (eof) {
            return -1;
        }
        try {
            int n = NativeBridge.streamRead(stream.handle(), dst, off, len);
            if (n < 0) {
                eof = true;
            }
            return n;
        } catch (Throwable t) {
            throw new IOException("reading the remote segment failed: " + t.getMessage(), t);
        }
    }
}
