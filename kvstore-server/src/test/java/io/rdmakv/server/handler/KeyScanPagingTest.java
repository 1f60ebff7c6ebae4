package io.rdmakv.server.handler;

import io.rdmakv.protocol.ProtocolLimits;
import io.rdmakv.protocol.layout.KeyHash;
import io.rdmakv.protocol.layout.KeyHasher;
import io.rdmakv.protocol.wire.AttachRequestFlyweight;
import io.rdmakv.protocol.wire.KeyScanPage;
import io.rdmakv.protocol.wire.KeyScanRequestFlyweight;
import io.rdmakv.protocol.wire.MessageType;
import io.rdmakv.protocol.wire.ResponseFlyweight;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.server.cluster.ClusterMember;
import io.rdmakv.server.cluster.ClusterState;
import io.rdmakv.server.cluster.SlotRange;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * KEY_SCAN on the node, driven straight into its handler on one thread: every page is bounded (count, keys examined),
 * resumes after the last key the page before examined, sees a key inserted after the cursor between pages and not one
 * deleted before it was reached; a run of hash slots stops where the node stops serving; bad and unauthenticated
 * requests are refused and the node keeps serving.
 */
class KeyScanPagingTest
{
    @TempDir
    Path dir;

    private final List<Object> answers = new ArrayList<>();

    private final class Recording extends AnsweringEndpoint
    {
        @Override
        protected void onResponse(final ResponseFlyweight response)
        {
            if (response.status() == Status.OK)
            {
                final byte[] page = new byte[response.valueLength()];
                response.buffer().getBytes(response.valueIndex(), page);
                answers.add(page);
            }
            else
            {
                answers.add(response.status());
            }
        }
    }

    @Test
    void shouldReturnEveryKeyOnceInStoreOrderInPagesOfAtMostCount()
    {
        try (HandlerOnOneThread node = new HandlerOnOneThread(dir))
        {
            final Set<String> written = new TreeSet<>();
            for (int i = 0; i < 300; i++)
            {
                node.store.put(utf8("k:" + i), utf8("v" + i));
                written.add("k:" + i);
            }
            final Recording client = attach(node);
            final List<String> seen = new ArrayList<>();
            int nextSlot = 0;
            byte[] after = new byte[0];
            int pages = 0;
            long lastPosition = -1;
            while (nextSlot < ProtocolLimits.HASH_SLOT_COUNT)
            {
                final KeyScanPage.Decoded page = scan(node, client, nextSlot, 16383, 7, 0, after, new byte[0],
                    new byte[0], false);
                pages++;
                assertTrue(page.keys().size() <= 7, "count bounds a page: " + page.keys().size());
                for (final byte[] key : page.keys())
                {
                    final long position = (long)KeyHash.hashSlot(key) << 32 | seen.size();
                    assertTrue(position > lastPosition, "hash slot by hash slot");
                    lastPosition = position;
                    seen.add(new String(key, StandardCharsets.UTF_8));
                }
                nextSlot = page.nextSlot();
                after = page.resumeKey();
                assertEquals(nextSlot == ProtocolLimits.HASH_SLOT_COUNT, page.end());
            }
            assertEquals(written.size(), seen.size(), "each key once");
            assertEquals(written, new TreeSet<>(seen));
            assertTrue(pages >= 300 / 7, "pages: " + pages);
        }
    }

    @Test
    void shouldResumeAfterTheCursorSeeingKeysInsertedAfterItAndNotKeysDeletedBeforeReached()
    {
        try (HandlerOnOneThread node = new HandlerOnOneThread(dir))
        {
            for (int i = 0; i < 100; i++)
            {
                node.store.put(tagged(i), utf8("v"));
            }
            final int hashSlot = KeyHash.hashSlot(tagged(0));
            final Recording client = attach(node);
            final KeyScanPage.Decoded first = scan(node, client, hashSlot, hashSlot, 10, 0, new byte[0],
                new byte[0], new byte[0], false);
            assertEquals(10, first.keys().size());
            assertEquals("{t}a009", new String(first.resumeKey(), StandardCharsets.UTF_8), "resumes after its last");
            assertFalse(first.end());

            node.store.delete(tagged(50));                  // not reached yet: never returned
            node.store.put(utf8("{t}a0505"), utf8("new"));  // after the cursor: returned
            node.store.put(utf8("{t}a0005"), utf8("new"));  // before the cursor: not returned (not there throughout)

            final Set<String> seen = new HashSet<>();
            first.keys().forEach(k -> seen.add(new String(k, StandardCharsets.UTF_8)));
            KeyScanPage.Decoded page = first;
            int pages = 1;
            while (!page.end())
            {
                page = scan(node, client, page.nextSlot(), hashSlot, 10, 0, page.resumeKey(), new byte[0],
                    new byte[0], false);
                pages++;
                page.keys().forEach(k -> assertTrue(seen.add(new String(k, StandardCharsets.UTF_8)), "once"));
            }
            assertEquals(hashSlot + 1, page.nextSlot());
            assertTrue(seen.contains("{t}a0505"));
            assertFalse(seen.contains("{t}a050"));
            assertFalse(seen.contains("{t}a0005"));
            for (int i = 0; i < 100; i++)
            {
                assertTrue(i == 50 || seen.contains(new String(tagged(i), StandardCharsets.UTF_8)), "key " + i);
            }
            assertEquals(100, seen.size()); // 99 present throughout + the one inserted after the cursor
            assertEquals(10, pages, "100 keys, 10 a page: the tenth page runs out of keys and says so");
        }
    }

    @Test
    void shouldExamineABoundedNumberOfKeysPerRequestWhenFewMatch()
    {
        try (HandlerOnOneThread node = new HandlerOnOneThread(dir))
        {
            final int total = KeyScans.MAX_EXAMINED * 2 + 500;
            for (int i = 0; i < total; i++)
            {
                node.store.put(utf8("miss:" + i), utf8("v"));
            }
            node.store.put(utf8("hit:1"), utf8("v"));
            final Recording client = attach(node);
            int nextSlot = 0;
            byte[] after = new byte[0];
            int requests = 0;
            final List<String> hits = new ArrayList<>();
            boolean end = false;
            while (!end)
            {
                final KeyScanPage.Decoded page = scan(node, client, nextSlot, 16383, 1000, 0, after, new byte[0],
                    utf8("hit:*"), false);
                requests++;
                page.keys().forEach(k -> hits.add(new String(k, StandardCharsets.UTF_8)));
                nextSlot = page.nextSlot();
                after = page.resumeKey();
                end = page.end();
            }
            assertEquals(List.of("hit:1"), hits);
            assertEquals(3, requests, "each request examines at most " + KeyScans.MAX_EXAMINED + " keys");
        }
    }

    @Test
    void shouldReadARangeWithValuesAndStopAtItsUpperBound()
    {
        try (HandlerOnOneThread node = new HandlerOnOneThread(dir))
        {
            for (int i = 0; i < 20; i++)
            {
                node.store.put(tagged(i), utf8("value " + i));
            }
            node.store.put(utf8("{u}a005"), utf8("another tag"));
            final int hashSlot = KeyHash.hashSlot(tagged(0));
            final Recording client = attach(node);
            final KeyScanPage.Decoded page = scan(node, client, hashSlot, hashSlot, 100,
                KeyScanRequestFlyweight.WITH_VALUES | KeyScanRequestFlyweight.FROM_INCLUSIVE, tagged(5), tagged(9),
                new byte[0], true);
            final List<String> keys = new ArrayList<>();
            page.keys().forEach(k -> keys.add(new String(k, StandardCharsets.UTF_8)));
            assertEquals(List.of("{t}a005", "{t}a006", "{t}a007", "{t}a008"), keys, "from inclusive, to exclusive");
            assertEquals("value 7", new String(page.values().get(2), StandardCharsets.UTF_8));
            assertTrue(page.end());
        }
    }

    @Test
    void shouldStopAtTheFirstHashSlotItDoesNotServeAndRefuseOneItDoesNotServe()
    {
        final ClusterState state = new ClusterState(3,
            List.of(new ClusterMember(1, "127.0.0.1", 7400, 7401), new ClusterMember(2, "127.0.0.1", 7500, 7501)),
            List.of(new SlotRange(0, 8191, 1, 1, List.of(), List.of(), SlotRange.State.LIVE),
                new SlotRange(8192, 16383, 1, 2, List.of(), List.of(), SlotRange.State.LIVE)));
        try (HandlerOnOneThread node = new HandlerOnOneThread(dir, KeyHasher.STANDARD,
            SlotRouter.of(state, 1, "127.0.0.1:7400")))
        {
            node.store.put(utf8("a"), utf8("v"));
            final Recording client = attach(node);
            final KeyScanPage.Decoded page = scan(node, client, 0, 16383, 1000, 0, new byte[0], new byte[0],
                new byte[0], false);
            assertEquals(8192, page.nextSlot(), "resumes at the first hash slot another node serves");
            assertFalse(page.end());
            answers.clear();
            send(node, client, KeyScanRequestFlyweight.body(8192, 16383, 10, 0, new byte[0], new byte[0],
                new byte[0]));
            assertEquals(List.of(Status.WRONG_NODE), answers);
        }
    }

    @Test
    void shouldRefuseAMalformedScanAndAnUnattachedEndpointAndKeepServing()
    {
        try (HandlerOnOneThread node = new HandlerOnOneThread(dir))
        {
            node.store.put(utf8("a"), utf8("v"));
            final Recording stranger = new Recording();
            node.handler.onConnected(stranger);
            answers.clear();
            send(node, stranger, KeyScanRequestFlyweight.body(0, 16383, 10, 0, new byte[0], new byte[0],
                new byte[0]));
            assertEquals(List.of(Status.UNAUTHENTICATED), answers, "nothing is served before ATTACH");

            final Recording client = attach(node);
            answers.clear();
            final byte[] zeroCount = KeyScanRequestFlyweight.body(0, 16383, 1, 0, new byte[0], new byte[0],
                new byte[0]);
            zeroCount[4] = 0; // count 0
            send(node, client, zeroCount);
            final byte[] lastBeforeFirst = KeyScanRequestFlyweight.body(5, 5, 1, 0, new byte[0], new byte[0],
                new byte[0]);
            lastBeforeFirst[2] = 4; // last hash slot 4 < first 5
            send(node, client, lastBeforeFirst);
            assertEquals(List.of(Status.MALFORMED, Status.MALFORMED), answers);
            final KeyScanPage.Decoded page = scan(node, client, 0, 16383, 10, 0, new byte[0], new byte[0],
                new byte[0], false);
            assertEquals(1, page.keys().size(), "still serving");
        }
    }

    /** A page holds the client's values (no record header) and no expired key, by the node's clock. */
    @Test
    void shouldLeaveExpiredKeysOutAndAnswerValuesWithoutTheirRecordHeader()
    {
        try (HandlerOnOneThread node = new HandlerOnOneThread(dir))
        {
            final long farFuture = System.currentTimeMillis() + java.util.concurrent.TimeUnit.DAYS.toMillis(365);
            node.store.putRecord(tagged(1), io.rdmakv.protocol.layout.ValueRecord.of(utf8("lives"), 7, farFuture));
            node.store.putRecord(tagged(2), io.rdmakv.protocol.layout.ValueRecord.of(utf8("expired"), 8, 1));
            node.store.put(tagged(3), utf8("plain"));
            final int hashSlot = KeyHash.hashSlot(tagged(0));
            final Recording client = attach(node);
            final KeyScanPage.Decoded keysOnly = scan(node, client, hashSlot, hashSlot, 100, 0, new byte[0],
                new byte[0], new byte[0], false);
            final List<String> keys = new ArrayList<>();
            keysOnly.keys().forEach(k -> keys.add(new String(k, StandardCharsets.UTF_8)));
            assertEquals(List.of("{t}a001", "{t}a003"), keys, "the expired key is in no page");
            final KeyScanPage.Decoded withValues = scan(node, client, hashSlot, hashSlot, 100,
                KeyScanRequestFlyweight.WITH_VALUES, new byte[0], new byte[0], new byte[0], true);
            assertEquals("lives", new String(withValues.values().get(0), StandardCharsets.UTF_8));
            assertEquals("plain", new String(withValues.values().get(1), StandardCharsets.UTF_8));
        }
    }

    private KeyScanPage.Decoded scan(final HandlerOnOneThread node, final Recording client, final int firstSlot,
        final int lastSlot, final int count, final int flags, final byte[] from, final byte[] to, final byte[] match,
        final boolean withValues)
    {
        answers.clear();
        send(node, client, KeyScanRequestFlyweight.body(firstSlot, lastSlot, count, flags, from, to, match));
        assertEquals(1, answers.size());
        final Object answer = answers.get(0);
        assertTrue(answer instanceof byte[], "answered " + answer);
        final byte[] page = (byte[])answer;
        return KeyScanPage.read(new UnsafeBuffer(page), 0, page.length, withValues);
    }

    private static void send(final HandlerOnOneThread node, final Recording client, final byte[] body)
    {
        final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(4096));
        final KeyScanRequestFlyweight request = new KeyScanRequestFlyweight();
        request.wrap(message, 0, message.capacity()).request(1, new UnsafeBuffer(body), 0, body.length);
        node.handler.onMessage(client, message, 0, request.encodedLength());
    }

    private Recording attach(final HandlerOnOneThread node)
    {
        final Recording endpoint = new Recording();
        node.handler.onConnected(endpoint);
        final UnsafeBuffer attach = new UnsafeBuffer(new byte[AttachRequestFlyweight.ENCODED_LENGTH]);
        new AttachRequestFlyweight().wrap(attach, 0, attach.capacity()).header(MessageType.ATTACH_REQUEST, 0)
            .ticket(node.tickets.issue());
        answers.clear();
        node.handler.onMessage(endpoint, attach, 0, attach.capacity());
        assertEquals(1, answers.size(), "attached");
        return endpoint;
    }

    private static byte[] tagged(final int i)
    {
        return utf8(String.format("{t}a%03d", i));
    }

    private static byte[] utf8(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
