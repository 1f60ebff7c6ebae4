package io.rdmakv.server.replication;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The primary's count of what each replica has not answered, against the reconcile window it must stay within. */
class ReplicaLagTest
{
    private final ReplicaLag lag = new ReplicaLag();

    @Test
    void shouldAdmitUpToTheWindowInKeysAndKeyBytesAndMakeRoomAsAnswersCome()
    {
        assertTrue(lag.admits(2, 1, 100, 3, 250), "nothing sent yet");
        assertTrue(lag.admits(2, 5, 1000, 3, 250), "a batch larger than the window goes when nothing is unanswered");
        lag.sent(2, 100);
        lag.sent(2, 100);
        assertTrue(lag.admits(2, 1, 50, 3, 250), "3 keys and 250 bytes: exactly the window");
        assertFalse(lag.admits(2, 1, 51, 3, 250), "one byte past the window's key bytes");
        lag.sent(2, 1, 10);
        assertFalse(lag.admits(2, 1, 1, 3, 250), "a fourth key is past the window's keys");
        assertTrue(lag.admits(3, 1, 1, 3, 250), "another replica has its own window");

        lag.acked(2, 1);
        assertTrue(lag.admits(2, 1, 140, 3, 250), "the oldest (100 bytes) answered: in order");
        assertFalse(lag.admits(2, 1, 141, 3, 250));
        assertEquals(3, lag.snapshot(2).get(2).sent());
    }

    @Test
    void shouldCountABatchAsItsKeysAndForgetWhatADroppedLinkHadInFlight()
    {
        lag.sent(2, 3, 30); // one message, three keys
        assertFalse(lag.admits(2, 1, 1, 3, 1000));
        lag.acked(2, 1);
        assertTrue(lag.admits(2, 3, 1000, 3, 1000), "its one answer frees all three");
        lag.sent(2, 1, 1);
        assertFalse(lag.admits(2, 5, 1000, 3, 1000), "past the window behind an unanswered write");
        lag.acked(2, 1);
        lag.sent(2, 3, 30);
        lag.forget(2);
        assertTrue(lag.admits(2, 3, 1000, 3, 1000), "a dropped link's messages are never answered: forgotten");
        lag.acked(2, 2); // a late answer of a forgotten link changes nothing
        assertTrue(lag.admits(2, 3, 1000, 3, 1000));
    }
}
