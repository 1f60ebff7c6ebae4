package io.rdmakv.it.admission;

import io.rdmakv.it.support.DataPortWire;
import io.rdmakv.it.support.ProcessJanitor;
import io.rdmakv.it.support.RawConnection;
import io.rdmakv.it.support.RawConnection.Outcome;
import io.rdmakv.it.support.ServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A flood of malformed input on both ports of a real server process writes a bounded number of log lines (issue 10:
 * a fuzzing run wrote 13,600), while every connection is still refused and closed.
 */
@ExtendWith(ProcessJanitor.class)
class MalformedFloodLogTest
{
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final int CONNECTIONS = 300;
    /** RateLimitedLog's default: lines per site per 10 s window. */
    private static final int LINES_PER_WINDOW = 10;

    @TempDir
    Path dir;

    @Test
    @Timeout(300)
    void shouldWriteABoundedNumberOfLinesForAFloodOfMalformedFrames() throws Exception
    {
        try (ServerProcess server = ServerProcess.builder(dir.resolve("data")).name("logflood")
            .setting("transport", "tcp").start())
        {
            final byte[] garbage = "this is not a control frame".getBytes(StandardCharsets.US_ASCII);
            final byte[] controlGarbage = ByteBuffer.allocate(4 + garbage.length).order(ByteOrder.LITTLE_ENDIAN)
                .putInt(garbage.length).put(garbage).array();
            final byte[] unknownFrameType = DataPortWire.frame((byte)9, new byte[8]);
            final long start = System.nanoTime();
            for (int i = 0; i < CONNECTIONS; i++)
            {
                try (RawConnection control = RawConnection.open(server.controlAddress());
                    RawConnection data = RawConnection.open(server.dataAddress()))
                {
                    control.send(controlGarbage);
                    data.send(unknownFrameType);
                    // Closed means the server handled it, and logged (or counted) before closing.
                    assertEquals(Outcome.CLOSED, control.awaitClose(WAIT));
                    assertEquals(Outcome.CLOSED, data.awaitClose(WAIT));
                }
            }
            final long windows = (System.nanoTime() - start) / Duration.ofSeconds(10).toNanos() + 2;
            final List<String> lines = Files.readAllLines(server.stderrLog());
            final long rejects = lines.stream().filter(l -> l.contains("REJECT MALFORMED")).count();
            final long protocolErrors = lines.stream().filter(l -> l.contains("protocol error from")).count();
            System.out.printf("FIGURE log flood: %d malformed control frames and %d malformed data frames wrote %d " +
                "and %d lines (%d lines in the whole log)%n", CONNECTIONS, CONNECTIONS, rejects, protocolErrors,
                lines.size());
            assertTrue(rejects >= 1 && rejects <= LINES_PER_WINDOW * windows, "REJECT lines: " + rejects);
            assertTrue(protocolErrors >= 1 && protocolErrors <= LINES_PER_WINDOW * windows,
                "protocol error lines: " + protocolErrors);
            assertTrue(server.isAlive(), server.diagnosis());
        }
    }
}
