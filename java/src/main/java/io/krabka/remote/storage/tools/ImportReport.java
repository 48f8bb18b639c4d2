/*
 * Licensed under the Apache License, Version 2.0.
 */
package io.krabka.remote.storage.tools;

import java.io.PrintStream;
import java.util.EnumMap;
import java.util.Map;
import java.util.StringJoiner;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentState;

/** The counts of an import, added up partition by partition, and how they are printed. */
final class ImportReport {
    int metadataPartitions;
    long records;
    int partitionsImported;
    int partitionsDeleted;
    int segmentsDeleted;
    long imported;
    long alreadyHeld;
    long ofDeleted;
    final Map<RemoteLogSegmentState, Integer> segments = new EnumMap<>(RemoteLogSegmentState.class);

    /** Adds one metadata partition's replica, read. */
    void read(MetadataTopicLog.Replica replica, int events, PrintStream out) {
        metadataPartitions++;
        records += events;
        out.println(MetadataTopicLog.TOPIC + "-" + replica.partition + ": " + events + " events from "
                + replica.dir);
    }

    /** Adds one partition's result and prints its line. */
    void add(PartitionImport.Result result, PrintStream out) {
        String name = result.partition.topicPartition() + " (topic id " + result.partition.topicId()
                + ")";
        if (result.deleted) {
            partitionsDeleted++;
            ofDeleted += result.ofDeleted;
            out.println("  " + name + ": deleted before the import (DELETE_PARTITION_FINISHED), "
                    + "not imported");
            return;
        }
        partitionsImported++;
        segmentsDeleted += result.segmentsDeleted;
        imported += result.imported;
        alreadyHeld += result.alreadyHeld;
        ofDeleted += result.ofDeleted;
        result.segments.forEach((state, count) -> segments.merge(state, count, Integer::sum));
        out.println("  " + name + ": " + result.segmentsHeld() + " segments in the store, "
                + result.segmentsDeleted + " deleted before; events: " + result.imported
                + " imported, " + result.alreadyHeld + " already in the store, " + result.ofDeleted
                + " of deleted segments");
    }

    /** Prints the totals. */
    void print(PrintStream out) {
        int held = segments.values().stream().mapToInt(Integer::intValue).sum();
        StringJoiner states = new StringJoiner(", ", " (", ")");
        states.setEmptyValue("");
        segments.forEach((state, count) -> states.add(count + " " + state));
        out.println("read " + MetadataTopicLog.TOPIC + ": " + metadataPartitions + " partitions, "
                + records + " events");
        out.println("partitions: " + partitionsImported + " imported, " + partitionsDeleted
                + " deleted before the import (not imported)");
        out.println("segments: " + held + " in the store" + states + ", " + segmentsDeleted
                + " deleted before the import (not imported)");
        out.println("events: " + imported + " imported, " + alreadyHeld + " already in the store, "
                + ofDeleted + " of deleted segments or partitions (not imported)");
        out.println("checked: a second manager reading the store afresh lists, for every partition, "
                + "exactly the segments " + MetadataTopicLog.TOPIC + " leaves");
    }
}
