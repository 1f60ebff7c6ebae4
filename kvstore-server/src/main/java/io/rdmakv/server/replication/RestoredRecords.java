package io.rdmakv.server.replication;

import io.rdmakv.protocol.wire.Status;
import io.rdmakv.server.store.RocksStore;
import io.rdmakv.server.store.WriteRecords;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * At start, before the first request: the records a previous run kept with its data ({@link WriteRecords}) back into
 * the write-id records ({@link WriteIds#restore}: a retry is answered as before the restart) and the replica's
 * history ({@link ReplicaAdmission#recovered}: what it applied from each sender).
 */
final class RestoredRecords
{
    private static final Logger LOG = LoggerFactory.getLogger(RestoredRecords.class);

    private RestoredRecords()
    {
    }

    static void load(final RocksStore store, final WriteIds writeIds, final ReplicaAdmission replicas)
    {
        if (!writeIds.durable().kept())
        {
            return;
        }
        final long now = System.nanoTime();
        final long[] counts = new long[2];
        store.writeRecords().load(new WriteRecords.Visitor()
        {
            @Override
            public void write(final long writer, final long sequence, final long completedBelow, final int answer,
                final long dataVersion, final byte[] counter)
            {
                writeIds.restore(writer, sequence, completedBelow, Status.fromCode(answer), dataVersion, counter, now);
                counts[0]++;
            }

            @Override
            public void applied(final int sender, final long incarnation, final long sequence)
            {
                replicas.recovered(sender, incarnation, sequence);
                counts[1]++;
            }
        });
        if (counts[0] + counts[1] > 0)
        {
            LOG.info("restored {} write-id records and the replication sequences of {} senders from the store",
                counts[0], counts[1]);
        }
    }
}
