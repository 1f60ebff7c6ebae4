package io.rdmakv.it.admission;

import io.rdmakv.it.support.ControlPortWire;
import io.rdmakv.it.support.ProcessJanitor;
import io.rdmakv.it.support.RawConnection;
import io.rdmakv.it.support.ServerProcess;
import io.rdmakv.protocol.wire.ControlFrame;
import io.rdmakv.protocol.wire.Reject;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.protocol.wire.Welcome;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Guessing the credential against a real server process: one source is slowed to the configured rate (issue 10
 * measured 84 wrong guesses a second, unthrottled), while a right credential from another source is not.
 */
@ExtendWith(ProcessJanitor.class)
class CredentialGuessingTest
{
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final String SECRET = "the right one";

    @TempDir
    Path dir;

    private ServerProcess start(final Map<String, String> settings)
    {
        final ServerProcess.Builder b = ServerProcess.builder(dir.resolve("data")).name("guessing")
            .setting("transport", "tcp").setting("auth.secret", SECRET);
        settings.forEach(b::setting);
        return b.start();
    }

    private static ControlFrame hello(final String source, final ServerProcess server, final String credential)
        throws IOException
    {
        try (RawConnection c = RawConnection.openFrom(source, server.controlAddress()))
        {
            c.send(ControlPortWire.hello(credential));
            return ControlPortWire.answer(c, WAIT);
        }
    }

    @Test
    @Timeout(120)
    void shouldCheckOnlyTheBurstFromAGuessingSourceAndNotSlowAnother() throws Exception
    {
        // After 3 failures the next check of 127.0.0.5 is an hour away: past the handshake deadline, so refused.
        try (ServerProcess server = start(Map.of("auth.failedCredentialBurst", "3",
            "auth.failedCredentialIntervalMs", "3600000")))
        {
            int unauthenticated = 0;
            int busy = 0;
            for (int i = 0; i < 10; i++)
            {
                final Reject r = assertInstanceOf(Reject.class, hello("127.0.0.5", server, "guess " + i));
                if (r.status() == Status.UNAUTHENTICATED)
                {
                    unauthenticated++;
                }
                else if (r.status() == Status.BUSY)
                {
                    busy++;
                }
            }
            assertEquals(3, unauthenticated, "only the burst was checked");
            assertEquals(7, busy);
            // Over its rate, even the right credential from that source waits (here: is refused), so a quick answer
            // never tells a right guess; from another source it is welcomed at once.
            assertEquals(Status.BUSY, assertInstanceOf(Reject.class, hello("127.0.0.5", server, SECRET)).status());
            assertInstanceOf(Welcome.class, hello("127.0.0.6", server, SECRET));
        }
    }

    @Test
    @Timeout(120)
    void shouldDelayTheCheckOfAGuessOverTheRate() throws Exception
    {
        final long intervalMillis = 1500;
        try (ServerProcess server = start(Map.of("auth.failedCredentialBurst", "1",
            "auth.failedCredentialIntervalMs", Long.toString(intervalMillis))))
        {
            final long firstSent = System.nanoTime();
            assertEquals(Status.UNAUTHENTICATED,
                assertInstanceOf(Reject.class, hello("127.0.0.5", server, "guess 1")).status());
            try (RawConnection second = RawConnection.openFrom("127.0.0.5", server.controlAddress()))
            {
                second.send(ControlPortWire.hello("guess 2"));
                // While the second guess waits for its turn, another source is answered.
                assertInstanceOf(Welcome.class, hello("127.0.0.6", server, SECRET));
                final Reject r = assertInstanceOf(Reject.class, ControlPortWire.answer(second, WAIT));
                final long millis = (System.nanoTime() - firstSent) / 1_000_000;
                assertEquals(Status.UNAUTHENTICATED, r.status());
                // The first failure was recorded after we sent it: the second cannot be answered sooner.
                assertTrue(millis >= intervalMillis, "second guess answered " + millis + " ms after the first");
            }
        }
    }

    @Test
    @Timeout(180)
    void shouldBoundTheRateOfCheckedGuessesWithTheDefaults() throws Exception
    {
        // The same guessing with the throttle out of reach (a burst of a million): the rate before it existed.
        final Guessing unthrottled;
        try (ServerProcess server = start(Map.of("auth.failedCredentialBurst", "1000000")))
        {
            unthrottled = guessFor(server, Duration.ofSeconds(5));
        }
        final Guessing throttled;
        try (ServerProcess server = start(Map.of()))
        {
            throttled = guessFor(server, Duration.ofSeconds(5));
        }
        System.out.printf("FIGURE guessing: one source, sequential, 5 s: without the throttle %d of %d answers " +
                "checked (%.1f checked guesses/s); with the defaults %d of %d (%.1f/s)%n", unthrottled.checked,
            unthrottled.answers, unthrottled.checked / unthrottled.seconds, throttled.checked, throttled.answers,
            throttled.checked / throttled.seconds);
        // Burst 10, then one per second: the checks within our window are bounded by the server's rate. A check
        // may also be one booked before the window ended and answered after it (+1).
        assertTrue(throttled.checked <= 10 + (long)Math.ceil(throttled.seconds) + 1,
            "checked " + throttled.checked + " in " + throttled.seconds + " s");
    }

    private record Guessing(int answers, int checked, double seconds)
    {
    }

    private static Guessing guessFor(final ServerProcess server, final Duration duration) throws IOException
    {
        final long start = System.nanoTime();
        final long end = start + duration.toNanos();
        int checked = 0;
        int answers = 0;
        while (System.nanoTime() < end)
        {
            final Reject r = assertInstanceOf(Reject.class, hello("127.0.0.5", server, "guess"));
            answers++;
            if (r.status() == Status.UNAUTHENTICATED)
            {
                checked++;
            }
        }
        return new Guessing(answers, checked, (System.nanoTime() - start) / 1e9);
    }
}
