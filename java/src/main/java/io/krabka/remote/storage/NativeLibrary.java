/*
 * Licensed under the Apache License, Version 2.0.
 */
package io.krabka.remote.storage;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads {@code libkrabka_jni.so}, once per class loader that defines this class.
 *
 * <p><b>Where from.</b> By default the library bundled in the jar under
 * {@code /native/linux/x86_64/} is extracted to a new, uniquely named file in the temporary
 * directory ({@code -Dkrabka.native.tmpdir} overrides it, for hosts whose {@code /tmp} is
 * {@code noexec}), checked against the SHA-256 Gradle recorded when it built the jar, loaded with
 * {@link System#load}, and deleted (Linux keeps the mapping). An operator can instead name a file
 * with the {@code native.library.path} plugin setting or {@code -Dkrabka.native.library.path};
 * that file is loaded as is (no checksum: it is the operator's build), and there is no fallback.
 *
 * <p><b>Class loaders.</b> The JVM lets one class loader load a given
 * library file, and binds native methods to the loader of their class. The broker makes a separate
 * child-first loader for {@code remote.log.storage.manager.class.path} and for
 * {@code remote.log.metadata.manager.class.path}, so with both set the RSM and the RLMM each have
 * their own copy of {@link NativeBridge}, and each copy needs the library loaded by its own
 * loader. Hence: each loader extracts its own uniquely named copy (the embedded case), and for an
 * operator's file a JVM-wide system property records which files are already loaded; a second
 * loader loads a private copy of that file instead. Each copy has its own native state, which is
 * fine: the RSM and the RLMM share nothing. With the jar on the broker class path (the
 * recommended set-up) there is one loader and one load.
 *
 * <p>The loading itself is {@link NativeLoader}'s, which needs no Kafka or SLF4J class (the verifier
 * jar uses it directly); this class adds the plugin's setting and the logging, and starts
 * {@link NativeLogs}, which forwards what the native side logs.
 */
final class NativeLibrary {
    /** The plugin setting that overrides the library location. */
    static final String PATH_CONFIG = ConfigKeys.NATIVE_LIBRARY_PATH_CONFIG;
    /** The system property that overrides the library location. */
    static final String PATH_PROPERTY = NativeLoader.PATH_PROPERTY;
    /** The system property naming the directory the bundled library is extracted to. */
    static final String TMPDIR_PROPERTY = NativeLoader.TMPDIR_PROPERTY;
    static final String VERSION_RESOURCE = NativeLoader.VERSION_RESOURCE;

    private static final Logger LOG = LoggerFactory.getLogger(NativeLibrary.class);

    private NativeLibrary() {
    }

    /**
     * Loads the library if this class loader has not yet.
     *
     * @param configuredPath the {@code native.library.path} setting, or null
     * @throws IllegalStateException with a message saying what to do, when it cannot be loaded
     */
    static void load(String configuredPath) {
        String explicit = configuredPath != null ? configuredPath : System.getProperty(PATH_PROPERTY);
        NativeLoader.Outcome outcome = NativeLoader.load(explicit, HINT);
        // Before any storage call, so that what the native side logs while opening a tier reaches
        // this log too.
        NativeLogs.start();
        if (outcome.alreadyLoaded()) {
            if (explicit != null && !explicit.equals(outcome.source)) {
                LOG.warn("The krabka native library is already loaded from {}; ignoring {}={}",
                        outcome.source, PATH_CONFIG, explicit);
            }
            return;
        }
        LOG.info("Loaded krabka native library {} from {}", outcome.version, outcome.source);
    }

    private static final String HINT = "krabka-remote-storage bundles a native library for "
            + "linux/x86_64; on another platform, or with a noexec temporary directory, build "
            + "rust/krabka-jni and set rsm.config." + PATH_CONFIG + " (or -D" + PATH_PROPERTY
            + "), or set -D" + TMPDIR_PROPERTY + " to an executable directory.";
}
