/*
 * Licensed under the Apache License, Version 2.0.
 */
package io.krabka.remote.storage;

import java.util.List;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.ValidString;

/**
 * The plugins' configuration keys: names, types, defaults, valid values, importance and docs.
 *
 * <p>GENERATED from the key table of {@code rust/krabka-jni/src/config/keys.rs}; do not edit.
 * Regenerate with {@code KRABKA_REGENERATE=1 cargo test -p krabka-jni --lib config::render}
 * (or {@code gradle configDocs}). {@code cargo test -p krabka-jni} fails when this file is
 * stale, and {@code ConfigTableTest} compares the {@link ConfigDef}s below with the table of the
 * native library the tests load.
 */
public final class ConfigKeys {
    /** {@code backend}. */
    public static final String BACKEND_CONFIG = "backend";

    /** {@code filesystem.root}. */
    public static final String FILESYSTEM_ROOT_CONFIG = "filesystem.root";

    /** {@code prefix}. */
    public static final String PREFIX_CONFIG = "prefix";

    /** {@code s3.bucket}. */
    public static final String S3_BUCKET_CONFIG = "s3.bucket";

    /** {@code s3.region}. */
    public static final String S3_REGION_CONFIG = "s3.region";

    /** {@code s3.endpoint}. */
    public static final String S3_ENDPOINT_CONFIG = "s3.endpoint";

    /** {@code s3.path.style}. */
    public static final String S3_PATH_STYLE_CONFIG = "s3.path.style";

    /** {@code s3.allow.http}. */
    public static final String S3_ALLOW_HTTP_CONFIG = "s3.allow.http";

    /** {@code s3.access.key.id}. */
    public static final String S3_ACCESS_KEY_ID_CONFIG = "s3.access.key.id";

    /** {@code s3.secret.access.key}. */
    public static final String S3_SECRET_ACCESS_KEY_CONFIG = "s3.secret.access.key";

    /** {@code s3.session.token}. */
    public static final String S3_SESSION_TOKEN_CONFIG = "s3.session.token";

    /** {@code s3.storage.class}. */
    public static final String S3_STORAGE_CLASS_CONFIG = "s3.storage.class";

    /** {@code s3.server.side.encryption}. */
    public static final String S3_SERVER_SIDE_ENCRYPTION_CONFIG = "s3.server.side.encryption";

    /** {@code s3.sse.kms.key.id}. */
    public static final String S3_SSE_KMS_KEY_ID_CONFIG = "s3.sse.kms.key.id";

    /** {@code s3.tls.ca.certificates.path}. */
    public static final String S3_TLS_CA_CERTIFICATES_PATH_CONFIG = "s3.tls.ca.certificates.path";

    /** {@code gcs.bucket}. */
    public static final String GCS_BUCKET_CONFIG = "gcs.bucket";

    /** {@code gcs.endpoint}. */
    public static final String GCS_ENDPOINT_CONFIG = "gcs.endpoint";

    /** {@code gcs.allow.http}. */
    public static final String GCS_ALLOW_HTTP_CONFIG = "gcs.allow.http";

    /** {@code gcs.service.account.path}. */
    public static final String GCS_SERVICE_ACCOUNT_PATH_CONFIG = "gcs.service.account.path";

    /** {@code gcs.service.account.key}. */
    public static final String GCS_SERVICE_ACCOUNT_KEY_CONFIG = "gcs.service.account.key";

    /** {@code gcs.application.credentials.path}. */
    public static final String GCS_APPLICATION_CREDENTIALS_PATH_CONFIG =
            "gcs.application.credentials.path";

    /** {@code azure.account}. */
    public static final String AZURE_ACCOUNT_CONFIG = "azure.account";

    /** {@code azure.container}. */
    public static final String AZURE_CONTAINER_CONFIG = "azure.container";

    /** {@code azure.endpoint}. */
    public static final String AZURE_ENDPOINT_CONFIG = "azure.endpoint";

    /** {@code azure.allow.http}. */
    public static final String AZURE_ALLOW_HTTP_CONFIG = "azure.allow.http";

    /** {@code azure.access.key}. */
    public static final String AZURE_ACCESS_KEY_CONFIG = "azure.access.key";

    /** {@code azure.sas.token}. */
    public static final String AZURE_SAS_TOKEN_CONFIG = "azure.sas.token";

    /** {@code multipart.threshold.bytes}. */
    public static final String MULTIPART_THRESHOLD_BYTES_CONFIG = "multipart.threshold.bytes";

    /** {@code multipart.chunk.size.bytes}. */
    public static final String MULTIPART_CHUNK_SIZE_BYTES_CONFIG = "multipart.chunk.size.bytes";

    /** {@code multipart.parts.in.flight}. */
    public static final String MULTIPART_PARTS_IN_FLIGHT_CONFIG = "multipart.parts.in.flight";

    /** {@code max.retries}. */
    public static final String MAX_RETRIES_CONFIG = "max.retries";

    /** {@code retry.timeout.ms}. */
    public static final String RETRY_TIMEOUT_MS_CONFIG = "retry.timeout.ms";

    /** {@code request.timeout.ms}. */
    public static final String REQUEST_TIMEOUT_MS_CONFIG = "request.timeout.ms";

    /** {@code connect.timeout.ms}. */
    public static final String CONNECT_TIMEOUT_MS_CONFIG = "connect.timeout.ms";

    /** {@code fetch.cache.size.bytes}. */
    public static final String FETCH_CACHE_SIZE_BYTES_CONFIG = "fetch.cache.size.bytes";

    /** {@code fetch.cache.chunk.size.bytes}. */
    public static final String FETCH_CACHE_CHUNK_SIZE_BYTES_CONFIG = "fetch.cache.chunk.size.bytes";

    /** {@code fetch.prefetch.chunks}. */
    public static final String FETCH_PREFETCH_CHUNKS_CONFIG = "fetch.prefetch.chunks";

    /** {@code fetch.cache.disk.path}. */
    public static final String FETCH_CACHE_DISK_PATH_CONFIG = "fetch.cache.disk.path";

    /** {@code fetch.cache.disk.size.bytes}. */
    public static final String FETCH_CACHE_DISK_SIZE_BYTES_CONFIG = "fetch.cache.disk.size.bytes";

    /** {@code worm.enabled}. */
    public static final String WORM_ENABLED_CONFIG = "worm.enabled";

    /** {@code worm.signing.key.path}. */
    public static final String WORM_SIGNING_KEY_PATH_CONFIG = "worm.signing.key.path";

    /** {@code worm.key.id}. */
    public static final String WORM_KEY_ID_CONFIG = "worm.key.id";

    /** {@code worm.write.only}. */
    public static final String WORM_WRITE_ONLY_CONFIG = "worm.write.only";

    /** {@code worm.trusted.keys}. */
    public static final String WORM_TRUSTED_KEYS_CONFIG = "worm.trusted.keys";

    /** {@code worm.allow.plain.on.archive}. */
    public static final String WORM_ALLOW_PLAIN_ON_ARCHIVE_CONFIG = "worm.allow.plain.on.archive";

    /** {@code worm.log.origin}. */
    public static final String WORM_LOG_ORIGIN_CONFIG = "worm.log.origin";

    /** {@code worm.log.checkpoint.interval.ms}. */
    public static final String WORM_LOG_CHECKPOINT_INTERVAL_MS_CONFIG =
            "worm.log.checkpoint.interval.ms";

    /** {@code worm.log.witnesses}. */
    public static final String WORM_LOG_WITNESSES_CONFIG = "worm.log.witnesses";

    /** {@code chunk.size}. */
    public static final String CHUNK_SIZE_CONFIG = "chunk.size";

    /** {@code compression.enabled}. */
    public static final String COMPRESSION_ENABLED_CONFIG = "compression.enabled";

    /** {@code compression.heuristic.enabled}. */
    public static final String COMPRESSION_HEURISTIC_ENABLED_CONFIG =
            "compression.heuristic.enabled";

    /** {@code compression.zstd.level}. */
    public static final String COMPRESSION_ZSTD_LEVEL_CONFIG = "compression.zstd.level";

    /** {@code encryption.enabled}. */
    public static final String ENCRYPTION_ENABLED_CONFIG = "encryption.enabled";

    /** {@code encryption.cipher}. */
    public static final String ENCRYPTION_CIPHER_CONFIG = "encryption.cipher";

    /** {@code encryption.key.pair.id}. */
    public static final String ENCRYPTION_KEY_PAIR_ID_CONFIG = "encryption.key.pair.id";

    /** {@code encryption.key.pairs}. */
    public static final String ENCRYPTION_KEY_PAIRS_CONFIG = "encryption.key.pairs";

    /** {@code encryption.kms.key.id}. */
    public static final String ENCRYPTION_KMS_KEY_ID_CONFIG = "encryption.kms.key.id";

    /** {@code encryption.kms.region}. */
    public static final String ENCRYPTION_KMS_REGION_CONFIG = "encryption.kms.region";

    /** {@code encryption.kms.endpoint}. */
    public static final String ENCRYPTION_KMS_ENDPOINT_CONFIG = "encryption.kms.endpoint";

    /** {@code native.library.path}. */
    public static final String NATIVE_LIBRARY_PATH_CONFIG = "native.library.path";

    /** {@code metadata.manager}. */
    public static final String METADATA_MANAGER_CONFIG = "metadata.manager";

    /** {@code metadata.memory.loss.on.restart.accepted}. */
    public static final String METADATA_MEMORY_LOSS_ON_RESTART_ACCEPTED_CONFIG =
            "metadata.memory.loss.on.restart.accepted";

    /** {@code metadata.snapshot.every.records}. */
    public static final String METADATA_SNAPSHOT_EVERY_RECORDS_CONFIG =
            "metadata.snapshot.every.records";

    /** {@code metadata.poll.interval.ms}. */
    public static final String METADATA_POLL_INTERVAL_MS_CONFIG = "metadata.poll.interval.ms";

    /** {@code metadata.history.keep}. */
    public static final String METADATA_HISTORY_KEEP_CONFIG = "metadata.history.keep";

    /** {@code metadata.load.concurrency}. */
    public static final String METADATA_LOAD_CONCURRENCY_CONFIG = "metadata.load.concurrency";

    /**
     * The storage manager's keys that the native library reads, in table order: the adapter
     * passes their values to it, defaults included.
     */
    static final List<String> NATIVE_KEYS = List.of(
            BACKEND_CONFIG,
            FILESYSTEM_ROOT_CONFIG,
            PREFIX_CONFIG,
            S3_BUCKET_CONFIG,
            S3_REGION_CONFIG,
            S3_ENDPOINT_CONFIG,
            S3_PATH_STYLE_CONFIG,
            S3_ALLOW_HTTP_CONFIG,
            S3_ACCESS_KEY_ID_CONFIG,
            S3_SECRET_ACCESS_KEY_CONFIG,
            S3_SESSION_TOKEN_CONFIG,
            S3_STORAGE_CLASS_CONFIG,
            S3_SERVER_SIDE_ENCRYPTION_CONFIG,
            S3_SSE_KMS_KEY_ID_CONFIG,
            S3_TLS_CA_CERTIFICATES_PATH_CONFIG,
            GCS_BUCKET_CONFIG,
            GCS_ENDPOINT_CONFIG,
            GCS_ALLOW_HTTP_CONFIG,
            GCS_SERVICE_ACCOUNT_PATH_CONFIG,
            GCS_SERVICE_ACCOUNT_KEY_CONFIG,
            GCS_APPLICATION_CREDENTIALS_PATH_CONFIG,
            AZURE_ACCOUNT_CONFIG,
            AZURE_CONTAINER_CONFIG,
            AZURE_ENDPOINT_CONFIG,
            AZURE_ALLOW_HTTP_CONFIG,
            AZURE_ACCESS_KEY_CONFIG,
            AZURE_SAS_TOKEN_CONFIG,
            MULTIPART_THRESHOLD_BYTES_CONFIG,
            MULTIPART_CHUNK_SIZE_BYTES_CONFIG,
            MULTIPART_PARTS_IN_FLIGHT_CONFIG,
            MAX_RETRIES_CONFIG,
            RETRY_TIMEOUT_MS_CONFIG,
            REQUEST_TIMEOUT_MS_CONFIG,
            CONNECT_TIMEOUT_MS_CONFIG,
            FETCH_CACHE_SIZE_BYTES_CONFIG,
            FETCH_CACHE_CHUNK_SIZE_BYTES_CONFIG,
            FETCH_PREFETCH_CHUNKS_CONFIG,
            FETCH_CACHE_DISK_PATH_CONFIG,
            FETCH_CACHE_DISK_SIZE_BYTES_CONFIG,
            WORM_ENABLED_CONFIG,
            WORM_SIGNING_KEY_PATH_CONFIG,
            WORM_KEY_ID_CONFIG,
            WORM_WRITE_ONLY_CONFIG,
            WORM_TRUSTED_KEYS_CONFIG,
            WORM_ALLOW_PLAIN_ON_ARCHIVE_CONFIG,
            WORM_LOG_ORIGIN_CONFIG,
            WORM_LOG_CHECKPOINT_INTERVAL_MS_CONFIG,
            WORM_LOG_WITNESSES_CONFIG,
            CHUNK_SIZE_CONFIG,
            COMPRESSION_ENABLED_CONFIG,
            COMPRESSION_HEURISTIC_ENABLED_CONFIG,
            COMPRESSION_ZSTD_LEVEL_CONFIG,
            ENCRYPTION_ENABLED_CONFIG,
            ENCRYPTION_CIPHER_CONFIG,
            ENCRYPTION_KEY_PAIR_ID_CONFIG,
            ENCRYPTION_KEY_PAIRS_CONFIG,
            ENCRYPTION_KMS_KEY_ID_CONFIG,
            ENCRYPTION_KMS_REGION_CONFIG,
            ENCRYPTION_KMS_ENDPOINT_CONFIG);

    /**
     * The metadata manager's keys that the native library reads, in table order: the adapter
     * passes their values to it, defaults included.
     */
    static final List<String> NATIVE_METADATA_KEYS = List.of(
            BACKEND_CONFIG,
            FILESYSTEM_ROOT_CONFIG,
            PREFIX_CONFIG,
            S3_BUCKET_CONFIG,
            S3_REGION_CONFIG,
            S3_ENDPOINT_CONFIG,
            S3_PATH_STYLE_CONFIG,
            S3_ALLOW_HTTP_CONFIG,
            S3_ACCESS_KEY_ID_CONFIG,
            S3_SECRET_ACCESS_KEY_CONFIG,
            S3_SESSION_TOKEN_CONFIG,
            S3_STORAGE_CLASS_CONFIG,
            S3_SERVER_SIDE_ENCRYPTION_CONFIG,
            S3_SSE_KMS_KEY_ID_CONFIG,
            S3_TLS_CA_CERTIFICATES_PATH_CONFIG,
            GCS_BUCKET_CONFIG,
            GCS_ENDPOINT_CONFIG,
            GCS_ALLOW_HTTP_CONFIG,
            GCS_SERVICE_ACCOUNT_PATH_CONFIG,
            GCS_SERVICE_ACCOUNT_KEY_CONFIG,
            GCS_APPLICATION_CREDENTIALS_PATH_CONFIG,
            AZURE_ACCOUNT_CONFIG,
            AZURE_CONTAINER_CONFIG,
            AZURE_ENDPOINT_CONFIG,
            AZURE_ALLOW_HTTP_CONFIG,
            AZURE_ACCESS_KEY_CONFIG,
            AZURE_SAS_TOKEN_CONFIG,
            MAX_RETRIES_CONFIG,
            RETRY_TIMEOUT_MS_CONFIG,
            REQUEST_TIMEOUT_MS_CONFIG,
            CONNECT_TIMEOUT_MS_CONFIG,
            METADATA_MANAGER_CONFIG,
            METADATA_MEMORY_LOSS_ON_RESTART_ACCEPTED_CONFIG,
            METADATA_SNAPSHOT_EVERY_RECORDS_CONFIG,
            METADATA_POLL_INTERVAL_MS_CONFIG,
            METADATA_HISTORY_KEEP_CONFIG,
            METADATA_LOAD_CONCURRENCY_CONFIG);

    /**
     * Prefixes of the storage manager's key families (PREFIX + id + suffix, one key per id of a
     * list key): the adapter accepts them and passes them to the native library, which checks
     * them.
     */
    static final List<String> NATIVE_KEY_FAMILIES = List.of(
            "encryption.key.pairs.");

    private ConfigKeys() {
    }

    /** The definitions of the storage manager's keys ({@code rsm.config.*}). */
    static ConfigDef storageManager() {
        ConfigDef def = new ConfigDef();
        def.define(BACKEND_CONFIG, Type.STRING, "filesystem",
                ValidString.in("filesystem", "s3", "gcs", "azure"), Importance.HIGH,
                "The remote tier: <code>filesystem</code> (a directory, "
                        + "byte-compatible with Apache Kafka's LocalTieredStorage), "
                        + "<code>s3</code> (Amazon S3 or an S3-compatible server), "
                        + "<code>gcs</code> (Google Cloud Storage) or <code>azure</code> (Azure "
                        + "Blob Storage).");
        def.define(FILESYSTEM_ROOT_CONFIG, Type.STRING, null, Importance.HIGH,
                "Directory of the filesystem tier; required when backend is "
                        + "filesystem. Every broker must see the same directory (a shared "
                        + "mount).");
        def.define(PREFIX_CONFIG, Type.STRING, null, Importance.MEDIUM,
                "Key prefix inside the S3 or GCS bucket or the Azure container, "
                        + "without a leading or trailing '/'.");
        def.define(S3_BUCKET_CONFIG, Type.STRING, null, Importance.HIGH,
                "S3 bucket; required when backend is s3.");
        def.define(S3_REGION_CONFIG, Type.STRING, null, Importance.HIGH,
                "S3 region (any non-empty value for S3-compatible servers); required "
                        + "when backend is s3.");
        def.define(S3_ENDPOINT_CONFIG, Type.STRING, null, Importance.MEDIUM,
                "Endpoint URL of an S3-compatible server; unset means AWS.");
        def.define(S3_PATH_STYLE_CONFIG, Type.BOOLEAN, false, Importance.LOW,
                "Path-style addressing (endpoint/bucket/key) instead of "
                        + "virtual-hosted buckets.");
        def.define(S3_ALLOW_HTTP_CONFIG, Type.BOOLEAN, false, Importance.LOW,
                "Allow a plain http:// endpoint.");
        def.define(S3_ACCESS_KEY_ID_CONFIG, Type.STRING, null, Importance.MEDIUM,
                "Static access key id; unset means the ambient AWS credential chain "
                        + "(environment, web identity, instance metadata).");
        def.define(S3_SECRET_ACCESS_KEY_CONFIG, Type.PASSWORD, null, Importance.MEDIUM,
                "Secret access key for s3.access.key.id.");
        def.define(S3_SESSION_TOKEN_CONFIG, Type.PASSWORD, null, Importance.LOW,
                "Session token for temporary static credentials.");
        def.define(S3_STORAGE_CLASS_CONFIG, Type.STRING, null,
                new ConfigChecks.TokenValidator(1, 64, "_"), Importance.LOW,
                "Storage class of every object written (x-amz-storage-class: "
                        + "STANDARD_IA, INTELLIGENT_TIERING, GLACIER_IR, ...); unset leaves the "
                        + "bucket's default. A class whose reads need a restore (GLACIER, "
                        + "DEEP_ARCHIVE) makes tiered data unreadable by consumers.");
        def.define(S3_SERVER_SIDE_ENCRYPTION_CONFIG, Type.STRING, "none",
                ValidString.in("none", "AES256", "aws:kms"), Importance.LOW,
                "Server-side encryption requested on every object written: none (the "
                        + "bucket's default encryption applies), AES256 (SSE-S3) or aws:kms "
                        + "(SSE-KMS, with s3.sse.kms.key.id or the account's AWS managed key).");
        def.define(S3_SSE_KMS_KEY_ID_CONFIG, Type.STRING, null, Importance.LOW,
                "KMS key id or ARN for s3.server.side.encryption=aws:kms.");
        def.define(S3_TLS_CA_CERTIFICATES_PATH_CONFIG, Type.STRING, null, Importance.LOW,
                "PEM file of root certificates trusted besides the system's, for the "
                        + "S3 endpoint and the credential endpoints (STS of web identity): the "
                        + "private CA of an on-premises S3 server or of a TLS-inspecting proxy.");
        def.define(GCS_BUCKET_CONFIG, Type.STRING, null, Importance.HIGH,
                "GCS bucket; required when backend is gcs.");
        def.define(GCS_ENDPOINT_CONFIG, Type.STRING, null, Importance.MEDIUM,
                "Base URL of a GCS-compatible endpoint (an emulator); unset means "
                        + "Google.");
        def.define(GCS_ALLOW_HTTP_CONFIG, Type.BOOLEAN, false, Importance.LOW,
                "Allow a plain http:// endpoint.");
        def.define(GCS_SERVICE_ACCOUNT_PATH_CONFIG, Type.STRING, null, Importance.MEDIUM,
                "Path to a service-account JSON key file.");
        def.define(GCS_SERVICE_ACCOUNT_KEY_CONFIG, Type.PASSWORD, null, Importance.MEDIUM,
                "A service-account JSON key given inline (not together with "
                        + "gcs.service.account.path).");
        def.define(GCS_APPLICATION_CREDENTIALS_PATH_CONFIG, Type.STRING, null, Importance.LOW,
                "Path to application-default credentials.");
        def.define(AZURE_ACCOUNT_CONFIG, Type.STRING, null, Importance.HIGH,
                "Azure storage account name; required when backend is azure.");
        def.define(AZURE_CONTAINER_CONFIG, Type.STRING, null, Importance.HIGH,
                "Blob container; required when backend is azure.");
        def.define(AZURE_ENDPOINT_CONFIG, Type.STRING, null, Importance.MEDIUM,
                "Blob endpoint of the account, containers directly under it, for "
                        + "emulators and private endpoints "
                        + "(http://127.0.0.1:10000/devstoreaccount1 for Azurite); unset means "
                        + "https://ACCOUNT.blob.core.windows.net.");
        def.define(AZURE_ALLOW_HTTP_CONFIG, Type.BOOLEAN, false, Importance.LOW,
                "Allow a plain http:// endpoint.");
        def.define(AZURE_ACCESS_KEY_CONFIG, Type.PASSWORD, null, Importance.MEDIUM,
                "The storage account's shared key (base64, as the portal shows it); "
                        + "set this or azure.sas.token.");
        def.define(AZURE_SAS_TOKEN_CONFIG, Type.PASSWORD, null, Importance.MEDIUM,
                "A shared access signature (the query string sv=...&sig=..., a "
                        + "leading ? allowed) with read, write, delete and list rights on the "
                        + "container; set this or azure.access.key.");
        def.define(MULTIPART_THRESHOLD_BYTES_CONFIG, Type.LONG, 16777216L,
                Range.between(1L, 5368709120L), Importance.LOW,
                "Objects of at least this many bytes are uploaded in parts. A smaller "
                        + "object goes in one PUT whose whole body is held in native memory, so "
                        + "a threshold above multipart.parts.in.flight x "
                        + "multipart.chunk.size.bytes raises the memory a copy needs (see "
                        + "docs/object-store.md); the default is below it, and saves the "
                        + "requests of a multipart upload for objects of a few parts.");
        def.define(MULTIPART_CHUNK_SIZE_BYTES_CONFIG, Type.LONG, 5242880L,
                Range.between(5242880L, 5368709120L), Importance.LOW,
                "Bytes per part of a multipart upload (S3 needs at least 5 MiB); a "
                        + "copy holds up to multipart.parts.in.flight parts in native memory at "
                        + "once (see docs/object-store.md). Larger parts mean fewer PUT "
                        + "requests and, within the same memory, fewer parts in flight.");
        def.define(MULTIPART_PARTS_IN_FLIGHT_CONFIG, Type.INT, 16,
                Range.between(1, 1024), Importance.LOW,
                "Parts of one multipart upload sent at once, each on its own "
                        + "connection. A store serves each connection at a bounded rate (Amazon "
                        + "S3 about 85-90 MB/s), so a copy goes as fast as its parts in flight "
                        + "allow; each holds one part in native memory, so a copy needs up to "
                        + "multipart.parts.in.flight x multipart.chunk.size.bytes (80 MiB by "
                        + "default).");
        def.define(MAX_RETRIES_CONFIG, Type.INT, 10, Range.atLeast(0), Importance.LOW,
                "Retries of a transient object-store failure.");
        def.define(RETRY_TIMEOUT_MS_CONFIG, Type.LONG, 180000L, Range.atLeast(1L), Importance.LOW,
                "Total time budget for retrying one request.");
        def.define(REQUEST_TIMEOUT_MS_CONFIG, Type.LONG, 30000L, Range.atLeast(1L), Importance.LOW,
                "Time budget of one object-store request.");
        def.define(CONNECT_TIMEOUT_MS_CONFIG, Type.LONG, 5000L, Range.atLeast(1L), Importance.LOW,
                "Time budget of one connection attempt.");
        def.define(FETCH_CACHE_SIZE_BYTES_CONFIG, Type.LONG, 268435456L,
                Range.atLeast(0L), Importance.MEDIUM,
                "Native memory of the read cache of the s3, gcs and azure backends: "
                        + "segment bytes of remote fetches in aligned chunks, shared by every "
                        + "partition of the broker, with read-ahead for consumers catching up "
                        + "(see docs/object-store.md); 0 turns the cache off. It must hold "
                        + "fetch.prefetch.chunks + 2 chunks.");
        def.define(FETCH_CACHE_CHUNK_SIZE_BYTES_CONFIG, Type.LONG, 524288L,
                Range.between(4096L, 67108864L), Importance.LOW,
                "Bytes per cached chunk and per ranged GET of the read cache.");
        def.define(FETCH_PREFETCH_CHUNKS_CONFIG, Type.INT, 16,
                Range.between(0, 1024), Importance.LOW,
                "Chunks the read cache fetches ahead of a fetch that continues the "
                        + "previous one of its segment; it grows while the reader keeps up, up "
                        + "to eight times this and to a quarter of the cache shared among the "
                        + "partitions read sequentially at once. 0 turns read-ahead off.");
        def.define(FETCH_CACHE_DISK_PATH_CONFIG, Type.STRING, null, Importance.MEDIUM,
                "Directory of the read cache's optional disk tier (off when unset): "
                        + "chunks evicted from memory are kept there as files, within "
                        + "fetch.cache.disk.size.bytes, and read back instead of fetched again. "
                        + "The cache keeps its files in a subdirectory krabka-read-cache it "
                        + "empties of them at start (nothing survives a restart); a disk that "
                        + "fails is only logged and counted, never fails a fetch. Use a "
                        + "directory of its own on a local disk, one per broker.");
        def.define(FETCH_CACHE_DISK_SIZE_BYTES_CONFIG, Type.LONG, 17179869184L,
                Range.atLeast(0L), Importance.LOW,
                "Bytes of chunk files the read cache's disk tier holds at most (each "
                        + "file is a chunk and a 4-byte checksum); 0 turns the disk tier off. "
                        + "With fetch.cache.disk.path set it must hold two chunks.");
        def.define(WORM_ENABLED_CONFIG, Type.BOOLEAN, false, Importance.MEDIUM,
                "Write-once (WORM) archive mode of the s3 and gcs backends (see "
                        + "docs/worm.md): start-up refuses unless the bucket proves it is "
                        + "locked (S3 Object Lock in COMPLIANCE mode with a default retention, "
                        + "or a locked GCS retention policy); every copy is sealed by a signed "
                        + "manifest on a per-partition hash chain; deletes are refused, and "
                        + "Kafka's deletes of a segment only log a warning. Needs "
                        + "worm.signing.key.path and worm.key.id; refused with backend "
                        + "filesystem and with backend azure (no Azure immutability policy is "
                        + "proven). While false, the other worm.* keys are accepted and "
                        + "ignored.");
        def.define(WORM_SIGNING_KEY_PATH_CONFIG, Type.STRING, null, Importance.MEDIUM,
                "Unencrypted PKCS#8 Ed25519 private key file, DER or PEM (openssl "
                        + "genpkey -algorithm ed25519), that signs the manifests; required when "
                        + "worm.enabled is true.");
        def.define(WORM_KEY_ID_CONFIG, Type.STRING, null,
                new ConfigChecks.TokenValidator(1, 64, "._-"), Importance.MEDIUM,
                "The id written into every manifest, under which auditors look up the "
                        + "public key; required when worm.enabled is true.");
        def.define(WORM_WRITE_ONLY_CONFIG, Type.BOOLEAN, false, Importance.LOW,
                "Refuse every fetch: the archive is a sink that only auditors read, "
                        + "and consumers cannot read tiered data through this broker.");
        def.define(WORM_TRUSTED_KEYS_CONFIG, Type.STRING, null, Importance.LOW,
                "Other brokers' manifest keys whose seals continue the same chains, "
                        + "as comma-separated key-id=public-key pairs (the public key as 64 hex "
                        + "characters, as krabka-worm-verify takes it); for clusters whose "
                        + "brokers sign with different keys. The broker's own key is always "
                        + "trusted. A seal signed by any other key is a foreign object: the "
                        + "chain routes around it and the verifier reports it.");
        def.define(WORM_ALLOW_PLAIN_ON_ARCHIVE_CONFIG, Type.BOOLEAN, false, Importance.LOW,
                "With worm.enabled false, start the plain tier even on a bucket (and "
                        + "prefix) that holds a write-once archive. Without it such a start-up "
                        + "is refused, so that switching the archive mode off by mistake cannot "
                        + "start writing beside an archive as if it were a plain tier.");
        def.define(WORM_LOG_ORIGIN_CONFIG, Type.STRING, null, Importance.MEDIUM,
                "Keep the archive log (see docs/worm.md): a Merkle tree over every "
                        + "sealed manifest, C2SP tlog-tiles in the bucket, and checkpoints in "
                        + "the C2SP tlog-checkpoint format signed by the manifest key under "
                        + "this origin, a schema-less URL naming the archive (e.g. "
                        + "archive.example.com/orders). Every broker of one archive must use "
                        + "the same origin. Empty: no log.");
        def.define(WORM_LOG_CHECKPOINT_INTERVAL_MS_CONFIG, Type.LONG, 10000L,
                Range.atLeast(1L), Importance.LOW,
                "A checkpoint of the archive log is published at most this often (and "
                        + "after the last seal before the broker stops); copies never wait for "
                        + "it.");
        def.define(WORM_LOG_WITNESSES_CONFIG, Type.STRING, null, Importance.LOW,
                "Witnesses (C2SP tlog-witness, e.g. litewitness) that cosign every "
                        + "new checkpoint, comma-separated, each its base URL and its verifier "
                        + "key separated by a space (http://witness.example:7380 "
                        + "witness.example+1a2b3c4d+BA...). Their cosignatures are stored "
                        + "beside the checkpoint; a witness that is down only delays its "
                        + "cosignature. Needs worm.log.origin.");
        def.define(CHUNK_SIZE_CONFIG, Type.INT, 4194304,
                Range.between(4096, 67108864), Importance.LOW,
                "Original bytes per chunk of a segment written compressed or "
                        + "encrypted: a fetch                  reads (and decrypts) whole "
                        + "chunks. Used when compression.enabled or                  "
                        + "encryption.enabled is true.");
        def.define(COMPRESSION_ENABLED_CONFIG, Type.BOOLEAN, false, Importance.MEDIUM,
                "Write new segments in the chunked format with each chunk "
                        + "zstd-compressed (kept                  as it is when that does not "
                        + "make it smaller). Segments already in the tier stay                  "
                        + "readable whatever this says; Apache Kafka's LocalTieredStorage "
                        + "cannot read                  chunked segments (see "
                        + "docs/chunked-format.md).");
        def.define(COMPRESSION_HEURISTIC_ENABLED_CONFIG, Type.BOOLEAN, true, Importance.LOW,
                "Store a segment's log without compressing it when most of its first "
                        + "chunk's                  record batches are already compressed by "
                        + "their producers.");
        def.define(COMPRESSION_ZSTD_LEVEL_CONFIG, Type.INT, 3, Range.between(1, 19), Importance.LOW,
                "zstd level of compressed chunks.");
        def.define(ENCRYPTION_ENABLED_CONFIG, Type.BOOLEAN, false, Importance.HIGH,
                "Write new segments in the chunked format with each chunk encrypted "
                        + "under a                  fresh data key per segment, wrapped by the "
                        + "active key pair                  (encryption.key.pair.id). Needs "
                        + "encryption.key.pairs and each pair's files.");
        def.define(ENCRYPTION_CIPHER_CONFIG, Type.STRING, "aes-256-gcm",
                ValidString.in("aes-256-gcm", "chacha20-poly1305"), Importance.LOW,
                "The AEAD that encrypts chunks: aes-256-gcm or chacha20-poly1305.");
        def.define(ENCRYPTION_KEY_PAIR_ID_CONFIG, Type.STRING, null,
                new ConfigChecks.TokenValidator(1, 64, "._-"), Importance.HIGH,
                "The id of the active key pair: new segments' data keys are wrapped "
                        + "by its                  public key. Must be one of "
                        + "encryption.key.pairs.");
        def.define(ENCRYPTION_KEY_PAIRS_CONFIG, Type.STRING, null, Importance.HIGH,
                "Ids of every configured RSA key pair, comma-separated; each needs    "
                        + "              encryption.key.pairs.ID.public.key.file and            "
                        + "      encryption.key.pairs.ID.private.key.file. Segments wrapped by "
                        + "any of them stay                  readable, also with "
                        + "encryption.enabled false.");
        def.define(ENCRYPTION_KMS_KEY_ID_CONFIG, Type.STRING, null, Importance.HIGH,
                "An AWS KMS key (id, ARN or alias/NAME) that makes each new segment's "
                        + "data key (GenerateDataKey) and unwraps it (Decrypt), with the S3 "
                        + "tier's credentials (s3.access.key.id, else the ambient AWS chain). "
                        + "With key pairs configured too, KMS wraps new segments and the pairs "
                        + "still unwrap their own.");
        def.define(ENCRYPTION_KMS_REGION_CONFIG, Type.STRING, null, Importance.MEDIUM,
                "Region of encryption.kms.key.id; unset means s3.region.");
        def.define(ENCRYPTION_KMS_ENDPOINT_CONFIG, Type.STRING, null, Importance.LOW,
                "Endpoint URL of KMS (a VPC endpoint, a local KMS-compatible server); "
                        + "unset means https://kms.REGION.amazonaws.com.");
        def.define(NATIVE_LIBRARY_PATH_CONFIG, Type.STRING, null, Importance.LOW,
                "Absolute path of a libkrabka_jni.so to load instead of the one "
                        + "bundled in the jar (for platforms other than linux/x86_64, or a "
                        + "custom build). The system property krabka.native.library.path does "
                        + "the same for every plugin.");
        return def;
    }

    /** The definitions of the metadata manager's keys ({@code rlmm.config.*}). */
    static ConfigDef metadataManager() {
        ConfigDef def = new ConfigDef();
        def.define(BACKEND_CONFIG, Type.STRING, "filesystem",
                ValidString.in("filesystem", "s3", "gcs", "azure"), Importance.HIGH,
                "The remote tier: <code>filesystem</code> (a directory, "
                        + "byte-compatible with Apache Kafka's LocalTieredStorage), "
                        + "<code>s3</code> (Amazon S3 or an S3-compatible server), "
                        + "<code>gcs</code> (Google Cloud Storage) or <code>azure</code> (Azure "
                        + "Blob Storage).");
        def.define(FILESYSTEM_ROOT_CONFIG, Type.STRING, null, Importance.HIGH,
                "Directory of the filesystem tier; required when backend is "
                        + "filesystem. Every broker must see the same directory (a shared "
                        + "mount).");
        def.define(PREFIX_CONFIG, Type.STRING, null, Importance.MEDIUM,
                "Key prefix inside the S3 or GCS bucket or the Azure container, "
                        + "without a leading or trailing '/'.");
        def.define(S3_BUCKET_CONFIG, Type.STRING, null, Importance.HIGH,
                "S3 bucket; required when backend is s3.");
        def.define(S3_REGION_CONFIG, Type.STRING, null, Importance.HIGH,
                "S3 region (any non-empty value for S3-compatible servers); required "
                        + "when backend is s3.");
        def.define(S3_ENDPOINT_CONFIG, Type.STRING, null, Importance.MEDIUM,
                "Endpoint URL of an S3-compatible server; unset means AWS.");
        def.define(S3_PATH_STYLE_CONFIG, Type.BOOLEAN, false, Importance.LOW,
                "Path-style addressing (endpoint/bucket/key) instead of "
                        + "virtual-hosted buckets.");
        def.define(S3_ALLOW_HTTP_CONFIG, Type.BOOLEAN, false, Importance.LOW,
                "Allow a plain http:// endpoint.");
        def.define(S3_ACCESS_KEY_ID_CONFIG, Type.STRING, null, Importance.MEDIUM,
                "Static access key id; unset means the ambient AWS credential chain "
                        + "(environment, web identity, instance metadata).");
        def.define(S3_SECRET_ACCESS_KEY_CONFIG, Type.PASSWORD, null, Importance.MEDIUM,
                "Secret access key for s3.access.key.id.");
        def.define(S3_SESSION_TOKEN_CONFIG, Type.PASSWORD, null, Importance.LOW,
                "Session token for temporary static credentials.");
        def.define(S3_STORAGE_CLASS_CONFIG, Type.STRING, null,
                new ConfigChecks.TokenValidator(1, 64, "_"), Importance.LOW,
                "Storage class of every object written (x-amz-storage-class: "
                        + "STANDARD_IA, INTELLIGENT_TIERING, GLACIER_IR, ...); unset leaves the "
                        + "bucket's default. A class whose reads need a restore (GLACIER, "
                        + "DEEP_ARCHIVE) makes tiered data unreadable by consumers.");
        def.define(S3_SERVER_SIDE_ENCRYPTION_CONFIG, Type.STRING, "none",
                ValidString.in("none", "AES256", "aws:kms"), Importance.LOW,
                "Server-side encryption requested on every object written: none (the "
                        + "bucket's default encryption applies), AES256 (SSE-S3) or aws:kms "
                        + "(SSE-KMS, with s3.sse.kms.key.id or the account's AWS managed key).");
        def.define(S3_SSE_KMS_KEY_ID_CONFIG, Type.STRING, null, Importance.LOW,
                "KMS key id or ARN for s3.server.side.encryption=aws:kms.");
        def.define(S3_TLS_CA_CERTIFICATES_PATH_CONFIG, Type.STRING, null, Importance.LOW,
                "PEM file of root certificates trusted besides the system's, for the "
                        + "S3 endpoint and the credential endpoints (STS of web identity): the "
                        + "private CA of an on-premises S3 server or of a TLS-inspecting proxy.");
        def.define(GCS_BUCKET_CONFIG, Type.STRING, null, Importance.HIGH,
                "GCS bucket; required when backend is gcs.");
        def.define(GCS_ENDPOINT_CONFIG, Type.STRING, null, Importance.MEDIUM,
                "Base URL of a GCS-compatible endpoint (an emulator); unset means "
                        + "Google.");
        def.define(GCS_ALLOW_HTTP_CONFIG, Type.BOOLEAN, false, Importance.LOW,
                "Allow a plain http:// endpoint.");
        def.define(GCS_SERVICE_ACCOUNT_PATH_CONFIG, Type.STRING, null, Importance.MEDIUM,
                "Path to a service-account JSON key file.");
        def.define(GCS_SERVICE_ACCOUNT_KEY_CONFIG, Type.PASSWORD, null, Importance.MEDIUM,
                "A service-account JSON key given inline (not together with "
                        + "gcs.service.account.path).");
        def.define(GCS_APPLICATION_CREDENTIALS_PATH_CONFIG, Type.STRING, null, Importance.LOW,
                "Path to application-default credentials.");
        def.define(AZURE_ACCOUNT_CONFIG, Type.STRING, null, Importance.HIGH,
                "Azure storage account name; required when backend is azure.");
        def.define(AZURE_CONTAINER_CONFIG, Type.STRING, null, Importance.HIGH,
                "Blob container; required when backend is azure.");
        def.define(AZURE_ENDPOINT_CONFIG, Type.STRING, null, Importance.MEDIUM,
                "Blob endpoint of the account, containers directly under it, for "
                        + "emulators and private endpoints "
                        + "(http://127.0.0.1:10000/devstoreaccount1 for Azurite); unset means "
                        + "https://ACCOUNT.blob.core.windows.net.");
        def.define(AZURE_ALLOW_HTTP_CONFIG, Type.BOOLEAN, false, Importance.LOW,
                "Allow a plain http:// endpoint.");
        def.define(AZURE_ACCESS_KEY_CONFIG, Type.PASSWORD, null, Importance.MEDIUM,
                "The storage account's shared key (base64, as the portal shows it); "
                        + "set this or azure.sas.token.");
        def.define(AZURE_SAS_TOKEN_CONFIG, Type.PASSWORD, null, Importance.MEDIUM,
                "A shared access signature (the query string sv=...&sig=..., a "
                        + "leading ? allowed) with read, write, delete and list rights on the "
                        + "container; set this or azure.access.key.");
        def.define(MAX_RETRIES_CONFIG, Type.INT, 10, Range.atLeast(0), Importance.LOW,
                "Retries of a transient object-store failure.");
        def.define(RETRY_TIMEOUT_MS_CONFIG, Type.LONG, 180000L, Range.atLeast(1L), Importance.LOW,
                "Total time budget for retrying one request.");
        def.define(REQUEST_TIMEOUT_MS_CONFIG, Type.LONG, 30000L, Range.atLeast(1L), Importance.LOW,
                "Time budget of one object-store request.");
        def.define(CONNECT_TIMEOUT_MS_CONFIG, Type.LONG, 5000L, Range.atLeast(1L), Importance.LOW,
                "Time budget of one connection attempt.");
        def.define(NATIVE_LIBRARY_PATH_CONFIG, Type.STRING, null, Importance.LOW,
                "Absolute path of a libkrabka_jni.so to load instead of the one "
                        + "bundled in the jar (for platforms other than linux/x86_64, or a "
                        + "custom build). The system property krabka.native.library.path does "
                        + "the same for every plugin.");
        def.define(METADATA_MANAGER_CONFIG, Type.STRING, "store",
                ValidString.in("store", "memory"), Importance.HIGH,
                "Where remote log metadata lives: <code>store</code> (durable, in the "
                        + "store the backend keys name, beside the tier's data; see "
                        + "docs/metadata.md) or <code>memory</code> (broker memory only, for "
                        + "tests: after a restart tiered data is unreadable; refused unless "
                        + "metadata.memory.loss.on.restart.accepted is true).");
        def.define(METADATA_MEMORY_LOSS_ON_RESTART_ACCEPTED_CONFIG, Type.BOOLEAN, false,
                Importance.MEDIUM,
                "Accept that metadata.manager=memory loses every tiered segment's "
                        + "metadata on a broker restart (tests only).");
        def.define(METADATA_SNAPSHOT_EVERY_RECORDS_CONFIG, Type.LONG, 32L,
                Range.atLeast(1L), Importance.LOW,
                "Metadata records between two snapshots of a partition: the longest "
                        + "tail a restarted broker replays.");
        def.define(METADATA_POLL_INTERVAL_MS_CONFIG, Type.LONG, 1000L,
                Range.atLeast(0L), Importance.LOW,
                "The longest a follower waits before it reads what a leader wrote, in "
                        + "milliseconds; a question it cannot answer reads the store at once.");
        def.define(METADATA_HISTORY_KEEP_CONFIG, Type.BOOLEAN, false, Importance.LOW,
                "Keep every metadata record and snapshot, and the histories of "
                        + "deleted topics. By default a new snapshot deletes what the snapshot "
                        + "before it covers, and a deleted topic's histories are erased once "
                        + "its segments are gone (with "
                        + "remote.log.metadata.manager.listener.name set). A store that holds a "
                        + "write-once archive's probes under the same prefix is kept whole "
                        + "whatever this says; set it for a history on a write-once bucket "
                        + "under another prefix.");
        def.define(METADATA_LOAD_CONCURRENCY_CONFIG, Type.INT, 64,
                Range.between(1, 1024), Importance.LOW,
                "Partitions whose metadata a broker loads at once when it becomes "
                        + "their leader or follower (and writes up to a snapshot at once when "
                        + "it stops), each on a thread: a load waits on the store (a listing "
                        + "and a read after a clean shutdown), so a broker of thousands of "
                        + "partitions on an object store needs many at once to be ready soon "
                        + "(see docs/metadata.md).");
        return def;
    }
}
