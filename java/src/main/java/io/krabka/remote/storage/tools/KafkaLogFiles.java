/*
 * Licensed under the Apache License, Version 2.0.
 */
package io.krabka.remote.storage.tools;

import java.io.Closeable;
import java.io.File;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;

/**
 * Reads a partition's {@code .log} segment files with Kafka's own {@code FileRecords}, from the
 * kafka-clients jar of the broker the tool runs with.
 *
 * <p>Kafka 4.0 keeps the record classes in {@code org.apache.kafka.common.record}; 4.3 and 4.4 keep
 * them in {@code org.apache.kafka.common.record.internal}, with the same methods. So they are looked
 * up by name once, in whichever package the class path has, and called through the methods of
 * their interfaces ({@code RecordBatch}, {@code Record}).
 */
final class KafkaLogFiles {
    private static final String[] PACKAGES = {
        "org.apache.kafka.common.record.internal.", "org.apache.kafka.common.record."};

    private final Method open;
    private final Method batches;
    private final Method sizeInBytes;
    private final Method close;
    private final Method ensureValid;
    private final Method isControlBatch;
    private final Method lastOffset;
    private final Method batchSize;
    private final Method recordOffset;
    private final Method hasValue;
    private final Method value;

    private KafkaLogFiles(String pkg) throws ReflectiveOperationException {
        Class<?> fileRecords = Class.forName(pkg + "FileRecords");
        Class<?> recordBatch = Class.forName(pkg + "RecordBatch");
        Class<?> record = Class.forName(pkg + "Record");
        open = fileRecords.getMethod("open", File.class, boolean.class);
        batches = fileRecords.getMethod("batches");
        sizeInBytes = fileRecords.getMethod("sizeInBytes");
        close = fileRecords.getMethod("close");
        ensureValid = recordBatch.getMethod("ensureValid");
        isControlBatch = recordBatch.getMethod("isControlBatch");
        lastOffset = recordBatch.getMethod("lastOffset");
        batchSize = recordBatch.getMethod("sizeInBytes");
        recordOffset = record.getMethod("offset");
        hasValue = record.getMethod("hasValue");
        value = record.getMethod("value");
    }

    /**
     * Kafka's record classes from the class path.
     *
     * @throws ImportException when no supported kafka-clients jar is on the class path
     */
    static KafkaLogFiles load() throws ImportException {
        ReflectiveOperationException last = null;
        for (String pkg : PACKAGES) {
            try {
                return new KafkaLogFiles(pkg);
            } catch (ReflectiveOperationException e) {
                last = e;
            }
        }
        throw new ImportException("Kafka's record classes (FileRecords) are not on the class path: "
                + "put the broker's libs/* on it (" + last + ")");
    }

    /** One record of a segment file: its offset and value. */
    static final class LogRecord {
        final long offset;
        /** The value, or null when the record has none. */
        final byte[] value;

        LogRecord(long offset, byte[] value) {
            this.offset = offset;
            this.value = value;
        }
    }

    /** Receives the records of a file, in order. */
    interface RecordSink {
        /** Takes one record. */
        void accept(LogRecord record) throws ImportException;
    }

    /** An open segment file. */
    final class Segment implements Closeable {
        private final File file;
        private final Object records;

        private Segment(File file) throws ImportException {
            this.file = file;
            this.records = call(null, open, file, false);
        }

        /** The file's size in bytes. */
        int size() throws ImportException {
            return (Integer) call(records, sizeInBytes);
        }

        /**
         * The last offset of the file's whole batches (-1 when it has none), reading only their
         * headers.
         */
        long lastOffset() throws ImportException {
            long last = -1;
            try {
                for (Object batch : batchIterable()) {
                    last = (Long) call(batch, lastOffset);
                }
            } catch (RuntimeException e) {
                throw new ImportException("cannot read " + file + ": " + e);
            }
            return last;
        }

        /**
         * Checks every batch's CRC and passes the records of the data batches (control batches
         * are skipped) to {@code sink}, in order; the number of bytes the whole batches hold
         * (less than {@link #size} when the file ends in an incomplete batch).
         *
         * @throws ImportException on a batch that fails its CRC or does not decode
         */
        int read(RecordSink sink) throws ImportException {
            try {
                return readBatches(sink);
            } catch (RuntimeException e) {
                // Kafka's iterators throw unchecked exceptions (CorruptRecordException,
                // KafkaException around an IOException or a failed decompression).
                throw new ImportException("cannot read " + file + ": " + e);
            }
        }

        private int readBatches(RecordSink sink) throws ImportException {
            int bytes = 0;
            for (Object batch : batchIterable()) {
                try {
                    call(batch, ensureValid);
                } catch (ImportException e) {
                    throw new ImportException("corrupt batch at byte " + bytes + " of " + file + ": "
                            + e.getMessage());
                }
                bytes += (Integer) call(batch, batchSize);
                if ((Boolean) call(batch, isControlBatch)) {
                    continue;
                }
                for (Object record : (Iterable<?>) batch) {
                    long offset = (Long) call(record, recordOffset);
                    byte[] bytesOfValue = null;
                    if ((Boolean) call(record, hasValue)) {
                        ByteBuffer buffer = (ByteBuffer) call(record, value);
                        bytesOfValue = new byte[buffer.remaining()];
                        buffer.get(bytesOfValue);
                    }
                    sink.accept(new LogRecord(offset, bytesOfValue));
                }
            }
            return bytes;
        }

        private Iterable<?> batchIterable() throws ImportException {
            return (Iterable<?>) call(records, batches);
        }

        @Override
        public void close() throws IOException {
            try {
                call(records, close);
            } catch (ImportException e) {
                throw new IOException("cannot close " + file + ": " + e.getMessage(), e);
            }
        }
    }

    /**
     * Opens {@code file} read-only.
     *
     * @throws ImportException when it cannot be opened
     */
    Segment open(File file) throws ImportException {
        return new Segment(file);
    }

    /**
     * {@code method} on {@code target}; whatever Kafka throws (an {@code IOException}, a
     * {@code CorruptRecordException}, a {@code KafkaException} of a batch that does not decode)
     * becomes an {@link ImportException} with its message.
     */
    private static Object call(Object target, Method method, Object... args) throws ImportException {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw new ImportException(cause.getClass().getSimpleName() + ": " + cause.getMessage());
        } catch (IllegalAccessException e) {
            throw new ImportException("cannot call Kafka's " + method + ": " + e.getMessage());
        }
    }
}
