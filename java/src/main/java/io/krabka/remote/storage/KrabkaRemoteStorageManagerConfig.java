/*
 * Licensed under the Apache License, Version 2.0.
 */
package io.krabka.remote.storage;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.ValidString;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/**
 * Configuration of {@link KrabkaRemoteStorageManager}: the broker's {@code rsm.config.<key>}
 * properties with the prefix removed. Unknown keys and invalid values fail {@code configure()}
 * with a {@link ConfigException} naming the key. {@code docs/configuration.md} is generated from
 * {@link #CONFIG_DEF}.
 */
public final class KrabkaRemoteStorageManagerConfig extends AbstractConfig {
    public static final String BACKEND_CONFIG = "backend";
    private static final String BACKEND_DOC = "The remote tier: <code>filesystem</code> (a directory, "
            + "byte-compatible with Apache Kafka's LocalTieredStorage), <code>s3</code> (Amazon S3 or an "
            + "S3-compatible server) or <code>gcs</code> (Google Cloud Storage).";

    public static final String FILESYSTEM_ROOT_CONFIG = "filesystem.root";
    private static final String FILESYSTEM_ROOT_DOC = "Directory of the filesystem tier; required "
            + "when backend is filesystem. Every broker must see the same directory (a shared mount).";

    public static final String PREFIX_CONFIG = "prefix";
    private static final String PREFIX_DOC = "Key prefix inside the S3 or GCS bucket, without a leading "
            + "or trailing '/'.";

    public static final String S3_BUCKET_CONFIG = "s3.bucket";
    private static final String S3_BUCKET_DOC = "S3 bucket; required when backend is s3.";
    public static final String S3_REGION_CONFIG = "s3.region";
    private static final String S3_REGION_DOC = "S3 region (any non-empty value for S3-compatible "
            + "servers); required when backend is s3.";
    public static final String S3_ENDPOINT_CONFIG = "s3.endpoint";
    private static final String S3_ENDPOINT_DOC = "Endpoint URL of an S3-compatible server; unset "
            + "means AWS.";
    public static final String S3_PATH_STYLE_CONFIG = "s3.path.style";
    private static final String S3_PATH_STYLE_DOC = "Path-style addressing (endpoint/bucket/key) "
            + "instead of virtual-hosted buckets.";
    public static final String S3_ALLOW_HTTP_CONFIG = "s3.allow.http";
    private static final String S3_ALLOW_HTTP_DOC = "Allow a plain http:// endpoint.";
    public static final String S3_ACCESS_KEY_ID_CONFIG = "s3.access.key.id";
    private static final String S3_ACCESS_KEY_ID_DOC = "Static access key id; unset means the ambient "
            + "AWS credential chain (environment, web identity, instance metadata).";
    public static final String S3_SECRET_ACCESS_KEY_CONFIG = "s3.secret.access.key";
    private static final String S3_SECRET_ACCESS_KEY_DOC = "Secret access key for "
            + "s3.access.key.id.";
    public static final String S3_SESSION_TOKEN_CONFIG = "s3.session.token";
    private static final String S3_SESSION_TOKEN_DOC = "Session token for temporary static "
            + "credentials.";

    public static final String GCS_BUCKET_CONFIG = "gcs.bucket";
    private static final String GCS_BUCKET_DOC = "GCS bucket; required when backend is gcs.";
    public static final String GCS_ENDPOINT_CONFIG = "gcs.endpoint";
    private static final String GCS_ENDPOINT_DOC = "Base URL of a GCS-compatible endpoint (an "
            + "emulator); unset means Google.";
    public static final String GCS_ALLOW_HTTP_CONFIG = "gcs.allow.http";
    private static final String GCS_ALLOW_HTTP_DOC = "Allow a plain http:// endpoint.";
    public static final String GCS_SERVICE_ACCOUNT_PATH_CONFIG = "gcs.service.account.path";
    private static final String GCS_SERVICE_ACCOUNT_PATH_DOC = "Path to a service-account JSON "
            + "key file.";
    public static final String GCS_SERVICE_ACCOUNT_KEY_CONFIG = "gcs.service.account.key";
    private static final String GCS_SERVICE_ACCOUNT_KEY_DOC = "A service-account JSON key given "
            + "inline (not together with gcs.service.account.path).";
    public static final String GCS_APPLICATION_CREDENTIALS_PATH_CONFIG =
            "gcs.application.credentials.path";
    private static final String GCS_APPLICATION_CREDENTIALS_PATH_DOC = "Path to application-default "
            + "credentials.";

    public static final String MULTIPART_THRESHOLD_BYTES_CONFIG = "multipart.threshold.bytes";
    private static final String MULTIPART_THRESHOLD_BYTES_DOC = "Objects of at least this many bytes "
            + "are uploaded in parts.";
    public static final String MULTIPART_CHUNK_SIZE_BYTES_CONFIG = "multipart.chunk.size.bytes";
    private static final String MULTIPART_CHUNK_SIZE_BYTES_DOC = "Bytes per part of a multipart "
            + "upload (S3 needs at least 5 MiB).";
    public static final String MAX_RETRIES_CONFIG = "max.retries";
    private static final String MAX_RETRIES_DOC = "Retries of a transient object-store failure.";
    public static final String RETRY_TIMEOUT_MS_CONFIG = "retry.timeout.ms";
    private static final String RETRY_TIMEOUT_MS_DOC = "Total time budget for retrying one request.";
    public static final String REQUEST_TIMEOUT_MS_CONFIG = "request.timeout.ms";
    private static final String REQUEST_TIMEOUT_MS_DOC = "Time budget of one object-store request.";
    public static final String CONNECT_TIMEOUT_MS_CONFIG = "connect.timeout.ms";
    private static final String CONNECT_TIMEOUT_MS_DOC = "Time budget of one connection attempt.";

    public static final String WORM_ENABLED_CONFIG = "worm.enabled";
    private static final String WORM_ENABLED_DOC = "Write-once (WORM) archive mode of the s3 and gcs "
            + "backends (see docs/worm.md): start-up refuses unless the bucket proves it is locked "
            + "(S3 Object Lock in COMPLIANCE mode with a default retention, or a locked GCS retention "
            + "policy); every copy is sealed by a signed manifest on a per-partition hash chain; "
            + "deletes are refused, and Kafka's deletes of a segment only log a warning. Needs "
            + "worm.signing.key.path and worm.key.id; refused with backend filesystem. While false, "
            + "the other worm.* keys are accepted and ignored.";
    public static final String WORM_SIGNING_KEY_PATH_CONFIG = "worm.signing.key.path";
    private static final String WORM_SIGNING_KEY_PATH_DOC = "Unencrypted PKCS#8 Ed25519 private key "
            + "file, DER or PEM (openssl genpkey -algorithm ed25519), that signs the manifests; "
            + "required when worm.enabled is true.";
    public static final String WORM_KEY_ID_CONFIG = "worm.key.id";
    private static final String WORM_KEY_ID_DOC = "The id written into every manifest, under which "
            + "auditors look up the public key; required when worm.enabled is true.";
    public static final String WORM_WRITE_ONLY_CONFIG = "worm.write.only";
    private static final String WORM_WRITE_ONLY_DOC = "Refuse every fetch: the archive is a sink "
            + "that only auditors read, and consumers cannot read tiered data through this broker.";

    public static final String NATIVE_LIBRARY_PATH_CONFIG = NativeLibrary.PATH_CONFIG;

    /**
     * Keys the broker adds on its own; accepted and ignored. Kafka 4.0 passes {@code broker.id};
     * later releases also pass {@code node.id}.
     */
    static final Set<String> BROKER_KEYS = Set.of("broker.id", "node.id");

    /** Keys passed on to the native library. */
    private static final String[] NATIVE_KEYS = {
        BACKEND_CONFIG, FILESYSTEM_ROOT_CONFIG, PREFIX_CONFIG, S3_BUCKET_CONFIG, S3_REGION_CONFIG,
        S3_ENDPOINT_CONFIG, S3_PATH_STYLE_CONFIG, S3_ALLOW_HTTP_CONFIG, S3_ACCESS_KEY_ID_CONFIG,
        S3_SECRET_ACCESS_KEY_CONFIG, S3_SESSION_TOKEN_CONFIG, GCS_BUCKET_CONFIG,
        GCS_ENDPOINT_CONFIG, GCS_ALLOW_HTTP_CONFIG, GCS_SERVICE_ACCOUNT_PATH_CONFIG,
        GCS_SERVICE_ACCOUNT_KEY_CONFIG, GCS_APPLICATION_CREDENTIALS_PATH_CONFIG,
        MULTIPART_THRESHOLD_BYTES_CONFIG, MULTIPART_CHUNK_SIZE_BYTES_CONFIG, MAX_RETRIES_CONFIG,
        RETRY_TIMEOUT_MS_CONFIG, REQUEST_TIMEOUT_MS_CONFIG, CONNECT_TIMEOUT_MS_CONFIG,
        WORM_ENABLED_CONFIG, WORM_SIGNING_KEY_PATH_CONFIG, WORM_KEY_ID_CONFIG, WORM_WRITE_ONLY_CONFIG,
    };

    /** Accepts an unset value or a key id of 1 to 64 characters of [A-Za-z0-9._-]. */
    private static final class KeyIdValidator implements ConfigDef.Validator {
        private static final Pattern KEY_ID = Pattern.compile("[A-Za-z0-9._-]{1,64}");

        @Override
        public void ensureValid(String name, Object value) {
            if (value != null && !value.toString().isEmpty()
                    && !KEY_ID.matcher(value.toString()).matches()) {
                throw new ConfigException(name, value, "expected 1 to 64 characters of [A-Za-z0-9._-]");
            }
        }

        @Override
        public String toString() {
            return "1 to 64 characters of [A-Za-z0-9._-]";
        }
    }

    public static final ConfigDef CONFIG_DEF = new ConfigDef()
            .define(BACKEND_CONFIG, Type.STRING, "filesystem", ValidString.in("filesystem", "s3", "gcs"),
                    Importance.HIGH, BACKEND_DOC)
            .define(FILESYSTEM_ROOT_CONFIG, Type.STRING, null, Importance.HIGH, FILESYSTEM_ROOT_DOC)
            .define(PREFIX_CONFIG, Type.STRING, null, Importance.MEDIUM, PREFIX_DOC)
            .define(S3_BUCKET_CONFIG, Type.STRING, null, Importance.HIGH, S3_BUCKET_DOC)
            .define(S3_REGION_CONFIG, Type.STRING, null, Importance.HIGH, S3_REGION_DOC)
            .define(S3_ENDPOINT_CONFIG, Type.STRING, null, Importance.MEDIUM, S3_ENDPOINT_DOC)
            .define(S3_PATH_STYLE_CONFIG, Type.BOOLEAN, false, Importance.LOW, S3_PATH_STYLE_DOC)
            .define(S3_ALLOW_HTTP_CONFIG, Type.BOOLEAN, false, Importance.LOW, S3_ALLOW_HTTP_DOC)
            .define(S3_ACCESS_KEY_ID_CONFIG, Type.STRING, null, Importance.MEDIUM,
                    S3_ACCESS_KEY_ID_DOC)
            .define(S3_SECRET_ACCESS_KEY_CONFIG, Type.PASSWORD, null, Importance.MEDIUM,
                    S3_SECRET_ACCESS_KEY_DOC)
            .define(S3_SESSION_TOKEN_CONFIG, Type.PASSWORD, null, Importance.LOW,
                    S3_SESSION_TOKEN_DOC)
            .define(GCS_BUCKET_CONFIG, Type.STRING, null, Importance.HIGH, GCS_BUCKET_DOC)
            .define(GCS_ENDPOINT_CONFIG, Type.STRING, null, Importance.MEDIUM, GCS_ENDPOINT_DOC)
            .define(GCS_ALLOW_HTTP_CONFIG, Type.BOOLEAN, false, Importance.LOW, GCS_ALLOW_HTTP_DOC)
            .define(GCS_SERVICE_ACCOUNT_PATH_CONFIG, Type.STRING, null, Importance.MEDIUM,
                    GCS_SERVICE_ACCOUNT_PATH_DOC)
            .define(GCS_SERVICE_ACCOUNT_KEY_CONFIG, Type.PASSWORD, null, Importance.MEDIUM,
                    GCS_SERVICE_ACCOUNT_KEY_DOC)
            .define(GCS_APPLICATION_CREDENTIALS_PATH_CONFIG, Type.STRING, null, Importance.LOW,
                    GCS_APPLICATION_CREDENTIALS_PATH_DOC)
            .define(MULTIPART_THRESHOLD_BYTES_CONFIG, Type.LONG, 104_857_600L, Range.atLeast(1),
                    Importance.LOW, MULTIPART_THRESHOLD_BYTES_DOC)
            .define(MULTIPART_CHUNK_SIZE_BYTES_CONFIG, Type.LONG, 16_777_216L,
                    Range.between(5_242_880L, 5_368_709_120L), Importance.LOW,
                    MULTIPART_CHUNK_SIZE_BYTES_DOC)
            .define(MAX_RETRIES_CONFIG, Type.INT, 10, Range.atLeast(0), Importance.LOW,
                    MAX_RETRIES_DOC)
            .define(RETRY_TIMEOUT_MS_CONFIG, Type.LONG, 180_000L, Range.atLeast(1), Importance.LOW,
                    RETRY_TIMEOUT_MS_DOC)
            .define(REQUEST_TIMEOUT_MS_CONFIG, Type.LONG, 30_000L, Range.atLeast(1),
                    Importance.LOW, REQUEST_TIMEOUT_MS_DOC)
            .define(CONNECT_TIMEOUT_MS_CONFIG, Type.LONG, 5_000L, Range.atLeast(1), Importance.LOW,
                    CONNECT_TIMEOUT_MS_DOC)
            .define(WORM_ENABLED_CONFIG, Type.BOOLEAN, false, Importance.MEDIUM, WORM_ENABLED_DOC)
            .define(WORM_SIGNING_KEY_PATH_CONFIG, Type.STRING, null, Importance.MEDIUM,
                    WORM_SIGNING_KEY_PATH_DOC)
            .define(WORM_KEY_ID_CONFIG, Type.STRING, null, new KeyIdValidator(), Importance.MEDIUM,
                    WORM_KEY_ID_DOC)
            .define(WORM_WRITE_ONLY_CONFIG, Type.BOOLEAN, false, Importance.LOW,
                    WORM_WRITE_ONLY_DOC)
            .define(NATIVE_LIBRARY_PATH_CONFIG, Type.STRING, null, Importance.LOW,
                    NativeLibrary.PATH_DOC);

    /**
     * Parses and validates {@code configs}.
     *
     * @throws ConfigException naming the first unknown, missing or invalid key
     */
    public KrabkaRemoteStorageManagerConfig(Map<String, ?> configs) {
        super(CONFIG_DEF, ConfigChecks.knownOnly(configs, CONFIG_DEF, BROKER_KEYS, Set.of()),
                false);
        switch (getString(BACKEND_CONFIG)) {
            case "filesystem":
                ConfigChecks.require(this, FILESYSTEM_ROOT_CONFIG, "filesystem");
                break;
            case "s3":
                ConfigChecks.require(this, S3_BUCKET_CONFIG, "s3");
                ConfigChecks.require(this, S3_REGION_CONFIG, "s3");
                if ((getString(S3_ACCESS_KEY_ID_CONFIG) == null)
                        != (getPassword(S3_SECRET_ACCESS_KEY_CONFIG) == null)) {
                    throw new ConfigException(S3_SECRET_ACCESS_KEY_CONFIG, "<hidden>",
                            "s3.access.key.id and s3.secret.access.key must be set together");
                }
                break;
            default:
                ConfigChecks.require(this, GCS_BUCKET_CONFIG, "gcs");
                break;
        }
        if (wormEnabled()) {
            if (getString(BACKEND_CONFIG).equals("filesystem")) {
                throw new ConfigException(WORM_ENABLED_CONFIG, true,
                        "the write-once archive mode needs backend s3 or gcs; the filesystem tier "
                                + "cannot be write-once");
            }
            ConfigChecks.requireWhen(this, WORM_SIGNING_KEY_PATH_CONFIG, "worm.enabled is true");
            ConfigChecks.requireWhen(this, WORM_KEY_ID_CONFIG, "worm.enabled is true");
        }
    }

    /** Whether the write-once archive mode is on. */
    boolean wormEnabled() {
        return getBoolean(WORM_ENABLED_CONFIG);
    }

    /** The {@code native.library.path} override, or null. */
    String nativeLibraryPath() {
        return getString(NATIVE_LIBRARY_PATH_CONFIG);
    }

    /** The entries the native library reads, as strings, with secrets revealed. */
    Map<String, String> nativeEntries() {
        Map<String, String> entries = new LinkedHashMap<>();
        for (String key : NATIVE_KEYS) {
            Object value = get(key);
            if (value instanceof Password) {
                value = ((Password) value).value();
            }
            if (value != null) {
                entries.put(key, value.toString());
            }
        }
        return Collections.unmodifiableMap(entries);
    }
}
