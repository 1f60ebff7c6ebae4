package io.rdmakv.it.auth;

import io.rdmakv.client.HostPort;
import io.rdmakv.client.control.ControlPlaneClient;
import io.rdmakv.it.support.ServerProcess;
import io.rdmakv.protocol.auth.Login;
import io.rdmakv.protocol.auth.Role;
import io.rdmakv.protocol.auth.ScramCredential;
import io.rdmakv.protocol.auth.User;
import io.rdmakv.protocol.auth.UsersFile;
import io.rdmakv.protocol.wire.ControlFrameCodec;
import io.rdmakv.protocol.wire.Hello;
import io.rdmakv.transport.tls.TlsSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * What a login costs one control-plane handshake (a fresh connection, HELLO to WELCOME, as a client's connect and
 * every map refresh do it), against one node process: the shared secret, and SCRAM-SHA-256 for a user made with
 * 4,096 and with the default 100,000 PBKDF2 iterations (the client computes them; the node only checks the proof).
 * Rounds alternate the three so the host's load drifts over all alike. Prints FIGURE lines; asserts only that every
 * handshake was welcomed.
 */
@Timeout(300)
class LoginCostFiguresTest
{
    private static final int ROUNDS = 30;

    @TempDir
    Path tmp;

    @Test
    void shouldMeasureWhatALoginAddsToAHandshake() throws Exception
    {
        final SecureRandom random = new SecureRandom();
        final Path users = tmp.resolve("users");
        UsersFile.write(users, List.of(
            new User("fast", Role.READ, List.of(), ScramCredential.create("pw-fast".toCharArray(), 4096, random)),
            new User("slow", Role.READ, List.of(), ScramCredential.create("pw-slow".toCharArray(), 100_000, random))));
        try (ServerProcess node = ServerProcess.builder(tmp.resolve("node")).name("login-cost")
            .setting("transport", "tcp").setting("auth.usersFile", users.toString())
            .setting("auth.secret", "figure-secret").start();
             ControlPlaneClient secret = new ControlPlaneClient(TlsSettings.OFF);
             ControlPlaneClient fast = new ControlPlaneClient(TlsSettings.OFF, new Login("fast", "pw-fast".toCharArray()));
             ControlPlaneClient slow = new ControlPlaneClient(TlsSettings.OFF, new Login("slow", "pw-slow".toCharArray())))
        {
            final HostPort at = HostPort.parse(node.seed());
            final Hello withSecret = new Hello(ControlFrameCodec.PROTOCOL_VERSION, List.of("tcp"),
                "figure-secret".getBytes(StandardCharsets.UTF_8));
            final Hello bare = new Hello(ControlFrameCodec.PROTOCOL_VERSION, List.of("tcp"), new byte[0]);
            final ControlPlaneClient[] clients = {secret, fast, slow};
            final Hello[] hellos = {withSecret, bare, bare};
            final String[] names = {"shared secret", "SCRAM, 4,096 iterations", "SCRAM, 100,000 iterations"};
            final List<List<Long>> micros = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
            for (int round = -3; round < ROUNDS; round++) // 3 rounds of warm-up
            {
                for (int k = 0; k < 3; k++)
                {
                    final int i = Math.floorMod(round + k, 3);
                    final long start = System.nanoTime();
                    clients[i].handshake(at, hellos[i], Duration.ofSeconds(30));
                    if (round >= 0)
                    {
                        micros.get(i).add((System.nanoTime() - start) / 1000);
                    }
                }
            }
            for (int i = 0; i < 3; i++)
            {
                final long[] sorted = micros.get(i).stream().mapToLong(Long::longValue).sorted().toArray();
                assertEquals(ROUNDS, sorted.length);
                System.out.printf("FIGURE login: one handshake with the %s: p50 %.2f ms, p90 %.2f ms (%d, alternating; " +
                    "load %s)%n", names[i], sorted[sorted.length / 2] / 1000.0, sorted[sorted.length * 9 / 10] / 1000.0,
                    sorted.length, Arrays.toString(loadAverage()));
            }
        }
    }

    private static String[] loadAverage() throws Exception
    {
        return java.nio.file.Files.readString(Path.of("/proc/loadavg")).split(" ", 4)[0].split(" ");
    }
}
