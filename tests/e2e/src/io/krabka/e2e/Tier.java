package io.krabka.e2e;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.Stream;

/** Looks into the remote tier from outside the broker: how many segment files a topic has there. */
interface Tier {
    /** Names (paths below the tier root) of every object in the tier. */
    List<String> names() throws IOException, InterruptedException;

    /** Names (paths below the tier root) of the segment objects ({@code *.log}) of the topic's partitions. */
    default List<String> segmentNames(String topic) throws IOException, InterruptedException {
        return names().stream().filter(name -> isSegmentOf(name, topic)).toList();
    }

    /** Names of the metadata records our durable metadata manager keeps in the tier. */
    default List<String> metadataRecordNames() throws IOException, InterruptedException {
        return names().stream().filter(name -> name.startsWith("remote-log-metadata/") && name.contains("/log/"))
                .toList();
    }

    /**
     * Names of every object the tier holds for a topic: its segment objects of any kind (in Kafka's
     * layout {@code <topic>-<partition>-<id>/...}) and our metadata manager's histories of its
     * partitions ({@code remote-log-metadata/<topicId>-<partition>/...}).
     */
    default List<String> objectsOf(String topic, String topicId) throws IOException, InterruptedException {
        String segments = topic + "-";
        String histories = "remote-log-metadata/" + topicId + "-";
        return names().stream()
                .filter(name -> name.startsWith(histories)
                        || ((name.startsWith(segments) || name.contains("/" + segments)) && name.contains(topicId)))
                .toList();
    }

    /** Number of segment objects of the topic's partitions in the tier. */
    default int segments(String topic) throws IOException, InterruptedException {
        return segmentNames(topic).size();
    }

    /**
     * Start offsets of the topic's segments in the tier, sorted, from Kafka's file names
     * {@code <startOffset:020>-<segmentId>.log}.
     */
    default List<Long> segmentStarts(String topic) throws IOException, InterruptedException {
        List<Long> starts = new ArrayList<>();
        for (String name : segmentNames(topic)) {
            String file = name.substring(name.lastIndexOf('/') + 1);
            starts.add(Long.parseLong(file.substring(0, 20)));
        }
        Collections.sort(starts);
        return starts;
    }

    /**
     * {@code fs:<dir>}, {@code s3://<bucket>/<prefix>} (with {@code --s3-endpoint}) or
     * {@code azure://<container>/<prefix>} (with {@code --azure-endpoint}; account and key from
     * AZURE_STORAGE_ACCOUNT / AZURE_STORAGE_KEY).
     */
    static Tier parse(String spec, String s3Endpoint, String azureEndpoint) {
        if (spec.startsWith("fs:")) {
            return new FsTier(Path.of(spec.substring(3)));
        }
        if (spec.startsWith("s3://")) {
            URI uri = URI.create(spec);
            String prefix = uri.getPath().replaceFirst("^/", "");
            return new S3Tier(URI.create(s3Endpoint), uri.getHost(), prefix,
                    System.getenv().getOrDefault("AWS_ACCESS_KEY_ID", ""),
                    System.getenv().getOrDefault("AWS_SECRET_ACCESS_KEY", ""));
        }
        if (spec.startsWith("azure://")) {
            URI uri = URI.create(spec);
            String prefix = uri.getPath().replaceFirst("^/", "");
            return new AzureTier(URI.create(azureEndpoint), System.getenv().getOrDefault("AZURE_STORAGE_ACCOUNT", ""),
                    uri.getHost(), prefix, System.getenv().getOrDefault("AZURE_STORAGE_KEY", ""));
        }
        throw new IllegalArgumentException(
                "tier must be fs:<dir>, s3://<bucket>/<prefix> or azure://<container>/<prefix>, got " + spec);
    }

    /** HMAC-SHA256 of {@code data} (UTF-8) under {@code key}: both signed listings use it. */
    static byte[] hmacSha256(byte[] key, String data) {
        try {
            javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA256");
            mac.init(new javax.crypto.spec.SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(data.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Whether a path names a segment file of the topic, in Kafka's layout {@code <topic>-<partition>-<id>/...log}. */
    static boolean isSegmentOf(String path, String topic) {
        return path.endsWith(".log") && (path.startsWith(topic + "-") || path.contains("/" + topic + "-"));
    }

    /** A tier directory on the local filesystem. */
    record FsTier(Path root) implements Tier {
        @Override
        public List<String> names() throws IOException {
            if (!Files.isDirectory(root)) {
                return List.of();
            }
            try (Stream<Path> files = Files.walk(root)) {
                return files.filter(Files::isRegularFile).map(p -> root.relativize(p).toString()).toList();
            } catch (java.io.UncheckedIOException e) {
                // A file deleted while walking: look again.
                return names();
            }
        }
    }
}
