/*
 * Licensed under the Apache License, Version 2.0.
 */
package io.krabka.remote.storage;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Properties;
import java.util.Set;
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
 * <p><b>Class loaders (Kafka pitfall P14).</b> The JVM lets one class loader load a given
 * library file, and binds native methods to the loader of their class. The broker makes a separate
 * child-first loader for {@code remote.log.storage.manager.class.path} and for
 * {@code remote.log.metadata.manager.class.path}, so with both set the RSM and the RLMM each have
 * their own copy of {@link NativeBridge}, and each copy needs the library loaded by its own
 * loader. Hence: each loader extracts its own uniquely named copy (the embedded case), and for an
 * operator's file a JVM-wide system property records which files are already loaded; a second
 * loader loads a private copy of that file instead. Each copy has its own native state, which is
 * fine: the RSM and the RLMM share nothing. With the jar on the broker class path (the
 * recommended set-up) there is one loader and one load.
 */
final class NativeLibrary {
    /** The plugin setting that overrides the library location. */
    static final String PATH_CONFIG = "native.library.path";
    static final String PATH_DOC = "Absolute path of a libkrabka_jni.so to load instead of the one "
            + "bundled in the jar (for platforms other than linux/x86_64, or a custom build). "
            + "The system property krabka.native.library.path does the same for every plugin.";
    /** The system property that overrides the library location. */
    static final String PATH_PROPERTY = "krabka.native.library.path";
    /** The system property naming the directory the bundled library is extracted to. */
    static final String TMPDIR_PROPERTY = "krabka.native.tmpdir";

    static final String LIBRARY_FILE = "libkrabka_jni.so";
    static final String RESOURCE_DIR = "/native/linux/x86_64/";
    static final String VERSION_RESOURCE = "/io/krabka/remote/storage/krabka-remote-storage.properties";

    /** JVM-wide record of operator-named files already loaded by some class loader. */
    private static final String LOADED_PROPERTY = "io.krabka.remote.storage.native.loaded";

    private static final Logger LOG = LoggerFactory.getLogger(NativeLibrary.class);

    /** Where this class loader's copy of the library came from; null until loaded. */
    private static String loadedFrom;

    private NativeLibrary() {
    }

    /**
     * Loads the library if this class loader has not yet.
     *
     * @param configuredPath the {@code native.library.path} setting, or null
     * @throws IllegalStateException with a message saying what to do, when it cannot be loaded
     */
    static synchronized void load(String configuredPath) {
        String explicit = configuredPath != null ? configuredPath : System.getProperty(PATH_PROPERTY);
        if (loadedFrom != null) {
            if (explicit != null && !explicit.equals(loadedFrom)) {
                LOG.warn("The krabka native library is already loaded from {}; ignoring {}={}",
                        loadedFrom, PATH_CONFIG, explicit);
            }
            return;
        }
        String source;
        try {
            source = explicit != null ? loadExplicit(Paths.get(explicit)) : loadEmbedded();
        } catch (IOException | UnsatisfiedLinkError | SecurityException e) {
            throw new IllegalStateException("Could not load the krabka native library ("
                    + (explicit != null ? explicit : "bundled " + RESOURCE_DIR + LIBRARY_FILE) + "): "
                    + e + ". " + HINT, e);
        }
        String expected = jarVersion();
        String actual;
        try {
            actual = NativeBridge.nativeVersion();
        } catch (Throwable t) {
            throw new IllegalStateException("The krabka native library loaded from " + source
                    + " does not answer: " + t + ". " + HINT, t);
        }
        if (!expected.equals(actual)) {
            throw new IllegalStateException("The krabka native library loaded from " + source
                    + " is version " + actual + " but the plugin jar is version " + expected
                    + ". " + HINT);
        }
        loadedFrom = source;
        LOG.info("Loaded krabka native library {} from {}", actual, source);
    }

    private static final String HINT = "krabka-remote-storage bundles a native library for "
            + "linux/x86_64; on another platform, or with a noexec temporary directory, build "
            + "rust/krabka-jni and set rsm.config." + PATH_CONFIG + " (or -D" + PATH_PROPERTY
            + "), or set -D" + TMPDIR_PROPERTY + " to an executable directory.";

    private static String loadEmbedded() throws IOException {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        if (!os.startsWith("linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) {
            throw new IOException("no bundled library for " + os + "/" + arch);
        }
        String expectedSha256 = resourceText(RESOURCE_DIR + LIBRARY_FILE + ".sha256").trim();
        String tmp = System.getProperty(TMPDIR_PROPERTY, System.getProperty("java.io.tmpdir"));
        Path file = Files.createTempFile(Paths.get(tmp), "libkrabka_jni-", ".so");
        try {
            String actualSha256;
            try (InputStream in = resource(RESOURCE_DIR + LIBRARY_FILE);
                 OutputStream out = Files.newOutputStream(file)) {
                actualSha256 = copyHashing(in, out);
            }
            if (!actualSha256.equalsIgnoreCase(expectedSha256)) {
                throw new IOException("the bundled library's SHA-256 is " + actualSha256
                        + " but the jar recorded " + expectedSha256 + "; the jar is damaged");
            }
            System.load(file.toAbsolutePath().toString());
            return "jar:" + RESOURCE_DIR + LIBRARY_FILE + " (sha256 " + actualSha256 + ")";
        } finally {
            Files.deleteIfExists(file);
        }
    }

    private static String loadExplicit(Path path) throws IOException {
        String canonical = path.toRealPath().toString();
        synchronized (System.getProperties()) {
            Set<String> loaded = new LinkedHashSet<>();
            String recorded = System.getProperty(LOADED_PROPERTY);
            if (recorded != null && !recorded.isEmpty()) {
                loaded.addAll(Arrays.asList(recorded.split(java.io.File.pathSeparator)));
            }
            if (!loaded.contains(canonical)) {
                System.load(canonical);
                loaded.add(canonical);
                System.setProperty(LOADED_PROPERTY, String.join(java.io.File.pathSeparator, loaded));
                return canonical;
            }
        }
        // Another class loader of this JVM holds that file: load a private copy.
        String tmp = System.getProperty(TMPDIR_PROPERTY, System.getProperty("java.io.tmpdir"));
        Path copy = Files.createTempFile(Paths.get(tmp), "libkrabka_jni-", ".so");
        try {
            Files.copy(path, copy, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            System.load(copy.toAbsolutePath().toString());
            return canonical + " (private copy for this class loader)";
        } finally {
            Files.deleteIfExists(copy);
        }
    }

    /** The plugin version recorded in the jar at build time. */
    static String jarVersion() {
        Properties properties = new Properties();
        try (InputStream in = resource(VERSION_RESOURCE)) {
            properties.load(in);
        } catch (IOException e) {
            throw new IllegalStateException("The plugin jar lacks " + VERSION_RESOURCE + "; rebuild it", e);
        }
        return properties.getProperty("version", "unknown");
    }

    private static InputStream resource(String name) throws IOException {
        InputStream in = NativeLibrary.class.getResourceAsStream(name);
        if (in == null) {
            throw new IOException("resource " + name + " is missing from the plugin jar");
        }
        return in;
    }

    private static String resourceText(String name) throws IOException {
        try (InputStream in = resource(name)) {
            return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
        }
    }

    private static String copyHashing(InputStream in, OutputStream out) throws IOException {
        MessageDigest digest;
        try {
            digest = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IOException("SHA-256 is unavailable", e);
        }
        byte[] buffer = new byte[64 * 1024];
        int n;
        while ((n = in.read(buffer)) > 0) {
            digest.update(buffer, 0, n);
            out.write(buffer, 0, n);
        }
        StringBuilder hex = new StringBuilder();
        for (byte b : digest.digest()) {
            hex.append(String.format("%02x", b));
        }
        return hex.toString();
    }
}
