/*
 * Licensed under the Apache License, Version 2.0.
 */
package io.krabka.remote.storage;

/**
 * The main class of the verifier jar: {@code java -jar krabka-worm-verify.jar <options>} audits a
 * write-once archive exactly as the {@code krabka-worm-verify} binary does, because it runs the
 * same Rust code ({@code rust/krabka-worm-verify}, through {@code rust/krabka-jni}): the same
 * options, the same report on standard output, the same messages on standard error, the same
 * exit codes (0 verified, 1 evidence of tampering, 2 incomplete attestation, 3 could not read the
 * archive, 64 usage error). See {@code docs/worm.md}.
 *
 * <p>It needs nothing but the JDK and the jar: {@link NativeLoader} extracts the bundled library
 * and checks its SHA-256 without Kafka's or SLF4J's classes ({@code -Dkrabka.native.library.path}
 * and {@code -Dkrabka.native.tmpdir} work as for the plugin). When the library cannot be loaded,
 * or anything else fails outside the verifier, it prints why and exits with 3.
 */
public final class WormVerify {
    /** Exit code when the verifier could not run (as for an unreadable archive). */
    static final int EXIT_FAILED = 3;

    private WormVerify() {
    }

    /**
     * Runs the verifier and exits with its code.
     *
     * @param args the verifier's options, as for the binary
     */
    public static void main(String[] args) {
        System.exit(runAndReport(args));
    }

    /** The verifier's exit code; failures to start it are printed and give {@link #EXIT_FAILED}. */
    static int runAndReport(String[] args) {
        try {
            NativeLoader.load(System.getProperty(NativeLoader.PATH_PROPERTY), HINT);
            // The native code writes to file descriptors 1 and 2 directly.
            System.out.flush();
            System.err.flush();
            return run(args);
        } catch (Throwable t) {
            System.out.flush();
            System.err.println("krabka-worm-verify: internal error: " + t);
            System.err.flush();
            return EXIT_FAILED;
        }
    }

    private static final String HINT = "The jar bundles a native library for linux/x86_64; on "
            + "another platform, or with a noexec temporary directory, build rust/krabka-jni and "
            + "pass -D" + NativeLoader.PATH_PROPERTY + "=<path of libkrabka_jni.so>, or set -D"
            + NativeLoader.TMPDIR_PROPERTY + " to an executable directory.";

    /**
     * Runs {@code krabka-worm-verify} with {@code args} in Rust; never throws for a verification
     * failure or a Rust panic, both are exit codes.
     */
    static native int run(String[] args);
}
