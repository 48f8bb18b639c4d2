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

/**
 * The loading of {@code libkrabka_jni.so} behind {@link NativeLibrary}, with nothing but the JDK:
 * no Kafka class and no SLF4J, so that the verifier jar ({@link WormVerify}) can load the library
 * on a bare {@code java -jar}. {@link NativeLibrary} describes where the library comes from and
 * how class loaders share it; the plugin calls it, and it logs what this class did.
 */
final class NativeLoader {
    /** The system property that overrides the library location. */
    static final String PATH_PROPERTY = "krabka.native.library.path";
    /** The system property naming the directory the bundled library is extracted to. */
    static final String TMPDIR_PROPERTY = "krabka.native.tmpdir";

    static final String LIBRARY_FILE = "libkrabka_jni.so";
    static final String RESOURCE_DIR = "/native/linux/x86_64/";
    static final String VERSION_RESOURCE = "/io/krabka/remote/storage/krabka-remote-storage.properties";

    /** JVM-wide record of operator-named files already loaded by some class loader. */
    private static final String LOADED_PROPERTY = "io.krabka.remote.storage.native.loaded";

    /** Where this class loader's copy of the library came from; null until loaded. */
    private static String loadedFrom;

    /** What {@link #load} did. */
    static final class Outcome {
        /** Where the library came from (this call's, or the earlier load's). */
        final String source;
        /** The library's version, null when it was already loaded. */
        final String version;

        Outcome(String source, String version) {
            this.source = source;
            this.version = version;
        }

        /** Whether an earlier call had loaded it. */
        boolean alreadyLoaded() {
            return version == null;
        }
    }

    private NativeLoader() {
    }

    /**
     * Loads the library if this class loader has not yet, and checks that its version is the
     * jar's.
     *
     * @param explicit a file to load as is instead of the bundled library, or null
     * @param hint what to do about a failure, appended to the message
     * @return where the library came from
     * @throws IllegalStateException with a message saying what to do, when it cannot be loaded
     */
    static synchronized Outcome load(String explicit, String hint) {
        if (loadedFrom != null) {
            return new Outcome(loadedFrom, null);
        }
        String source;
        try {
            source = explicit != null ? loadExplicit(Paths.get(explicit)) : loadEmbedded();
        } catch (IOException | UnsatisfiedLinkError | SecurityException e) {
            throw new IllegalStateException("Could not load the krabka native library ("
                    + (explicit != null ? explicit : "bundled " + RESOURCE_DIR + LIBRARY_FILE) + "): "
                    + e + ". " + hint, e);
        }
        String expected = jarVersion();
        String actual;
        try {
            actual = NativeBridge.nativeVersion();
        } catch (Throwable t) {
            throw new IllegalStateException("The krabka native library loaded from " + source
                    + " does not answer: " + t + ". " + hint, t);
        }
        if (!expected.equals(actual)) {
            throw new IllegalStateException("The krabka native library loaded from " + source
                    + " is version " + actual + " but the jar is version " + expected
                    + ". " + hint);
        }
        loadedFrom = source;
        return new Outcome(source, actual);
    }

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

    /** The version recorded in the jar at build time. */
    static String jarVersion() {
        Properties properties = new Properties();
        try (InputStream in = resource(VERSION_RESOURCE)) {
            properties.load(in);
        } catch (IOException e) {
            throw new IllegalStateException("The jar lacks " + VERSION_RESOURCE + "; rebuild it", e);
        }
        return properties.getProperty("version", "unknown");
    }

    private static InputStream resource(String name) throws IOException {
        InputStream in = NativeLoader.class.getResourceAsStream(name);
        if (in == null) {
            throw new IOException("resource " + name + " is missing from the jar");
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
