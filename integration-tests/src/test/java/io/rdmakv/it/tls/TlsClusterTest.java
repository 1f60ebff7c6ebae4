package io.rdmakv.it.tls;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.rdmakv.cli.Io;
import io.rdmakv.cli.RdmakvMain;
import io.rdmakv.cli.backup.BackupCommand;
import io.rdmakv.client.KvClient;
import io.rdmakv.it.cluster.LocalCluster;
import io.rdmakv.it.support.ServerProcess;
import io.rdmakv.it.support.TestTransport;
import io.rdmakv.transport.tls.TestCertificates;
import io.rdmakv.transport.tls.TlsSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A replicated cluster of node processes with mutual TLS on every control port and tcp connection: the test's
 * admin calls, a client's writes, the primaries' replication links to their backups (each node checks its peer's
 * certificate) and the backup tool all speak TLS 1.3. Each acknowledged write is on its primary and its backup: a
 * backup of every node, taken through TLS, holds every key twice in all.
 */
@Timeout(900)
class TlsClusterTest
{
    private static final int KEYS = 200;

    @TempDir
    Path tmp;

    @Test
    void shouldReplicateEveryWriteOverTls() throws Exception
    {
        final TestCertificates ca = TestCertificates.authority(tmp.resolve("pki"), "cluster");
        final TestCertificates.Pem node = ca.issue("node");
        final TestCertificates.Pem client = ca.issue("client");
        final TlsSettings clientTls = TlsSettings.of(client.cert(), client.key(), ca.caFile(), TlsSettings.Auth.NONE);
        try (LocalCluster cluster = LocalCluster.start(tmp.resolve("cluster"), 3, 1, 2000, clientTls,
            "tls.certFile", node.cert().toString(), "tls.keyFile", node.key().toString(),
            "tls.caFile", ca.caFile().toString(), "tls.clientAuth", "required"))
        {
            try (KvClient kv = KvClient.builder().servers(cluster.seeds()).transport("tcp")
                .tls(clientTls.caFile(), clientTls.certFile(), clientTls.keyFile())
                .connectTimeout(TestTransport.CONNECT_TIMEOUT).requestTimeout(Duration.ofSeconds(30)).build())
            {
                for (int i = 0; i < KEYS; i++)
                {
                    kv.put(("key-" + i).getBytes(StandardCharsets.UTF_8), ("value-" + i).getBytes(StandardCharsets.UTF_8));
                }
            }
            final List<String> tlsFlags = List.of("--tls-ca", ca.caFile().toString(), "--tls-cert",
                client.cert().toString(), "--tls-key", client.key().toString());
            long stored = 0;
            for (final ServerProcess p : cluster.nodes())
            {
                final ByteArrayOutputStream out = new ByteArrayOutputStream();
                final ByteArrayOutputStream err = new ByteArrayOutputStream();
                final List<String> args = new java.util.ArrayList<>(List.of("--server", p.seed(), "--json", "--out",
                    tmp.resolve("backup-" + p.seed().replace(':', '-')).toString()));
                args.addAll(tlsFlags);
                final int code = new CommandLine(new BackupCommand(new PrintStream(out, true), new PrintStream(err,
                    true))).execute(args.toArray(String[]::new));
                assertEquals(0, code, err.toString());
                stored += new ObjectMapper().readTree(out.toString()).get("keys").asLong();
            }
            assertEquals(2L * KEYS, stored, "every key on its primary and its one backup");

            final ByteArrayOutputStream out = new ByteArrayOutputStream();
            final ByteArrayOutputStream err = new ByteArrayOutputStream();
            final List<String> status = new java.util.ArrayList<>(List.of("cluster", "status", "--server",
                cluster.seeds().get(0), "--json"));
            status.addAll(tlsFlags);
            assertEquals(0, RdmakvMain.commandLine(new Io(System.in, new PrintStream(out, true), new PrintStream(err,
                true))).execute(status.toArray(String[]::new)), err.toString());
        }
    }
}
