/*
 * Licensed under the Apache License, Version 2.0.
 */
package io.krabka.remote.storage.tools;

import io.krabka.remote.storage.KrabkaRemoteLogMetadataManager;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.config.ConfigException;

/**
 * Imports the history of Kafka's {@code TopicBasedRemoteLogMetadataManager} (its
 * {@code __remote_log_metadata} topic, read from the log directories of stopped brokers) into the
 * durable store of {@link KrabkaRemoteLogMetadataManager}, so a cluster that tiers with Kafka's
 * manager can switch to ours without losing a tiered segment ({@code docs/metadata.md},
 * "Switching from Kafka's topic-based manager").
 *
 * <pre>
 * java -cp "krabka-remote-storage.jar:$KAFKA_HOME/libs/*" \
 *   io.krabka.remote.storage.tools.ImportTopicBasedMetadata \
 *   --log-dir /var/lib/kafka/data [--log-dir ...] --config server.properties \
 *   [--metadata-partitions 50]
 * </pre>
 *
 * <p>It decodes the topic's records with Kafka's own classes ({@code FileRecords},
 * {@code RemoteLogMetadataSerde}, from the broker's {@code libs/}), replays every partition's
 * events in order through {@link KrabkaRemoteLogMetadataManager} configured with the
 * {@code rlmm.config.*} keys of {@code --config}, and checks the result with a second manager that
 * reads the store afresh ({@link PartitionImport} has the rules). It holds each log directory's
 * {@code .lock}, as a broker does, so it refuses to run beside a broker using them, and no broker
 * starts on them while it runs. A rerun writes only what the store lacks.
 *
 * <p>Exit codes: 0 imported and checked; 1 the import stopped (a corrupt record, an event the
 * manager refused, a store error, a failed check: the message says which and where); 2 it could
 * not start (a log directory in use or incomplete, a bad configuration); 64 usage.
 */
public final class ImportTopicBasedMetadata {
    static final int EXIT_OK = 0;
    static final int EXIT_FAILED = 1;
    static final int EXIT_CANNOT_START = 2;
    static final int EXIT_USAGE = 64;

    /** Kafka's default of {@code remote.log.metadata.topic.num.partitions}. */
    static final int DEFAULT_PARTITIONS = 50;
    private static final String PREFIX = "rlmm.config.";
    private static final String CLASS_KEY = "remote.log.metadata.manager.class.name";

    private static final String USAGE = "usage: java -cp \"krabka-remote-storage.jar:$KAFKA_HOME/libs/*\" "
            + "io.krabka.remote.storage.tools.ImportTopicBasedMetadata --log-dir DIR [--log-dir DIR ...] "
            + "--config FILE [--metadata-partitions N]\n\n"
            + "  --log-dir              a log directory (log.dirs) of a stopped broker; repeat it for every\n"
            + "                         log directory of every broker holding a " + MetadataTopicLog.TOPIC
            + " replica\n"
            + "  --config               the properties the brokers will run with: its rlmm.config.* keys\n"
            + "                         configure the durable manager (the new server.properties works)\n"
            + "  --metadata-partitions  partitions of " + MetadataTopicLog.TOPIC + " (the old rlmm.config."
            + "remote.log.metadata.topic.num.partitions; default " + DEFAULT_PARTITIONS + ")\n";

    private ImportTopicBasedMetadata() {
    }

    /**
     * Runs the import and exits with its code.
     *
     * @param args the options
     */
    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** A failure that ends the run with an exit code. */
    static final class Stop extends Exception {
        private static final long serialVersionUID = 1L;
        final int code;

        Stop(int code, String message) {
            super(message);
            this.code = code;
        }
    }

    /** The parsed options. */
    static final class Options {
        final Set<Path> logDirs = new LinkedHashSet<>();
        Path config;
        int partitions = DEFAULT_PARTITIONS;
        boolean help;

        static Options parse(String[] args) throws Stop {
            Options options = new Options();
            for (int i = 0; i < args.length; i++) {
                String arg = args[i];
                switch (arg) {
                    case "--help":
                    case "-h":
                        options.help = true;
                        break;
                    case "--log-dir":
                        options.logDirs.add(Paths.get(value(args, ++i, arg)).toAbsolutePath().normalize());
                        break;
                    case "--config":
                        options.config = Paths.get(value(args, ++i, arg));
                        break;
                    case "--metadata-partitions":
                        try {
                            options.partitions = Integer.parseInt(value(args, ++i, arg));
                        } catch (NumberFormatException e) {
                            throw new Stop(EXIT_USAGE, "--metadata-partitions takes a number");
                        }
                        if (options.partitions < 1) {
                            throw new Stop(EXIT_USAGE, "--metadata-partitions must be at least 1");
                        }
                        break;
                    default:
                        throw new Stop(EXIT_USAGE, "unknown argument " + arg);
                }
            }
            if (!options.help && (options.logDirs.isEmpty() || options.config == null)) {
                throw new Stop(EXIT_USAGE, "--log-dir and --config are required");
            }
            return options;
        }

        private static String value(String[] args, int i, String option) throws Stop {
            if (i >= args.length) {
                throw new Stop(EXIT_USAGE, option + " takes a value");
            }
            return args[i];
        }
    }

    /** Runs the import; returns the exit code. Never throws. */
    static int run(String[] args, PrintStream out, PrintStream err) {
        Options options;
        try {
            options = Options.parse(args);
        } catch (Stop stop) {
            err.println("import: " + stop.getMessage());
            err.print(USAGE);
            return stop.code;
        }
        if (options.help) {
            out.print(USAGE);
            return EXIT_OK;
        }
        List<FileLock> locks = new ArrayList<>();
        try {
            Map<String, String> config = managerConfig(options.config);
            for (Path logDir : options.logDirs) {
                lock(logDir, locks);
            }
            return importAll(options, config, out, err);
        } catch (Stop stop) {
            err.println("import: " + stop.getMessage());
            return stop.code;
        } catch (ImportException e) {
            err.println("import failed: " + e.getMessage());
            err.println("nothing the store already held was changed; fix the cause and run the "
                    + "import again: it continues where it stopped");
            return EXIT_FAILED;
        } catch (Throwable t) {
            err.println("import failed: " + t);
            return EXIT_FAILED;
        } finally {
            for (FileLock lock : locks) {
                try {
                    lock.channel().close();
                } catch (IOException e) {
                    err.println("import: cannot release " + lock + ": " + e.getMessage());
                }
            }
        }
    }

    private static int importAll(Options options, Map<String, String> config, PrintStream out,
            PrintStream err) throws Stop, ImportException {
        KafkaLogFiles files = KafkaLogFiles.load();
        List<MetadataTopicLog.Replica> replicas;
        try {
            replicas = MetadataTopicLog.replicas(new ArrayList<>(options.logDirs), options.partitions,
                    files);
        } catch (ImportException e) {
            throw new Stop(EXIT_CANNOT_START, e.getMessage());
        }
        ImportReport report = new ImportReport();
        try (KrabkaRemoteLogMetadataManager writer = open(config);
             KrabkaRemoteLogMetadataManager checker = open(config)) {
            for (MetadataTopicLog.Replica replica : replicas) {
                List<MetadataTopicLog.Event> events = MetadataTopicLog.read(replica, files,
                        warning -> err.println("import: " + warning));
                report.read(replica, events.size(), out);
                for (Map.Entry<TopicIdPartition, List<MetadataTopicLog.Event>> partition
                        : byPartition(events).entrySet()) {
                    report.add(new PartitionImport(partition.getKey(), partition.getValue())
                            .run(writer, checker), out);
                }
            }
        }
        report.print(out);
        return EXIT_OK;
    }

    /** The events of each partition, in the topic's order. */
    private static Map<TopicIdPartition, List<MetadataTopicLog.Event>> byPartition(
            List<MetadataTopicLog.Event> events) {
        Map<TopicIdPartition, List<MetadataTopicLog.Event>> partitions = new LinkedHashMap<>();
        for (MetadataTopicLog.Event event : events) {
            partitions.computeIfAbsent(event.metadata.topicIdPartition(), p -> new ArrayList<>())
                    .add(event);
        }
        return partitions;
    }

    /** A durable manager configured as the brokers will be. */
    private static KrabkaRemoteLogMetadataManager open(Map<String, String> config) throws Stop {
        KrabkaRemoteLogMetadataManager manager = new KrabkaRemoteLogMetadataManager();
        try {
            manager.configure(config);
        } catch (ConfigException e) {
            throw new Stop(EXIT_CANNOT_START, "the rlmm.config.* keys do not configure the durable "
                    + "manager: " + e.getMessage());
        } catch (RuntimeException e) {
            throw new Stop(EXIT_CANNOT_START, "cannot open the durable manager: " + e.getMessage());
        }
        return manager;
    }

    /**
     * The {@code rlmm.config.*} keys of {@code file}, prefix removed.
     *
     * @throws Stop when the file cannot be read, has none, names another manager class, or asks
     *     for the in-memory manager
     */
    static Map<String, String> managerConfig(Path file) throws Stop {
        Properties properties = new Properties();
        try (InputStream in = Files.newInputStream(file)) {
            properties.load(in);
        } catch (IOException e) {
            throw new Stop(EXIT_CANNOT_START, "cannot read " + file + ": " + e);
        }
        String manager = properties.getProperty(CLASS_KEY);
        if (manager != null && !manager.trim().equals(KrabkaRemoteLogMetadataManager.class.getName())) {
            throw new Stop(EXIT_CANNOT_START, file + " sets " + CLASS_KEY + "=" + manager.trim()
                    + ": give the configuration the brokers will use after the switch, with "
                    + KrabkaRemoteLogMetadataManager.class.getName());
        }
        Map<String, String> config = new HashMap<>();
        for (String key : properties.stringPropertyNames()) {
            if (key.startsWith(PREFIX)) {
                config.put(key.substring(PREFIX.length()), properties.getProperty(key).trim());
            }
        }
        if (config.isEmpty()) {
            throw new Stop(EXIT_CANNOT_START, file + " has no " + PREFIX + "* key: give the "
                    + "configuration of the durable manager (rlmm.config.backend, ...)");
        }
        if ("memory".equals(config.get("metadata.manager"))) {
            throw new Stop(EXIT_CANNOT_START, file + " sets " + PREFIX + "metadata.manager=memory: "
                    + "the import writes to the durable manager (metadata.manager=store)");
        }
        return config;
    }

    /**
     * Takes {@code logDir/.lock} as a broker does, so that no broker uses the directory while the
     * import reads it. A directory without a {@code .lock} (a copy) is read as it is.
     */
    private static void lock(Path logDir, List<FileLock> locks) throws Stop {
        Path file = logDir.resolve(".lock");
        FileChannel channel;
        try {
            channel = FileChannel.open(file, StandardOpenOption.WRITE);
        } catch (NoSuchFileException e) {
            return;
        } catch (IOException e) {
            throw new Stop(EXIT_CANNOT_START, "cannot open " + file + ": " + e);
        }
        FileLock lock = null;
        String failure = null;
        try {
            lock = channel.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null;
        } catch (IOException e) {
            failure = "cannot lock " + file + ": " + e;
        }
        if (lock == null) {
            try {
                channel.close();
            } catch (IOException e) {
                // Nothing more to report than the lock.
            }
            throw new Stop(EXIT_CANNOT_START, failure != null ? failure : "log directory " + logDir
                    + " is in use: a broker holds " + file + "; stop the brokers before the import");
        }
        locks.add(lock);
    }
}
