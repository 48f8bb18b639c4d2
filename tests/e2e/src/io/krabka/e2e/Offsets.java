package io.krabka.e2e;

import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;

/** The ListOffsets answers a scenario looks at (KIP-1005 adds earliest-local and latest-tiered). */
record Offsets(long earliest, long earliestLocal, long latestTiered, long latest) {
    static Offsets of(Admin admin, TopicPartition tp) throws InterruptedException, ExecutionException {
        return new Offsets(
                one(admin, tp, OffsetSpec.earliest()),
                one(admin, tp, OffsetSpec.earliestLocal()),
                one(admin, tp, OffsetSpec.latestTiered()),
                one(admin, tp, OffsetSpec.latest()));
    }

    private static long one(Admin admin, TopicPartition tp, OffsetSpec spec)
            throws InterruptedException, ExecutionException {
        return admin.listOffsets(Map.of(tp, spec)).partitionResult(tp).get().offset();
    }

    @Override
    public String toString() {
        return "earliest=" + earliest + " earliest-local=" + earliestLocal + " latest-tiered=" + latestTiered
                + " latest=" + latest;
    }
}
