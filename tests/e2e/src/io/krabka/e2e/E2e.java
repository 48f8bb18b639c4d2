package io.krabka.e2e;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * End-to-end test client: runs steps of a scenario against a running broker.
 *
 * <pre>
 * E2e &lt;step&gt;[,&lt;step&gt;...] --bootstrap host:port --topics name:kind[,name:kind...] [options]
 *   kind is plain, zstd (compressed topic) or txn (transactions, every third one aborted)
 *   create [--replicas 2,3]      topic with remote.storage.enable=true, 1 MiB segments, 1 s local retention
 *   produce                      the topic's known records
 *   wait-tiered --tier SPEC      until closed segments are in the tier and deleted locally
 *   offsets                      checks ListOffsets earliest (0), earliest-local, latest-tiered, latest
 *   verify [--record-dir DIR]    consumes from offset 0 (both isolation levels) and compares every record;
 *                                with DIR, writes the committed records read to DIR/&lt;topic&gt;.tsv (Recorded)
 *   create-plain                 topic without remote storage (a replay target)
 *   verify-replayed --record-dir DIR  read_committed from offset 0: every record (key, value, headers,
 *                                timestamp) is the next of DIR/&lt;topic&gt;.tsv, and no more
 *   delete-records --tier SPEC   deleteRecords, then remote segments below the cut must be gone; verifies the rest
 *   retention --tier SPEC        retention.ms=1000, then no remote segment may remain
 *   delete-topic --tier SPEC     deletes the topic, then no segment file of it may remain in the tier
 *   metadata-in-tier --tier SPEC  our durable metadata manager: no __remote_log_metadata topic in the
 *                                cluster, metadata records of the topic's partition in the tier
 *   retention-archived --tier SPEC  write-once archive: retention.ms=1000 expires every remote segment in
 *                                Kafka while every segment file stays in the tier
 *   delete-topic-archived --tier SPEC  write-once archive: the topic is deleted, its segment files stay
 *   disable-tiering-archived --tier SPEC  write-once archive: tiering is turned off with deletion
 *                                (KIP-950); Kafka drops the remote segments, their files stay
 *   tiering-lifecycle --tier SPEC  a new topic of that name (kind ignored) tiered, copies disabled and
 *                                enabled, tiering disabled with deletion and enabled again ({@link Lifecycle})
 *   await-isr --replicas 2,3     until the in-sync replicas are exactly these
 *   tier-count --tier SPEC       prints how many segment files of the topic the tier holds
 *   tier-list --tier SPEC        prints the names of the topic's segment files in the tier ("  segment file: NAME")
 *   untiered --tier SPEC         nothing of the topic is tiered: no segment file in the tier, latest-tiered
 *                                says none, every record still in the local log (earliest-local 0)
 * SPEC is fs:&lt;dir&gt; or s3://&lt;bucket&gt;/&lt;prefix&gt; with --s3-endpoint http://host:port (keys from
 * AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY) or azure://&lt;container&gt;/&lt;prefix&gt; with --azure-endpoint
 * http://host:port/account (account and key from AZURE_STORAGE_ACCOUNT / AZURE_STORAGE_KEY). Each step runs for every topic before the next step starts.
 * </pre>
 * Exits 0 when every check passed, 1 on a mismatch or failure, 2 on a usage error.
 */
public final class E2e {
    private E2e() {
    }

    public static void main(String[] argv) {
        if (argv.length == 0) {
            usage("missing step");
        }
        Map<String, String> opts = new HashMap<>();
        for (int i = 1; i < argv.length; i++) {
            if (!argv[i].startsWith("--") || i + 1 >= argv.length) {
                usage("bad argument " + argv[i]);
            }
            opts.put(argv[i].substring(2), argv[++i]);
        }
        List<Steps> topics = new ArrayList<>();
        for (String spec : need(opts, "topics").split(",")) {
            String[] parts = spec.split(":", 2);
            if (parts.length != 2) {
                usage("topic spec must be name:kind, got " + spec);
            }
            topics.add(new Steps(need(opts, "bootstrap"), Workload.of(parts[0], parts[1])));
        }
        int code = 0;
        try {
            for (String step : argv[0].split(",")) {
                for (Steps steps : topics) {
                    run(step, steps, opts);
                }
            }
        } catch (Steps.Mismatch e) {
            System.out.println("  MISMATCH: " + e.getMessage());
            code = 1;
        } catch (Exception e) {
            System.out.println("  FAILED: " + e);
            e.printStackTrace(System.out);
            code = 1;
        } finally {
            topics.forEach(Steps::close);
        }
        System.exit(code);
    }

    private static void run(String step, Steps steps, Map<String, String> opts) throws Exception {
        switch (step) {
            case "create" -> steps.create(opts.get("replicas"));
            case "produce" -> steps.produce();
            case "wait-tiered" -> steps.waitTiered(tier(opts), Integer.parseInt(opts.getOrDefault("timeout", "180")));
            case "offsets" -> steps.checkOffsets(0);
            case "verify" -> steps.verify(0, opts.get("record-dir"));
            case "create-plain" -> steps.createPlain();
            case "verify-replayed" -> Recorded.verifyReplayed(need(opts, "bootstrap"), steps.topic(),
                    need(opts, "record-dir"));
            case "delete-records" -> steps.verify((int) steps.deleteRecords(tier(opts)));
            case "retention" -> steps.retention(tier(opts));
            case "retention-archived" -> steps.retentionArchived(tier(opts));
            case "delete-topic" -> steps.deleteTopic(tier(opts));
            case "metadata-in-tier" -> steps.checkMetadataInTier(tier(opts));
            case "delete-topic-archived" -> steps.deleteTopicArchived(tier(opts));
            case "disable-tiering-archived" -> steps.disableTieringArchived(tier(opts));
            case "tiering-lifecycle" -> Lifecycle.run(need(opts, "bootstrap"), steps.topic(), tier(opts));
            case "tier-count" -> Steps.say(tier(opts).segments(steps.topic()) + " segment file(s) of " + steps.topic()
                    + " in the tier");
            case "tier-list" -> tier(opts).segmentNames(steps.topic()).stream().sorted()
                    .forEach(name -> System.out.println("  segment file: " + name));
            case "untiered" -> steps.checkUntiered(tier(opts));
            case "await-isr" -> steps.awaitIsr(need(opts, "replicas"),
                    Integer.parseInt(opts.getOrDefault("timeout", "120")));
            default -> usage("unknown step " + step);
        }
    }

    private static Tier tier(Map<String, String> opts) {
        return Tier.parse(need(opts, "tier"), opts.getOrDefault("s3-endpoint", ""),
                opts.getOrDefault("azure-endpoint", ""));
    }

    private static String need(Map<String, String> opts, String key) {
        String v = opts.get(key);
        if (v == null) {
            usage("missing --" + key);
        }
        return v;
    }

    private static void usage(String problem) {
        System.err.println("e2e: " + problem + " (see the class comment of io.krabka.e2e.E2e)");
        System.exit(2);
    }
}
