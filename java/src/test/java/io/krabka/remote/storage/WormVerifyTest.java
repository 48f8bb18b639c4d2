/*
 * Licensed under the Apache License, Version 2.0.
 */
package io.krabka.remote.storage;

import static org.junit.Assert.assertEquals;

import org.junit.BeforeClass;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * The verifier jar's main class reaches the Rust command line and returns its exit codes. The jar
 * itself is compared with the binary, byte for byte, by {@code rust/krabka-worm-verify/tests/jar.rs}
 * (run by {@code scripts/test.d/60-java.sh}).
 */
public class WormVerifyTest {
    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    /** RFC 8032 test 1 public key: any valid Ed25519 point will do. */
    private static final String KEY = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a";

    @BeforeClass
    public static void load() {
        NativeLibrary.load(null);
    }

    @Test
    public void aUsageErrorIsExitCode64() {
        assertEquals(64, WormVerify.runAndReport(new String[] {"--local", tmp.getRoot().toString()}));
        assertEquals(64, WormVerify.runAndReport(new String[] {"--no-such-option"}));
    }

    @Test
    public void anArchiveThatCannotBeReadIsExitCode3() {
        String absent = tmp.getRoot().toPath().resolve("absent").toString();
        assertEquals(3, WormVerify.runAndReport(
                new String[] {"--local", absent, "--key-id", "k1", "--public-key", KEY}));
    }

    @Test
    public void anEmptyArchiveVerifies() {
        assertEquals(0, WormVerify.runAndReport(
                new String[] {"--local", tmp.getRoot().toString(), "--key-id", "k1", "--public-key", KEY,
                    "--json"}));
    }

    @Test
    public void helpIsExitCode0() {
        assertEquals(0, WormVerify.runAndReport(new String[] {"--help"}));
    }
}
