package io.krabka.e2e;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A tier in an Azure Blob Storage container, listed with List Blobs signed with the account's shared key.
 * {@code endpoint} is the account's blob endpoint, containers directly under it (Azurite:
 * {@code http://host:port/devstoreaccount1}).
 */
record AzureTier(URI endpoint, String account, String container, String prefix, String key) implements Tier {
    private static final String VERSION = "2021-12-02";
    private static final Pattern NAME = Pattern.compile("<Name>([^<]*)</Name>");
    private static final Pattern NEXT = Pattern.compile("<NextMarker>([^<]+)</NextMarker>");
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @Override
    public List<String> names() throws IOException, InterruptedException {
        List<String> names = new ArrayList<>();
        String marker = null;
        do {
            Map<String, String> query = new TreeMap<>();
            query.put("comp", "list");
            query.put("restype", "container");
            if (!prefix.isEmpty()) {
                query.put("prefix", prefix + "/");
            }
            if (marker != null) {
                query.put("marker", marker);
            }
            String body = list(query);
            Matcher blobs = NAME.matcher(body);
            while (blobs.find()) {
                String name = blobs.group(1).replace("&amp;", "&");
                String relative = name.startsWith(prefix) ? name.substring(prefix.length()).replaceFirst("^/", "") : name;
                names.add(relative);
            }
            Matcher next = NEXT.matcher(body);
            marker = next.find() ? next.group(1) : null;
        } while (marker != null);
        return names;
    }

    private String list(Map<String, String> query) throws IOException, InterruptedException {
        String path = endpoint.getPath().replaceFirst("/$", "") + "/" + container;
        StringBuilder url = new StringBuilder();
        StringBuilder canonicalQuery = new StringBuilder();
        for (Map.Entry<String, String> e : query.entrySet()) {
            url.append(url.length() == 0 ? '?' : '&').append(e.getKey()).append('=')
                    .append(URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8).replace("+", "%20"));
            canonicalQuery.append('\n').append(e.getKey()).append(':').append(e.getValue());
        }
        String date = ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.RFC_1123_DATE_TIME);
        // VERB, 11 empty standard headers, the x-ms-* headers, then /account/path and the sorted query.
        String toSign = "GET\n" + "\n".repeat(11) + "x-ms-date:" + date + "\nx-ms-version:" + VERSION + "\n/"
                + account + path + canonicalQuery;
        String signature = Base64.getEncoder().encodeToString(Tier.hmacSha256(Base64.getDecoder().decode(key), toSign));
        HttpRequest request = HttpRequest.newBuilder(endpoint.resolve(path + url))
                .header("x-ms-date", date)
                .header("x-ms-version", VERSION)
                .header("Authorization", "SharedKey " + account + ":" + signature)
                .GET().build();
        HttpResponse<String> response = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IOException("List Blobs " + endpoint + path + " answered " + response.statusCode() + ": "
                    + response.body());
        }
        return response.body();
    }
}
