package io.rdmakv.server.replication;

import io.rdmakv.protocol.layout.HashedKey;
import io.rdmakv.protocol.layout.ValueRecord;
import io.rdmakv.protocol.wire.KeyRequestFlyweight;
import io.rdmakv.protocol.wire.MessageType;
import io.rdmakv.protocol.wire.PutRequestFlyweight;
import io.rdmakv.protocol.wire.ReplicateRequestFlyweight;
import io.rdmakv.protocol.wire.ResponseFlyweight;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.server.counters.ServerCounter;
import io.rdmakv.server.counters.ServerCounters;
import io.rdmakv.server.handler.AnsweringEndpoint;
import io.rdmakv.server.handler.ResponseSender;
import io.rdmakv.server.handler.WriteOutcome;
import io.rdmakv.transport.Endpoint;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * At-most-once writes on one node: a retry of a numbered write is answered with the first attempt's outcome and never
 * applied again; a retry that arrives while the first is in progress waits for its outcome; a failed write may be
 * retried; what the writer says it has answered is forgotten; the bounds hold.
 */
class WriteIdsTest
{
    private static final long WRITER = 0x5EED;
    private static final long NOW = 1_000_000_000L;

    private final Answers first = new Answers();
    private final Answers retry = new Answers();
    private final ServerCounters counters = new ServerCounters();
    private final WriteIds ids = new WriteIds(new ResponseSender(counters, 4096), counters, 4, 8, 60_000_000_000L);
    private final List<String> applied = new ArrayList<>();
    private final WriteOutcome outcome = ids.around(new WriteOutcome()
    {
        @Override
        public void putDurable(final Endpoint endpoint, final long correlationId, final HashedKey key,
            final DirectBuffer value, final int valueIndex, final int valueLength)
        {
            applied.add("put " + correlationId);
            ((Answers)endpoint).answers.add(correlationId + " " + Status.OK);
        }

        @Override
        public void deleteDurable(final Endpoint endpoint, final long correlationId, final HashedKey key,
            final boolean existed)
        {
            applied.add("delete " + correlationId);
            ((Answers)endpoint).answers.add(correlationId + " " + (existed ? Status.OK : Status.NOT_FOUND));
        }

        @Override
        public void failed(final Endpoint endpoint, final long correlationId, final Status status,
            final String reason)
        {
            ((Answers)endpoint).answers.add(correlationId + " " + status);
        }

        @Override
        public void unwritten(final Endpoint endpoint, final long correlationId, final Status status,
            final long dataVersion, final long expiryMillis, final String reason)
        {
            ((Answers)endpoint).answers.add(correlationId + " " + status);
        }
    });
    private final UnsafeBuffer buffer = new UnsafeBuffer(new byte[256]);
    private final UnsafeBuffer key = new UnsafeBuffer("k".getBytes(StandardCharsets.US_ASCII));
    private final HashedKey hashedKey = new HashedKey().wrap(key, 0, 1);

    private PutRequestFlyweight put(final long correlationId, final long writer, final long sequence,
        final long below)
    {
        final PutRequestFlyweight put = new PutRequestFlyweight().wrap(buffer, 0, buffer.capacity());
        put.header(MessageType.PUT_REQUEST, correlationId).keyAndValue(key, 0, 1, key, 0, 1);
        put.appendWriteId(writer, sequence, below);
        return put;
    }

    /** A primary's copy of write 12 of {@link #WRITER}, as a backup receives it (correlation id 77). */
    private ReplicateRequestFlyweight replicatedCopy()
    {
        final ReplicateRequestFlyweight copy = new ReplicateRequestFlyweight().wrap(buffer, 0, buffer.capacity());
        copy.header(MessageType.REPLICATE_REQUEST, 77);
        copy.write(1, 0, 16383, 5, ReplicateRequestFlyweight.OP_PUT, key, 0, 1, key, 0, 1);
        copy.appendWriteId(WRITER, 12, 12);
        return copy;
    }

    private void durable(final Answers endpoint, final long correlationId)
    {
        outcome.putDurable(endpoint, correlationId, hashedKey, key, 0, 1);
    }

    @Test
    void shouldRecordTheAnswerAFixUpCarriesInsteadOfThisNodesOutcome()
    {
        final ReplicateRequestFlyweight fixUp = new ReplicateRequestFlyweight().wrap(buffer, 0, buffer.capacity());
        fixUp.header(MessageType.REPLICATE_REQUEST, 78);
        fixUp.write(2, 0, 16383, 6, ReplicateRequestFlyweight.OP_DELETE, key, 0, 1, key, 0, 0);
        fixUp.appendWriteId(WRITER, 13, 0);
        fixUp.appendSequence(9, 4).markFixUp().recordedAnswer(Status.OK);
        ids.beginReplicated(first, 78, fixUp, fixUp.recordedAnswer(), NOW);
        assertEquals(null, ids.answered(WRITER, 13), "not known before it is durable");
        outcome.deleteDurable(first, 78, hashedKey, false); // nothing left to delete here
        assertEquals(List.of("78 NOT_FOUND"), first.answers, "the new primary hears this node's outcome");
        assertEquals(Status.OK, ids.answered(WRITER, 13));

        // Promoted: the client's retry of its DELETE gets the answer the new primary gave it.
        final KeyRequestFlyweight delete = new KeyRequestFlyweight().wrap(buffer, 0, buffer.capacity());
        delete.header(MessageType.DELETE_REQUEST, 41).key(key, 0, 1);
        delete.appendWriteId(WRITER, 13, 0);
        assertEquals(WriteIds.Start.RETRY, ids.begin(retry, 41, delete, NOW));
        assertEquals(List.of("41 OK"), retry.answers);
    }

    @Test
    void shouldAnswerARetryOfAnAppliedWriteWithoutApplyingItAgain()
    {
        assertEquals(WriteIds.Start.APPLY, ids.begin(first, 1, put(1, WRITER, 7, 7), NOW));
        durable(first, 1);
        assertEquals(List.of("1 OK"), first.answers);

        // The answer was lost; the client sends the same write (same id) on a new connection, new correlation id.
        assertEquals(WriteIds.Start.RETRY, ids.begin(retry, 40, put(40, WRITER, 7, 7), NOW));
        assertEquals(List.of("40 OK"), retry.answers, "answered at once with the first attempt's outcome");
        assertEquals(List.of("put 1"), applied, "applied once");
        assertEquals(1, counters.get(ServerCounter.RETRIES_ANSWERED));
    }

    /**
     * Issue 32: a retried INCREMENT answered from its write-id record carries the data version and the new value the
     * first attempt made (it carried neither, and the client raised SERVER_ERROR), both for a retry that came after
     * the outcome and for one that waited for it.
     */
    @Test
    void shouldAnswerARetriedCounterWriteWithTheValueItsFirstAttemptMade()
    {
        final UnsafeBuffer record = new UnsafeBuffer(new byte[ValueRecord.HEADER_LENGTH + 2]);
        ValueRecord.writeHeader(record, 0, 0xABCDEF00L, 0, ValueRecord.FLAG_COUNTER);
        record.putBytes(ValueRecord.HEADER_LENGTH, "42".getBytes(StandardCharsets.US_ASCII));

        assertEquals(WriteIds.Start.APPLY, ids.begin(first, 1, put(1, WRITER, 7, 7), NOW));
        assertEquals(WriteIds.Start.RETRY, ids.begin(retry, 9, put(9, WRITER, 7, 7), NOW));
        outcome.putDurable(first, 1, hashedKey, record, 0, record.capacity());
        assertEquals(List.of("9 OK"), retry.answers);
        assertEquals(List.of(0xABCDEF00L + " 42"), retry.written, "the waiting retry gets the value");

        assertEquals(WriteIds.Start.RETRY, ids.begin(retry, 40, put(40, WRITER, 7, 7), NOW));
        assertEquals(List.of("9 OK", "40 OK"), retry.answers);
        assertEquals(0xABCDEF00L + " 42", retry.written.get(1), "a later retry too");
        assertEquals(1, applied.size(), "applied once");

        // A plain PUT's retry carries its data version and no value.
        final UnsafeBuffer plain = new UnsafeBuffer(new byte[ValueRecord.HEADER_LENGTH + 1]);
        ValueRecord.writeHeader(plain, 0, 0x1234500L, 0);
        assertEquals(WriteIds.Start.APPLY, ids.begin(first, 2, put(2, WRITER, 8, 7), NOW));
        outcome.putDurable(first, 2, hashedKey, plain, 0, plain.capacity());
        assertEquals(WriteIds.Start.RETRY, ids.begin(retry, 41, put(41, WRITER, 8, 7), NOW));
        assertEquals(0x1234500L + " ", retry.written.get(2));
    }

    @Test
    void shouldLetARetryWaitForTheOutcomeOfTheFirstAttemptStillInProgress()
    {
        assertEquals(WriteIds.Start.APPLY, ids.begin(first, 1, put(1, WRITER, 3, 1), NOW));
        assertEquals(WriteIds.Start.RETRY, ids.begin(retry, 9, put(9, WRITER, 3, 1), NOW));
        assertEquals(List.of(), retry.answers, "nothing is known yet");
        durable(first, 1);
        assertEquals(List.of("9 OK"), retry.answers, "answered with the first attempt's outcome");
        assertEquals(List.of("put 1"), applied);
    }

    @Test
    void shouldApplyARetryOfAFailedWriteAndTellWaitersItFailed()
    {
        assertEquals(WriteIds.Start.APPLY, ids.begin(first, 1, put(1, WRITER, 3, 1), NOW));
        assertEquals(WriteIds.Start.RETRY, ids.begin(retry, 9, put(9, WRITER, 3, 1), NOW));
        outcome.failed(first, 1, Status.WRONG_NODE, "127.0.0.1:7001");
        assertEquals(List.of("9 WRONG_NODE"), retry.answers, "the waiter follows the redirect too");
        assertEquals(WriteIds.Start.APPLY, ids.begin(retry, 10, put(10, WRITER, 3, 1), NOW),
            "nothing was applied: the next retry is a new attempt");
    }

    /**
     * A record write refused (nothing written) let go of its record: before, it stayed awaiting an outcome that never
     * came, so a retry of it waited forever, the writer was never dropped, and after as many refusals as the per-writer
     * bound the client's every write was answered BUSY.
     */
    @Test
    void shouldLetGoOfARefusedRecordWriteAndAnswerItsWaitersAlike()
    {
        for (long s = 1; s <= 8; s++)
        {
            assertEquals(WriteIds.Start.APPLY, ids.begin(first, s, put(s, WRITER, s, 1), NOW));
            if (s == 8)
            {
                assertEquals(WriteIds.Start.RETRY, ids.begin(retry, 80, put(80, WRITER, 8, 1), NOW));
            }
            outcome.unwritten(first, s, Status.CONDITION_FAILED, 42, 0, null);
        }
        assertEquals(0, ids.records(), "no record of a write that wrote nothing");
        assertEquals(List.of("80 CONDITION_FAILED"), retry.answers, "a retry that waited gets the same answer");
        assertEquals(WriteIds.Start.APPLY, ids.begin(first, 9, put(9, WRITER, 9, 1), NOW),
            "more refusals than the per-writer bound (8) leave the writer's writes served");
        assertEquals(WriteIds.Start.APPLY, ids.begin(retry, 81, put(81, WRITER, 8, 1), NOW),
            "a retry of a refused write decides again");
        assertEquals(List.of(), applied);
    }

    @Test
    void shouldRecordADeletesOutcome()
    {
        final KeyRequestFlyweight delete = new KeyRequestFlyweight().wrap(buffer, 0, buffer.capacity());
        delete.header(MessageType.DELETE_REQUEST, 5).key(key, 0, 1);
        delete.appendWriteId(WRITER, 2, 2);
        assertEquals(WriteIds.Start.APPLY, ids.begin(first, 5, delete, NOW));
        outcome.deleteDurable(first, 5, hashedKey, true);
        assertEquals(WriteIds.Start.RETRY, ids.begin(retry, 6, delete, NOW));
        assertEquals(List.of("6 OK"), retry.answers, "it existed when the first attempt deleted it");
    }

    @Test
    void shouldForgetWhatTheWriterSaysItHasAnswered()
    {
        for (long s = 1; s <= 3; s++)
        {
            assertEquals(WriteIds.Start.APPLY, ids.begin(first, s, put(s, WRITER, s, 1), NOW));
            durable(first, s);
        }
        assertEquals(3, ids.records());
        assertEquals(WriteIds.Start.APPLY, ids.begin(first, 4, put(4, WRITER, 4, 3), NOW));
        assertEquals(2, ids.records(), "1 and 2 forgotten, 3 (still retriable) and 4 kept");
        assertEquals(WriteIds.Start.RETRY, ids.begin(retry, 8, put(8, WRITER, 3, 3), NOW),
            "3 is still answered from its record");
        assertEquals(WriteIds.Start.REFUSED, ids.begin(retry, 9, put(9, WRITER, 2, 2), NOW),
            "a write below the writer's own mark is answered already: refused, not applied");
        assertTrue(retry.answers.get(retry.answers.size() - 1).startsWith("9 MALFORMED"));
    }

    @Test
    void shouldBoundRecordsPerWriterAndWriters()
    {
        for (long s = 1; s <= 8; s++)
        {
            assertEquals(WriteIds.Start.APPLY, ids.begin(first, s, put(s, WRITER, s, 1), NOW));
        }
        assertEquals(WriteIds.Start.REFUSED, ids.begin(first, 9, put(9, WRITER, 9, 1), NOW));
        assertEquals("9 BUSY", first.answers.get(first.answers.size() - 1));
        for (long w = 2; w <= 4; w++)
        {
            assertEquals(WriteIds.Start.APPLY, ids.begin(retry, 100 + w, put(100 + w, w, 1, 1), NOW));
            durable(retry, 100 + w);
        }
        assertEquals(WriteIds.Start.REFUSED, ids.begin(retry, 200, put(200, 5, 1, 1), NOW), "a fifth writer");
        // Idle writers go after the retention (those with nothing in progress); then there is room again.
        final long later = NOW + 61_000_000_000L;
        assertEquals(WriteIds.Start.APPLY, ids.begin(retry, 201, put(201, 5, 1, 1), later));
        assertEquals(2, ids.writers(), "the writer with 8 writes in progress stays, the three idle ones went");
    }

    @Test
    void shouldRememberAReplicatedWriteSoThatAPromotedReplicaAnswersTheRetry()
    {
        final ReplicateRequestFlyweight copy = replicatedCopy();
        final Answers primaryLink = new Answers();
        ids.beginReplicated(primaryLink, 77, copy, NOW);
        durable(primaryLink, 77);
        ids.beginReplicated(primaryLink, 78, copy, NOW); // the same copy sent again: still applied once below
        assertEquals(WriteIds.Start.RETRY, ids.begin(retry, 3, put(3, WRITER, 12, 12), NOW));
        assertEquals(List.of("3 OK"), retry.answers);
    }

    @Test
    void shouldApplyARetryOfAWriteAReconcileUndidHere()
    {
        final ReplicateRequestFlyweight copy = replicatedCopy();
        final Answers primaryLink = new Answers();
        ids.beginReplicated(primaryLink, 77, copy, NOW);
        durable(primaryLink, 77);
        assertEquals(1, ids.records());

        ids.forget(WRITER, 12);
        ids.forget(WRITER, 99); // nothing recorded: nothing happens
        assertEquals(0, ids.records());
        assertEquals(WriteIds.Start.APPLY, ids.begin(retry, 3, put(3, WRITER, 12, 12), NOW), "applied again");
        durable(retry, 3);
        assertEquals(WriteIds.Start.RETRY, ids.begin(retry, 4, put(4, WRITER, 12, 12), NOW),
            "the new attempt is recorded as usual");
    }

    @Test
    void shouldDropARecordForgottenWhileItsOutcomeWasAwaitedWithoutTouchingALaterOne()
    {
        final ReplicateRequestFlyweight copy = replicatedCopy();
        final Answers primaryLink = new Answers();
        ids.beginReplicated(primaryLink, 77, copy, NOW);
        ids.forget(WRITER, 12); // undone before it was durable
        assertEquals(0, ids.records());

        assertEquals(WriteIds.Start.APPLY, ids.begin(retry, 3, put(3, WRITER, 12, 12), NOW), "a new attempt");
        // The undone copy's outcome arrives (its store write failed): its record is dropped, not the new one.
        outcome.failed(primaryLink, 77, Status.STORE_ERROR, "disk full");
        assertEquals(1, ids.records());
        durable(retry, 3);
        assertEquals(WriteIds.Start.RETRY, ids.begin(first, 4, put(4, WRITER, 12, 12), NOW));
        assertEquals(List.of("4 OK"), first.answers);
    }

    /** An endpoint that records the answers sent to it ("correlationId STATUS"). */
    private static final class Answers extends AnsweringEndpoint
    {
        final List<String> answers = new ArrayList<>();
        /** Each answer's data version written (0: none) and the value after it (a counter's), as text. */
        final List<String> written = new ArrayList<>();

        @Override
        protected void onResponse(final ResponseFlyweight response)
        {
            answers.add(response.correlationId() + " " + response.status());
            final byte[] value = response.value();
            final int tail = Math.max(0, value.length - ResponseFlyweight.WRITTEN_LENGTH);
            written.add(response.writtenVersion() + " " + new String(value, value.length - tail, tail,
                StandardCharsets.US_ASCII));
        }
    }
}
