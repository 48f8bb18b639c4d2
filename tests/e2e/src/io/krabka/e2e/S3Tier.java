package io.krabka.e2e;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A tier in an S3 bucket, listed with ListObjectsV2 signed by AWS Signature V4 (path-style, region us-east-1). */
record S3Tier(URI endpoint, String bucket, String prefix, String accessKey, String secretKey) implements Tier {
    private static final String REGION = "us-east-1";
    private static final Pattern KEY = Pattern.compile("<Key>([^<]*)</Key>");
    private static final Pattern NEXT = Pattern.compile("<NextContinuationToken>([^<]*)</NextContinuationToken>");
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @Override
    public List<String> names() throws IOException, InterruptedException {
        List<String> names = new ArrayList<>();
        String token = null;
        do {
            Map<String, String> query = new TreeMap<>();
            query.put("list-type", "2");
            if (!prefix.isEmpty()) {
                query.put("prefix", prefix);
            }
            if (token != null) {
                query.put("continuation-token", token);
            }
            String body = get("/" + bucket, query);
            Matcher keys = KEY.matcher(body);
            while (keys.find()) {
                String key = keys.group(1).replace("&amp;", "&");
                String relative = key.startsWith(prefix) ? key.substring(prefix.length()).replaceFirst("^/", "") : key;
                names.add(relative);
            }
            Matcher next = NEXT.matcher(body);
            token = body.contains("<IsTruncated>true</IsTruncated>") && next.find() ? next.group(1) : null;
        } while (token != null);
        return names;
    }

    private String get(String path, Map<String, String> query) throws IOException, InterruptedException {
        StringBuilder canonicalQuery = new StringBuilder();
        for (Map.Entry<String, String> e : query.entrySet()) {
            if (canonicalQuery.length() > 0) {
                canonicalQuery.append('&');
            }
            canonicalQuery.append(encode(e.getKey())).append('=').append(encode(e.getValue()));
        }
        String host = endpoint.getHost() + (endpoint.getPort() > 0 ? ":" + endpoint.getPort() : "");
        ZonedDateTime now = ZonedDateTime.now(ZoneOffset.UTC);
        String amzDate = now.format(DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'"));
        String day = amzDate.substring(0, 8);
        String payloadHash = hex(sha256(new byte[0]));
        String signedHeaders = "host;x-amz-content-sha256;x-amz-date";
        String canonicalRequest = "GET\n" + path + "\n" + canonicalQuery + "\n"
                + "host:" + host + "\nx-amz-content-sha256:" + payloadHash + "\nx-amz-date:" + amzDate + "\n\n"
                + signedHeaders + "\n" + payloadHash;
        String scope = day + "/" + REGION + "/s3/aws4_request";
        String toSign = "AWS4-HMAC-SHA256\n" + amzDate + "\n" + scope + "\n"
                + hex(sha256(canonicalRequest.getBytes(StandardCharsets.UTF_8)));
        byte[] key = Tier.hmacSha256(("AWS4" + secretKey).getBytes(StandardCharsets.UTF_8), day);
        key = Tier.hmacSha256(key, REGION);
        key = Tier.hmacSha256(key, "s3");
        key = Tier.hmacSha256(key, "aws4_request");
        String signature = hex(Tier.hmacSha256(key, toSign));
        HttpRequest request = HttpRequest.newBuilder(endpoint.resolve(path + "?" + canonicalQuery))
                .header("x-amz-date", amzDate)
                .header("x-amz-content-sha256", payloadHash)
                .header("Authorization", "AWS4-HMAC-SHA256 Credential=" + accessKey + "/" + scope
                        + ", SignedHeaders=" + signedHeaders + ", Signature=" + signature)
                .GET().build();
        HttpResponse<String> response = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IOException("ListObjectsV2 " + endpoint + path + " answered " + response.statusCode() + ": "
                    + response.body());
        }
        return response.body();
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20").replace("*", "%2A")
                .replace("%7E", "~");
    }

    private static byte[] sha256(byte[] data) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(data);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String hex(byte[] bytes) {
        return HexFormat.of().formatHex(bytes);
    }
}
